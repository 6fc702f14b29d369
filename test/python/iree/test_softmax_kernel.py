"""strata's row-softmax kernel (`strata.softmax_kernel`, by strata-softmax-kernel): results
against eager, rows of only -inf included, in rows and packed into a matmul's tiles, with the pass
run by hand on the linalg stage as `strata-opt --strata-softmax-kernel` would; and the llvm-cpu
tuned default (softmax-kernel) taking the softmax of attention under a run-time mask (which
strata's attention kernel leaves), and a softmax alone, through `strata.compile`."""

import numpy as np
import pytest
import torch
from torch import nn

from strata.compile_stages import StageOptions, _run_pipeline, run_stages
from strata.iree_compile import CompileOptions, compile_ir
from strata.iree_runtime import LoadedModule
from strata.torch_import import import_torch


class Softmaxes(nn.Module):
    """A softmax over rows of 24 (10 rows: not whole tiles of 8), attention with a causal mask and
    attention whose mask hides every key from one query (the safe softmax gives it zeros); heads
    of 12, which strata's attention kernel (a default, before this pass) leaves to the rest."""

    def forward(self, x, q, k, v, mask):
        causal = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        masked = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return torch.softmax(x, dim=-1), causal, masked


def _inputs():
    torch.manual_seed(0)
    x = torch.randn(2, 5, 24) * 10
    x[0, 1, :] = float("-inf")  # NaN in eager's softmax, and in the kernel's
    x[1, 2, 3] = float("-inf")
    mask = torch.zeros(16, 16)
    mask[3, :] = float("-inf")
    mask[5, 2:] = float("-inf")
    return x, torch.randn(1, 2, 16, 12), torch.randn(1, 2, 16, 12), torch.randn(1, 2, 16, 12), mask


def test_kernel_matches_eager(avx2_host):
    model, args = Softmaxes().eval(), _inputs()
    linalg = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg"))
    text = _run_pipeline(linalg, "builtin.module(strata-softmax-kernel)", "linalg")
    # The plain softmax in rows; attention's safe softmax straight into the P @ V matmul's tiles.
    assert "call @strata_kernel_softmax_r10_c24(" in text
    assert text.count("call @strata_kernel_softmax_r32_c16_safe_t8(") == 2
    assert "math.exp" not in text
    results = LoadedModule(compile_ir(text, CompileOptions(), input_type="auto"), "local-task").function("main")(*[a.numpy() for a in args])
    with torch.no_grad():
        expected = model(*args)
    for result, reference in zip(results, expected):
        reference = reference.numpy()
        np.testing.assert_array_equal(np.isnan(result), np.isnan(reference))
        np.testing.assert_allclose(np.nan_to_num(result), np.nan_to_num(reference), rtol=1e-5, atol=1e-6)


class MaskedSelfAttention(nn.Module):
    """Self-attention of 4 heads of 8 under a mask given at run time, between linear layers."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)

    def forward(self, x, mask):
        heads = (t.view(1, 32, 4, 8).transpose(1, 2) for t in self.qkv(x).split(32, dim=-1))
        attended = nn.functional.scaled_dot_product_attention(*heads, attn_mask=mask)
        return self.out(attended.transpose(1, 2).reshape(32, 32))


def test_llvm_cpu_default_takes_attention_softmax(avx2_host):
    """The tuned default on a model with matmuls: attention that strata's attention kernel leaves
    (a mask given at run time) runs its safe softmax on the kernel, straight into the P @ V
    tiles, and matches eager."""
    import strata

    torch.manual_seed(0)
    model = MaskedSelfAttention().eval()
    mask = torch.zeros(32, 32)
    mask[7, 3:] = float("-inf")
    args = (torch.randn(32, 32), mask)
    compiled = strata.compile(model, args, target="llvm-cpu")
    assert b"strata_kernel_softmax_r128_c32_safe_t8" in compiled.vmfb
    assert b"strata_kernel_attention" not in compiled.vmfb
    (result,) = compiled.run_numpy(*[a.numpy() for a in args])
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*args).numpy(), rtol=1e-4, atol=1e-4)


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


def test_llvm_cpu_default_takes_a_softmax_alone(avx2_host):
    """The tuned default on a model without matmuls whose softmax is all it computes (the
    `softmax` trait: an exponential and a max reduction): the kernel, and eager's result."""
    import strata

    torch.manual_seed(0)
    model, args = Softmax().eval(), (torch.randn(4, 24, 40),)
    compiled = strata.compile(model, args, target="llvm-cpu")
    assert b"strata_kernel_softmax_r96_c40" in compiled.vmfb
    (result,) = compiled.run_numpy(*[a.numpy() for a in args])
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*args).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("cols", [48, 40])
def test_zen4_default_takes_16_float_vectors(monkeypatch, cols):
    """On Zen 4 (`softmax-kernel-16`) rows of whole 16s go to the kernel in 16-float vectors, rows
    of whole 8s only in 8; both match eager. Any x86 CPU computes them right (without AVX-512
    LLVM splits the vectors)."""
    import strata
    import strata.targets

    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"avx", "avx2", "fma", "sse4_2", "avx512f"}))
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("AuthenticAMD", 25, 17))
    torch.manual_seed(0)
    model, args = Softmax().eval(), (torch.randn(4, 24, cols) * 10,)
    compiled = strata.compile(model, args, target="llvm-cpu")
    symbol = f"strata_kernel_softmax_r96_c{cols}".encode()
    assert symbol in compiled.vmfb and (symbol + b"_lanes16" in compiled.vmfb) == (cols == 48)
    (result,) = compiled.run_numpy(*[a.numpy() for a in args])
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*args).numpy(), rtol=1e-6, atol=1e-6)


