"""Timing statistics and per-engine peak memory, measured inside one process.

Peak memory: Linux keeps a process's resident high-water mark (VmHWM) and lets the process reset
it by writing "5" to /proc/self/clear_refs. Resetting before an engine compiles and reading the
mark after its first call gives the peak RSS of that engine's compile and first run, even though
every engine shares the process. What this does not see: memory of child processes (none are
used: inductor is set to compile in-process) and memory an earlier engine still holds, which is
part of the baseline. On a system without clear_refs the figures are reported as unknown.
"""

import gc
import statistics
import time
from dataclasses import dataclass

_KIB = 1024


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class Memory:
    """Peak RSS while a block ran (MiB), and how far it rose above the RSS at the block's start."""

    peak_mib: float
    growth_mib: float


class PeakMemory:
    """Context manager measuring the process's peak RSS over its block; `.result` is a Memory or None."""

    def __enter__(self):
        self.result = None
        self._start = _status_kib("VmRSS")
        self._armed = self._start is not None and _reset_peak_rss()
        return self

    def __exit__(self, *exc):
        peak = _status_kib("VmHWM") if self._armed else None
        if peak is not None:
            self.result = Memory(peak / _KIB, max(0, peak - self._start) / _KIB)
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
