"""strata-fold-constant-pack under the llvm-cpu defaults (`packed-weights`): the weights strata's
kernels and data tiling read in tiles reach IREE packed, and the compiled models still match
eager; and the blobs' elements read back the same whether strata recorded them or parsed them."""

import re

import numpy as np
import torch
from torch import nn
from torch_mlir import ir

from compiled_vs_eager import assert_matches_eager, linalg_and_run
from strata import resource_blobs

# A pack whose source is a constant: `%cst_3`, `%cst`.
_CONSTANT_PACK = re.compile(r"linalg\.pack %cst(_\d+)? ")


class Layers(nn.Module):
    """A linear layer of 40 rows (strata's matmul kernel: 16-column panels of the weight), and a
    batch of products with a 17 x 21 weight (strata's 8 x 16 tiles: the weight padded)."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(64, 48)
        self.weight = nn.Parameter(torch.randn(17, 21))

    def forward(self, x, p):
        return torch.relu(self.linear(x)), p @ self.weight


class Convolutions(nn.Module):
    """A 3 -> 20 convolution on rows of 16 pixels (the direct kernel: 20 filters padded to whole
    tiles of 6) and a strided 20 -> 32 one (the pixel-tile kernel: filters in 16-channel tiles)."""

    def __init__(self):
        super().__init__()
        self.first = nn.Conv2d(3, 20, 3, padding=1)
        self.second = nn.Conv2d(20, 32, 3, stride=2, padding=1)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


def test_linear_weights_reach_iree_packed(avx2_host):
    torch.manual_seed(0)
    model, args = Layers().eval(), (torch.randn(40, 64), torch.randn(3, 9, 17))
    linalg, results = linalg_and_run(model, args)
    assert len(re.findall(r"dense_resource<[\w.]+_packed>", linalg)) == 2
    assert not _CONSTANT_PACK.search(linalg)
    assert_matches_eager(results, model, args)


def test_convolution_filters_reach_iree_packed(avx2_host):
    torch.manual_seed(0)
    model, args = Convolutions().eval(), (torch.randn(1, 3, 16, 16),)
    linalg, results = linalg_and_run(model, args)
    assert len(re.findall(r"dense_resource<[\w.]+_packed>", linalg)) == 2
    assert not _CONSTANT_PACK.search(linalg)
    assert_matches_eager(results, model, args)


def test_recorded_and_parsed_blobs_read_the_same():
    array = np.arange(24, dtype=np.float32).reshape(4, 6) - 7.5
    with ir.Context(), ir.Location.unknown():
        tensor = ir.RankedTensorType.get([4, 6], ir.F32Type.get())
        recorded = resource_blobs.create(array, "weight", tensor)
        constant = ir.Operation.create("arith.constant", results=[tensor], attributes={"value": recorded})
        text = constant.get_asm()
        np.testing.assert_array_equal(resource_blobs.elements(recorded, np.float32), array)
        assert resource_blobs.elements(recorded, np.float64) is None  # not the blob's size
    with ir.Context():
        parsed = ir.Module.parse(f"func.func @f() -> tensor<4x6xf32> {{\n  {text.split(chr(10))[0]}\n  return %cst : tensor<4x6xf32>\n}}\n{text[text.index('{-#'):]}")
        attribute = parsed.body.operations[0].regions[0].blocks[0].operations[0].attributes["value"]
        np.testing.assert_array_equal(resource_blobs.elements(ir.DenseResourceElementsAttr(attribute), np.float32), array)
