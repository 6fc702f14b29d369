"""CPU devices read a call's inputs where they lie instead of copying them, where that is safe."""

import subprocess
import sys

import numpy as np
import pytest
import torch

import strata
from strata.iree_runtime import IMPORT_ALIGNMENT, LoadedModule

SHAPE = (1024, 1024)  # 4 MiB


class RowSums(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


class Identity(torch.nn.Module):
    def forward(self, x):
        return x


@pytest.fixture(scope="module")
def row_sums():
    vmfb = strata.compile(RowSums(), (torch.ones(SHAPE),)).vmfb
    # Without the caching allocator: it would serve a copy of the input from its cache too.
    return LoadedModule(vmfb, "local-sync", reuse_freed_memory=False)


def _aligned(shape) -> np.ndarray:
    """A float32 array on a 64-byte boundary, filled with 0, 1, 2, ..., 96, 0, 1, ..."""
    count = int(np.prod(shape))
    raw = np.empty(count + 64, np.float32)
    start = (-raw.ctypes.data % IMPORT_ALIGNMENT) // 4
    array = raw[start : start + count].reshape(shape)
    array[...] = np.arange(count, dtype=np.float32).reshape(shape) % 97
    return array


def _allocated(module) -> int:
    stats = module.device.allocator.statistics
    return stats["device_bytes_allocated"] + stats["host_bytes_allocated"]


def test_an_aligned_input_is_not_copied(row_sums):
    """The device allocates the 4 KiB result, not a 4 MiB copy of the input."""
    if not row_sums.device.allocator.has_statistics:
        pytest.skip("this IREE runtime keeps no allocator statistics")
    x = _aligned(SHAPE)
    main = row_sums.function("main")
    main(x)
    before = _allocated(row_sums)
    (sums,) = main(x)
    assert _allocated(row_sums) - before < x.nbytes // 4
    np.testing.assert_allclose(sums, x.sum(axis=1), rtol=1e-6)


@pytest.mark.parametrize("kind", ["read-only", "strided"])
def test_inputs_that_cannot_be_read_in_place_are_copied(row_sums, kind):
    """A read-only array is copied; a strided one is made contiguous by the call first. (A
    misaligned input: below, in a process of its own.)"""
    x = _aligned(SHAPE) if kind == "read-only" else _aligned((SHAPE[0], 2 * SHAPE[1]))[:, ::2]
    x.flags.writeable = kind != "read-only"
    (sums,) = row_sums.function("main")(x)
    np.testing.assert_allclose(sums, x.sum(axis=1), rtol=1e-6)


_MISALIGNED = """
import numpy as np, torch, strata
from strata.iree_runtime import LoadedModule
vmfb = strata.compile(torch.nn.Softmax(dim=-1), (torch.ones(64, 512),)).vmfb
main = LoadedModule(vmfb, "local-sync").function("main")
raw = np.empty(64 * 512 + 64, np.float32)
start = (-raw.ctypes.data % 64 + 16) // 4
x = raw[start : start + 64 * 512].reshape(64, 512)
x[...] = 1.0
print(float(main.fast_invoker()([x])[0][0, 0]))
"""


def test_a_misaligned_input_does_not_crash_the_kernels():
    """IREE's kernels load their buffers with aligned vector loads: a misaligned input read in
    place crashes the process (SIGSEGV), so it must be copied. In a process of its own."""
    result = subprocess.run([sys.executable, "-c", _MISALIGNED], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert float(result.stdout) == pytest.approx(1 / 512)


def test_a_result_in_the_input_buffer_does_not_alias_the_callers_array():
    vmfb = strata.compile(Identity(), (torch.ones(SHAPE),)).vmfb
    main = LoadedModule(vmfb, "local-sync").function("main")
    x = _aligned(SHAPE)
    (y,) = main(x)
    x[...] = -1.0
    assert y[0, 1] == 1.0 and not np.may_share_memory(x, y)


def test_a_call_leaves_its_inputs_unchanged(row_sums):
    x = _aligned(SHAPE)
    kept = x.copy()
    for _ in range(3):
        row_sums.function("main")(x)
    np.testing.assert_array_equal(x, kept)
