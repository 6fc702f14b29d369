"""strata's Winograd F(2x2, 3x3) kernels on AVX2 hosts (`strata.winograd_conv`), which
strata-data-tile-conv hands 3x3 stride-1 convolutions of 16 or more input channels under the
llvm-cpu defaults, with the epilogues strata-fuse-conv-epilogue folds into them.

The numerics go through every part: both layouts of the transformed input (`tiles_last`): tile
rows of 11 tiles, grouped (a group of 8 in the input transform and a rest of 3), and of 19, 18
and 16 tiles, tiles last (the row's last 8 tiles overlapping the group before, or not); odd
output rows and columns (tiles half outside, not stored), a last register tile with 1 of 6 tiles
(the others never stored), batch norm and ReLU, a residual, a 2x2 max pool (odd rows and columns
floored), 32 output channels (two groups of 16), batches. Host flags patched as in
test_direct_conv.py.
"""

import pytest
import torch
from torch import nn

import strata.targets
from compiled_vs_eager import assert_matches_eager, linalg_and_run
from strata.kernel_calls import kernel_of
from strata.winograd_conv import WinogradConv, WinogradInput, tiles_last, transformed_type


class Winograd(nn.Module):
    """On 9x21 inputs: conv-BN-ReLU (5 x 11 = 55 tiles: 9 register tiles and 1 tile), a residual
    and ReLU after a convolution without bias, an unpadded convolution into 32 channels and its
    2x2 max pool (7x19 pixels pooled to 3x9); a 3-channel convolution, which stays direct."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.a, self.bn_a = nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.b = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.c = nn.Conv2d(16, 32, 3)
        self.pool = nn.MaxPool2d(2)
        self.bn_a.running_mean.uniform_(-1, 1)
        self.bn_a.running_var.uniform_(0.25, 2)
        nn.init.uniform_(self.bn_a.weight, -1.5, 1.5)

    def forward(self, x):
        s = self.stem(x)
        a = torch.relu(self.bn_a(self.a(s)))
        b = torch.relu(self.b(a) + a)
        return b, self.pool(self.c(b))


@pytest.mark.parametrize("batch, height, width", [(1, 9, 21), (2, 9, 21), (1, 5, 37), (2, 6, 32)])
def test_winograd_matches_eager(avx2_host, batch, height, width):
    torch.manual_seed(0)
    model, args = Winograd().eval(), (torch.randn(batch, 3, height, width),)
    linalg, results = linalg_and_run(model, args)
    th, tw = -(-height // 2), -(-width // 2)  # the first two convolutions' tiles
    assert tiles_last(tw) == (width > 21) and transformed_type(batch, 16, th, tw) in linalg
    calls = [line for line in linalg.splitlines() if "call @strata_kernel_winograd2x2_" in line]
    assert len(calls) == 3 and linalg.count("call @strata_kernel_winograd_in_") == 3
    assert "_affine_relu(" in calls[0] and "_residual_relu(" in calls[1] and "_affine_pool2(" in calls[2]
    assert "call @strata_kernel_conv6x16_n" in linalg  # the stem: 3 input channels
    assert "linalg.pooling_nchw_max" not in linalg
    assert_matches_eager(results, model, args)


@pytest.mark.parametrize("batch, height, width", [(1, 9, 21), (2, 6, 32)])
def test_zen4_16_lanes_match_eager(monkeypatch, batch, height, width):
    """Zen 4's products in 16-float vectors (`conv-mmt4d-16-lanes`), on V grouped and tiles last.
    Any x86 CPU computes them right (without AVX-512 LLVM splits the vectors)."""
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"avx", "avx2", "fma", "sse4_2", "avx512f"}))
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("AuthenticAMD", 25, 17))
    torch.manual_seed(0)
    model, args = Winograd().eval(), (torch.randn(batch, 3, height, width),)
    linalg, results = linalg_and_run(model, args)
    assert linalg.count("call @strata_kernel_winograd2x2_lanes16_") == 3 and "call @strata_kernel_winograd2x2_n" not in linalg
    assert_matches_eager(results, model, args)


def test_symbols_name_the_shapes():
    conv = WinogradConv(n=1, c=64, hp=30, wp=30, f=64, kh=3, kw=3)
    assert conv.symbol == "strata_kernel_winograd2x2_n1_c64_h30_w30_f64_k3x3"
    assert conv.tiles == (14, 14) and kernel_of(conv.symbol) == conv
    fused = conv.with_epilogue(affine=True, residual=False, relu=True, pool2=True)
    assert kernel_of(fused.symbol) == fused
    assert fused.types() == (
        transformed_type(1, 64, 14, 14),
        "tensor<16x4x64x16xf32>",
        "tensor<64xf32>",
        "tensor<64xf32>",
        "tensor<1x64x14x14xf32>",
    )
    assert transformed_type(1, 64, 14, 14) == "tensor<1x16x33x64x6xf32>"  # grouped
    assert transformed_type(1, 32, 28, 28) == "tensor<1x16x32x792xf32>"  # tiles last: 131 register tiles
    wide = WinogradConv(n=1, c=64, hp=30, wp=30, f=64, kh=3, kw=3, lanes=16).with_epilogue(affine=True, residual=True, relu=True)
    assert wide.symbol == "strata_kernel_winograd2x2_lanes16_n1_c64_h30_w30_f64_k3x3_affine_residual_relu"
    assert kernel_of(wide.symbol) == wide and wide.types() == WinogradConv(1, 64, 30, 30, 64, 3, 3, affine=True, residual=True, relu=True).types()
    assert kernel_of(wide.symbol.replace("lanes16", "lanes8")) is None  # 8 lanes are named by no suffix
    transform = WinogradInput(n=1, c=64, hp=30, wp=34, th=14, tw=14)
    assert kernel_of(transform.symbol) == transform and transform.channels_per_workgroup == 16
