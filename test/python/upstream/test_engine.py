"""The ExecutionEngine calling convention: arguments, several results, ownership, bad inputs."""

import os
import resource

import numpy as np
import pytest

from strata.context import make_context
from strata.errors import StrataError
from strata.upstream import compile_linalg
from torch_mlir._mlir_libs._mlir import ir

TWO_RESULTS = """
func.func @main(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %t = tensor.empty(%n) : tensor<8x?xf32>
  %transposed = linalg.transpose ins(%sum : tensor<?x8xf32>) outs(%t : tensor<8x?xf32>) permutation = [1, 0]
  return %sum, %transposed : tensor<?x8xf32>, tensor<8x?xf32>
}
"""

SAME_RESULT_TWICE = """
func.func @main(%a: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %e = tensor.empty() : tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %d = arith.addf %x, %x : f32
    linalg.yield %d : f32
  } -> tensor<256x256xf32>
  return %r, %r : tensor<256x256xf32>, tensor<256x256xf32>
}
"""


def _compile(text):
    with make_context() as context:
        return compile_linalg(ir.Module.parse(text, context))


def test_two_results_with_a_dynamic_dimension():
    compiled = _compile(TWO_RESULTS)
    a = np.arange(24, dtype=np.float32).reshape(3, 8)
    b = np.linspace(0, 1, 8, dtype=np.float32)
    total, transposed = compiled.run_numpy(a, b)
    np.testing.assert_array_equal(total, a + b)
    np.testing.assert_array_equal(transposed, (a + b).T)


def test_non_contiguous_input_is_accepted():
    compiled = _compile(TWO_RESULTS)
    a = np.asfortranarray(np.arange(24, dtype=np.float32).reshape(3, 8))
    b = np.ones(8, dtype=np.float32)
    np.testing.assert_array_equal(compiled.run_numpy(a, b)[0], a + 1)


def test_a_result_returned_twice_is_owned_once():
    compiled = _compile(SAME_RESULT_TWICE)
    a = np.ones((256, 256), dtype=np.float32)
    first, second = compiled.run_numpy(a)
    np.testing.assert_array_equal(first, 2 * a)
    np.testing.assert_array_equal(second, 2 * a)
    del first
    np.testing.assert_array_equal(second, 2 * a)


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leak_over_1000_calls():
    """Each call returns 2 x 256 KiB; 1,000 leaked calls would hold 500 MiB."""
    compiled = _compile(SAME_RESULT_TWICE)
    a = np.ones((256, 256), dtype=np.float32)
    for _ in range(50):
        compiled.run_numpy(a)
    before = _resident_bytes()
    for _ in range(1000):
        first, second = compiled.run_numpy(a)
    assert first[0, 0] == 2.0
    growth = _resident_bytes() - before
    assert growth < 32 << 20, f"resident memory grew by {growth >> 20} MiB over 1,000 calls"


def test_repeated_calls_reuse_freed_buffers():
    """Each call mallocs and frees 2 x 4 MiB. glibc's defaults unmap such blocks on free (or trim
    them off the heap), so each call faulted its 2,048 pages in again; they are kept for reuse."""
    compiled = _compile(SAME_RESULT_TWICE.replace("256x256", "1024x1024"))
    a = np.ones((1024, 1024), dtype=np.float32)
    for _ in range(3):
        compiled.run_numpy(a)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        first, second = compiled.run_numpy(a)
        del first, second
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 2000, f"{faults} page faults over 20 calls"


@pytest.mark.parametrize(
    "a, message",
    [
        (np.ones((3, 8), dtype=np.float64), "input 0 has dtype float64, the compiled model expects ?x8xf32"),
        (np.ones((3, 7), dtype=np.float32), "input 0 has shape 3x7, the compiled model expects ?x8xf32"),
    ],
)
def test_bad_inputs_are_user_errors(a, message):
    compiled = _compile(TWO_RESULTS)
    with pytest.raises(StrataError, match=message.replace("?", r"\?")):
        compiled.run_numpy(a, np.ones(8, dtype=np.float32))


def test_wrong_number_of_inputs():
    compiled = _compile(TWO_RESULTS)
    with pytest.raises(StrataError, match="takes 2 input"):
        compiled.run_numpy(np.ones((3, 8), dtype=np.float32))
