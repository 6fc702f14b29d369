"""Every input the fuzzers saved (test/fuzz/regressions/) now gets a clean outcome from the real tool.

A contained native crash counts as clean; a traceback, a signal, a hang, a silent failure or a
leftover output file does not (see test/fuzz/outcome.py).
"""

import json
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "test" / "fuzz"))
import outcome  # noqa: E402

RECORDS = sorted(outcome.REGRESSIONS.glob("*.json"))


@pytest.mark.parametrize("record", RECORDS, ids=[p.stem for p in RECORDS])
def test_saved_input_is_handled_cleanly(record, tmp_path, request):
    saved = json.loads(record.read_text())
    paths = {}
    if saved["tool"] == "strata-run":
        vmfb, params = request.getfixturevalue("compiled")
        paths = {"module": vmfb, "params": params}
    finding, result = outcome.replay(record, tmp_path, paths)
    assert not finding.is_defect, f"{finding.kind} ({finding.signature}) with {' '.join(saved['args'])}:\n{result.stderr}"
