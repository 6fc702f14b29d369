"""A short, fixed-seed run of each fuzzer: it must stop by itself and find no defect.

The long runs are documented in test/fuzz/fuzz_opt.py and test/fuzz/fuzz_run.py.
"""

import json
import subprocess
import sys

from conftest import ROOT

FUZZ = ROOT / "test" / "fuzz"


def run_fuzzer(script, out, *args):
    proc = subprocess.run([sys.executable, str(FUZZ / script), "--out", str(out), "--no-save", *args],
                          capture_output=True, text=True, timeout=600)
    summary = json.loads((out / "summary.json").read_text())
    return proc, summary


def test_fuzz_opt_short_run(tmp_path):
    proc, summary = run_fuzzer("fuzz_opt.py", tmp_path, "--seconds", "20", "--count", "200", "--seed", "7")
    assert summary["tried"] >= 10, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fuzz_run_short_run(tmp_path, compiled):
    vmfb, params = compiled
    proc, summary = run_fuzzer("fuzz_run.py", tmp_path, "--seconds", "20", "--count", "200", "--seed", "7",
                               "--module", str(vmfb), "--parameters", str(params))
    assert summary["tried"] >= 10, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
