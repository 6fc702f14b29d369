// strata-data-tile-conv: static float NCHW convolutions become patches written in tiles, a packed
// filter, linalg.mmt4d and an unpack to [F][pixels]; everything else is left alone. Structure
// only here; numerics through IREE: test/python/iree/test_data_tile_conv.py.
// RUN: strata-opt --split-input-file --strata-data-tile-conv %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-data-tile-conv='tile-m=8 tile-n=8' %s | FileCheck %s --check-prefix=OPTS
// RUN: not strata-opt --strata-data-tile-conv='tile-n=0' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: strata-opt --split-input-file --strata-data-tile-conv='direct-min-width=16' %s | FileCheck %s --check-prefix=DIRECT
// RUN: not strata-opt --strata-data-tile-conv='direct-min-width=-1' %s 2>&1 | FileCheck %s --check-prefix=BAD-DIRECT
// RUN: not strata-opt --strata-data-tile-conv='winograd-min-channels=-4' %s 2>&1 | FileCheck %s --check-prefix=BAD-WINOGRAD
// RUN: strata-opt --split-input-file --strata-data-tile-conv='direct-min-width=16 pixel-tiles=true' %s | FileCheck %s --check-prefix=PIXELS
// RUN: strata-opt --split-input-file --strata-data-tile-conv='direct-min-width=16 pixel-tiles=true tile-pixels=8' %s | FileCheck %s --check-prefix=PIXELS8
// RUN: not strata-opt --strata-data-tile-conv='pixel-tiles=true tile-pixels=5' %s 2>&1 | FileCheck %s --check-prefix=BAD-PIXELS
// RUN: strata-opt --split-input-file --strata-data-tile-conv='direct-min-width=16 pixel-tiles=true winograd-min-channels=16' %s | FileCheck %s --check-prefix=WINOGRAD
// RUN: strata-opt --split-input-file --strata-data-tile-conv='direct-min-width=16 pixel-tiles=true tile-pixels=8 lanes=16 winograd-min-channels=16' %s | FileCheck %s --check-prefix=LANES16
// RUN: not strata-opt --strata-data-tile-conv='lanes=12' %s 2>&1 | FileCheck %s --check-prefix=BAD-LANES

