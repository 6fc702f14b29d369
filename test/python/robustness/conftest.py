"""Shared pieces of the bad-input suite: running a tool as a user does, judging its error, and
one small compiled model that the runtime cases share (compiling costs seconds, so once).

The model is the one the strata-run fuzzer builds (test/fuzz/fuzz_run.py), so that the fuzzer's
saved regressions replay against the same signature: inputs 2x64xf32 and 2x32xf32, weights in a
parameter archive.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "test" / "fuzz"))
import fuzz_run  # noqa: E402

MODEL_SOURCE = fuzz_run.MODEL_SOURCE
MODEL_INPUTS = ["--input=2x64xf32=1", "--input=2x32xf32=0.5"]


def run_tool(tool: str, *args, timeout: float = 900, cwd=None, input: bytes | None = None):
    """Runs `tools/<tool>` from this checkout with the project's Python; returns the process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, str(ROOT / "tools" / tool), *map(str, args)], capture_output=True,
                          timeout=timeout, cwd=cwd, env=env, input=input)


def assert_one_line_error(proc, tool: str, pattern: str) -> str:
    """Exit 1, no traceback, one `<tool>: error:` line matching `pattern` (notes may follow)."""
    err = proc.stderr.decode(errors="replace")
    assert "Traceback" not in err, err
    assert proc.returncode == 1, (proc.returncode, err)
    errors = [line for line in err.splitlines() if line.startswith(f"{tool}: error:")]
    assert len(errors) == 1, err
    assert re.search(pattern, errors[0]), errors[0]
    others = [line for line in err.splitlines() if line.strip() and not line.startswith(f"{tool}: ")]
    assert not others, err
    return errors[0]


@pytest.fixture(scope="session")
def model_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "net.py"
    path.write_text(MODEL_SOURCE)
    return path


@pytest.fixture(scope="session")
def compiled(tmp_path_factory) -> tuple[Path, Path]:
    """(vmfb, irpa) of the model above, built once by strata-compile."""
    return fuzz_run.build_module(tmp_path_factory.mktemp("compiled"))
