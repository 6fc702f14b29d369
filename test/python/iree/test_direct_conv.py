"""strata's convolution kernels on AVX2 hosts: the direct kernel along output rows
(`strata.direct_conv`), which strata-data-tile-conv hands stride-1 convolutions with rows of 16
pixels or more, the pixel-tile kernel (`strata.pixel_tile_conv`), which takes the others whose
output channels come in whole 16s, and `strata.kernel_calls`, which turns the linalg stage's calls
of them into IREE dispatches.

The numerics go through every part of the row kernel: whole 16-pixel chunks, a last chunk of 8,
of fewer (masked loads and stores), output channels that are not a multiple of 6 (zero-padded
weights, not stored), a bias, a 1x1 and a non-square kernel, batches; and of the pixel-tile
kernel: strides, dilations, rows of 7 and 4 pixels (tiles of 6 pixels across row ends, the last
one partly past the end), 1x1 downsampling, a 7x7 stride-2 stem, batches. The host's CPU flags are
patched as in test_data_tile_conv.py; the kernel itself needs AVX2 and FMA, which these machines
have (the test is skipped where the CPU lacks them).
"""

import pytest
import torch
from torch import nn

from compiled_vs_eager import assert_matches_eager, linalg_and_run
from strata.compile_stages import StageOptions, run_stages
from strata.direct_conv import DirectConv
from strata.errors import StrataError
from strata.iree_compile import CompileOptions, compile_ir, executable_target, iree_flags
from strata.kernel_calls import calls_kernels, dispatch_kernels, kernel_of
from strata.pixel_tile_conv import PixelTileConv
from strata.torch_import import import_torch

KERNEL_CALL = "call @strata_kernel_conv6x16_"
TARGET = '#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu_features = "+avx,+avx2,+fma"}>'


class StrideOne(nn.Module):
    """Rows of 37 (two chunks of 16 and 5 masked pixels), 35 (and 3) and 24 (16 and 8 pixels);
    20 and 8 output channels (not multiples of 6), 12; a bias and none; 3x3, 1x1 and 3x5."""

    def __init__(self):
        super().__init__()
        self.first = nn.Conv2d(3, 20, 3, padding=1, bias=False)
        self.second = nn.Conv2d(20, 12, 3)
        self.point = nn.Conv2d(12, 8, 1)
        self.wide = nn.Conv2d(8, 12, (3, 5))

    def forward(self, x):
        x = torch.relu(self.first(x))
        x = self.point(self.second(x))
        return self.wide(x[..., :28]), x


@pytest.mark.parametrize("batch", [1, 2])
def test_direct_convolutions_match_eager(avx2_host, batch):
    torch.manual_seed(0)
    model, args = StrideOne().eval(), (torch.randn(batch, 3, 10, 37),)
    linalg, results = linalg_and_run(model, args)
    assert linalg.count(KERNEL_CALL) == 4 and "linalg.mmt4d" not in linalg
    assert_matches_eager(results, model, args)


def test_kernels_take_the_target_of_iree_dispatches(avx2_host):
    """The kernels' executables get the target IREE compiles its own dispatches for, so IREE
    links them all into one executable with one variant (on a target of their own they would
    need executables left unlinked: twice the compile time)."""
    flags = tuple(iree_flags(CompileOptions()))
    target = executable_target(flags)
    assert target.startswith('#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64"') and "+avx2" in target
    assert "--iree-hal-link-executables=false" not in flags