// Batch 1, rows of 56 pixels (fourteen tiles of 4), 64 output channels (four tiles of 16), zero
// init. The patches are gathered straight into the mmt4d's tiles, [1][56][14][32][3][3][4][1],
// each element a tensor.extract at (c, oh + kh, ot * 4 + oi + kw); the +0/-0 %lanes input,
// indexed by every other dimension innermost first, keeps IREE from collapsing them (here it is
// larger than 256 bytes, so no more dimensions). They reshape to the mmt4d's A [784][288][4][1],
// the filter packs to B [4][288][16][1], and the unpack is already NCHW (no transpose, no add).
// CHECK:       #[[LANES_MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d4, d2, d0)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x32x58x58xf32>, %[[W:.*]]: tensor<64x32x3x3xf32>)
// CHECK:         %[[LANES:.*]] = arith.constant dense<"0x0000000000000080{{(0000000000000080)*}}"> : tensor<4x3x14x1xf32>
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[LANES_MAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[LANES]] : tensor<4x3x14x1xf32>) outs(%{{.*}} : tensor<1x56x14x32x3x3x4x1xf32>)
// CHECK:         ^bb0(%[[LANE:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           %[[I2:.*]] = linalg.index 2
// CHECK:           %[[I3:.*]] = linalg.index 3
// CHECK:           %[[I4:.*]] = linalg.index 4
// CHECK:           %[[I5:.*]] = linalg.index 5
// CHECK:           %[[I6:.*]] = linalg.index 6
// CHECK:           %[[ROW:.*]] = arith.addi %[[I1]], %[[I4]] : index
// CHECK:           %[[T:.*]] = arith.muli %[[I2]], %[[C4:.*]] : index
// CHECK:           %[[TI:.*]] = arith.addi %[[T]], %[[I6]] : index
// CHECK:           %[[COL:.*]] = arith.addi %[[TI]], %[[I5]] : index
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[I3]], %[[ROW]], %[[COL]]] : tensor<1x32x58x58xf32>
// CHECK:           %[[KEPT:.*]] = arith.addf %[[V]], %[[LANE]] : f32
// CHECK:           linalg.yield %[[KEPT]]
// CHECK:         %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1, 2], [3, 4, 5], [6], [7]] : tensor<1x56x14x32x3x3x4x1xf32> into tensor<784x288x4x1xf32>
// CHECK:         %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<64x32x3x3xf32> into tensor<64x288xf32>
// CHECK:         %[[B:.*]] = linalg.pack %[[W2]] inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %{{.*}} : tensor<64x288xf32> -> tensor<4x288x16x1xf32>
// CHECK:         %[[R:.*]] = linalg.mmt4d ins(%[[A]], %[[B]] : tensor<784x288x4x1xf32>, tensor<4x288x16x1xf32>) outs(%{{.*}} : tensor<784x4x4x16xf32>)
// CHECK:         %[[U:.*]] = linalg.unpack %[[R]] outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 16] into %{{.*}} : tensor<784x4x4x16xf32> -> tensor<64x3136xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[U]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 64, 56, 56]
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     arith.addf
// CHECK:         return %[[Y]] : tensor<1x64x56x56xf32>
// OPTS-LABEL: func.func @conv
// OPTS:         linalg.mmt4d {{.*}} : tensor<392x288x8x1xf32>, tensor<8x288x8x1xf32>) outs(%{{.*}} : tensor<392x8x8x8xf32>)
// With direct-min-width=16 the same stride-1 convolution (rows of 56 >= 16) goes to strata's
// direct kernel: the filter packs into groups of 6 output channels, [11][32][3][3][6] (64 is not
// a multiple of 6: zero-padded), and the convolution is a call of the kernel's function, declared
// once in the module with the shapes in its name. No patches, no mmt4d, no bias to add.
// DIRECT-LABEL: func.func @conv
// DIRECT-SAME:    (%[[X:.*]]: tensor<1x32x58x58xf32>, %[[W:.*]]: tensor<64x32x3x3xf32>)
// DIRECT:         %[[P:.*]] = linalg.pack %[[W]] padding_value(%{{.*}} : f32) inner_dims_pos = [0] inner_tiles = [6] into %{{.*}} : tensor<64x32x3x3xf32> -> tensor<11x32x3x3x6xf32>
// DIRECT:         %[[Y:.*]] = call @strata_kernel_conv6x16_n1_c32_h58_w58_f64_k3x3(%[[X]], %[[P]]) : (tensor<1x32x58x58xf32>, tensor<11x32x3x3x6xf32>) -> tensor<1x64x56x56xf32>
// DIRECT-NOT:     linalg.mmt4d
// DIRECT-NOT:     arith.addf
// DIRECT:         return %[[Y]]
// DIRECT:       func.func private @strata_kernel_conv6x16_n1_c32_h58_w58_f64_k3x3(tensor<1x32x58x58xf32>, tensor<11x32x3x3x6xf32>) -> tensor<1x64x56x56xf32>
func.func @conv(%x: tensor<1x32x58x58xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x64x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x32x58x58xf32>, tensor<64x32x3x3xf32>) outs(%init : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Stride 2 and rows of 14 pixels: computed as four tiles of 4 (16 pixels), so the input is padded
// on the right to the 33 columns the 16th pixel reads, and the result is cut back to 14. Every
// other dimension would make %lanes 192 bytes, which IREE would inline into the dispatch: it is
// indexed by KW too. The gather reads (c, oh * 2 + kh, ot * 8 + oi * 2 + kw). 20 output channels
// pad the filter to two tiles of 16. A bias as init is added afterwards.
// CHECK:       #[[LANES_MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d5, d4, d2, d0)>
// CHECK-LABEL: func.func @strided
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8x30x30xf32>, %[[W:.*]]: tensor<20x8x3x3xf32>, %[[BIAS:.*]]: tensor<1x20x14x14xf32>)
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[LANES:.*]] = arith.constant dense<"0x{{(0000000000000080)+}}"> : tensor<4x3x3x4x1xf32>
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[XW:.*]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 0, 3]
// CHECK:         } : tensor<1x8x30x30xf32> to tensor<1x8x30x33xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[LANES_MAP]], #{{.*}}], {{.*}} ins(%[[LANES]] : tensor<4x3x3x4x1xf32>) outs(%{{.*}} : tensor<1x14x4x8x3x3x4x1xf32>)
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           %[[I2:.*]] = linalg.index 2
// CHECK:           %[[I3:.*]] = linalg.index 3
// CHECK:           %[[I4:.*]] = linalg.index 4
// CHECK:           %[[I5:.*]] = linalg.index 5
// CHECK:           %[[I6:.*]] = linalg.index 6
// CHECK:           %[[H0:.*]] = arith.muli %[[I1]], %[[C2]] : index
// CHECK:           %[[ROW:.*]] = arith.addi %[[H0]], %[[I4]] : index
// CHECK:           %[[T:.*]] = arith.muli %[[I2]], %[[C8]] : index
// CHECK:           %[[OI:.*]] = arith.muli %[[I6]], %[[C2]] : index
// CHECK:           %[[TI:.*]] = arith.addi %[[T]], %[[OI]] : index
// CHECK:           %[[COL:.*]] = arith.addi %[[TI]], %[[I5]] : index
// CHECK:           tensor.extract %[[XW]][%{{.*}}, %[[I3]], %[[ROW]], %[[COL]]] : tensor<1x8x30x33xf32>
// CHECK:         linalg.pack %{{.*}} padding_value(%[[Z]] : f32) inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %{{.*}} : tensor<20x72xf32> -> tensor<2x72x16x1xf32>
// CHECK:         %[[R:.*]] = linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<56x2x4x16xf32>)
// CHECK:         linalg.unpack %[[R]] {{.*}} : tensor<56x2x4x16xf32> -> tensor<20x224xf32>
// CHECK:         %[[ROWS:.*]] = tensor.expand_shape {{.*}} output_shape [1, 20, 14, 16] : tensor<20x224xf32> into tensor<1x20x14x16xf32>
// CHECK:         %[[CUT:.*]] = tensor.extract_slice %[[ROWS]][0, 0, 0, 0] [1, 20, 14, 14] [1, 1, 1, 1]
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[CUT]], %[[BIAS]] : tensor<1x20x14x14xf32>, tensor<1x20x14x14xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[SUM]]
func.func @strided(%x: tensor<1x8x30x30xf32>, %w: tensor<20x8x3x3xf32>, %bias: tensor<1x20x14x14xf32>) -> tensor<1x20x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x8x30x30xf32>, tensor<20x8x3x3xf32>) outs(%bias : tensor<1x20x14x14xf32>) -> tensor<1x20x14x14xf32>
  return %r : tensor<1x20x14x14xf32>
}

