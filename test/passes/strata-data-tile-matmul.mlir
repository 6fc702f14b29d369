// strata-data-tile-matmul: static float matmuls with enough rows become pack, (batch_)mmt4d and
// unpack in tile-m x tile-n x 1 tiles; everything else is left alone. Structure only here;
// numerics through IREE: test/python/iree/test_data_tile_matmul.py.
// RUN: strata-opt --split-input-file --strata-data-tile-matmul %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-data-tile-matmul='tile-m=4 tile-n=8 min-rows=1' %s | FileCheck %s --check-prefix=OPTS
// RUN: not strata-opt --strata-data-tile-matmul='tile-m=0' %s 2>&1 | FileCheck %s --check-prefix=BAD

// Whole tiles: no padding. A [64x128] is packed to [8][128][8][1], B [128x32] (transposed) to
// [2][128][16][1], C to [8][2][8][16]; the mmt4d result is unpacked into a new [64x32].
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128x32xf32>, %[[C:.*]]: tensor<64x32xf32>)
// CHECK:         %[[AP:.*]] = linalg.pack %[[A]] inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<64x128xf32> -> tensor<8x128x8x1xf32>
// CHECK:         %[[BP:.*]] = linalg.pack %[[B]] outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [16, 1] into %{{.*}} : tensor<128x32xf32> -> tensor<2x128x16x1xf32>
// CHECK:         %[[CP:.*]] = linalg.pack %[[C]] inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %{{.*}} : tensor<64x32xf32> -> tensor<8x2x8x16xf32>
// CHECK:         %[[R:.*]] = linalg.mmt4d ins(%[[AP]], %[[BP]] : tensor<8x128x8x1xf32>, tensor<2x128x16x1xf32>) outs(%[[CP]] : tensor<8x2x8x16xf32>)
// CHECK:         %[[U:.*]] = linalg.unpack %[[R]] inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %{{.*}} : tensor<8x2x8x16xf32> -> tensor<64x32xf32>
// CHECK:         return %[[U]]
// OPTS-LABEL: func.func @matmul
// OPTS:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<16x4x4x8xf32>)
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Partial tiles: 20 rows are three tiles of 8 and 40 columns three of 16; A, B and C are padded
// with zeros (the extra rows and columns compute zeros that the unpack drops).
// CHECK-LABEL: func.func @padded
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[AP:.*]] = linalg.pack %{{.*}} padding_value(%[[Z]] : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] {{.*}} -> tensor<3x64x8x1xf32>
// CHECK:         %[[BP:.*]] = linalg.pack %{{.*}} padding_value(%[[Z]] : f32) outer_dims_perm = [1, 0] {{.*}} -> tensor<3x64x16x1xf32>
// CHECK:         %[[CP:.*]] = linalg.pack %{{.*}} padding_value(%[[Z]] : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 16] {{.*}} -> tensor<3x3x8x16xf32>
// CHECK:         linalg.mmt4d ins(%[[AP]], %[[BP]] : {{.*}}) outs(%[[CP]] : tensor<3x3x8x16xf32>)
// CHECK:         linalg.unpack {{.*}} : tensor<3x3x8x16xf32> -> tensor<20x40xf32>
func.func @padded(%a: tensor<20x64xf32>, %b: tensor<64x40xf32>) -> tensor<20x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<20x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<20x40xf32>) -> tensor<20x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<20x64xf32>, tensor<64x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %r : tensor<20x40xf32>
}

// -----

