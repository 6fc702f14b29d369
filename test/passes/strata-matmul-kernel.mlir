// strata-matmul-kernel: a static f32 linalg.matmul into a zero fill, with whole panels of 16
// columns and K a multiple of 4, becomes a pack of B into [N/16][K][16] panels and a call of
// strata's 6x16 kernel on A and the panels; B read through a transpose packs from its source.
// A B that is an argument of the function is packed by strata's pack kernel, once, at the top of
// the function; others by a linalg.pack.
// A bias per column, a residual and a ReLU after it (each the only reader of the one before,
// leading unit dimensions reshaped between them) go into the kernel's epilogue.
// Numerics through IREE: test/python/iree/test_matmul_kernel.py.
// RUN: strata-opt --split-input-file --strata-matmul-kernel %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-matmul-kernel=min-rows=32 %s | FileCheck %s --check-prefix=ROWS
// RUN: strata-opt --split-input-file --strata-matmul-kernel=lanes=16 %s | FileCheck %s --check-prefix=LANES
// RUN: not strata-opt --split-input-file --strata-matmul-kernel=min-rows=0 %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata-opt --split-input-file --strata-matmul-kernel=lanes=4 %s 2>&1 | FileCheck %s --check-prefix=BAD-LANES

// BAD: strata-matmul-kernel: min-rows must be at least 1; got 0
// BAD-LANES: strata-matmul-kernel: lanes must be 8 or 16; got 4

// CHECK-LABEL: func.func @plain
// CHECK-SAME:    (%[[A:.*]]: tensor<20x64xf32>, %[[B:.*]]: tensor<64x32xf32>)
// CHECK:         %[[PANELS:.*]] = call @strata_kernel_panels16_k64_n32(%[[B]]) : (tensor<64x32xf32>) -> tensor<2x64x16xf32>
// CHECK:         %[[C:.*]] = call @strata_kernel_matmul6x16_m20_k64_n32(%[[A]], %[[PANELS]]) : (tensor<20x64xf32>, tensor<2x64x16xf32>) -> tensor<20x32xf32>
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.matmul
// CHECK:         return %[[C]]
// CHECK-DAG:   func.func private @strata_kernel_matmul6x16_m20_k64_n32(tensor<20x64xf32>, tensor<2x64x16xf32>) -> tensor<20x32xf32>
// CHECK-DAG:   func.func private @strata_kernel_panels16_k64_n32(tensor<64x32xf32>) -> tensor<2x64x16xf32>
// ROWS-LABEL:  func.func @plain
// ROWS:          linalg.matmul
// ROWS-NOT:      call
// LANES-LABEL: func.func @plain
// LANES:         call @strata_kernel_panels16_k64_n32_lanes16(
// LANES:         call @strata_kernel_matmul6x16_m20_k64_n32_lanes16(
// LANES-DAG:   func.func private @strata_kernel_matmul6x16_m20_k64_n32_lanes16(tensor<20x64xf32>, tensor<2x64x16xf32>) -> tensor<20x32xf32>
// LANES-DAG:   func.func private @strata_kernel_panels16_k64_n32_lanes16(tensor<64x32xf32>) -> tensor<2x64x16xf32>
func.func @plain(%a: tensor<20x64xf32>, %b: tensor<64x32xf32>) -> tensor<20x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x32xf32>) -> tensor<20x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  return %r : tensor<20x32xf32>
}

// -----

// A linear layer's weight, read through a transpose: its [N][K] source packs along N.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    (%[[A:.*]]: tensor<42x64xf32>, %[[W:.*]]: tensor<32x64xf32>)
// CHECK:         %[[PANELS:.*]] = linalg.pack %[[W]] inner_dims_pos = [0] inner_tiles = [16] into %{{.*}} : tensor<32x64xf32> -> tensor<2x64x16xf32>
// CHECK:         call @strata_kernel_matmul6x16_m42_k64_n32(%[[A]], %[[PANELS]])
// CHECK-NOT:     linalg.transpose
// ROWS-LABEL:  func.func @linear
// ROWS:          call @strata_kernel_matmul6x16_m42_k64_n32(
func.func @linear(%a: tensor<42x64xf32>, %w: tensor<32x64xf32>) -> tensor<42x32xf32> {
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%t0 : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<42x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<42x32xf32>) -> tensor<42x32xf32>
  %r = linalg.matmul ins(%a, %t : tensor<42x64xf32>, tensor<64x32xf32>) outs(%c : tensor<42x32xf32>) -> tensor<42x32xf32>
  return %r : tensor<42x32xf32>
}

