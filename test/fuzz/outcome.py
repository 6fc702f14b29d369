"""How a fuzzer runs a tool, judges what came back, and keeps what went wrong as a regression.

A run is clean when the tool exits 0, or exits 1 with a `<tool>: error:` line, no traceback and
no output file; a native crash that strata's crash guard reports (one error line plus a
`note: reproduce with:` line naming a reproducer that exists) is clean too, but still worth
keeping, since it is a crash in MLIR or IREE. Everything else is a defect: a Python traceback, a
death by signal, a hang, a non-zero exit with nothing said, or output left behind by a failure.

Each finding is saved under `test/fuzz/regressions/` as `<name>.json` (tool, arguments, what was
seen) next to the input that caused it; `test/python/robustness/test_fuzz_regressions.py`
replays every one of them through the real tool and requires a clean outcome.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
HANG_SECONDS = 10.0
DEFECTS = ("traceback", "signal", "hang", "silent-failure", "partial-output", "bad-exit", "uncontained-crash")


@dataclass
class Result:
    returncode: int | None  # None when killed by a signal or timed out
    signal_name: str | None
    stderr: str
    seconds: float
    timed_out: bool
    output_left: bool  # an -o file exists after a failing run


@dataclass
class Finding:
    kind: str  # "ok" (exit 0), "rejected" (a clean error), "contained-crash", or one of DEFECTS
    signature: str  # what makes two findings the same bug

    @property
    def is_defect(self) -> bool:
        return self.kind in DEFECTS


def judge(result: Result, tool: str) -> Finding:
    err = result.stderr
    if result.timed_out:
        return Finding("hang", "hang")
    if result.signal_name:
        return Finding("signal", f"signal {result.signal_name}")
    if "Traceback (most recent call last)" in err:
        lines = [line.strip() for line in err.splitlines() if line.strip()]
        frames = [line for line in lines if line.startswith("File ")]
        where = re.sub(r", line \d+", "", frames[-1]) if frames else ""
        return Finding("traceback", f"{lines[-1].split(':')[0]} at {where}")
    if result.returncode not in (0, 1, 2):  # 2: argparse's usage errors
        return Finding("bad-exit", f"exit {result.returncode}")
    if result.returncode == 0:
        return Finding("ok", "ok")
    if result.output_left:
        return Finding("partial-output", "output left by a failing run")
    crash = re.search(r"crashed \((SIG\w+)\) while (.*?) on '", err)
    if crash:
        repro = re.search(r"note: reproduce with: .* (\S+)$", err, re.MULTILINE)
        if not repro or not os.path.exists(repro.group(1)):
            return Finding("uncontained-crash", f"{crash.group(1)} {crash.group(2)}: no reproducer")
        return Finding("contained-crash", f"{crash.group(1)} while {crash.group(2)}")
    if f"{tool}: error:" not in err and ": error:" not in err:
        return Finding("silent-failure", "non-zero exit without an error line")
    return Finding("rejected", "rejected")


def _wait(pid: int, timeout: float) -> tuple[int | None, str | None, bool]:
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.WIFSIGNALED(status):
                return None, signal.Signals(os.WTERMSIG(status)).name, False
            return os.WEXITSTATUS(status), None, False
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None, None, True
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def run_forked(main, argv: list[str], workdir: Path, timeout: float = HANG_SECONDS) -> Result:
    """Runs `main(argv)` (a tool's entry point, already imported) in a forked child.

    The fuzzer imports the tool's modules once and forks per input, which is many times faster
    than starting Python each time; the child does what `tools/<tool>` does, including printing
    a traceback for an exception that escapes `main`. The child leads its own process group so
    a hang is killed together with any process the tool forked itself.
    """
    err_path = workdir / "stderr"
    err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)  # exists even if the child never runs
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            os.setpgid(0, 0)
            tempfile.tempdir = str(workdir)  # reproducers land in the work folder, not in /tmp
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)
            os.dup2(err_fd, 2)
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(err_fd)
    rc, sig, timed_out = _wait(pid, timeout)
    return Result(rc, sig, err_path.read_text(errors="replace"), time.monotonic() - start, timed_out, False)


def run_subprocess(tool: str, argv: list[str], workdir: Path, timeout: float = HANG_SECONDS,
                   stdin: bytes | None = None) -> Result:
    """Runs `tools/<tool>` as a user would, with reproducers written under `workdir`."""
    env = dict(os.environ, TMPDIR=str(workdir), PYTHONPATH=str(ROOT / "python"))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tools" / tool), *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        _, err = proc.communicate(stdin or b"", timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Result(None, None, "", time.monotonic() - start, True, False)
    sig = signal.Signals(-proc.returncode).name if proc.returncode < 0 else None
    rc = None if sig else proc.returncode
    return Result(rc, sig, err.decode(errors="replace"), time.monotonic() - start, False, False)


def confirm(tool: str, argv: list[str], workdir: Path, output: Path, tries: int = 3) -> tuple[Finding, Result]:
    """Judges a run of the real tool; a hang counts only if it times out `tries` times in a row.

    On a shared, loaded machine a slow run can pass the 10 s limit once without hanging.
    """
    for _ in range(tries):
        result = run_subprocess(tool, argv, workdir)
        result.output_left = result.returncode not in (0, None) and output.exists()
        finding = judge(result, tool)
        if finding.kind != "hang":
            break
    return finding, result


def fill(args: list[str], paths: dict[str, Path]) -> list[str]:
    """Replaces `{input}`, `{output}` and other placeholders in `args` with paths."""
    filled = []
    for arg in args:
        for key, path in paths.items():
            arg = arg.replace("{" + key + "}", str(path))
        filled.append(arg)
    return filled


def save_regression(tool: str, args: list[str], data: bytes, suffix: str, finding: Finding, result: Result,
                    found_by: str, directory: Path = REGRESSIONS) -> Path:
    """Writes `<tool>-<kind>-<hash>{suffix}` and its `.json`; returns the json path."""
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(data + "\0".join(args).encode()).hexdigest()[:10]
    name = f"{tool}-{finding.kind}-{digest}"
    (directory / f"{name}{suffix}").write_bytes(data)
    record = {
        "tool": tool,
        "args": args,
        "input": f"{name}{suffix}",
        "found_by": found_by,
        "seen": asdict(finding),
        "stderr_tail": result.stderr[-2000:],
        "seconds": round(result.seconds, 2),
    }
    path = directory / f"{name}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


def replay(record_path: Path, workdir: Path, paths: dict[str, Path] | None = None) -> tuple[Finding, Result]:
    """Runs a saved regression through the real tool; returns what it does now.

    `paths` supplies placeholders other than `{input}` and `{output}`, such as the `{module}` a
    strata-run finding ran.
    """
    record = json.loads(record_path.read_text())
    input_path = workdir / record["input"]
    shutil.copyfile(record_path.parent / record["input"], input_path)
    output = workdir / "out"
    result = run_subprocess(record["tool"], fill(record["args"], {"input": input_path, "output": output, "workdir": workdir, **(paths or {})}),
                            workdir)
    if result.returncode not in (0, None) and output.exists():
        result.output_left = True
    return judge(result, record["tool"]), result
