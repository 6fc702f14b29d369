"""Keeps the memory a call frees in glibc's heap, so that the next call reuses it.

Why: a compiled model's calls allocate and free the same buffers every time (IREE's CPU devices
malloc each call's inputs, results and transients; the upstream route's code mallocs its
buffers). glibc serves blocks over its mmap threshold (128 KiB, raised on its own up to 32 MiB)
from fresh mappings and unmaps them when they are freed, and trims freed memory off the top of
the heap, so every call page-faulted and zeroed its megabytes again. On the 2-vCPU machines this
project runs on, that was two thirds of a call on large tensors: layer norm over 32 x 512 x 768
floats 110 -> 36 ms per call on IREE's local-sync device, a 1024^3 matmul on the upstream route
71 -> 84 GFLOP/s (test/benchmarks/README.md).

Raising both thresholds to 256 MiB keeps freed blocks up to that size for reuse; larger ones
still come and go with mmap. The setting is the process's: freed memory then stays resident
until the process reuses it or calls `malloc_trim` (which `strata.huge_pages` does before a
module loads). Where the C library has no `mallopt` (not glibc), nothing changes.
"""

from __future__ import annotations

import ctypes

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
KEEP_BELOW = 256 << 20
_done = False


def keep_freed_buffers() -> None:
    """Let glibc keep freed blocks under `KEEP_BELOW` bytes for reuse; once per process."""
    global _done
    if _done:
        return
    _done = True
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_MMAP_THRESHOLD, KEEP_BELOW)
        mallopt(_M_TRIM_THRESHOLD, KEEP_BELOW)
