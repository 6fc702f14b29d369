"""strata's attention kernel (`strata.attention_kernel`, by strata-attention-kernel) under the
llvm-cpu defaults, against eager: causal attention on the heads of one QKV projection (several
sequences, whose batch and head strides do not merge), attention without a mask with more
queries than keys, hand-written causal attention under a registered mask, and attention under a
mask given at run time, which stays IREE's, each also through strata's raising; and a GPT-2
block through `strata.compile`."""

import math

import numpy as np
import torch
from torch import nn

from compiled_vs_eager import assert_matches_eager, linalg_and_run

_SDPA = nn.functional.scaled_dot_product_attention


class Attentions(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("causal_mask", torch.triu(torch.full((16, 16), float("-inf")), 1))

    def forward(self, qkv, q, k, v, mask):
        batch, tokens, _ = qkv.shape
        heads = (t.view(batch, tokens, 4, 8).transpose(1, 2) for t in qkv.split(32, dim=-1))
        causal = _SDPA(*heads, is_causal=True).transpose(1, 2).reshape(batch, tokens, 32)
        plain = _SDPA(q, k, v)
        scores = q[:, :, :16] @ k.transpose(-1, -2) / math.sqrt(16) + self.causal_mask
        hand_written = torch.softmax(scores, dim=-1) @ v
        masked = _SDPA(q[:, :, :16], k, v, attn_mask=mask)
        return causal, plain, hand_written, masked


def _inputs():
    torch.manual_seed(0)
    mask = torch.zeros(16, 16)
    mask[5, 2:] = float("-inf")
    return torch.randn(2, 16, 96), torch.randn(1, 2, 24, 16), torch.randn(1, 2, 16, 16), torch.randn(1, 2, 16, 16), mask


def test_kernel_matches_eager(avx2_host):
    model, args = Attentions().eval(), _inputs()
    linalg, results = linalg_and_run(model, args)
    calls = linalg.count("call @strata_kernel_attention_")
    assert calls == 3, linalg
    # q and k each scaled by f32(8 ** -0.25), as scaled_dot_product_attention does: one scale of
    # their product, 0x3EB504F2 (f32(1 / sqrt(8)) is 0x3EB504F3).
    assert "call @strata_kernel_attention_b2_h4_q16_k16_e8_v8_s3eb504f2_causal_safe_Q0o0b1536h8p96_K0o32b1536h8p96_V0o64b1536h8p96_Ob512h8p32_in3072(" in linalg
    assert "call @strata_kernel_attention_b1_h2_q24_k16_e16_v16_s3e800000_safe_" in linalg  # 1/sqrt(16)
    assert "call @strata_kernel_attention_b1_h2_q16_k16_e16_v16_s3e800000_causal_Q" in linalg  # the plain softmax
    # The run-time mask's attention: its batch matmuls data-tiled, its softmax strata's row kernel.
    assert linalg.count("call @strata_kernel_softmax_r32_c16_safe_t8(") == 1
    assert_matches_eager(results, model, args, tolerance=1e-5)


def test_raised_attention_takes_the_kernel(avx2_host):
    """Through strata's raising the same attentions are `strata.attention` ops, which
    strata-lower-to-iree writes with `linalg.softmax`, k^T transposed after the heads merge, and
    scaled_dot_product_attention's fully masked rows zeroed after the second batch matmul: the
    kernel takes the same three."""
    model, args = Attentions().eval(), _inputs()
    linalg, results = linalg_and_run(model, args, raise_torch=True)
    assert linalg.count("call @strata_kernel_attention_") == 3, linalg
    # is_causal's mask, folded to a constant, and the zeroed rows: the safe kernel, on the heads
    # of the one projection. One scale of 1/sqrt(8) (0x3EB504F3).
    assert "call @strata_kernel_attention_b2_h4_q16_k16_e8_v8_s3eb504f3_causal_safe_Q0o0b1536h8p96_K0o32b1536h8p96_V0o64b1536h8p96_Ob512h8p32_in3072(" in linalg
    assert "call @strata_kernel_attention_b1_h2_q24_k16_e16_v16_s3e800000_Q" in linalg
    assert "call @strata_kernel_attention_b1_h2_q16_k16_e16_v16_s3e800000_causal_Q" in linalg
    assert linalg.count("linalg.softmax") == 1  # the run-time mask's
    assert_matches_eager(results, model, args, tolerance=1e-5)


def test_llvm_cpu_default_takes_gpt2_attention(avx2_host):
    """The tuned default on the GPT-2 block: its causal attention in one dispatch, reading q, k
    and v from the QKV projection's output, and the block matches eager."""
    import strata
    from strata.models.gpt2 import GPT2Block, GPT2Config, example_inputs

    torch.manual_seed(0)
    config = GPT2Config(d_model=64, heads=4, tokens=32)
    model, args = GPT2Block(config).eval(), example_inputs(config)
    compiled = strata.compile(model, args, target="llvm-cpu")
    assert b"strata_kernel_attention_b1_h4_q32_k32_e16_v16_s3e800000_causal_safe_Q0o0b6144h16p192_K0o64b6144h16p192_V0o128b6144h16p192_Ob2048h16p64_in6144" in compiled.vmfb
    (result,) = compiled.run_numpy(*[a.numpy() for a in args])
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*args).numpy(), rtol=1e-4, atol=1e-4)


def test_zen4_default_takes_16_float_vectors(monkeypatch):
    """On Zen 4 (`attention-kernel-16`) an attention whose queries, keys and head sizes are whole
    16s runs in 16-float vectors, the others in 8; all match eager. Any x86 CPU computes them
    right (without AVX-512 LLVM splits the vectors)."""
    import strata.targets

    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"avx", "avx2", "fma", "sse4_2", "avx512f"}))
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("AuthenticAMD", 25, 17))
    model, args = Attentions().eval(), _inputs()
    linalg, results = linalg_and_run(model, args)
    assert linalg.count("call @strata_kernel_attention_") == 3, linalg
    assert linalg.count("_lanes16(%") == 1  # the hand-written one: 16 queries, 16 keys, heads of 16
    assert "call @strata_kernel_attention_b1_h2_q16_k16_e16_v16_s3e800000_causal_Q" in linalg
    assert "_e8_v8_" in linalg and "_q24_" in linalg  # heads of 8, 24 queries: 8 lanes
    assert_matches_eager(results, model, args, tolerance=1e-5)


def test_symbols_name_the_lanes():
    from strata.attention_kernel import Attention, Operand
    from strata.kernel_calls import kernel_of

    view = Operand(0, 0, 4096, 1024, 64)
    wide = Attention(1, 4, 16, 16, 64, 64, 0x3E000000, True, False, view, view, view, view, (4096,), lanes=16)
    assert wide.symbol.endswith("_in4096_lanes16") and kernel_of(wide.symbol) == wide
    narrow = kernel_of(wide.symbol.removesuffix("_lanes16"))
    assert narrow is not None and narrow.lanes == 8
    assert kernel_of(wide.symbol.removesuffix("_lanes16") + "_lanes8") is None  # 8 is written without
    assert kernel_of(wide.symbol.replace("_q16_k16_", "_q24_k24_")) is None  # 24 queries: not whole 16s
    assert "vector<16xf32>" in wide.executable("#target") and "vector<8xf32>" not in wide.executable("#target")