// -----

// Batch 2, dilation 2, rows of 2 pixels (narrower than a tile: tiles of 2): the gather reads
// (n, c, oh + kh * 2, oi + kw * 2), and %lanes takes KW and OH as well to pass 256 bytes.
// [F][N*OH*OW] is transposed to NCHW.
// CHECK:       #[[LANES_MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d6, d5, d4, d2, d1, d0)>
// CHECK-LABEL: func.func @batch_dilated
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x6x6xf32>
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK:         linalg.generic {indexing_maps = [#[[LANES_MAP]], #{{.*}}], {{.*}} ins(%{{.*}} : tensor<2x3x3x1x2x2xf32>) outs(%{{.*}} : tensor<2x2x1x3x3x3x2x1xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           %[[I3:.*]] = linalg.index 3
// CHECK:           %[[I4:.*]] = linalg.index 4
// CHECK:           %[[I5:.*]] = linalg.index 5
// CHECK:           %[[I6:.*]] = linalg.index 6
// CHECK:           %[[H1:.*]] = arith.muli %[[I4]], %[[C2]] : index
// CHECK:           %[[ROW:.*]] = arith.addi %[[I1]], %[[H1]] : index
// CHECK:           %[[W2:.*]] = arith.muli %[[I5]], %[[C2]] : index
// CHECK:           %[[COL:.*]] = arith.addi %[[I6]], %[[W2]] : index
// CHECK:           tensor.extract %[[X]][%[[I0]], %[[I3]], %[[ROW]], %[[COL]]] : tensor<2x3x6x6xf32>
// CHECK:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<4x1x2x16xf32>)
// CHECK:         linalg.unpack {{.*}} : tensor<4x1x2x16xf32> -> tensor<16x8xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [16, 2, 2, 2] : tensor<16x8xf32> into tensor<16x2x2x2xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<16x2x2x2xf32>) outs(%{{.*}} : tensor<2x16x2x2xf32>) permutation = [1, 0, 2, 3]
// CHECK:         return %[[T]]
func.func @batch_dilated(%x: tensor<2x3x6x6xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x16x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x3x6x6xf32>, tensor<16x3x3x3xf32>) outs(%init : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  return %r : tensor<2x16x2x2xf32>
}

// -----

// Stride 2 in height only, dilation 2 in width only: the gather reads
// (c, oh * 2 + kh, ot * 4 + oi + kw * 2).
// CHECK-LABEL: func.func @asymmetric
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x9x12xf32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x3x3x2x1xf32>) outs(%{{.*}} : tensor<1x4x2x4x3x3x4x1xf32>)
// CHECK:           %[[I1:.*]] = linalg.index 1
// CHECK:           %[[I2:.*]] = linalg.index 2
// CHECK:           %[[I3:.*]] = linalg.index 3
// CHECK:           %[[I4:.*]] = linalg.index 4
// CHECK:           %[[I5:.*]] = linalg.index 5
// CHECK:           %[[I6:.*]] = linalg.index 6
// CHECK:           %[[H0:.*]] = arith.muli %[[I1]], %[[C2]] : index
// CHECK:           %[[ROW:.*]] = arith.addi %[[H0]], %[[I4]] : index
// CHECK:           %[[T:.*]] = arith.muli %[[I2]], %[[C4]] : index
// CHECK:           %[[KW:.*]] = arith.muli %[[I5]], %[[C2]] : index
// CHECK:           %[[TI:.*]] = arith.addi %[[T]], %[[I6]] : index
// CHECK:           %[[COL:.*]] = arith.addi %[[TI]], %[[KW]] : index
// CHECK:           tensor.extract %[[X]][%{{.*}}, %[[I3]], %[[ROW]], %[[COL]]] : tensor<1x4x9x12xf32>
// CHECK:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<8x1x4x16xf32>)
func.func @asymmetric(%x: tensor<1x4x9x12xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<1x16x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x16x4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>} ins(%x, %w : tensor<1x4x9x12xf32>, tensor<16x4x3x3xf32>) outs(%init : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  return %r : tensor<1x16x4x8xf32>
}

// -----

// Left to IREE: dynamic shapes, integer convolutions, other layouts.
// CHECK-LABEL: func.func @untouched
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} tensor<?x3x8x8xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} tensor<1x3x8x8xi32>
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     linalg.mmt4d
func.func @untouched(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %y: tensor<?x4x6x6xf32>,
                     %xi: tensor<1x3x8x8xi32>, %wi: tensor<4x3x3x3xi32>, %yi: tensor<1x4x6x6xi32>,
                     %xh: tensor<1x8x8x3xf32>, %wh: tensor<3x3x3x4xf32>, %yh: tensor<1x6x6x4xf32>)
    -> (tensor<?x4x6x6xf32>, tensor<1x4x6x6xi32>, tensor<1x6x6x4xf32>) {
  %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%y : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%xi, %wi : tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) outs(%yi : tensor<1x4x6x6xi32>) -> tensor<1x4x6x6xi32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%xh, %wh : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%yh : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %a, %b, %c : tensor<?x4x6x6xf32>, tensor<1x4x6x6xi32>, tensor<1x6x6x4xf32>
}

