//===- data_tile_conv.td - NCHW convolutions as mmt4d ---------*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def DataTileConv : Pass<"strata-data-tile-conv", "ModuleOp"> {
  let summary = "Compute static float NCHW convolutions as linalg.mmt4d of an im2col written straight into tiles, for IREE's CPU codegen";
  let description = [{
    IREE's im2col for CPUs (`--iree-global-opt-use-im2col-for-convs`) turns
    a `linalg.conv_2d_nchw_fchw` into a matmul of the filter [F][C*KH*KW]
    by a patch matrix [C*KH*KW][OH*OW], which its data tiling then packs
    into 8 x 8 x 1 tiles: the patches are gathered and then packed, in a
    dispatch that runs at a few GB/s, and the mmt4d computes output channels
    x pixels.

    This pass writes that lowering itself, with pixels as the rows: the
    patches of `tile-m` neighbouring output pixels of one output row go
    straight into the packed layout the mmt4d reads,
    `[N*OH*OW/tile-m][C*KH*KW][tile-m][1]`, as a gather (`tensor.extract` at
    `oh * stride + kh * dilation`, `(ot * tile-m + oi) * stride + kw *
    dilation` in a `linalg.generic`), which IREE vectorizes into loads along
    the tile's pixels. An affine copy would not do: IREE computes a generic
    whose input map is not a projected permutation element by element. A
    small input of +0.0 and -0.0 added to every element keeps IREE from
    collapsing the gather's dimensions, which would cost a division per
    element; it takes enough dimensions to be larger than the 256 bytes up
    to which IREE inlines a constant into a dispatch, where reshape
    propagation would make the tile's unit dimension the one IREE
    vectorizes along. The
    filter is packed to `[F/tile-n][C*KH*KW][tile-n][1]` (a constant filter
    is packed once, when the module loads), and the `linalg.mmt4d` result
    `[pixel tiles][F/tile-n][tile-m][tile-n]` is unpacked into [F][pixels],
    which is NCHW for batch 1 (a transpose for larger batches). The
    convolution's init (a bias, or zeros) is added afterwards, where IREE
    fuses it with the unpack and whatever elementwise op follows.

    An output row whose width is not a multiple of the tile is computed to
    the next multiple and cut (the extra pixels read zeros padded onto the
    input); a row narrower than `tile-m` uses the next power of two instead.
    Output channels that do not fill a tile are zero filter rows, dropped by
    the unpack.

    With `direct-min-width` set, stride-1 undilated f32 convolutions whose
    output rows are at least that wide are not tiled but handed to strata's
    direct-convolution kernel (`strata.direct_conv`: 6 output channels x 16
    pixels of a row per register tile, read straight from the input, no
    patches): the filter is packed to `[ceil(F/6)][C][KH][KW][6]` and the
    convolution becomes a call of the private function
    `@strata_kernel_conv6x16_n<N>_c<C>_h<H>_w<W>_f<F>_k<KH>x<KW>`, which this
    pass declares in the module (hence a module pass) and which strata turns
    into the kernel's executable and a `flow.dispatch` right before IREE
    compiles (`strata.kernel_calls`). The kernel needs AVX2 and FMA.

    With `pixel-tiles`, the convolutions left (any stride, dilation and row
    width) whose output channels are a multiple of 16 go to strata's
    pixel-tile kernel instead of patches and mmt4d (`strata.pixel_tile_conv`:
    6 output pixels x 16 output channels per register tile, each pixel's
    input read at its own address): the filter packs to
    `[F/16][C][KH][KW][16]` and the call is of
    `@strata_kernel_conv6p16c_<shapes>_s<SH>x<SW>_d<DH>x<DW>`. With
    `tile-pixels=8` a register tile is 8 pixels (sixteen accumulators, for
    AVX-512's 32 registers; `conv8p16c`): fewer pixels computed past the
    end of small outputs (4 x 4: 16 pixels in two tiles, not 18 in three).
    With `lanes=16` the pixel-tile and Winograd kernels compute in AVX-512's
    16-float vectors (a tile's 16 output channels in one: half the
    instructions; symbols `..._conv8p16c_lanes16_...`,
    `..._winograd2x2_lanes16_...`).

    With `winograd-min-channels` set, 3x3 stride-1 undilated f32
    convolutions with at least that many input channels (in whole 4s),
    output channels in whole 16s and at least 16 tiles of 2x2 output pixels
    go to strata's Winograd F(2x2, 3x3) kernels (`strata.winograd_conv`,
    2.25x fewer multiplications than the direct kernels): the input is
    padded to whole tiles and transformed by a call of
    `@strata_kernel_winograd_in_<shapes>` into `[N][16][C][T]` (rows of 16
    tiles or more) or `[N][16][T/6][C][6]`, the
    filter by a `linalg.generic` computing `G g G^T` into `[16][F/16][C][16]`
    (constant for constant weights: computed when the module loads, which
    needs IREE's `--iree-opt-const-expr-max-size-increase-threshold` above
    the 7/9 of the filter's size that it grows by), and a call of
    `@strata_kernel_winograd2x2_<shapes>` computes the products and the
    output. Winograd takes precedence over the other two kernels.

    Rewritten: `linalg.conv_2d_nchw_fchw` with static shapes and one float
    element type, any strides and dilations. Grouped and depthwise
    convolutions, other layouts and dynamic shapes are left to IREE.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "4",
           "Output pixels (along an output row) per tile">,
    Option<"tileN", "tile-n", "int64_t", "16", "Output channels per tile">,
    Option<"directMinWidth", "direct-min-width", "int64_t", "0",
           "Output row width from which stride-1 f32 convolutions go to strata's direct kernel (0: none)">,
    Option<"pixelTiles", "pixel-tiles", "bool", "false",
           "Send the other f32 convolutions with output channels in whole 16s to strata's pixel-tile kernel">,
    Option<"tilePixels", "tile-pixels", "int64_t", "6",
           "Output pixels per register tile of the pixel-tile kernel: 6 or 8">,
    Option<"lanes", "lanes", "int64_t", "8",
           "Floats per vector of the pixel-tile and Winograd kernels: 8 (AVX2) or 16 (AVX-512)">,
    Option<"winogradMinChannels", "winograd-min-channels", "int64_t", "0",
           "Input channels from which 3x3 stride-1 f32 convolutions with output channels in whole 16s go to strata's Winograd kernels (0: none)">,
  ];
}