// A batch keeps its place in front: [4][M][K] -> [4][M/8][K][8][1], and B's outer dims are
// permuted behind the batch.
// CHECK-LABEL: func.func @batch
// CHECK:         %[[AP:.*]] = linalg.pack %{{.*}} inner_dims_pos = [1, 2] inner_tiles = [8, 1] {{.*}} : tensor<4x128x64xf32> -> tensor<4x16x64x8x1xf32>
// CHECK:         %[[BP:.*]] = linalg.pack %{{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [16, 1] {{.*}} : tensor<4x64x128xf32> -> tensor<4x8x64x16x1xf32>
// CHECK:         linalg.batch_mmt4d ins(%[[AP]], %[[BP]] : {{.*}}) outs(%{{.*}} : tensor<4x16x8x8x16xf32>)
// CHECK:         linalg.unpack {{.*}} inner_dims_pos = [1, 2] inner_tiles = [8, 16] {{.*}} -> tensor<4x128x128xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @batch(%a: tensor<4x128x64xf32>, %b: tensor<4x64x128xf32>, %c: tensor<4x128x128xf32>) -> tensor<4x128x128xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%c : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  return %r : tensor<4x128x128xf32>
}

// -----

// B as a transpose (a linear layer's weight W [N x K], K^T in attention): W itself is packed into
// the same tiles, so no transposed copy is made.
// CHECK-LABEL: func.func @transposed_b
// CHECK-SAME:    (%[[A:.*]]: tensor<64x128xf32>, %[[W:.*]]: tensor<32x128xf32>
// CHECK:         %[[BP:.*]] = linalg.pack %[[W]] inner_dims_pos = [0, 1] inner_tiles = [16, 1] into %{{.*}} : tensor<32x128xf32> -> tensor<2x128x16x1xf32>
// CHECK:         linalg.mmt4d ins(%{{.*}}, %[[BP]] : tensor<8x128x8x1xf32>, tensor<2x128x16x1xf32>)
// CHECK:         %[[KP:.*]] = linalg.pack %{{.*}} inner_dims_pos = [1, 2] inner_tiles = [16, 1] into %{{.*}} : tensor<4x32x64xf32> -> tensor<4x2x64x16x1xf32>
// CHECK:         linalg.batch_mmt4d ins(%{{.*}}, %[[KP]] : tensor<4x2x64x8x1xf32>, tensor<4x2x64x16x1xf32>)
// CHECK-NOT:     linalg.transpose
func.func @transposed_b(%a: tensor<64x128xf32>, %w: tensor<32x128xf32>, %c: tensor<64x32xf32>,
                        %q: tensor<4x16x64xf32>, %k: tensor<4x32x64xf32>, %s: tensor<4x16x32xf32>) -> (tensor<64x32xf32>, tensor<4x16x32xf32>) {
  %e = tensor.empty() : tensor<128x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x128xf32>) outs(%e : tensor<128x32xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %wt : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<4x64x32xf32>
  %kt = linalg.transpose ins(%k : tensor<4x32x64xf32>) outs(%e2 : tensor<4x64x32xf32>) permutation = [0, 2, 1]
  %r2 = linalg.batch_matmul ins(%q, %kt : tensor<4x16x64xf32>, tensor<4x64x32xf32>) outs(%s : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %r, %r2 : tensor<64x32xf32>, tensor<4x16x32xf32>
}

// -----

// One matrix broadcast to every batch (Torch-MLIR's `x @ w` for a batched x, as a linalg.generic
// or linalg.broadcast): one matmul over all 4 x 8 rows, the matrix packed once, not per batch.
// CHECK-LABEL: func.func @broadcast_matrix
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8x64xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[C:.*]]: tensor<4x8x32xf32>)
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<4x8x64xf32> into tensor<32x64xf32>
// CHECK-DAG:     %[[C2:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1], [2]] : tensor<4x8x32xf32> into tensor<32x32xf32>
// CHECK:         %[[BP:.*]] = linalg.pack %[[W]] outer_dims_perm = [1, 0] {{.*}} -> tensor<2x64x16x1xf32>
// CHECK:         %[[R:.*]] = linalg.mmt4d ins(%{{.*}}, %[[BP]] : tensor<4x64x8x1xf32>, tensor<2x64x16x1xf32>)
// CHECK:         %[[U:.*]] = linalg.unpack %[[R]] {{.*}} -> tensor<32x32xf32>
// CHECK:         %[[O:.*]] = tensor.expand_shape %[[U]] {{\[\[}}0, 1], [2]] output_shape [4, 8, 32] : tensor<32x32xf32> into tensor<4x8x32xf32>
// CHECK:         linalg.broadcast
// CHECK:         linalg.batch_mmt4d {{.*}} outs(%{{.*}} : tensor<4x1x2x8x16xf32>)
// CHECK:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<4x2x8x16xf32>)
// CHECK-NOT:     linalg.broadcast
// CHECK:         return %[[O]]
func.func @broadcast_matrix(%a: tensor<4x8x64xf32>, %w: tensor<64x32xf32>, %c: tensor<4x8x32xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<4x8x32xf32>) {
  %empty = tensor.empty() : tensor<4x64x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<64x32xf32>) outs(%empty : tensor<4x64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4x64x32xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x8x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  // Repeated along the K dimension instead: a real batch of different matrices.
  %w2 = tensor.extract_slice %w[0, 0] [4, 32] [1, 1] : tensor<64x32xf32> to tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x64x32xf32>
  %b2 = linalg.broadcast ins(%w2 : tensor<4x32xf32>) outs(%e2 : tensor<4x64x32xf32>) dimensions = [1]
  %r2 = linalg.batch_matmul ins(%a, %b2 : tensor<4x8x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  %b3 = linalg.broadcast ins(%w : tensor<64x32xf32>) outs(%e2 : tensor<4x64x32xf32>) dimensions = [0]
  %r3 = linalg.batch_matmul ins(%a, %b3 : tensor<4x8x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %r, %r2, %r3 : tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<4x8x32xf32>
}

// -----

// Left to IREE: a matrix-vector product and a 7-row product (below min-rows; with min-rows=1 both
// are tiled), a dynamic shape, a transposed operand, integers.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     linalg.pack
// CHECK-COUNT-4: linalg.matmul
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     linalg.pack
// OPTS-LABEL: func.func @left_alone
// OPTS:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<1x32x4x8xf32>)
// OPTS:         linalg.mmt4d {{.*}} outs(%{{.*}} : tensor<2x4x4x8xf32>)
// OPTS-COUNT-2: linalg.matmul
// OPTS:         linalg.batch_matmul
func.func @left_alone(%v: tensor<1x512xf32>, %w: tensor<512x256xf32>, %c1: tensor<1x256xf32>,
                      %d: tensor<?x64xf32>, %e: tensor<64x32xf32>, %c2: tensor<?x32xf32>,
                      %f: tensor<64x64xf32>, %c3: tensor<64x64xf32>,
                      %i: tensor<2x64x64xi32>, %j: tensor<2x64x64xi32>, %c4: tensor<2x64x64xi32>,
                      %g: tensor<7x64xf32>, %c5: tensor<7x32xf32>)
    -> (tensor<1x256xf32>, tensor<7x32xf32>, tensor<?x32xf32>, tensor<64x64xf32>, tensor<2x64x64xi32>) {
  %0 = linalg.matmul ins(%v, %w : tensor<1x512xf32>, tensor<512x256xf32>) outs(%c1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %4 = linalg.matmul ins(%g, %e : tensor<7x64xf32>, tensor<64x32xf32>) outs(%c5 : tensor<7x32xf32>) -> tensor<7x32xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%f, %f : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = linalg.batch_matmul ins(%i, %j : tensor<2x64x64xi32>, tensor<2x64x64xi32>) outs(%c4 : tensor<2x64x64xi32>) -> tensor<2x64x64xi32>
  return %0, %4, %1, %2, %3 : tensor<1x256xf32>, tensor<7x32xf32>, tensor<?x32xf32>, tensor<64x64xf32>, tensor<2x64x64xi32>
}

// BAD: strata-data-tile-matmul: tile-m, tile-n and min-rows must be at least 1; got tile-m=0
