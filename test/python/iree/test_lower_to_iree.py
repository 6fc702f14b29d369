"""Numerics of the raised IREE route with `strata-lower-to-iree`: raised, IREE-lowered models
against PyTorch eager on llvm-cpu.

The raised route runs `strata-raise-torch`, then `strata-lower-to-iree` (named matmuls,
batch_matmul/linalg.softmax attention), `strata-lower-to-linalg` for the rest, and IREE. Each
test first checks the linalg stage holds what strata-lower-to-iree writes, so a pipeline that
stopped running it fails here rather than passing on the generic lowerings. Tolerance: float32
through different summation orders and exp implementations, rtol = atol = 1e-4.
"""

import numpy as np
import pytest
import torch
from torch import nn

import strata.api
from strata.compile_stages import StageOptions, run_stages
from strata.iree_compile import CompileOptions
from strata.torch_import import import_torch

from conftest import zoo_model

RTOL = ATOL = 1e-4


class MaskedAttention(nn.Module):
    """Hand-written attention with a per-head mask broadcast over the batch, odd sizes, a key
    sequence longer than the query's, and a biased output projection."""

    def __init__(self, heads=3, head_dim=5, value_dim=4):
        super().__init__()
        self.scale = head_dim**-0.5
        self.proj = nn.Linear(heads * value_dim, 7)

    def forward(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) * self.scale
        probs = torch.softmax(scores + mask, dim=-1)
        out = probs @ v  # [batch, heads, Lq, value_dim]
        return self.proj(out.transpose(1, 2).flatten(2))


def _masked_attention():
    torch.manual_seed(0)
    model = MaskedAttention().eval()
    q = torch.randn(2, 3, 5, 5)
    k, v = torch.randn(2, 3, 9, 5), torch.randn(2, 3, 9, 4)
    mask = torch.randn(1, 3, 5, 9)
    return model, (q, k, v, mask)


class FullyMaskedRow(nn.Module):
    """`scaled_dot_product_attention` with a mask that hides every key from query 0: PyTorch gives
    that row 0, and the raised op asks for the same (`fully_masked_rows_zero`)."""

    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def _fully_masked_row():
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 2, 4, 6), torch.randn(1, 2, 5, 6), torch.randn(1, 2, 5, 6)
    mask = torch.zeros(4, 5)
    mask[0] = float("-inf")
    return FullyMaskedRow().eval(), (q, k, v, mask)


ATTENTION = ("linalg.batch_matmul", "linalg.softmax")
# case -> (model and inputs, ops strata-lower-to-iree writes into its linalg stage)
CASES = {
    "fully_masked_row": (_fully_masked_row, ATTENTION),
    "llama": (lambda: zoo_model("llama")[:2], ATTENTION + ("linalg.matmul",)),
    # causal mask as a constant, layer norms, tanh-GELU, biased linears
    "gpt2": (lambda: zoo_model("gpt2")[:2], ATTENTION + ("linalg.matmul",)),
    "masked_attention": (_masked_attention, ATTENTION + ("linalg.matmul",)),
}


def _linalg_stage(model, args) -> str:
    """What strata-lower-to-iree leaves, before the target's tuned passes (which may rewrite the
    matmuls into mmt4d: test_data_tile_matmul.py)."""
    module = import_torch(model, args, ())
    return run_stages(module, CompileOptions(), StageOptions(stop_at="linalg", raise_torch=True, tuned_passes=False))


@pytest.mark.parametrize("name", sorted(CASES))
def test_raised_iree_route_matches_eager(name):
    build, written = CASES[name]
    model, args = build()
    linalg = _linalg_stage(model, args)
    assert all(op in linalg for op in written)
    assert "strata." not in linalg.replace("strata.inputs", "").replace("strata.outputs", "")
    compiled = strata.api.compile(model, args, raise_torch=True)
    with torch.no_grad():
        expected = model(*args)
    assert torch.isfinite(expected).all()
    np.testing.assert_allclose(compiled(*args).numpy(), expected.numpy(), rtol=RTOL, atol=ATOL)


def test_raised_models_get_the_tuned_defaults_of_their_torch_ir(monkeypatch):
    """The tuned defaults go by the imported torch IR (where a batch-1 MLP is all matrix-vector
    products), whatever the raising pipeline makes of it, and reach the compiler for linalg."""
    import strata.compile_stages

    seen = {}

    def capture(text, options, *, input_type, traits):
        seen.update(input_type=input_type, traits=traits)
        return b""

    monkeypatch.setattr(strata.compile_stages, "compile_ir", capture)
    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)).eval()
    module = import_torch(mlp, (torch.randn(1, 32),), [])
    run_stages(module, CompileOptions(), StageOptions(raise_torch=True))
    assert seen == {"input_type": "auto", "traits": frozenset({"matvec"})}
