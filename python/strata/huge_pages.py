"""Moves the memory a CPU module filled while loading onto transparent huge pages.

Why: IREE's CPU devices read a model's weights (the `.vmfb`'s constants, and the tiles strata's
initializers pack them into) from memory the runtime mallocs when the module loads, in 4 KiB
pages. A matmul streams megabytes of weights per call, and in a virtual machine every TLB miss
is a two-level page walk; on the 2-vCPU machines this project runs on, collapsing those pages
into 2 MiB ones made ResNet-18 and the GPT-2 block 7% and the MLP 9% faster per call
(test/benchmarks/README.md).

The runtime offers no hook into where it allocates, and the weights can land in fresh mappings
or in heap memory freed earlier. So the heap's free pages are first given back to the kernel
(`malloc_trim`), the process's 2 MiB spans of anonymous memory that are wholly resident are
noted, the module loads, and the kernel is asked (`MADV_COLLAPSE`, Linux 6.1) to collapse the
spans that have become wholly resident since: what the load wrote. A span the load touched only
in part (a thread stack, a reserved arena) is left alone and does not grow by a byte. Where the
kernel cannot (no THP, an older kernel, not Linux), nothing happens: huge pages are a speed-up,
never a requirement.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import mmap
import sys

_MADV_COLLAPSE = 25
_THP_ROOT = "/sys/kernel/mm/transparent_hugepage"
_LARGEST_REGION = 64 << 30  # address-space reservations, not memory: not worth a mincore
_RESIDENT_BIT = bytes(b & 1 for b in range(256))


@functools.cache
def huge_page_size() -> int:
    """The kernel's transparent huge page size in bytes, or 0 where huge pages are unavailable."""
    if sys.platform != "linux":
        return 0
    try:
        with open(f"{_THP_ROOT}/enabled") as f:
            if "[never]" in f.read():
                return 0
        with open(f"{_THP_ROOT}/hpage_pmd_size") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    return libc


def anonymous_mappings() -> list[tuple[int, int]]:
    """[start, end) of the process's private, writable, anonymous mappings, the heap included."""
    ranges = []
    with open("/proc/self/maps") as f:
        for line in f:
            # start-end perms offset dev inode [name]: files and [stack], [vvar]... have names.
            fields = line.split()
            if fields[1].startswith("rw") and fields[1][3] == "p" and fields[4] == "0":
                if len(fields) == 5 or fields[5] == "[heap]":
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    ranges.append((start, end))
    return ranges


def resident_spans(ranges: list[tuple[int, int]], span: int) -> set[int]:
    """Starts of the `span`-aligned spans inside `ranges` whose every page is resident."""
    libc, page = _libc(), mmap.PAGESIZE
    spans = set()
    for start, end in ranges:
        first, last = -(-start // span) * span, end // span * span
        if last <= first or last - first > _LARGEST_REGION:
            continue
        status = ctypes.create_string_buffer((last - first) // page)
        if libc.mincore(first, last - first, status) != 0:
            continue
        resident, per_span = status.raw.translate(_RESIDENT_BIT), span // page
        for index in range(0, len(resident), per_span):
            if b"\x00" not in resident[index : index + per_span]:
                spans.add(first + index * page)
    return spans


def collapse(spans: set[int], span: int) -> int:
    """Collapses the given spans, each run of adjacent ones in one call; returns bytes collapsed."""
    collapsed, runs = 0, []
    for start in sorted(spans):
        if runs and runs[-1][1] == start:
            runs[-1][1] = start + span
        else:
            runs.append([start, start + span])
    for start, end in runs:
        if _libc().madvise(start, end - start, _MADV_COLLAPSE) == 0:
            collapsed += end - start
        elif ctypes.get_errno() == 22:  # EINVAL: no MADV_COLLAPSE in this kernel
            break
    return collapsed


@contextlib.contextmanager
def collapse_new_memory():
    """Collapses onto huge pages the anonymous memory that the block fills."""
    span = huge_page_size()
    if not span:
        yield
        return
    malloc_trim = getattr(_libc(), "malloc_trim", None)
    if malloc_trim is not None:
        malloc_trim(0)
    try:
        before = resident_spans(anonymous_mappings(), span)
    except OSError:  # no /proc (a sandbox): load on 4 KiB pages
        before = None
    yield
    if before is not None:
        with contextlib.suppress(OSError):
            collapse(resident_spans(anonymous_mappings(), span) - before, span)
