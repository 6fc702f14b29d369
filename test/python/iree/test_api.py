"""strata.compile / strata.load: callables that take torch or numpy, keep dtypes, save and load."""

import numpy as np
import pytest
import torch

import strata
from strata.errors import StrataError


class AddScale(torch.nn.Module):
    def forward(self, x, y):
        return (x + y) * 0.5


@pytest.fixture(scope="session")
def add_scale():
    x, y = torch.randn(3, 5), torch.randn(3, 5)
    return strata.compile(AddScale(), (x, y)), (x, y)


def test_torch_and_numpy_inputs_give_torch_outputs(add_scale):
    compiled, (x, y) = add_scale
    expected = (x + y) * 0.5
    assert torch.equal(compiled(x, y), expected)
    assert torch.equal(compiled(x.numpy(), y.numpy()), expected)


def test_results_view_their_own_buffers_and_outlive_later_calls_and_the_model():
    """Results are not copied out of the device buffer: each stays valid and writable on its own."""
    import gc

    x, y = torch.randn(3, 5), torch.randn(3, 5)
    compiled = strata.compile(AddScale(), (x, y), device="local-sync")
    first = compiled.run_numpy(x.numpy(), y.numpy())[0]
    for _ in range(20):
        compiled.run_numpy(np.ones((3, 5), np.float32), np.ones((3, 5), np.float32))
    del compiled
    gc.collect()
    np.testing.assert_array_equal(first, ((x + y) * 0.5).numpy())
    first[0, 0] = 7.0
    assert first[0, 0] == 7.0


def test_save_and_load_round_trip(add_scale, tmp_path):
    compiled, (x, y) = add_scale
    compiled.save(tmp_path / "m.vmfb")
    loaded = strata.load(tmp_path / "m.vmfb", device="local-sync")
    assert torch.equal(loaded(x, y), compiled(x, y))


def test_wrong_shape_names_the_input_and_expected_type(add_scale):
    compiled, (x, _) = add_scale
    with pytest.raises(StrataError, match=r"input 1: expected 3x5xf32, got 4x5xf32"):
        compiled(x, torch.randn(4, 5))


def test_f64_stays_f64():
    """IREE's default demotes f64 to f32 and returns wrong values; strata keeps f64 exact."""

    class Poly(torch.nn.Module):
        def forward(self, x):
            return x * x * 1e-3 + x.exp()

    x = torch.linspace(0, 1.59, 7, dtype=torch.float64)
    result = strata.compile(Poly(), (x,))(x)
    assert result.dtype == torch.float64
    torch.testing.assert_close(result, Poly()(x), rtol=1e-12, atol=0)


def test_int64_and_bool_round_trip():
    class Mask(torch.nn.Module):
        def forward(self, ids, keep):
            return torch.where(keep, ids * 3, ids)

    ids, keep = torch.arange(6, dtype=torch.int64), torch.tensor([True, False] * 3)
    result = strata.compile(Mask(), (ids, keep))(ids, keep)
    assert result.dtype == torch.int64 and torch.equal(result, Mask()(ids, keep))


def test_unknown_target_and_chip_are_one_line_errors():
    with pytest.raises(StrataError, match="unknown target 'tpu'"):
        strata.compile(AddScale(), (torch.randn(2), torch.randn(2)), target="tpu")
    with pytest.raises(StrataError, match="unknown chip 'sm_99' for target 'cuda'"):
        strata.compile(AddScale(), (torch.randn(2), torch.randn(2)), target="cuda", chip="sm_99")


def test_unsupported_op_names_op_and_user_line():
    class FFT(torch.nn.Module):
        def forward(self, x):
            return torch.fft.fft(x)  # no IREE lowering

    with pytest.raises(StrataError) as error:
        strata.compile(FFT(), (torch.randn(4, 8),))
    message = str(error.value)
    assert "torch.aten.fft_fft" in message and "test_api.py" in message and "return torch.fft.fft(x)" in message
    assert any(note.startswith("reproduce with: iree-compile ") for note in error.value.notes)


def test_parameters_archive_holds_the_weights(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU()).eval()
    x = torch.randn(2, 256)
    compiled = strata.compile(model, (x,), params=tmp_path / "w.irpa")
    assert (tmp_path / "w.irpa").stat().st_size > 256 * 256 * 4
    assert len(compiled.vmfb) < 256 * 256 * 4
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
    compiled.save(tmp_path / "m.vmfb")
    reloaded = strata.load(tmp_path / "m.vmfb", parameters=[tmp_path / "w.irpa"])
    torch.testing.assert_close(reloaded(x), model(x), rtol=1e-5, atol=1e-5)


def test_raised_route_matches_eager():
    """raise_torch=True goes torch -> strata ops -> linalg -> IREE and gives the same numbers."""
    from strata.models import llama

    torch.manual_seed(0)
    model, inputs = llama.LlamaBlock(), llama.example_inputs()
    result = strata.compile(model, inputs, raise_torch=True)(*inputs)
    torch.testing.assert_close(result, model(*inputs), rtol=1e-4, atol=1e-4)


def test_gpu_model_compiles_and_saves_without_the_gpu(tmp_path):
    compiled = strata.compile(AddScale(), (torch.randn(2), torch.randn(2)), target="rocm", chip="gfx942")
    compiled.save(tmp_path / "m.vmfb")
    assert (tmp_path / "m.vmfb").read_bytes() == compiled.vmfb
    with pytest.raises(StrataError, match="cannot open device 'hip'"):
        compiled(torch.randn(2), torch.randn(2))
