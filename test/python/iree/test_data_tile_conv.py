"""strata's own tiling of NCHW convolutions on the llvm-cpu target (`conv-mmt4d` in
targets/llvm-cpu.toml): what the linalg stage holds, and that the tiled models match eager,
including the shapes the tiling pads (rows that are not whole tiles, output channels that are
not, strides, dilations, batches) and the convolutions it leaves to IREE (grouped ones).

The host's CPU flags are patched as in test_data_tile_matmul.py: the tiles are a speed choice,
and any CPU computes them right.
"""

import pytest
import torch
from torch import nn

import strata.targets
from compiled_vs_eager import assert_matches_eager, linalg_and_run
from strata.compile_stages import StageOptions, run_stages
from strata.iree_compile import CompileOptions
from strata.torch_import import import_torch

AVX2 = frozenset({"avx", "avx2", "fma", "sse4_2"})


@pytest.fixture(autouse=True)
def avx2_host(monkeypatch):
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2)


class Convolutions(nn.Module):
    """Bias and no bias, stride 2 and dilation 2, a 7x7 stem, 20 output channels (not whole
    tiles of 16), rows of 12 pixels (whole tiles of 4) and of 6 (padded to 8), a stride and a
    dilation that differ between height and width, and a grouped convolution that stays with
    IREE."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 20, 7, stride=2, padding=3)
        self.strided = nn.Conv2d(20, 16, 3, stride=2, padding=1, bias=False)
        self.dilated = nn.Conv2d(16, 24, 3, padding=2, dilation=2)
        self.grouped = nn.Conv2d(24, 24, 3, padding=1, groups=4)
        self.point = nn.Conv2d(24, 8, 1)
        self.skewed = nn.Conv2d(8, 8, 3, stride=(2, 1), padding=(1, 2), dilation=(1, 2))

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.strided(x)
        x = torch.relu(self.dilated(x))
        return self.skewed(self.point(self.grouped(x))), x.mean(dim=(2, 3))


@pytest.mark.parametrize("batch", [1, 2])
def test_tiled_convolutions_match_eager(batch):
    torch.manual_seed(0)
    model, args = Convolutions().eval(), (torch.randn(batch, 3, 24, 24),)
    linalg, results = linalg_and_run(model, args)
    # Four convolutions tiled, their patches gathered; the strided one with 16 output channels
    # goes to strata's pixel-tile kernel (test_direct_conv.py); the grouped one left (Torch-MLIR
    # writes it as a grouped op).
    assert linalg.count("linalg.mmt4d ins") == 4 and "linalg.conv_2d_nchw_fchw" not in linalg
    assert linalg.count("tensor.extract %") == 4 and linalg.count("call @strata_kernel_conv6p16c_") == 1
    assert "linalg.conv_2d_ngchw_gfchw" in linalg
    assert ("linalg.transpose" in linalg) == (batch > 1)  # [F][pixels] is NCHW only for batch 1
    assert_matches_eager(results, model, args)


def test_zen4_tiles_of_8_pixels_in_16_floats_match_eager(monkeypatch):
    """On Zen 4 (AVX-512's 32 registers) the pixel-tile kernel takes 8 pixels a tile in 16-float
    vectors (`conv-mmt4d-16-lanes`): the strided convolution's 12 x 12 pixels are 18 tiles of 8.
    Any x86 CPU computes them right (without AVX-512 LLVM splits the vectors and spills some
    accumulators)."""
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2 | {"avx512f"})
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("AuthenticAMD", 25, 17))
    torch.manual_seed(0)
    model, args = Convolutions().eval(), (torch.randn(2, 3, 24, 24),)
    linalg, results = linalg_and_run(model, args)
    assert linalg.count("call @strata_kernel_conv8p16c_lanes16_") == 1 and "conv6p16c" not in linalg
    assert_matches_eager(results, model, args)


def test_plain_iree_route_is_unchanged_without_the_tuned_defaults():
    torch.manual_seed(0)
    model, args = nn.Conv2d(3, 8, 3).eval(), (torch.randn(1, 3, 10, 10),)
    options = CompileOptions(tuned=False)
    assert "linalg.conv_2d_nchw_fchw" in run_stages(import_torch(model, args, []), options, StageOptions(stop_at="linalg"))
