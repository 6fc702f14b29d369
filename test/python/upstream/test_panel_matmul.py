"""Matmuls on the strata-pack-matmul path (B in 16-column panels, rows in blocks of 6-row tiles)
against numpy, through the ExecutionEngine: plain and batched, a B that is a runtime argument and
one that is a constant, a C argument accumulated into (and left unchanged for the caller), a C
that starts at zero (its fill tiled into the register tiles), row counts that leave a block of
spare tiles and a few last rows, and reductions longer than 1024 (slabs of 32 panels)."""

import numpy as np
import pytest

from strata.context import make_context
from strata.upstream import compile_linalg
from torch_mlir._mlir_libs._mlir import ir


def _compile(text):
    with make_context() as context:
        return compile_linalg(ir.Module.parse(text, context))


@pytest.mark.parametrize("m,k,n", [(64, 32, 16), (128, 96, 64), (100, 40, 48)])
def test_matmul_accumulates_into_c(m, k, n):
    model = _compile(f"""
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}""")
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s, dtype=np.float32) for s in ((m, k), (k, n), (m, n)))
    given = c.copy()
    np.testing.assert_allclose(model.run_numpy(a, b, c)[0], c + a @ b, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(c, given)  # the caller's array is an input, not scratch space


@pytest.mark.parametrize("m,k,n", [(64, 32, 16), (128, 1040, 48), (2048 // 16, 96, 2048)])
def test_matmul_from_zero(m, k, n):
    model = _compile(f"""
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}""")
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    for _ in range(2):  # a second call gets reused buffers: every element must be written again
        np.testing.assert_allclose(model.run_numpy(a, b)[0], a @ b, rtol=1e-4, atol=1e-3)


def test_batch_matmul_with_a_constant_b():
    rng = np.random.default_rng(1)
    b = rng.standard_normal((3, 16, 32), dtype=np.float32)
    constant = ", ".join(repr(float(v)) for v in b.ravel())
    model = _compile(f"""
func.func @main(%a: tensor<3x64x16xf32>) -> tensor<3x64x32xf32> {{
  %b = arith.constant dense<[{constant}]> : tensor<1536xf32>
  %b3 = tensor.expand_shape %b [[0, 1, 2]] output_shape [3, 16, 32] : tensor<1536xf32> into tensor<3x16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x64x32xf32>) -> tensor<3x64x32xf32>
  %r = linalg.batch_matmul ins(%a, %b3 : tensor<3x64x16xf32>, tensor<3x16x32xf32>) outs(%c : tensor<3x64x32xf32>) -> tensor<3x64x32xf32>
  return %r : tensor<3x64x32xf32>
}}""")
    a = rng.standard_normal((3, 64, 16), dtype=np.float32)
    np.testing.assert_allclose(model.run_numpy(a)[0], a @ b, rtol=1e-5, atol=1e-4)
