// strata-fold-unpack-pack: between two data-tiled matmuls, the elementwise ops run on the first
// one's 8x16 C tiles and the last writes each tile transposed, which a reshape makes the next
// one's 8x1 A tiles; no unpack, no pack. Structure only here; numerics through IREE:
// test/python/iree/test_data_tile_matmul.py.
// RUN: strata-opt --split-input-file --strata-fold-unpack-pack %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-fold-unpack-pack='math-only=true' %s | FileCheck %s --check-prefix=MATH

// A bias (per column) and a tanh-based activation behind a unit-dimension reshape, as Torch-MLIR
// writes a linear layer and GELU; 20 rows are three tiles of 8 (the padding rows compute too).
// CHECK-DAG:   #[[TILE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[COLUMN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG:   #[[TRANSPOSED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-LABEL: func.func @bias_gelu
// CHECK-SAME:    (%[[C:.*]]: tensor<3x2x8x16xf32>, %[[BIAS:.*]]: tensor<32xf32>, %[[W:.*]]: tensor<1x32x16x1xf32>,
// CHECK-NOT:     linalg.unpack
// CHECK:         %[[B2:.*]] = tensor.expand_shape %[[BIAS]] {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK:         %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[TILE]], #[[COLUMN]], #[[TILE]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[C]], %[[B2]] : tensor<3x2x8x16xf32>, tensor<2x16xf32>) outs(%{{.*}} : tensor<3x2x8x16xf32>)
// CHECK:           arith.addf
// CHECK:         %[[ACT:.*]] = linalg.generic {indexing_maps = [#[[TILE]], #[[TRANSPOSED]]], {{.*}} ins(%[[ADD]] : tensor<3x2x8x16xf32>) outs(%{{.*}} : tensor<3x2x16x8xf32>)
// CHECK:           math.tanh
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[ACT]] {{\[\[}}0], [1, 2], [3]] : tensor<3x2x16x8xf32> into tensor<3x32x8xf32>
// CHECK:         %[[A:.*]] = tensor.expand_shape %[[ROWS]] {{\[\[}}0], [1], [2, 3]] output_shape [3, 32, 8, 1] : tensor<3x32x8xf32> into tensor<3x32x8x1xf32>
// CHECK-NOT:     linalg.pack
// CHECK:         linalg.mmt4d ins(%[[A]], %[[W]] : tensor<3x32x8x1xf32>, tensor<1x32x16x1xf32>)
// MATH-LABEL: func.func @bias_gelu
// MATH-NOT:     linalg.unpack
// MATH-NOT:     linalg.pack
// MATH:         linalg.mmt4d
func.func @bias_gelu(%c: tensor<3x2x8x16xf32>, %bias: tensor<32xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<3x1x8x16xf32>) -> tensor<3x1x8x16xf32> {
  %e = tensor.empty() : tensor<20x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<3x2x8x16xf32> -> tensor<20x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u, %bias : tensor<20x32xf32>, tensor<32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  %b3 = tensor.expand_shape %b [[0, 1], [2]] output_shape [1, 20, 32] : tensor<20x32xf32> into tensor<1x20x32xf32>
  %e3 = tensor.empty() : tensor<1x20x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b3 : tensor<1x20x32xf32>) outs(%e3 : tensor<1x20x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    %r = arith.mulf %x, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x20x32xf32>
  %g2 = tensor.collapse_shape %g [[0, 1], [2]] : tensor<1x20x32xf32> into tensor<20x32xf32>
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<3x32x8x1xf32>
  %a = linalg.pack %g2 padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<20x32xf32> -> tensor<3x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<3x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<3x1x8x16xf32>) -> tensor<3x1x8x16xf32>
  return %r : tensor<3x1x8x16xf32>
}

// -----

// SiLU(gate) * up: two unpacks, and the gate read twice (x * sigmoid(x)): each tile op once.
// CHECK-LABEL: func.func @swiglu
// CHECK-SAME:    (%[[G:.*]]: tensor<2x2x8x16xf32>, %[[U:.*]]: tensor<2x2x8x16xf32>,
// CHECK-NOT:     linalg.unpack
// CHECK:         %[[SIG:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<2x2x8x16xf32>)
// CHECK:           math.exp
// CHECK:         %[[SILU:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[SIG]] : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) outs(%{{.*}} : tensor<2x2x8x16xf32>)
// CHECK:         %[[PROD:.*]] = linalg.generic {{.*}} ins(%[[SILU]], %[[U]] : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) outs(%{{.*}} : tensor<2x2x16x8xf32>)
// CHECK:         tensor.collapse_shape %[[PROD]]
// CHECK-NOT:     linalg.pack
// CHECK:         linalg.mmt4d
// MATH-LABEL: func.func @swiglu
// MATH-NOT:     linalg.pack
// MATH:         linalg.mmt4d
func.func @swiglu(%gate: tensor<2x2x8x16xf32>, %up: tensor<2x2x8x16xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %g = linalg.unpack %gate inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %u = linalg.unpack %up inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %one = arith.constant 1.0 : f32
  %sig = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g, %sig : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%silu, %u : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %pe = tensor.empty() : tensor<2x32x8x1xf32>
  %a = linalg.pack %prod inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x32xf32> -> tensor<2x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<2x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %r : tensor<2x1x8x16xf32>
}

// -----

