"""Peak-memory measurement: this process's growth is exact, children started inside the block are
counted, and a child that was already running (another engine's worker pool) is not."""

import subprocess
import sys
import time

import pytest

from strata.bench.measure import PeakMemory, Stats, calls_per_block

MIB = 1 << 20


def _hold(mib: int, seconds: float) -> list[str]:
    return [sys.executable, "-c", f"import time; a = bytearray({mib} << 20); time.sleep({seconds})"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_peak_memory_counts_own_growth_and_new_children_only():
    older = subprocess.Popen(_hold(300, 3.0))
    try:
        time.sleep(0.5)
        with PeakMemory() as memory:
            subprocess.run(_hold(200, 0.4), check=True)
            block = bytearray(100 * MIB)
            block[:: 4096] = b"x" * len(block[:: 4096])  # touch every page
            del block
        result = memory.result
        assert result is not None
        assert 95 <= result.growth_mib <= 150
        assert result.peak_mib >= result.growth_mib
        assert 190 <= result.children_peak_mib < 290  # the 300 MiB older child is not counted
    finally:
        older.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_children_count_from_their_exec():
    """A child between fork and exec maps this process's pages (its RSS is ours): under load that
    window was sampled and a 200 MiB child counted as 434 MiB. Here it lasts 0.3 s, with 300 MiB
    of ours to see."""
    ballast = bytearray(300 * MIB)
    ballast[:: 4096] = b"x" * len(ballast[:: 4096])
    with PeakMemory() as memory:
        subprocess.run(_hold(50, 0.3), check=True, preexec_fn=lambda: time.sleep(0.3))
    del ballast
    assert memory.result is not None
    assert 40 <= memory.result.children_peak_mib < 150


def test_stats_and_block_sizing():
    stats = Stats.of([3.0, 1.0, 2.0])
    assert (stats.median, stats.min, stats.max) == (2.0, 1.0, 3.0)
    assert calls_per_block(0.001, 0.02) == 20
    assert calls_per_block(1.0, 0.02) == 1
    assert calls_per_block(1e-9, 0.02) == 1000