// BAD: strata-data-tile-conv: tile-m and tile-n must be at least 1; got tile-n=0
// BAD-DIRECT: strata-data-tile-conv: direct-min-width must be 0 (off) or more; got -1
// BAD-WINOGRAD: strata-data-tile-conv: winograd-min-channels must be 0 (off) or more; got -4
// BAD-PIXELS: strata-data-tile-conv: tile-pixels must be 6 or 8; got 5
// BAD-LANES: strata-data-tile-conv: lanes must be 8 or 16; got 12

// -----

// Direct-kernel choices: two stride-1 convolutions of one shape share one declaration; a bias is
// added after the call; 12 output channels need no padding of the filter; rows narrower than
// direct-min-width (14 < 16) and stride 2 stay with the tiled mmt4d.
// Without the option all four are tiled.
// CHECK-LABEL: func.func @direct_choices
// CHECK-COUNT-4: linalg.mmt4d
// CHECK-NOT:     call @strata_kernel
// DIRECT-LABEL: func.func @direct_choices
// DIRECT:         %[[P:.*]] = linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [6] into %{{.*}} : tensor<12x8x3x3xf32> -> tensor<2x8x3x3x6xf32>
// DIRECT:         %[[Y:.*]] = call @strata_kernel_conv6x16_n2_c8_h20_w20_f12_k3x3(%{{.*}}, %[[P]])
// DIRECT:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<2x12x18x18xf32>, tensor<2x12x18x18xf32>)
// DIRECT:           arith.addf
// DIRECT:         call @strata_kernel_conv6x16_n2_c8_h20_w20_f12_k3x3(
// DIRECT:         linalg.mmt4d
// DIRECT:         linalg.mmt4d
// DIRECT:       func.func private @strata_kernel_conv6x16_n2_c8_h20_w20_f12_k3x3(
// DIRECT-NOT:   func.func private
func.func @direct_choices(%x: tensor<2x8x20x20xf32>, %w: tensor<12x8x3x3xf32>, %bias: tensor<2x12x18x18xf32>,
                          %narrow: tensor<1x8x16x16xf32>, %wide: tensor<1x8x41x41xf32>)
    -> (tensor<2x12x18x18xf32>, tensor<2x12x18x18xf32>, tensor<1x12x14x14xf32>, tensor<1x12x20x20xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x12x18x18xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x12x18x18xf32>) -> tensor<2x12x18x18xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x8x20x20xf32>, tensor<12x8x3x3xf32>) outs(%bias : tensor<2x12x18x18xf32>) -> tensor<2x12x18x18xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x8x20x20xf32>, tensor<12x8x3x3xf32>) outs(%z : tensor<2x12x18x18xf32>) -> tensor<2x12x18x18xf32>
  %en = tensor.empty() : tensor<1x12x14x14xf32>
  %zn = linalg.fill ins(%zero : f32) outs(%en : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%narrow, %w : tensor<1x8x16x16xf32>, tensor<12x8x3x3xf32>) outs(%zn : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
  %ew = tensor.empty() : tensor<1x12x20x20xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<1x12x20x20xf32>) -> tensor<1x12x20x20xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%wide, %w : tensor<1x8x41x41xf32>, tensor<12x8x3x3xf32>) outs(%zw : tensor<1x12x20x20xf32>) -> tensor<1x12x20x20xf32>
  return %a, %b, %c, %d : tensor<2x12x18x18xf32>, tensor<2x12x18x18xf32>, tensor<1x12x14x14xf32>, tensor<1x12x20x20xf32>
}