class PixelTiles(nn.Module):
    """ResNet's shapes in small: a 7x7 stride-2 stem, a dilated convolution, rows of 7 and 4
    pixels, a 1x1 stride-2 downsampling with a bias; 16 and 32 output channels."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.dilated = nn.Conv2d(16, 16, 3, padding=2, dilation=2)
        self.down = nn.Conv2d(16, 32, 1, stride=2)
        self.narrow = nn.Conv2d(32, 32, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.dilated(torch.relu(self.stem(x))))
        return self.narrow(self.down(x))


@pytest.mark.parametrize("batch", [1, 2])
def test_pixel_tile_convolutions_match_eager(avx2_host, batch):
    torch.manual_seed(0)
    model, args = PixelTiles().eval(), (torch.randn(batch, 3, 28, 14),)
    linalg, results = linalg_and_run(model, args)
    assert linalg.count("call @strata_kernel_conv6p16c_") == 4 and "linalg.mmt4d" not in linalg
    assert_matches_eager(results, model, args)


class WideInput(nn.Module):
    """256 input channels, 3x3 at stride 2 (ResNet-18's third downsampling; 144 KiB of weights a
    group of 16 outputs): the pixel-tile kernel walks the two halves of the channels at once
    (two weight streams)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(256, 32, 3, stride=2, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def test_two_weight_streams_match_eager(avx2_host):
    torch.manual_seed(0)
    model, args = WideInput().eval(), (torch.randn(1, 256, 9, 9),)
    linalg, results = linalg_and_run(model, args)
    (symbol,) = {line.split("@")[1].split("(")[0] for line in linalg.splitlines() if "call @strata_kernel_conv6p16c_" in line}
    assert PixelTileConv.from_symbol(symbol).weight_streams == 2
    assert PixelTileConv(n=1, c=128, hp=9, wp=9, f=32, kh=3, kw=3).weight_streams == 1
    assert_matches_eager(results, model, args)


class Epilogues(nn.Module):
    """Convolution, batch norm and ReLU, and the same with a residual added (either side of the
    addition), through both kernels: the row kernel on rows of 21 pixels (16, then 5 masked)
    with 10 output channels (not a multiple of 6: the last tile's channels past 10 are not
    stored), the pixel-tile kernel at stride 2 and on rows of 11 pixels (dilated: not Winograd's).
    Batch norm statistics and affine weights are random, some scales negative."""

    def __init__(self):
        super().__init__()
        self.a, self.bn_a = nn.Conv2d(3, 10, 3, padding=1), nn.BatchNorm2d(10)
        self.b, self.bn_b = nn.Conv2d(10, 10, 3, padding=1, bias=False), nn.BatchNorm2d(10)
        self.c, self.bn_c = nn.Conv2d(10, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16)
        self.d, self.bn_d = nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.BatchNorm2d(16)
        for bn in (self.bn_a, self.bn_b, self.bn_c, self.bn_d):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.25, 2)
            nn.init.uniform_(bn.weight, -1.5, 1.5)
            nn.init.uniform_(bn.bias, -1, 1)

    def forward(self, x):
        a = torch.relu(self.bn_a(self.a(x)))
        b = torch.relu(self.bn_b(self.b(a)) + a)
        c = torch.relu(self.bn_c(self.c(b)))
        return torch.relu(c + self.bn_d(self.d(c))), b


@pytest.mark.parametrize("batch", [1, 2])
def test_epilogues_match_eager(avx2_host, batch):
    """strata-fuse-conv-epilogue folds every batch norm, residual and ReLU into the kernels
    (no elementwise generic is left over a convolution's output), and the results match."""
    torch.manual_seed(0)
    model, args = Epilogues().eval(), (torch.randn(batch, 3, 12, 21),)
    linalg, results = linalg_and_run(model, args)
    for kernel in ("conv6x16_", "conv6p16c_"):
        calls = [line for line in linalg.splitlines() if f"call @strata_kernel_{kernel}" in line]
        assert len(calls) == 2 and "_affine_relu(" in calls[0] and "_affine_residual_relu(" in calls[1]
    outputs = (f"tensor<{batch}x10x12x21xf32>", f"tensor<{batch}x16x6x11xf32>")
    assert not [line for line in linalg.splitlines() if "linalg.generic" in line and any(t in line for t in outputs)]
    assert_matches_eager(results, model, args)


class Pools(nn.Module):
    """2x2 max pools the row kernel takes into its epilogue: after a residual and a ReLU (rows of
    21 pixels: pooled rows of 10, one chunk of 8 convolved pixels and a masked one of 4; 13 rows,
    the last not pooled; 10 output channels), and right after a convolution with a bias (rows of
    19: the last column not pooled, a masked chunk of 2; 7 output channels)."""

    def __init__(self):
        super().__init__()
        self.a, self.bn_a = nn.Conv2d(3, 10, 3, padding=1), nn.BatchNorm2d(10)
        self.b = nn.Conv2d(10, 10, 3, padding=1, bias=False)
        self.c = nn.Conv2d(3, 7, 3)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        a = torch.relu(self.bn_a(self.a(x)))
        return self.pool(torch.relu(self.b(a) + a)), self.pool(self.c(x))


@pytest.mark.parametrize("batch", [1, 2])
def test_pools_match_eager(avx2_host, batch):
    torch.manual_seed(0)
    model, args = Pools().eval(), (torch.randn(batch, 3, 13, 21),)
    linalg, results = linalg_and_run(model, args)
    calls = [line for line in linalg.splitlines() if KERNEL_CALL in line]
    assert len(calls) == 3 and "linalg.pooling_nchw_max" not in linalg
    assert sum("_affine_relu(" in c for c in calls) == 1 and sum("_residual_relu_pool2(" in c for c in calls) == 1
    assert sum("_affine_pool2(" in c for c in calls) == 1
    assert_matches_eager(results, model, args)


