"""Crash containment for the command-line tools: native crashes become one-line errors.

MLIR and IREE are C++; some inputs make them segfault or abort, which would kill the tool with a
bare signal. The tool's work runs in a forked child; the parent (which imports nothing native)
waits, and if the child dies from a signal it names the input and the pipeline that crashed and
writes a reproducer. The child reports what it is doing through a pipe as it goes, so the parent
knows which chunk and pipeline were running. Forking costs about a millisecond; see
`test/tools/strata-opt/` for the behaviour and the benchmark for the cost.
"""

from __future__ import annotations

import os
import signal
import sys


class CrashContext:
    """What the child last said it was doing; filled from the pipe by the parent."""

    def __init__(self):
        self.fields: dict[str, str] = {}


class Reporter:
    """The child's side of the pipe: `report(key, value)` records progress for a crash report."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def report(self, key: str, value: str) -> None:
        if self.fd is None:
            return
        line = f"{key}\t{value}".replace("\n", "\\n") + "\n"
        os.write(self.fd, line.encode())


def run_guarded(work, on_crash) -> int:
    """Runs `work(reporter) -> exit code` in a child; `on_crash(signal_name, context)` on a crash.

    Where fork is unavailable the work runs in-process, unguarded.
    """
    if not hasattr(os, "fork"):
        return work(Reporter(None))
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        code = 1
        try:
            code = work(Reporter(write_fd))
        except KeyboardInterrupt:
            code = 130
        except BaseException:  # a bug in strata: keep its traceback, os._exit would drop it
            import traceback  # here: it costs every run a few ms of start-up

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(write_fd)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child handles Ctrl-C itself
    try:
        context = CrashContext()
        with os.fdopen(read_fd, "rb") as pipe:
            for raw in pipe:
                key, _, value = raw.decode(errors="replace").rstrip("\n").partition("\t")
                context.fields[key] = value.replace("\\n", "\n")
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, previous)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGINT:
            return 130
        return on_crash(signal.Signals(number).name, context)
    return os.WEXITSTATUS(status)