// -----

// Pixel tiles: with pixel-tiles=true a strided, dilated convolution whose 32 output channels are
// whole tiles of 16 goes to strata's pixel-tile kernel (the filter packed [2][8][3][3][16], the
// strides and dilations in the name); 12 output channels stay tiled, as both do without it.
// With tile-pixels=8 and lanes=16 the symbol says both.
// CHECK-LABEL: func.func @pixel_tiles
// CHECK-COUNT-2: linalg.mmt4d
// DIRECT-LABEL: func.func @pixel_tiles
// DIRECT-COUNT-2: linalg.mmt4d
// DIRECT-NOT:     call @strata_kernel
// LANES16-LABEL: func.func @pixel_tiles
// LANES16:         call @strata_kernel_conv8p16c_lanes16_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(
// LANES16:       func.func private @strata_kernel_conv8p16c_lanes16_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(
// PIXELS8-LABEL: func.func @pixel_tiles
// PIXELS8:         call @strata_kernel_conv8p16c_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(
// PIXELS8:       func.func private @strata_kernel_conv8p16c_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(
// PIXELS-LABEL: func.func @pixel_tiles
// PIXELS:         %[[P:.*]] = linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [16] into %{{.*}} : tensor<32x8x3x3xf32> -> tensor<2x8x3x3x16xf32>
// PIXELS:         call @strata_kernel_conv6p16c_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(%{{.*}}, %[[P]]) : (tensor<1x8x21x21xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x9x9xf32>
// PIXELS:         linalg.mmt4d
// PIXELS-NOT:     linalg.mmt4d
// PIXELS:       func.func private @strata_kernel_conv6p16c_n1_c8_h21_w21_f32_k3x3_s2x2_d2x2(
func.func @pixel_tiles(%x: tensor<1x8x21x21xf32>, %w: tensor<32x8x3x3xf32>, %v: tensor<12x8x3x3xf32>)
    -> (tensor<1x32x9x9xf32>, tensor<1x12x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x9x9xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x8x21x21xf32>, tensor<32x8x3x3xf32>) outs(%z : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %e2 = tensor.empty() : tensor<1x12x10x10xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x12x10x10xf32>) -> tensor<1x12x10x10xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %v : tensor<1x8x21x21xf32>, tensor<12x8x3x3xf32>) outs(%z2 : tensor<1x12x10x10xf32>) -> tensor<1x12x10x10xf32>
  return %a, %b : tensor<1x32x9x9xf32>, tensor<1x12x10x10xf32>
}