def test_symbols_name_the_lanes():
    from strata.kernel_calls import kernel_of
    from strata.softmax_kernel import Softmax as Kernel

    wide = Kernel(96, 48, safe=True, lanes=16)
    assert wide.symbol == "strata_kernel_softmax_r96_c48_safe_lanes16" and kernel_of(wide.symbol) == wide
    assert kernel_of("strata_kernel_softmax_r96_c48_t8_lanes16") is None  # the tiles are 8 rows of 8 floats


def _compile_kernel_call(kernel):
    """A module whose `main` is one call of `kernel` (a `Softmax` in rows), compiled for the host."""
    matrix = f"tensor<{kernel.rows}x{kernel.cols}xf32>"
    text = f"""func.func @main(%x: {matrix}) -> {matrix} {{
  %y = func.call @{kernel.symbol}(%x) : ({matrix}) -> {matrix}
  return %y : {matrix}
}}
func.func private @{kernel.symbol}({matrix}) -> {matrix}"""
    return LoadedModule(compile_ir(text, CompileOptions(), input_type="auto"), "local-task").function("main")


@pytest.mark.parametrize("lanes", [8, 16])
@pytest.mark.parametrize("rows", [64, 16384])  # 16 KiB and 4 MiB of results: the second streamed
def test_exponentials_are_within_an_ulp(avx2_host, rows, lanes):
    """Rows of a 0 and 63 values from -87.3 to -25: the sum is 1 in f32, so each result is its
    exponential, which strata's `vector_exp` computes within 1 ulp (float64 reference), in
    vectors of 8 and of 16."""
    from strata.softmax_kernel import Softmax as Kernel

    kernel = Kernel(rows, 64, lanes=lanes)
    assert kernel.streaming == (rows == 16384)
    x = np.zeros((rows, 64), np.float32)
    x[:, 1:] = np.linspace(-87.3, -25.0, rows * 63, dtype=np.float32).reshape(rows, 63)
    (result,) = _compile_kernel_call(kernel)(x)
    wide = x.astype(np.float64)
    expected = np.exp(wide) / np.exp(wide).sum(axis=1, keepdims=True)
    ulps = np.abs(result - expected) / np.spacing(expected.astype(np.float32))
    assert ulps.max() <= 1.01, f"{ulps.max():.2f} ulp at x = {x.flat[ulps.argmax()]}"


@pytest.mark.parametrize("cols, lanes", [(72, 8), (80, 16)])
def test_safe_streamed_rows(avx2_host, cols, lanes):
    """The safe softmax streaming its results: a row of only -inf gives zeros, -inf gives 0 and
    a NaN a row of NaN; rows of 72 (one step of four 8-float chains and a rest) in 8 floats,
    of 80 (one step of four 16-float chains and a rest) in 16."""
    from strata.softmax_kernel import Softmax as Kernel

    kernel = Kernel(16384, cols, safe=True, lanes=lanes)
    assert kernel.streaming
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((16384, cols)) * 10).astype(np.float32)
    x[5, :] = -np.inf
    x[7, 3] = -np.inf
    x[9, 70] = np.nan
    (result,) = _compile_kernel_call(kernel)(x)
    expected = torch.softmax(torch.from_numpy(x), dim=-1).numpy()
    expected[5, :] = 0.0
    assert result[7, 3] == 0.0 and np.isnan(result[9]).all()
    np.testing.assert_array_equal(np.isnan(result), np.isnan(expected))
    np.testing.assert_allclose(np.nan_to_num(result), np.nan_to_num(expected), rtol=1e-6, atol=1e-7)
