"""strata-fold-safe-softmax under the llvm-cpu defaults: attention whose safe softmax now reads
its all(-inf) row check from the row maximum (and then runs on strata's softmax kernel; causal
attention runs on strata's attention kernel instead), against
eager, with rows whose every key is masked (eager gives them zeros) and rows that hold -inf among
finite scores; and attention whose 13 query rows do not fill 8-row tiles, left alone (IREE
3.13's data tiling miscompiles the fold there)."""

import re

import torch
from torch import nn

from compiled_vs_eager import assert_matches_eager, linalg_and_run


class MaskedAttention(nn.Module):
    """Causal attention, and attention under a mask that hides every key from two queries."""

    def forward(self, q, k, v, mask):
        causal = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        masked = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return causal, masked


def _inputs():
    torch.manual_seed(0)
    mask = torch.zeros(16, 16)
    mask[3, :] = float("-inf")
    mask[9, :] = float("-inf")
    mask[5, 2:] = float("-inf")
    return torch.randn(1, 2, 16, 8), torch.randn(1, 2, 16, 8), torch.randn(1, 2, 16, 8), mask


_I1_REDUCTION = r'"reduction"\][^\n]*outs\([^)]*xi1>'


def test_safe_softmax_matches_eager(avx2_host):
    model, args = MaskedAttention().eval(), _inputs()
    linalg, results = linalg_and_run(model, args)
    # Both softmaxes are safe ones; neither keeps a reduction of its own for the check (an i1
    # reduction; the causal mask's logical and is elementwise). The causal attention is strata's
    # attention kernel's (its safe variant); the masked one's softmax, folded, the softmax-kernel
    # default hands to the kernel's safe variant, in the P @ V tiles.
    assert linalg.count("call @strata_kernel_attention_b1_h2_q16_k16_e8_v8_s3eb504f2_causal_safe_") == 1
    assert linalg.count("call @strata_kernel_softmax_r32_c16_safe_t8(") == 1
    assert not re.search(_I1_REDUCTION, linalg)
    with torch.no_grad():
        masked = model(*args)[1]
    assert torch.all(masked[0, :, 3] == 0) and torch.all(masked[0, :, 9] == 0)  # what the check is for
    assert_matches_eager(results, model, args, tolerance=1e-5)


class Attention(nn.Module):
    def forward(self, q, k, v):
        return nn.functional.scaled_dot_product_attention(q, k, v)


def test_rows_that_pad_tiles_keep_the_check(avx2_host):
    torch.manual_seed(0)
    model, args = Attention().eval(), (torch.randn(1, 2, 13, 16), torch.randn(1, 2, 7, 16), torch.randn(1, 2, 7, 16))
    linalg, results = linalg_and_run(model, args)
    assert re.search(_I1_REDUCTION, linalg)
    assert_matches_eager(results, model, args, tolerance=1e-5)