// A value per row (16 rows: whole tiles) and per-element scalar, then a ReLU: folded, but not with
// math-only (no math function to vectorize).
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG:   #[[SCALAR:.*]] = affine_map<(d0, d1, d2, d3) -> ()>
// CHECK-LABEL: func.func @row_scale_relu
// CHECK-SAME:    (%[[C:.*]]: tensor<2x2x8x16xf32>, %[[S:.*]]: tensor<16x1xf32>, %[[K:.*]]: tensor<f32>,
// CHECK:         %[[S1:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0, 1]] : tensor<16x1xf32> into tensor<16xf32>
// CHECK:         %[[S2:.*]] = tensor.expand_shape %[[S1]] {{\[\[}}0, 1]] output_shape [2, 8] : tensor<16xf32> into tensor<2x8xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #[[SCALAR]], #{{.*}}], {{.*}} ins(%[[C]], %[[S2]], %[[K]] : tensor<2x2x8x16xf32>, tensor<2x8xf32>, tensor<f32>) outs(%{{.*}} : tensor<2x2x16x8xf32>)
// CHECK-NOT:     linalg.pack
// MATH-LABEL: func.func @row_scale_relu
// MATH:         linalg.unpack
// MATH:         linalg.pack
func.func @row_scale_relu(%c: tensor<2x2x8x16xf32>, %s: tensor<16x1xf32>, %k: tensor<f32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %r0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u, %s, %k : tensor<16x32xf32>, tensor<16x1xf32>, tensor<f32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %a = arith.addf %m, %z : f32
    %p = arith.cmpf ugt, %a, %zero : f32
    %r = arith.select %p, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %pe = tensor.empty() : tensor<2x32x8x1xf32>
  %a = linalg.pack %r0 inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x32xf32> -> tensor<2x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<2x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %r : tensor<2x1x8x16xf32>
}

// -----

// Left alone: the activation is also returned (its rows are needed), 20 rows with a value per row
// (a partial tile would read past it), 24 columns (not whole tiles of 16: A's K would take the
// padding), an operand read transposed, a pack read by something other than an mmt4d's A, and a
// generic that reads its loop indices (the tiles would renumber them).
// CHECK-LABEL: func.func @also_returned
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
// MATH-LABEL: func.func @also_returned
func.func @also_returned(%c: tensor<2x2x8x16xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<2x1x8x16xf32>) -> (tensor<2x1x8x16xf32>, tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<16x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %pe = tensor.empty() : tensor<2x32x8x1xf32>
  %a = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x32xf32> -> tensor<2x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<2x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %r, %t : tensor<2x1x8x16xf32>, tensor<16x32xf32>
}

// -----

// CHECK-LABEL: func.func @rows_in_a_partial_tile
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @rows_in_a_partial_tile(%c: tensor<3x2x8x16xf32>, %s: tensor<20xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<3x1x8x16xf32>) -> tensor<3x1x8x16xf32> {
  %e = tensor.empty() : tensor<20x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<3x2x8x16xf32> -> tensor<20x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u, %s : tensor<20x32xf32>, tensor<20xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %r = math.tanh %m : f32
    linalg.yield %r : f32
  } -> tensor<20x32xf32>
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<3x32x8x1xf32>
  %a = linalg.pack %t padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<20x32xf32> -> tensor<3x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<3x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<3x1x8x16xf32>) -> tensor<3x1x8x16xf32>
  return %r : tensor<3x1x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @partial_columns
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @partial_columns(%c: tensor<2x2x8x16xf32>, %w: tensor<1x24x16x1xf32>, %acc: tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32> {
  %e = tensor.empty() : tensor<16x24xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x24xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  %pe = tensor.empty() : tensor<2x24x8x1xf32>
  %a = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x24xf32> -> tensor<2x24x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<2x24x8x1xf32>, tensor<1x24x16x1xf32>) outs(%acc : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %r : tensor<2x1x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @read_transposed
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @read_transposed(%c: tensor<4x2x8x16xf32>, %d: tensor<32x32xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<4x1x8x16xf32>) -> tensor<4x1x8x16xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<4x2x8x16xf32> -> tensor<32x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u, %d : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %r = math.tanh %m : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %pe = tensor.empty() : tensor<4x32x8x1xf32>
  %a = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<32x32xf32> -> tensor<4x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<4x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<4x1x8x16xf32>) -> tensor<4x1x8x16xf32>
  return %r : tensor<4x1x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @not_an_mmt4d_operand
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @not_an_mmt4d_operand(%c: tensor<2x2x8x16xf32>) -> tensor<2x32x8x1xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %pe = tensor.empty() : tensor<2x32x8x1xf32>
  %a = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x32xf32> -> tensor<2x32x8x1xf32>
  return %a : tensor<2x32x8x1xf32>
}

// -----

// CHECK-LABEL: func.func @reads_indices
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @reads_indices(%c: tensor<2x2x8x16xf32>, %w: tensor<1x32x16x1xf32>, %acc: tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %e : tensor<2x2x8x16xf32> -> tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %m = arith.mulf %x, %f : f32
    %r = math.tanh %m : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %pe = tensor.empty() : tensor<2x32x8x1xf32>
  %a = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %pe : tensor<16x32xf32> -> tensor<2x32x8x1xf32>
  %r = linalg.mmt4d ins(%a, %w : tensor<2x32x8x1xf32>, tensor<1x32x16x1xf32>) outs(%acc : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %r : tensor<2x1x8x16xf32>
}
