"""Each strata op's linalg lowering, run on IREE llvm-cpu, equals PyTorch eager.

Shapes include size-1 dims and sizes that are not multiples of 8; inputs are random (seeded).
Each case is one strata op in generic form with the types its shapes give; all cases are lowered
by strata-lower-to-linalg and compiled together (IREE llvm-cpu, text handoff) once per run.
"""

from dataclasses import dataclass
from typing import Callable

import iree.compiler
import iree.runtime
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_mlir import ir

from strata.context import make_context
from strata.passes import lower_to_linalg

IREE_CPU_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    "--iree-input-demote-f64-to-f32=false",  # on by default; the f64 cases must stay f64
]


def lower_text(text: str) -> str:
    """`text` with every strata op lowered by strata-lower-to-linalg, verified."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        for func in module.body.operations:
            lower_to_linalg.run(func.operation, None)
        module.operation.verify()
        return str(module)


class LoweredModule:
    def __init__(self, functions: dict[str, str]):
        text = lower_text("\n".join(functions.values()))
        vmfb = iree.compiler.compile_str(text, input_type="none", extra_args=IREE_CPU_FLAGS)
        self._module = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-sync")

    def __call__(self, name: str, *inputs: torch.Tensor) -> torch.Tensor:
        result = getattr(self._module, name)(*[np.ascontiguousarray(t.numpy()) for t in inputs])
        return torch.from_numpy(np.asarray(result))


_MLIR_DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16"}


def _tensor_type(shape, dtype=torch.float32) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + _MLIR_DTYPES[dtype] + ">"


@dataclass(frozen=True)
class Case:
    name: str
    op: str  # e.g. '"strata.softmax"({args}) {{dim = 1 : i64}}'
    shapes: tuple  # input shapes
    result_shape: tuple
    reference: Callable
    dtype: torch.dtype = torch.float32

    def function_text(self) -> str:
        args = ", ".join(f"%a{i}: {_tensor_type(s, self.dtype)}" for i, s in enumerate(self.shapes))
        names = ", ".join(f"%a{i}" for i in range(len(self.shapes)))
        types = ", ".join(_tensor_type(s, self.dtype) for s in self.shapes)
        result = _tensor_type(self.result_shape, self.dtype)
        op = self.op.format(args=names)
        return (
            f"func.func @{self.name}({args}) -> {result} {{\n"
            f"  %0 = {op} : ({types}) -> {result}\n"
            f"  return %0 : {result}\n}}\n"
        )


def _ln(shape_attr):
    return f"normalized_shape = array<i64: {shape_attr}>"


CASES = [
    Case("softmax_last", '"strata.softmax"({args}) {{dim = -1 : i64}}', ((3, 1, 13),), (3, 1, 13),
         lambda x: F.softmax(x, -1)),
    Case("softmax_middle", '"strata.softmax"({args}) {{dim = 1 : i64}}', ((2, 9, 5),), (2, 9, 5),
         lambda x: F.softmax(x, 1)),
    Case("softmax_size_one_dim", '"strata.softmax"({args}) {{dim = 0 : i64}}', ((1, 7),), (1, 7),
         lambda x: F.softmax(x, 0)),
    Case("gelu_erf", '"strata.gelu"({args}) {{approximation = 0 : i32}}', ((5, 11),), (5, 11), F.gelu),
    Case("gelu_tanh", '"strata.gelu"({args}) {{approximation = 1 : i32}}', ((1, 3, 9),), (1, 3, 9),
         lambda x: F.gelu(x, approximate="tanh")),
    Case("silu", '"strata.silu"({args})', ((4, 1, 6),), (4, 1, 6), F.silu),
    Case("layer_norm_affine",
         '"strata.layer_norm"({args}) {{' + _ln("13") + ', eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 1>}}',
         ((2, 3, 13), (13,), (13,)), (2, 3, 13), lambda x, w, b: F.layer_norm(x, [13], w, b, 1e-5)),
    Case("layer_norm_two_dims_plain",
         '"strata.layer_norm"({args}) {{' + _ln("5, 7") + ', eps = 1.0e-3 : f64, operandSegmentSizes = array<i32: 1, 0, 0>}}',
         ((3, 5, 7),), (3, 5, 7), lambda x: F.layer_norm(x, [5, 7], eps=1e-3)),
    Case("layer_norm_bias_only",
         '"strata.layer_norm"({args}) {{' + _ln("9") + ', eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 1>}}',
         ((1, 9), (9,)), (1, 9), lambda x, b: F.layer_norm(x, [9], None, b, 1e-5)),
    Case("rms_norm_weight", '"strata.rms_norm"({args}) {{' + _ln("11") + ', eps = 1.0e-6 : f64}}',
         ((2, 1, 11), (11,)), (2, 1, 11), lambda x, w: F.rms_norm(x, [11], w, 1e-6)),
    Case("rms_norm_plain", '"strata.rms_norm"({args}) {{' + _ln("3, 5") + ', eps = 1.0e-5 : f64}}',
         ((4, 3, 5),), (4, 3, 5), lambda x: F.rms_norm(x, [3, 5], eps=1e-5)),
    Case("attention_plain", '"strata.attention"({args}) {{scale = 0.3 : f64, is_causal = false}}',
         ((2, 3, 5, 7), (2, 3, 9, 7), (2, 3, 9, 4)), (2, 3, 5, 4),
         lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3)),
    Case("attention_mask_2d", '"strata.attention"({args}) {{scale = 0.5 : f64, is_causal = false}}',
         ((1, 2, 6, 8), (1, 2, 6, 8), (1, 2, 6, 8), (6, 6)), (1, 2, 6, 8),
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.5)),
    Case("attention_mask_broadcast", '"strata.attention"({args}) {{scale = 0.25 : f64, is_causal = false}}',
         ((2, 3, 4, 5), (2, 3, 7, 5), (2, 3, 7, 1), (2, 1, 4, 7)), (2, 3, 4, 1),
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.25)),
    Case("attention_fully_masked_rows_zero",
         '"strata.attention"({args}) {{scale = 0.5 : f64, is_causal = false, fully_masked_rows_zero = true}}',
         ((1, 2, 4, 3), (1, 2, 5, 3), (1, 2, 5, 3), (4, 5)), (1, 2, 4, 3),
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.5)),
    Case("attention_causal", '"strata.attention"({args}) {{scale = 0.35 : f64, is_causal = true}}',
         ((1, 4, 9, 6), (1, 4, 9, 6), (1, 4, 9, 6)), (1, 4, 9, 6),
         lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.35)),
    Case("attention_causal_rectangular", '"strata.attention"({args}) {{scale = 0.5 : f64, is_causal = true}}',
         ((1, 1, 3, 4), (1, 1, 5, 4), (1, 1, 5, 2)), (1, 1, 3, 2),
         lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)),
    Case("linear_bias", '"strata.linear"({args}) {{activation = 0 : i32}}',
         ((2, 3, 13), (5, 13), (5,)), (2, 3, 5), F.linear),
    Case("linear_no_bias_2d", '"strata.linear"({args}) {{activation = 0 : i32}}',
         ((7, 9), (1, 9)), (7, 1), F.linear),
    Case("linear_relu", '"strata.linear"({args}) {{activation = 1 : i32}}',
         ((3, 6), (4, 6), (4,)), (3, 4), lambda x, w, b: F.relu(F.linear(x, w, b))),
    Case("linear_gelu", '"strata.linear"({args}) {{activation = 2 : i32}}',
         ((3, 6), (4, 6), (4,)), (3, 4), lambda x, w, b: F.gelu(F.linear(x, w, b))),
    Case("linear_gelu_tanh", '"strata.linear"({args}) {{activation = 3 : i32}}',
         ((1, 2, 6), (3, 6)), (1, 2, 3), lambda x, w: F.gelu(F.linear(x, w), approximate="tanh")),
    Case("linear_silu", '"strata.linear"({args}) {{activation = 4 : i32}}',
         ((5, 10), (3, 10), (3,)), (5, 3), lambda x, w, b: F.silu(F.linear(x, w, b))),
    # Other element types: the lowering computes in the op's element type.
    Case("softmax_f64", '"strata.softmax"({args}) {{dim = -1 : i64}}', ((3, 17),), (3, 17),
         lambda x: F.softmax(x, -1), torch.float64),
    Case("layer_norm_f64",
         '"strata.layer_norm"({args}) {{' + _ln("6") + ', eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 0>}}',
         ((4, 6), (6,)), (4, 6), lambda x, w: F.layer_norm(x, [6], w, None, 1e-5), torch.float64),
    Case("silu_f16", '"strata.silu"({args})', ((3, 9),), (3, 9), F.silu, torch.float16),
]

TOLERANCES = {torch.float32: 1e-5, torch.float64: 1e-12, torch.float16: 2e-3}


@pytest.fixture(scope="module")
def lowered_module():
    """All cases in one module: one IREE compile for the whole file."""
    return LoweredModule({case.name: case.function_text() for case in CASES})


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_lowering_matches_pytorch(case, lowered_module):
    generator = torch.Generator().manual_seed(sum(map(ord, case.name)))
    inputs = [torch.randn(shape, generator=generator, dtype=case.dtype) for shape in case.shapes]
    expected = case.reference(*inputs)
    actual = lowered_module(case.name, *inputs)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    tolerance = TOLERANCES[case.dtype]
    torch.testing.assert_close(actual, expected, rtol=tolerance, atol=tolerance)


def test_fully_masked_rows(lowered_module):
    """A query with every key masked: NaN as softmax gives, or 0 as scaled_dot_product_attention gives."""
    generator = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(shape, generator=generator) for shape in ((1, 2, 4, 3), (1, 2, 5, 3), (1, 2, 5, 3)))
    mask = torch.zeros(4, 5)
    mask[1] = float("-inf")
    zeroed = lowered_module("attention_fully_masked_rows_zero", q, k, v, mask)
    torch.testing.assert_close(zeroed, F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.5))
    assert torch.all(zeroed[:, :, 1] == 0)
    plain = lowered_module("attention_mask_2d", *(torch.randn(1, 2, 6, 8, generator=generator) for _ in range(3)),
                           torch.full((6, 6), float("-inf")))
    assert torch.all(torch.isnan(plain))


def test_causal_attention_ignores_later_keys(lowered_module):
    """Changing keys and values after a query's position leaves that query's output unchanged."""
    generator = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(1, 4, 9, 6, generator=generator) for _ in range(3))
    k2, v2 = k.clone(), v.clone()
    k2[:, :, 5:], v2[:, :, 5:] = 100.0, -100.0
    first = lowered_module("attention_causal", q, k, v)
    second = lowered_module("attention_causal", q, k2, v2)
    torch.testing.assert_close(first[:, :, :5], second[:, :, :5])
    assert not torch.allclose(first[:, :, 5:], second[:, :, 5:])


def test_dynamic_shapes():
    """Lowerings read dynamic sizes at run time; normalization counts come from normalized_shape."""
    module = LoweredModule(
        {
            "norms": (
                "func.func @norms(%x: tensor<?x?xf32>, %w: tensor<8xf32>) -> tensor<?x?xf32> {\n"
                '  %0 = "strata.rms_norm"(%x, %w) {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64}'
                " : (tensor<?x?xf32>, tensor<8xf32>) -> tensor<?x?xf32>\n"
                '  %1 = "strata.layer_norm"(%0) {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64,'
                " operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>\n"
                '  %2 = "strata.softmax"(%1) {dim = 0 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>\n'
                "  return %2 : tensor<?x?xf32>\n}\n"
            )
        }
    )
    generator = torch.Generator().manual_seed(11)
    w = torch.randn(8, generator=generator)
    for rows in (1, 5):
        x = torch.randn(rows, 8, generator=generator)
        expected = F.softmax(F.layer_norm(F.rms_norm(x, [8], w, 1e-5), [8], eps=1e-5), 0)
        torch.testing.assert_close(module("norms", x, w), expected, rtol=1e-5, atol=1e-5)