// -----

// Left to IREE: columns that are not whole panels, K not a multiple of 4, an accumulator that
// is not zeros, f16, a batch.
// CHECK-LABEL: func.func @left
// CHECK-COUNT-5: linalg.{{(batch_)?}}matmul
// CHECK-NOT:     call
func.func @left(%a: tensor<8x64xf32>, %b40: tensor<64x40xf32>, %a62: tensor<8x62xf32>, %b62: tensor<62x32xf32>,
                %b: tensor<64x32xf32>, %acc: tensor<8x32xf32>, %ah: tensor<8x64xf16>, %bh: tensor<64x32xf16>,
                %ab: tensor<2x8x64xf32>, %bb: tensor<2x64x32xf32>)
    -> (tensor<8x40xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf16>, tensor<2x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %zh = arith.constant 0.0 : f16
  %e40 = tensor.empty() : tensor<8x40xf32>
  %c40 = linalg.fill ins(%zero : f32) outs(%e40 : tensor<8x40xf32>) -> tensor<8x40xf32>
  %r40 = linalg.matmul ins(%a, %b40 : tensor<8x64xf32>, tensor<64x40xf32>) outs(%c40 : tensor<8x40xf32>) -> tensor<8x40xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r62 = linalg.matmul ins(%a62, %b62 : tensor<8x62xf32>, tensor<62x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r1 = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x32xf32>) outs(%ones : tensor<8x32xf32>) -> tensor<8x32xf32>
  %eh = tensor.empty() : tensor<8x32xf16>
  %ch = linalg.fill ins(%zh : f16) outs(%eh : tensor<8x32xf16>) -> tensor<8x32xf16>
  %rh = linalg.matmul ins(%ah, %bh : tensor<8x64xf16>, tensor<64x32xf16>) outs(%ch : tensor<8x32xf16>) -> tensor<8x32xf16>
  %eb = tensor.empty() : tensor<2x8x32xf32>
  %cb = linalg.fill ins(%zero : f32) outs(%eb : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %rb = linalg.batch_matmul ins(%ab, %bb : tensor<2x8x64xf32>, tensor<2x64x32xf32>) outs(%cb : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %r40, %r62, %r1, %rh, %rb : tensor<8x40xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf16>, tensor<2x8x32xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A linear layer's bias, then (behind a unit dimension) a residual: both in the epilogue; the
// residual collapses to the kernel's matrix, the result expands back.
// CHECK-LABEL: func.func @bias_residual
// CHECK-SAME:    (%[[A:.*]]: tensor<20x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[BIAS:.*]]: tensor<32xf32>, %[[X:.*]]: tensor<1x20x32xf32>)
// CHECK:         %[[PANELS:.*]] = linalg.pack %[[W]]
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<1x20x32xf32> into tensor<20x32xf32>
// CHECK:         %[[C:.*]] = call @strata_kernel_matmul6x16_m20_k64_n32_bias_residual(%[[A]], %[[PANELS]], %[[BIAS]], %[[R]]) : (tensor<20x64xf32>, tensor<2x64x16xf32>, tensor<32xf32>, tensor<20x32xf32>) -> tensor<20x32xf32>
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [1, 20, 32] : tensor<20x32xf32> into tensor<1x20x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[OUT]]
func.func @bias_residual(%a: tensor<20x64xf32>, %w: tensor<32x64xf32>, %bias: tensor<32xf32>, %x: tensor<1x20x32xf32>) -> tensor<1x20x32xf32> {
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%t0 : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<20x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x32xf32>) -> tensor<20x32xf32>
  %r = linalg.matmul ins(%a, %t : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  %b = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<20x32xf32>, tensor<32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  %b3 = tensor.expand_shape %b [[0, 1], [2]] output_shape [1, 20, 32] : tensor<20x32xf32> into tensor<1x20x32xf32>
  %e3 = tensor.empty() : tensor<1x20x32xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %b3 : tensor<1x20x32xf32>, tensor<1x20x32xf32>) outs(%e3 : tensor<1x20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x20x32xf32>
  return %y : tensor<1x20x32xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A bias and a ReLU (Torch-MLIR's select of ugt): the kernel applies both.
// CHECK-LABEL: func.func @bias_relu
// CHECK:         %[[C:.*]] = call @strata_kernel_matmul6x16_m20_k64_n32_bias_relu(
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[C]]
func.func @bias_relu(%a: tensor<20x64xf32>, %w: tensor<64x32xf32>, %bias: tensor<32xf32>) -> tensor<20x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x32xf32>) -> tensor<20x32xf32>
  %r = linalg.matmul ins(%a, %w : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  %b = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<20x32xf32>, tensor<32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in2, %in : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<20x32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %zero : f32
    %s = arith.select %p, %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  return %y : tensor<20x32xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Not folded: a bias after a matmul whose result is read twice too (the matmul alone goes to the
// kernel), and a bias after a residual (the kernel adds the bias first: only the residual folds).
// Both matmuls read the panels of one pack of %w.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[PANELS:.*]] = call @strata_kernel_panels16_k64_n32(
// CHECK-NOT:     @strata_kernel_panels16
// CHECK:         %[[C:.*]] = call @strata_kernel_matmul6x16_m20_k64_n32(%{{.*}}, %[[PANELS]])
// CHECK:         linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<20x32xf32>, tensor<32xf32>)
// CHECK:         %[[D:.*]] = call @strata_kernel_matmul6x16_m20_k64_n32_residual(%{{.*}}, %[[PANELS]],
// CHECK:         linalg.generic {{.*}} ins(%[[D]], %{{.*}} : tensor<20x32xf32>, tensor<32xf32>)
func.func @kept(%a: tensor<20x64xf32>, %w: tensor<64x32xf32>, %bias: tensor<32xf32>, %x: tensor<20x32xf32>)
    -> (tensor<20x32xf32>, tensor<20x32xf32>, tensor<20x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x32xf32>) -> tensor<20x32xf32>
  %r = linalg.matmul ins(%a, %w : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  %b = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<20x32xf32>, tensor<32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  %r2 = linalg.matmul ins(%a, %w : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  %res = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%r2, %x : tensor<20x32xf32>, tensor<20x32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  %late = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%res, %bias : tensor<20x32xf32>, tensor<32xf32>) outs(%e : tensor<20x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<20x32xf32>
  return %r, %b, %late : tensor<20x32xf32>, tensor<20x32xf32>, tensor<20x32xf32>
}

// -----

// A B computed in the function (here a constant; or any op's result, into whose dispatch IREE
// may fuse the pack) keeps its linalg.pack, which strata-fold-constant-pack folds when constant.
// CHECK-LABEL: func.func @computed_b
// CHECK:         %[[PANELS:.*]] = linalg.pack %{{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [16] into %{{.*}} : tensor<64x32xf32> -> tensor<2x64x16xf32>
// CHECK:         call @strata_kernel_matmul6x16_m20_k64_n32(%{{.*}}, %[[PANELS]])
// CHECK-NOT:     @strata_kernel_panels16
func.func @computed_b(%a: tensor<20x64xf32>) -> tensor<20x32xf32> {
  %zero = arith.constant 0.0 : f32
  %b = arith.constant dense<0.5> : tensor<64x32xf32>
  %e = tensor.empty() : tensor<20x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x32xf32>) -> tensor<20x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<20x64xf32>, tensor<64x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  return %r : tensor<20x32xf32>
}