// -----

// Winograd: with winograd-min-channels=16, a 3x3 stride-1 convolution of 16 input channels
// (whole 4s) into 32 output channels (whole 16s) with 4 x 5 = 20 tiles of 2x2 output pixels
// (7x9 pixels: the last row and column of tiles half outside) goes to strata's Winograd kernels.
// The input is padded to whole tiles and whole groups of 8 tiles along a row (2 * 4 + 2 = 10
// rows, 16 * 1 + 2 = 18 columns) and transformed into V [1][16][4 register tiles of 6][16][6];
// the filter G g G^T (G a constant, which the rewrite moves to the function's start) is a generic over the (constant) filter, [4][4][2][16][16] collapsed to
// [16][2][16][16]; the call of the product kernel takes both; the bias is added after. Left to
// the other kernels: 12 input channels (not at least 16), 14 (not whole 4s), 24 output channels
// (not whole 16s), 3 x 3 tiles (fewer than 16), stride 2. With lanes=16 the product kernel's
// symbol says so; the input transform is the same.
// WINOGRAD-LABEL: func.func @winograd
// WINOGRAD-SAME:    (%[[X:.*]]: tensor<1x16x9x11xf32>, %[[W:.*]]: tensor<32x16x3x3xf32>
// WINOGRAD:         %[[G:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01, 5.000000e-01], [5.000000e-01, -5.000000e-01, 5.000000e-01], [0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<4x3xf32>
// WINOGRAD:         %[[XP:.*]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 7]
// WINOGRAD:         %[[V:.*]] = call @strata_kernel_winograd_in_n1_c16_h10_w18_t4x5(%[[XP]]) : (tensor<1x16x10x18xf32>) -> tensor<1x16x4x16x6xf32>
// WINOGRAD:         %[[U5:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[G]], %[[W]], %[[G]] : tensor<4x3xf32>, tensor<32x16x3x3xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<4x4x2x16x16xf32>)
// WINOGRAD:         %[[U:.*]] = tensor.collapse_shape %[[U5]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<4x4x2x16x16xf32> into tensor<16x2x16x16xf32>
// WINOGRAD:         %[[Y:.*]] = call @strata_kernel_winograd2x2_n1_c16_h9_w11_f32_k3x3(%[[V]], %[[U]]) : (tensor<1x16x4x16x6xf32>, tensor<16x2x16x16xf32>) -> tensor<1x32x7x9xf32>
// WINOGRAD:         arith.addf
// WINOGRAD-NOT:     call @strata_kernel_winograd
// WINOGRAD:         return
// WINOGRAD-DAG:   func.func private @strata_kernel_winograd_in_n1_c16_h10_w18_t4x5(tensor<1x16x10x18xf32>) -> tensor<1x16x4x16x6xf32>
// WINOGRAD-DAG:   func.func private @strata_kernel_winograd2x2_n1_c16_h9_w11_f32_k3x3(tensor<1x16x4x16x6xf32>, tensor<16x2x16x16xf32>) -> tensor<1x32x7x9xf32>
// LANES16-LABEL: func.func @winograd
// LANES16:         %[[V:.*]] = call @strata_kernel_winograd_in_n1_c16_h10_w18_t4x5(
// LANES16:         call @strata_kernel_winograd2x2_lanes16_n1_c16_h9_w11_f32_k3x3(%[[V]], %{{.*}}) : (tensor<1x16x4x16x6xf32>, tensor<16x2x16x16xf32>) -> tensor<1x32x7x9xf32>
// LANES16-NOT:     call @strata_kernel_winograd2x2_
// LANES16:         return
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @winograd(%x: tensor<1x16x9x11xf32>, %w: tensor<32x16x3x3xf32>, %bias: tensor<1x32x7x9xf32>, %x12: tensor<1x12x9x11xf32>,
                    %w12: tensor<32x12x3x3xf32>, %x14: tensor<1x14x9x11xf32>, %w14: tensor<32x14x3x3xf32>, %w24: tensor<24x16x3x3xf32>,
                    %small: tensor<1x16x8x8xf32>)
    -> (tensor<1x32x7x9xf32>, tensor<1x32x7x9xf32>, tensor<1x32x7x9xf32>, tensor<1x24x7x9xf32>, tensor<1x32x6x6xf32>, tensor<1x32x4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x7x9xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x9xf32>) -> tensor<1x32x7x9xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x16x9x11xf32>, tensor<32x16x3x3xf32>) outs(%bias : tensor<1x32x7x9xf32>) -> tensor<1x32x7x9xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x12, %w12 : tensor<1x12x9x11xf32>, tensor<32x12x3x3xf32>) outs(%z : tensor<1x32x7x9xf32>) -> tensor<1x32x7x9xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x14, %w14 : tensor<1x14x9x11xf32>, tensor<32x14x3x3xf32>) outs(%z : tensor<1x32x7x9xf32>) -> tensor<1x32x7x9xf32>
  %e24 = tensor.empty() : tensor<1x24x7x9xf32>
  %z24 = linalg.fill ins(%zero : f32) outs(%e24 : tensor<1x24x7x9xf32>) -> tensor<1x24x7x9xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w24 : tensor<1x16x9x11xf32>, tensor<24x16x3x3xf32>) outs(%z24 : tensor<1x24x7x9xf32>) -> tensor<1x24x7x9xf32>
  %e6 = tensor.empty() : tensor<1x32x6x6xf32>
  %z6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  %f = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%small, %w : tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) outs(%z6 : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  %e2 = tensor.empty() : tensor<1x32x4x5xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x4x5xf32>) -> tensor<1x32x4x5xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x16x9x11xf32>, tensor<32x16x3x3xf32>) outs(%z2 : tensor<1x32x4x5xf32>) -> tensor<1x32x4x5xf32>
  return %a, %b, %c, %d, %f, %g : tensor<1x32x7x9xf32>, tensor<1x32x7x9xf32>, tensor<1x32x7x9xf32>, tensor<1x24x7x9xf32>, tensor<1x32x6x6xf32>, tensor<1x32x4x5xf32>
}
