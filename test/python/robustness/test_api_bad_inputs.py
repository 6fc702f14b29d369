"""strata.compile / strata.load given bad input raise StrataError with a complete message, and
strata.compile is safe to call from several threads at once.
"""

import threading

import numpy as np
import pytest
import torch

import strata
from strata.errors import StrataError


class Tiny(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


EXAMPLE = (torch.randn(2, 3),)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(target="tpu"), r"unknown target 'tpu'"),
        (dict(target="cuda", chip="sm_1"), r"unknown chip 'sm_1' for target 'cuda'"),
        (dict(route="magic"), r"unknown route 'magic'"),
        (dict(frobnicate=True), r"unknown option\(s\) for the IREE route: frobnicate"),
        (dict(dynamic_dims=["batch"]), r"batch"),
    ],
)
def test_bad_compile_arguments(kwargs, pattern):
    with pytest.raises(StrataError, match=pattern):
        strata.compile(Tiny(), EXAMPLE, **kwargs)


def test_model_that_is_not_a_module():
    with pytest.raises(StrataError):
        strata.compile(lambda x: x, EXAMPLE)


def test_forward_that_fails_on_the_example_names_the_users_line():
    class Broken(torch.nn.Module):
        def forward(self, x):
            return x @ torch.ones(5, 5)  # 2x3 @ 5x5: the line the error must name

    with pytest.raises(StrataError) as info:
        strata.compile(Broken(), EXAMPLE)
    assert "test_api_bad_inputs.py" in str(info.value) and "x @ torch.ones(5, 5)" in str(info.value)


@pytest.fixture(scope="module")
def loaded(compiled):
    return strata.load(compiled[0], parameters=[compiled[1]])


def test_loaded_module_rejects_wrong_inputs(loaded):
    good = (np.ones((2, 64), np.float32), np.ones((2, 32), np.float32))
    assert loaded.run_numpy(*good)[0].shape == (2, 32)
    with pytest.raises(StrataError, match=r"input 0: expected 2x64xf32, got 2x64xf64"):
        loaded.run_numpy(good[0].astype(np.float64), good[1])
    with pytest.raises(StrataError, match=r"takes 2 inputs, got 1"):
        loaded.run_numpy(good[0])
    with pytest.raises(StrataError, match=r"expected a torch tensor or numpy array, got list"):
        loaded([[1.0] * 64] * 2, torch.ones(2, 32))


def test_load_errors(compiled, tmp_path):
    with pytest.raises(StrataError, match="no such file"):
        strata.load(tmp_path / "absent.vmfb")
    (tmp_path / "half.vmfb").write_bytes(compiled[0].read_bytes()[:1000])
    with pytest.raises(StrataError, match="not a loadable IREE module"):
        strata.load(tmp_path / "half.vmfb")
    with pytest.raises(StrataError, match="cannot open device 'bogus'"):
        strata.load(compiled[0], device="bogus", parameters=[compiled[1]])
    with pytest.raises(StrataError, match="parameter"):
        strata.load(compiled[0])  # weights live in the archive, which was not given


def test_compile_from_several_threads():
    """Three threads compile different models at once; each gets its own, correct module."""
    scales = [1.0, 2.0, 3.0]
    results, errors = {}, []

    class Scaled(torch.nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def forward(self, x):
            return torch.relu(x) * self.scale

    def work(scale):
        try:
            results[scale] = strata.compile(Scaled(scale), EXAMPLE)
        except BaseException as e:  # noqa: BLE001  (reported below, with the thread's scale)
            errors.append((scale, repr(e)))

    threads = [threading.Thread(target=work, args=(s,)) for s in scales]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=900)
    assert not errors, errors
    x = torch.linspace(-1, 1, 6).reshape(2, 3)
    for scale in scales:
        torch.testing.assert_close(results[scale](x), torch.relu(x) * scale)
