"""Timing statistics and per-engine peak memory, measured inside one process.

Peak memory has two parts, because some engines compile in child processes (`iree.compiler` runs
the `iree-compile` executable):
- this process: Linux keeps its resident high-water mark (VmHWM) and lets the process reset it by
  writing "5" to /proc/self/clear_refs. Resetting before an engine compiles and reading the mark
  after its first call gives the exact peak RSS of that engine's compile and first run, even
  though every engine shares the process; the growth over the RSS at the start is what the engine
  added (memory an earlier engine still holds is part of the baseline);
- child processes: the summed RSS of the descendants started during the block (`iree-compile`;
  not worker pools an earlier engine left running), sampled every 5 ms, so a spike shorter than
  that can be missed.
Without /proc (not Linux) the figures are reported as unknown.
"""

import gc
import os
import statistics
import threading
import time
from dataclasses import dataclass

_KIB = 1024
_SAMPLE_SECONDS = 0.005


def _status_kib(field: str, pid: str = "self") -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return 0  # kernel threads and zombies have no VmRSS line


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            pending += children
    return found


def _cmdline(pid: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def _children_rss_kib(exclude: set[int]) -> int:
    """The summed RSS of this process's descendants not in `exclude`. A child between fork and
    exec still runs this process's command line and maps this process's pages: its RSS is ours
    (hundreds of MiB with torch loaded), so it is not counted until it execs."""
    own = _cmdline("self")
    return sum(
        _status_kib("VmRSS", str(pid)) or 0
        for pid in _descendants(os.getpid())
        if pid not in exclude and _cmdline(str(pid)) != own
    )


@dataclass(frozen=True)
class Memory:
    """MiB: this process's peak RSS over a block, its rise over the RSS at the block's start, and
    the largest sampled sum of the RSS of child processes started during the block."""

    peak_mib: float
    growth_mib: float
    children_peak_mib: float


class PeakMemory:
    """Context manager measuring peak RSS over its block; `.result` is a Memory or None."""

    def __enter__(self):
        self.result = None
        self._start = _status_kib("VmRSS")
        self._armed = self._start is not None and _reset_peak_rss()
        self._children_peak = 0
        self._older_children = set(_descendants(os.getpid()))
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample_children, daemon=True)
        if self._armed:
            self._sampler.start()
        return self

    def _sample_children(self):
        while not self._done.wait(_SAMPLE_SECONDS):
            self._children_peak = max(self._children_peak, _children_rss_kib(self._older_children))

    def __exit__(self, *exc):
        self._done.set()
        if self._armed:
            self._sampler.join()
            peak = _status_kib("VmHWM")
            if peak is not None:
                self.result = Memory(
                    peak / _KIB, max(0, peak - self._start) / _KIB, self._children_peak / _KIB
                )
        return False


@dataclass(frozen=True)
class Stats:
    """Per-call latency over the repetitions, in seconds."""

    median: float
    min: float
    max: float
    samples: tuple[float, ...]

    @classmethod
    def of(cls, samples) -> "Stats":
        samples = tuple(samples)
        return cls(statistics.median(samples), min(samples), max(samples), samples)


def time_block(call, calls: int) -> float:
    """Seconds per call of `calls` back-to-back calls, with the garbage collector paused."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(calls):
            call()
        return (time.perf_counter() - start) / calls
    finally:
        if gc_was_enabled:
            gc.enable()


def calls_per_block(seconds_per_call: float, block_seconds: float, limit: int = 1000) -> int:
    """How many calls make one timed block last about `block_seconds` (timer resolution, call noise)."""
    if seconds_per_call <= 0:
        return limit
    return max(1, min(limit, round(block_seconds / seconds_per_call)))


def geomean(values) -> float:
    values = list(values)
    return statistics.geometric_mean(values) if values else float("nan")
