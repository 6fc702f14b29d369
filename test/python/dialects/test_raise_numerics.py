"""Raising preserves numerics: raise to strata ops, lower them to linalg, finish with torch-mlir's
backend pipeline, run on IREE llvm-cpu, compare with PyTorch eager.

Each model is checked to actually contain the strata ops the raising should produce, so a
pattern that stops matching fails here rather than passing through the unraised torch ops.
"""

import collections
import math
from dataclasses import dataclass

import iree.compiler
import iree.runtime
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_mlir import fx, ir, passmanager

from strata.context import make_context
from strata.models.llama import LlamaBlock, LlamaConfig, example_inputs
from strata.passes import lower_to_linalg, raise_torch


@dataclass(frozen=True)
class RaiseOptions:
    fuse_activations: bool = False


def _strata_ops(module: ir.Module) -> collections.Counter:
    """strata op counts; linear layers with a fused activation count as `strata.linear+<n>`."""
    counts = collections.Counter()

    def visit(op):
        if op.name == "strata.linear" and op.attributes["activation"].value:
            counts[f"strata.linear+{op.attributes['activation'].value}"] += 1
        elif op.name.startswith("strata."):
            counts[op.name] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


def raise_lower_run(model: torch.nn.Module, inputs, options=RaiseOptions()):
    """(strata op counts after raising, outputs of the lowered module on IREE)."""
    text = str(fx.export_and_import(model, *inputs, output_type="torch"))
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        for func in module.body.operations:
            raise_torch.run(func.operation, options)
        counts = _strata_ops(module)
        for func in module.body.operations:
            lower_to_linalg.run(func.operation, None)
        passmanager.PassManager.parse("builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)").run(
            module.operation
        )
        lowered = str(module)
    vmfb = iree.compiler.compile_str(
        lowered,
        input_type="none",
        extra_args=["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"],
    )
    results = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-sync").main(*[t.numpy() for t in inputs])
    results = results if isinstance(results, (list, tuple)) else [results]
    return counts, [torch.from_numpy(np.asarray(r)) for r in results]


def test_llama_block_raises_and_matches_eager():
    torch.manual_seed(0)
    config = LlamaConfig(d_model=32, heads=4, hidden=48, tokens=7)
    model = LlamaBlock(config).eval()
    inputs = example_inputs(config)
    counts, (actual,) = raise_lower_run(model, inputs)
    assert counts["strata.attention"] == 1 and counts["strata.rms_norm"] == 2 and counts["strata.silu"] == 1
    torch.testing.assert_close(actual, model(*inputs), rtol=1e-5, atol=1e-5)


class DirectOps(torch.nn.Module):
    """torch's own operators, and a tanh-GELU and attention written out by hand.

    The default import decomposes them: nn.LayerNorm with an f64 variance, nn.Linear as addmm
    scaled by 1, scaled_dot_product_attention into pre-scaled q and k and a softmax guarded
    against fully masked rows.
    """

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(12)
        self.proj = torch.nn.Linear(12, 5)

    def forward(self, x, q, k, v, mask):
        gelu = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))
        attention = torch.softmax(q @ k.transpose(-2, -1) * 0.3 + mask, dim=-1) @ v
        return (
            F.silu(self.proj(self.norm(x))),
            F.gelu(x),
            gelu,
            F.softmax(x, dim=0),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            attention,
        )


@pytest.mark.parametrize("fuse", [False, True], ids=["separate", "fused-activations"])
def test_direct_and_written_out_ops_raise_and_match_eager(fuse):
    torch.manual_seed(1)
    model = DirectOps().eval()
    q, k, v = (torch.randn(1, 3, 5, 4) for _ in range(3))
    inputs = (torch.randn(3, 12), q, k, v, torch.randn(5, 5))
    counts, actual = raise_lower_run(model, inputs, RaiseOptions(fuse_activations=fuse))
    assert counts["strata.layer_norm"] == 1 and counts["strata.linear"] == (0 if fuse else 1)
    assert counts["strata.gelu"] == 2 and counts["strata.attention"] == 2 and counts["strata.softmax"] == 1
    assert counts["strata.silu"] == (0 if fuse else 1)
    assert counts["strata.linear+4"] == (1 if fuse else 0)  # silu (4) fused into the projection
    for got, expected in zip(actual, model(*inputs)):
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_gpt2_block_raises_and_matches_eager():
    """nn.LayerNorm, nn.Linear, causal scaled_dot_product_attention and tanh-GELU, all as
    torch.export decomposes them."""
    from strata.models import gpt2

    torch.manual_seed(2)
    model = gpt2.GPT2Block().eval()
    inputs = gpt2.example_inputs()
    counts, (actual,) = raise_lower_run(model, inputs)
    assert counts == {"strata.layer_norm": 2, "strata.linear": 4, "strata.attention": 1, "strata.gelu": 1}
    torch.testing.assert_close(actual, model(*inputs), rtol=1e-4, atol=1e-5)


def test_mlp_relu_fuses_into_linear():
    from strata.models import mlp

    torch.manual_seed(3)
    model = mlp.MLP().eval()
    inputs = mlp.example_inputs()
    counts, (actual,) = raise_lower_run(model, inputs, RaiseOptions(fuse_activations=True))
    assert counts == {"strata.linear+1": 1, "strata.linear": 1}  # relu (1) fused into the first
    torch.testing.assert_close(actual, model(*inputs), rtol=1e-4, atol=1e-5)
