"""numpy's OpenBLAS in strata-bench: the kernel it runs is the one OpenBLAS picks for this CPU, not
one forced through the environment, and the run records which it was."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from strata.bench import openblas

ROOT = Path(__file__).resolve().parents[3]
# A kernel OpenBLAS never picks on a CPU with AVX2 (every machine strata runs on).
FORCED = {"OPENBLAS_CORETYPE": "Core2", "OPENBLAS_L2_SIZE": "262144"}


def _python(code: str, *, env: dict, timeout: float = 120) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "python"), **env))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def forced_core() -> str:
    """What numpy's OpenBLAS reports when the variables are left in place: not its own pick, or
    the test below could not tell the two apart."""
    core = _python("import numpy; from strata.bench import openblas; print(openblas.describe()['core'])",
                   env=FORCED).strip()
    own = _python("import numpy; from strata.bench import openblas; print(openblas.describe()['core'])",
                  env={}).strip()
    assert core and own and core != own, (core, own)
    return core


def test_describe_reads_the_loaded_library():
    import numpy  # noqa: F401  (loads OpenBLAS)

    info = openblas.describe()
    assert info["name"] and info["version"]
    assert info["core"]  # numpy's wheels bundle OpenBLAS, so its core is readable
    assert isinstance(info["threads"], int) and info["threads"] >= 1


def test_release_removes_both_variables(monkeypatch):
    monkeypatch.setattr(openblas, "_released", {})
    for name, value in FORCED.items():
        monkeypatch.setenv(name, value)
    assert openblas.release_forced_kernel() == FORCED
    assert not any(name in os.environ for name in FORCED)


def test_summary_line():
    info = {"name": "scipy-openblas", "version": "0.3.31", "core": "Zen", "threads": 2,
            "ignored_environment": {"OPENBLAS_CORETYPE": "Haswell"}}
    assert openblas.summary_line(info) == "numpy: scipy-openblas 0.3.31, core Zen, 2 threads (ignored OPENBLAS_CORETYPE=Haswell)"
    info |= {"core": None, "threads": 1, "ignored_environment": {}}
    assert openblas.summary_line(info) == "numpy: scipy-openblas 0.3.31, 1 thread"


def test_bench_runs_numpy_on_its_own_kernel(tmp_path, forced_core):
    out = tmp_path / "matmul.json"
    code = (f"import sys; from strata.tools.bench import main; sys.exit(main(['--filter', 'matmul-1024', "
            f"'--engines', 'numpy', '--repeat', '1', '--warmup', '0', '--threads', '1', '--json', {str(out)!r}]))")
    table = _python(code, env=FORCED)
    blas = json.loads(out.read_text())["machine"]["numpy_blas"]
    assert blas["core"] and blas["core"] != forced_core
    assert blas["ignored_environment"] == FORCED
    assert f"core {blas['core']}, 1 thread (ignored OPENBLAS_CORETYPE=Core2 OPENBLAS_L2_SIZE=262144)" in table
