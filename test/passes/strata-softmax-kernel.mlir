// strata-softmax-kernel: Torch-MLIR's softmax along the last dimension (max with its unread
// argmax, x - max, exp, sum, division), and the safe softmax's select of zeros for rows of only
// -inf, become a call of strata's row kernel on the input collapsed to rows; where a pack into a
// matmul's 8x1 A tiles reads the result, the kernel writes those tiles (`_t8`). Numerics through
// IREE: test/python/iree/test_softmax_kernel.py.
// With lanes=16, rows of whole 16-element vectors in 16-float vectors (`_lanes16`); the 8-row
// tiles stay in 8.
// RUN: strata-opt --split-input-file --strata-softmax-kernel %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-softmax-kernel='lanes=16' %s | FileCheck %s --check-prefix=LANES16
// RUN: not strata-opt --split-input-file --strata-softmax-kernel='lanes=4' %s 2>&1 | FileCheck %s --check-prefix=BAD-LANES
// BAD-LANES: strata-softmax-kernel: lanes must be 8 or 16; got 4

#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#row1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// LANES16-LABEL: func.func @softmax
// LANES16:         call @strata_kernel_softmax_r8_c16_lanes16(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// LANES16:       func.func private @strata_kernel_softmax_r8_c16_lanes16(tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x16xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK:         %[[Y:.*]] = call @strata_kernel_softmax_r8_c16(%[[ROWS]]) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[OUT]]
// CHECK:       func.func private @strata_kernel_softmax_r8_c16(tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @softmax(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %e8 = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e8 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ei = tensor.empty() : tensor<2x4xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<2x4xi64>) -> tensor<2x4xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x16xf32>) outs(%init, %initi : tensor<2x4xf32>, tensor<2x4xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
  %e = tensor.empty() : tensor<2x4x16xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max1 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d : tensor<2x4x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x4x16xf32>) outs(%zeros : tensor<2x4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// The safe softmax (rows of only -inf give zeros), packed into 8x1 tiles for the next matmul.
// LANES16-LABEL: func.func @safe_softmax_packed
// LANES16:         call @strata_kernel_softmax_r16_c16_safe_t8(%{{.*}}) : (tensor<16x16xf32>) -> tensor<2x16x8xf32>
// CHECK-LABEL: func.func @safe_softmax_packed
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x16xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
// CHECK:         %[[Y:.*]] = call @strata_kernel_softmax_r16_c16_safe_t8(%[[ROWS]]) : (tensor<16x16xf32>) -> tensor<2x16x8xf32>
// CHECK:         %[[A:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2], [3, 4]] output_shape [2, 1, 16, 8, 1] : tensor<2x16x8xf32> into tensor<2x1x16x8x1xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.pack
// CHECK:         return %[[A]]
func.func @safe_softmax_packed(%x: tensor<2x8x16xf32>) -> tensor<2x1x16x8x1xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %minus_inf = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %zeros_x = arith.constant dense<0.0> : tensor<2x8x16xf32>
  %e8 = tensor.empty() : tensor<2x8x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e8 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %max = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x16xf32>) outs(%init : tensor<2x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x8x1xf32>
  %e = tensor.empty() : tensor<2x8x16xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max : tensor<2x8x16xf32>, tensor<2x8x1xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d : tensor<2x8x16xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e8 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x8x16xf32>) outs(%zeros : tensor<2x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x8x1xf32>
  %y = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<2x8x16xf32>, tensor<2x8x1xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %eb = tensor.empty() : tensor<2x8x16xi1>
  %masked = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x16xf32>) outs(%eb : tensor<2x8x16xi1>) {
  ^bb0(%a: f32, %o: i1):
    %w = arith.extf %a : f32 to f64
    %r = arith.cmpf oeq, %w, %minus_inf : f64
    linalg.yield %r : i1
  } -> tensor<2x8x16xi1>
  %eb1 = tensor.empty() : tensor<2x8x1xi1>
  %trues = linalg.fill ins(%true : i1) outs(%eb1 : tensor<2x8x1xi1>) -> tensor<2x8x1xi1>
  %all = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<2x8x16xi1>) outs(%trues : tensor<2x8x1xi1>) {
  ^bb0(%a: i1, %o: i1):
    %r = arith.andi %a, %o : i1
    linalg.yield %r : i1
  } -> tensor<2x8x1xi1>
  %safe = linalg.generic {indexing_maps = [#row1, #x, #x, #x], iterator_types = ["parallel", "parallel", "parallel"]} ins(%all, %zeros_x, %y : tensor<2x8x1xi1>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %o: f32):
    %r = arith.select %c, %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  %ep = tensor.empty() : tensor<2x1x16x8x1xf32>
  %packed = linalg.pack %safe inner_dims_pos = [1, 2] inner_tiles = [8, 1] into %ep : tensor<2x8x16xf32> -> tensor<2x1x16x8x1xf32>
  return %packed : tensor<2x1x16x8x1xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#row1 = affine_map<(d0, d1) -> (d0, 0)>

// Left alone: rows of 12 (not whole 8-element vectors); a max read by something else too.
// CHECK-LABEL: func.func @partial_vectors
// CHECK-NOT:     call
// CHECK:         math.exp
func.func @partial_vectors(%x: tensor<4x12xf32>) -> tensor<4x12xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %max = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x12xf32>) outs(%init : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x12xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x12xf32>, tensor<4x1xf32>) outs(%e : tensor<4x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x12xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<4x12xf32>) outs(%e : tensor<4x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x12xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x12xf32>) outs(%zeros : tensor<4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<4x12xf32>, tensor<4x1xf32>) outs(%e : tensor<4x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x12xf32>
  return %y : tensor<4x12xf32>
}

// -----

#x = affine_map<(d0, d1) -> (d0, d1)>
#row1 = affine_map<(d0, d1) -> (d0, 0)>

// CHECK-LABEL: func.func @max_read_twice
// CHECK-NOT:     call
// CHECK:         math.exp
func.func @max_read_twice(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %max = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%init : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x16xf32>) outs(%zeros : tensor<4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<4x16xf32>, tensor<4x1xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %y, %max : tensor<4x16xf32>, tensor<4x1xf32>
}
