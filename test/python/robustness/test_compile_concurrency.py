"""strata-compile run several times at once, and interrupted with Ctrl-C.

Several processes writing the same `.vmfb` and `.irpa` leave a valid pair, never a mix; Ctrl-C
during compilation exits 130 and leaves neither a partial output nor a temporary file nor a
running iree-compile behind.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

from conftest import MODEL_INPUTS, ROOT, run_tool


def start_compile(model_file, out: Path, params: Path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    # As from a terminal: SIGINT at its default disposition. A suite started in the background of a
    # non-interactive shell inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    return subprocess.Popen([sys.executable, str(ROOT / "tools" / "strata-compile"), f"{model_file}:Net", "-o", str(out),
                             "--params", str(params), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def leftovers(directory: Path) -> list[str]:
    return [p for p in os.listdir(directory) if p.startswith(".strata-tmp-")]


def expected_outputs(model_file):
    namespace = {}
    exec(compile(model_file.read_text(), str(model_file), "exec"), namespace)
    x, y = torch.ones(2, 64), torch.full((2, 32), 0.5)
    return [r.detach().numpy() for r in namespace["Net"]()(x, y)]


def test_concurrent_compiles_to_the_same_files(model_file, tmp_path):
    out, params = tmp_path / "net.vmfb", tmp_path / "net.irpa"
    procs = [start_compile(model_file, out, params) for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=1200)
        assert proc.returncode == 0, err.decode()
    assert not leftovers(tmp_path)
    results = tmp_path / "results"
    results.mkdir()
    run = run_tool("strata-run", f"--module={out}", f"--parameters={params}", *MODEL_INPUTS,
                   f"--output=@{results}/0.npy", f"--output=@{results}/1.npy")
    assert run.returncode == 0, run.stderr.decode()
    for index, expected in enumerate(expected_outputs(model_file)):
        np.testing.assert_allclose(np.load(results / f"{index}.npy"), expected, rtol=1e-5, atol=1e-5)


def _compilers(pid: int) -> list[int]:
    """Running iree-compile processes among `pid`'s children (another short-lived child, a zombie
    about to be reaped, or a compiler that has already finished would make Ctrl-C land too early
    or too late)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    running = []
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"iree-compile" in command and state != "Z":
            running.append(int(child))
    return running


def test_ctrl_c_during_compilation(model_file, tmp_path):
    out, params = tmp_path / "net.vmfb", tmp_path / "net.irpa"
    proc = start_compile(model_file, out, params)
    deadline = time.monotonic() + 600
    while not _compilers(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # iree-compile runs as a child: wait until compilation proper has begun
    compiler = _compilers(proc.pid)
    assert compiler, "strata-compile finished or stalled before iree-compile started"
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does on Ctrl-C: the whole foreground group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err.decode())
    assert b"Traceback" not in err, err.decode()
    assert not out.exists() and not params.exists()
    assert not leftovers(tmp_path)
    for pid in compiler:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
