"""strata.huge_pages: memory made while loading is collapsed onto huge pages, nothing else is."""

import ctypes
import mmap
import subprocess
import sys

import pytest

from strata import huge_pages
from strata.huge_pages import collapse_new_memory

MiB = 1 << 20


def _smaps(address: int, field: str) -> int:
    """`field` (kB) of the mapping that holds `address`, from /proc/self/smaps."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside and head == f"{field}:":
                return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


class _Region:
    """A private anonymous mapping, as malloc makes for a large block, between two inaccessible
    guard pages: otherwise the kernel may merge it with a neighbouring anonymous mapping (once the
    heap's thresholds are raised, a large one), and smaps would count the neighbour's pages too."""

    def __init__(self, size: int):
        page = mmap.PAGESIZE
        self.map = mmap.mmap(-1, size + 2 * page, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        self._pointer = ctypes.c_char.from_buffer(self.map)
        base = ctypes.addressof(self._pointer)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        for guard in (base, base + page + size):
            assert libc.mprotect(guard, page, 0) == 0, ctypes.get_errno()  # PROT_NONE
        self.address, self.size, self._offset = base + page, size, page

    def fill(self):
        self.map[self._offset : self._offset + self.size] = b"\x01" * self.size

    def touch(self):
        """Makes the first page resident, nothing else."""
        self.map[self._offset] = 1

    def smaps(self, field: str) -> int:
        return _smaps(self.address, field)

    def close(self):
        del self._pointer
        self.map.close()


def _kernel_collapses() -> bool:
    """Whether this kernel collapses anonymous memory on request (THP on, Linux >= 6.1)."""
    if not huge_pages.huge_page_size():
        return False
    region = _Region(4 * huge_pages.huge_page_size())
    region.fill()
    start = -(-region.address // huge_pages.huge_page_size()) * huge_pages.huge_page_size()
    libc = huge_pages._libc()
    ok = libc.madvise(start, huge_pages.huge_page_size(), 25) == 0
    region.close()
    return ok


needs_collapse = pytest.mark.skipif(not _kernel_collapses(), reason="this kernel does not collapse memory onto huge pages")


@needs_collapse
def test_memory_filled_inside_the_block_is_collapsed():
    with collapse_new_memory():
        region = _Region(8 * MiB)
        region.fill()
    try:
        # An 8 MiB mapping holds at least three whole aligned 2 MiB spans, all resident.
        assert region.smaps("AnonHugePages") >= 6 * 1024
    finally:
        region.close()


@needs_collapse
def test_memory_the_block_made_but_did_not_fill_does_not_grow():
    """A thread stack or a reserved arena: collapsing it would make it resident."""
    with collapse_new_memory():
        region = _Region(8 * MiB)
        region.touch()
    try:
        assert region.smaps("AnonHugePages") == 0
        assert region.smaps("Rss") <= 8
    finally:
        region.close()


@needs_collapse
def test_memory_from_before_the_block_is_left_alone():
    region = _Region(8 * MiB)
    region.fill()
    try:
        with collapse_new_memory():
            pass
        assert region.smaps("AnonHugePages") == 0
    finally:
        region.close()


def _anon_huge_kb() -> int:
    with open("/proc/self/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))


_LOAD_TWICE = """
import sys
import numpy as np
from strata.iree_runtime import LoadedModule

def anon_huge_kb():
    with open("/proc/self/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))

vmfb = open(sys.argv[1], "rb").read()
x = np.ones((8, 1024), np.float32)
before = anon_huge_kb()
small = LoadedModule(vmfb, "local-sync", huge_pages=False)
after_small = anon_huge_kb()
huge = LoadedModule(vmfb, "local-sync")
after_huge = anon_huge_kb()
np.testing.assert_array_equal(huge.function("main")(x)[0], small.function("main")(x)[0])
print(after_small - before, after_huge - after_small)
"""


@needs_collapse
def test_a_loaded_cpu_module_has_its_weights_on_huge_pages(tmp_path):
    """8 MiB of weights; `huge_pages=False` keeps them on 4 KiB pages, with the same results. In a
    process of its own: the process's huge-page total is the measure, and the heap trim before a
    load splits huge pages that earlier tests made and freed."""
    import torch

    import strata

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024)).eval()
    path = tmp_path / "mlp.vmfb"
    path.write_bytes(strata.compile(model, (torch.randn(8, 1024),), target="llvm-cpu").vmfb)
    result = subprocess.run([sys.executable, "-c", _LOAD_TWICE, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    small_kb, huge_kb = map(int, result.stdout.split())
    assert small_kb == 0
    assert huge_kb >= 4 * 1024


_HEAP_REUSE = """
import ctypes
from strata.huge_pages import _libc, collapse_new_memory

def anon_huge_kb():
    with open("/proc/self/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))

libc = _libc()
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
# As the upstream route's loading leaves glibc (strata.upstream.engine): 8 MiB blocks come
# from the heap (M_MMAP_THRESHOLD) and stay there, resident, when freed (M_TRIM_THRESHOLD).
libc.mallopt(-3, 256 << 20)
libc.mallopt(-1, 256 << 20)
block = libc.malloc(8 << 20)
ctypes.memset(block, 1, 8 << 20)
libc.free(block)
before = anon_huge_kb()
with collapse_new_memory():
    block = libc.malloc(8 << 20)
    ctypes.memset(block, 2, 8 << 20)
print(anon_huge_kb() - before)
"""


@needs_collapse
def test_heap_memory_freed_before_and_refilled_in_the_block_is_collapsed():
    """The weights can land in heap memory that was freed earlier and is still resident. In a
    process of its own: the trim would split huge pages that earlier tests made and freed."""
    result = subprocess.run([sys.executable, "-c", _HEAP_REUSE], capture_output=True, text=True, check=True)
    assert int(result.stdout) >= 6 * 1024


def test_without_proc_the_block_runs_and_nothing_is_collapsed(monkeypatch):
    """Huge pages are a speed-up, never a requirement: no /proc/self/maps is no error."""

    def no_proc():
        raise FileNotFoundError("/proc/self/maps")

    monkeypatch.setattr(huge_pages, "anonymous_mappings", no_proc)
    monkeypatch.setattr(huge_pages, "collapse", lambda spans, span: pytest.fail("collapsed without /proc"))
    ran = []
    with collapse_new_memory():
        ran.append(True)
    assert ran == [True]
