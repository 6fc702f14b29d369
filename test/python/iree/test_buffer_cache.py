"""On local-sync a call's results and transients are buffers earlier calls freed, handed over
as they are: IREE's heap allocator would zero-fill fresh ones every call."""

import numpy as np
import pytest
import torch

import strata
from strata.iree_runtime import LoadedModule


class TwoStages(torch.nn.Module):
    """A result and an intermediate (transient) buffer."""

    def forward(self, x):
        return torch.softmax(x @ x.transpose(0, 1) / 16.0, dim=-1) + x.mean()


SHAPE = (256, 256)


@pytest.fixture(scope="module")
def vmfb():
    return strata.compile(TwoStages(), (torch.ones(SHAPE),)).vmfb


def _allocated(module) -> int:
    stats = module.device.allocator.statistics
    return stats["device_bytes_allocated"] + stats["host_bytes_allocated"]


def _heap_bytes_per_call(vmfb, **options) -> list[int]:
    module = LoadedModule(vmfb, "local-sync", **options)
    if not module.device.allocator.has_statistics:
        pytest.skip("this IREE runtime keeps no allocator statistics")
    main = module.function("main")
    x = torch.randn(SHAPE).numpy()
    main(x)
    sizes = []
    for _ in range(3):
        before = _allocated(module)
        main(x)
        sizes.append(_allocated(module) - before)
    return sizes


def test_calls_after_the_first_allocate_nothing_from_the_heap(vmfb):
    assert _heap_bytes_per_call(vmfb) == [0, 0, 0]


def test_without_reuse_every_call_allocates_its_buffers(vmfb):
    """What the cache saves: the result alone is 256 KiB a call."""
    assert all(size >= 256 * 256 * 4 for size in _heap_bytes_per_call(vmfb, reuse_freed_memory=False))


def test_a_result_the_caller_holds_is_not_reused(vmfb):
    main = LoadedModule(vmfb, "local-sync").function("main")
    inputs = [torch.randn(SHAPE) for _ in range(3)]
    results = [main(x.numpy())[0] for x in inputs]  # all held while the later calls run
    for x, result in zip(inputs, results):
        np.testing.assert_allclose(result, TwoStages()(x).numpy(), rtol=1e-5, atol=1e-6)
    assert not any(np.may_share_memory(a, b) for i, a in enumerate(results) for b in results[i + 1 :])