def test_narrow_rows_and_strides_stay_tiled(avx2_host):
    """Rows of 12 pixels and a stride of 2, with 8 output channels (not whole tiles of 16 for the
    pixel-tile kernel), are IREE's mmt4d of strata's patches, as before."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, stride=2, padding=1)).eval()
    linalg = run_stages(import_torch(model, (torch.randn(1, 3, 12, 12),), []), CompileOptions(), StageOptions(stop_at="linalg"))
    assert KERNEL_CALL not in linalg and linalg.count("linalg.mmt4d ins") == 2


def test_symbol_names_the_shapes():
    conv = DirectConv(n=2, c=32, hp=58, wp=60, f=64, kh=3, kw=5)
    assert conv.symbol == "strata_kernel_conv6x16_n2_c32_h58_w60_f64_k3x5"
    assert DirectConv.from_symbol(conv.symbol) == conv
    assert (conv.oh, conv.ow, conv.filter_tiles) == (56, 56, 11)
    assert DirectConv.from_symbol("strata_kernel_conv6x16_n2_c32") is None
    pixels = PixelTileConv(n=1, c=3, hp=118, wp=118, f=64, kh=7, kw=7, sh=2, sw=2)
    assert pixels.symbol == "strata_kernel_conv6p16c_n1_c3_h118_w118_f64_k7x7_s2x2_d1x1"
    assert kernel_of(pixels.symbol) == pixels and kernel_of(conv.symbol) == conv
    assert (pixels.oh, pixels.ow) == (56, 56)
    fused = pixels.with_epilogue(affine=True, residual=True, relu=True)
    assert fused.symbol == pixels.symbol + "_affine_residual_relu" and kernel_of(fused.symbol) == fused
    assert len(fused.types()) == 6 and fused.types()[2] == "tensor<64xf32>" and fused.types()[4] == fused.types()[5]
    relu = conv.with_epilogue(affine=False, residual=False, relu=True)
    assert relu.symbol == conv.symbol + "_relu" and DirectConv.from_symbol(relu.symbol) == relu
    pooled = conv.with_epilogue(affine=False, residual=True, relu=True, pool2=True)
    assert pooled.symbol == conv.symbol + "_residual_relu_pool2" and kernel_of(pooled.symbol) == pooled
    assert pooled.types()[2] == "tensor<2x64x56x56xf32>" and pooled.types()[3] == "tensor<2x64x28x28xf32>"
    assert PixelTileConv.from_symbol(pixels.symbol + "_pool2") is None  # only the row kernel pools
    wide = PixelTileConv(n=1, c=512, hp=6, wp=6, f=512, kh=3, kw=3, pixels=8, lanes=16).with_epilogue(affine=True, residual=False, relu=True)
    assert wide.symbol == "strata_kernel_conv8p16c_lanes16_n1_c512_h6_w6_f512_k3x3_s1x1_d1x1_affine_relu"
    assert kernel_of(wide.symbol) == wide
    for other in ("lanes8_", "lanes32_"):  # 8 lanes are named by no suffix; 32 are not a kernel
        assert kernel_of(wide.symbol.replace("lanes16_", other)) is None


def _calling_module(conv) -> str:
    """A linalg-stage module that calls `conv`'s kernel, as strata-data-tile-conv leaves it."""
    x, w, y = conv.types()
    return (
        f"module {{\n  func.func @main(%x: {x}, %w: {w}) -> {y} {{\n"
        f"    %y = call @{conv.symbol}(%x, %w) : ({x}, {w}) -> {y} loc(#loc1)\n    return %y : {y}\n  }}\n"
        f"  func.func private @{conv.symbol}({x}, {w}) -> {y} loc(#loc2)\n}}\n"
        "#loc1 = loc(\"net.py\":1:1)\n#loc2 = loc(\"net.py\":2:1)\n"
    )


def test_kernel_calls_become_dispatches():
    conv = DirectConv(n=1, c=4, hp=10, wp=20, f=7, kh=3, kw=3)
    x, w, y = conv.types()
    text = _calling_module(conv)
    assert calls_kernels(text) and not calls_kernels("module {\n}\n")
    dispatched = dispatch_kernels(text, TARGET)
    assert f"hal.executable.variant public @cpu target({TARGET})" in dispatched
    assert f"flow.dispatch @{conv.symbol}::@cpu::@{conv.symbol}(%x, %w) : ({x}, {w}) -> {y} loc(#loc1)" in dispatched
    assert f"hal.executable private @{conv.symbol}" in dispatched and "func.func private" not in dispatched
    # The generic form of the call too; a longer word ending in "call" is not one.
    generic = dispatch_kernels(text.replace("= call @", "= func.call @"), TARGET)
    assert f"%y = flow.dispatch @{conv.symbol}::@cpu::@{conv.symbol}(%x, %w)" in generic
    other = dispatch_kernels(text.replace("= call @", "= my.call @"), TARGET)
    assert f"= my.call @{conv.symbol}(%x, %w)" in other and f"flow.dispatch @{conv.symbol}" not in other


def test_unknown_kernel_name_is_an_error():
    text = "module {\n  func.func private @strata_kernel_conv6x16_n1_c4(tensor<1xf32>) -> tensor<1xf32>\n}\n"
    with pytest.raises(StrataError, match="names no kernel strata has"):
        dispatch_kernels(text, TARGET)


def test_kernel_calls_for_another_target_are_a_clear_error():
    """A linalg stage written for llvm-cpu (with calls of the x86-64 kernels) compiled for Vulkan:
    a StrataError that says why, not IREE's failure on x86 code in a SPIR-V executable."""
    text = _calling_module(DirectConv(n=1, c=4, hp=10, wp=20, f=7, kh=3, kw=3))
    with pytest.raises(StrataError, match="compile only for llvm-cpu on x86-64"):
        compile_ir(text, CompileOptions(target="vulkan-spirv"), input_type="auto")
