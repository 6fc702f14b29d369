// strata-lower-to-iree: linear layers and attention become the named linalg ops IREE's own torch
// input produces (matmul, batch_matmul, softmax); only the structure is checked here (numerics
// against PyTorch through IREE: test/python/iree/test_lower_to_iree.py).
// RUN: strata-opt --split-input-file --strata-lower-to-iree %s | FileCheck %s

// Linear with bias and silu: leading dims collapsed, weight transposed, named matmul, one
// elementwise epilogue (bias, then silu), leading dims expanded back.
// CHECK-LABEL: func.func @linear_bias_silu
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<6x8xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<6x8xf32>) outs(%{{.*}} : tensor<8x6xf32>) permutation = [1, 0]
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[ROWS]], %[[WT]] : tensor<8x8xf32>, tensor<8x6xf32>) outs(%[[INIT]] : tensor<8x6xf32>)
// CHECK:         %[[EPI:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[B]] : tensor<8x6xf32>, tensor<6xf32>)
// CHECK:           arith.addf
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[EPI]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 6] : tensor<8x6xf32> into tensor<2x4x6xf32>
// CHECK:         return %[[OUT]]
// CHECK-NOT:     strata.linear
func.func @linear_bias_silu(%x: tensor<2x4x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>) -> tensor<2x4x6xf32> {
  %0 = "strata.linear"(%x, %w, %b) {activation = 4 : i32} : (tensor<2x4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

// A 2-D linear without bias or activation is the matmul alone: nothing to collapse or expand.
// CHECK-LABEL: func.func @linear_plain
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x8xf32>, tensor<8x5xf32>) outs(%{{.*}} : tensor<3x5xf32>)
// CHECK-NEXT:    return %[[MM]]
func.func @linear_plain(%x: tensor<3x8xf32>, %w: tensor<5x8xf32>) -> tensor<3x5xf32> {
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<3x8xf32>, tensor<5x8xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Dynamic leading dims: the collapsed row count is dynamic and expand_shape reads the sizes back.
// CHECK-LABEL: func.func @linear_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4x8xf32>
// CHECK:         tensor.collapse_shape %[[X]] {{.*}} into tensor<?x8xf32>
// CHECK:         linalg.matmul {{.*}} -> tensor<?x6xf32>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x8xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [%[[D0]], 4, 6] : tensor<?x6xf32> into tensor<?x4x6xf32>
func.func @linear_dynamic(%x: tensor<?x4x8xf32>, %w: tensor<6x8xf32>) -> tensor<?x4x6xf32> {
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<?x4x8xf32>, tensor<6x8xf32>) -> tensor<?x4x6xf32>
  return %0 : tensor<?x4x6xf32>
}

// -----

// Attention with a [Lq, Lk] mask: batch*heads collapsed, q @ k^T as a batch matmul on the
// transposed key, scale and mask in one generic, linalg.softmax over the keys, @ v, expanded.
// CHECK-LABEL: func.func @attention_mask
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x3x5x8xf32>, %[[K:.*]]: tensor<2x3x7x8xf32>, %[[V:.*]]: tensor<2x3x7x4xf32>, %[[M:.*]]: tensor<5x7xf32>)
// CHECK-DAG:     %[[Q3:.*]] = tensor.collapse_shape %[[Q]] {{.*}} into tensor<6x5x8xf32>
// CHECK-DAG:     %[[K3:.*]] = tensor.collapse_shape %[[K]] {{.*}} into tensor<6x7x8xf32>
// CHECK-DAG:     %[[V3:.*]] = tensor.collapse_shape %[[V]] {{.*}} into tensor<6x7x4xf32>
// CHECK:         %[[KT:.*]] = linalg.transpose ins(%[[K3]] : tensor<6x7x8xf32>) outs(%{{.*}} : tensor<6x8x7xf32>) permutation = [0, 2, 1]
// CHECK:         %[[S:.*]] = linalg.batch_matmul ins(%[[Q3]], %[[KT]] : tensor<6x5x8xf32>, tensor<6x8x7xf32>)
// CHECK:         %[[S4:.*]] = tensor.expand_shape %[[S]] {{.*}} into tensor<2x3x5x7xf32>
// CHECK:         %[[MASKED:.*]] = linalg.generic {{.*}} ins(%[[S4]], %[[M]] : tensor<2x3x5x7xf32>, tensor<5x7xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[M3:.*]] = tensor.collapse_shape %[[MASKED]] {{.*}} into tensor<6x5x7xf32>
// CHECK:         %[[P:.*]] = linalg.softmax dimension(2) ins(%[[M3]] : tensor<6x5x7xf32>)
// CHECK:         %[[O:.*]] = linalg.batch_matmul ins(%[[P]], %[[V3]] : tensor<6x5x7xf32>, tensor<6x7x4xf32>)
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[O]] {{.*}} output_shape [2, 3, 5, 4] : tensor<6x5x4xf32> into tensor<2x3x5x4xf32>
// CHECK:         return %[[OUT]]
func.func @attention_mask(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x4xf32>, %m: tensor<5x7xf32>) -> tensor<2x3x5x4xf32> {
  %0 = "strata.attention"(%q, %k, %v, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32>, tensor<5x7xf32>) -> tensor<2x3x5x4xf32>
  return %0 : tensor<2x3x5x4xf32>
}

// -----

// A 4-D mask broadcast over the batch reads its unit dim at index 0 (the map is printed at the
// top of this case's output, before its function).
// CHECK:         #[[MASK_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
// CHECK-LABEL: func.func @attention_broadcast_mask
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[MASK_MAP]], #{{.*}}]
// CHECK:         linalg.softmax
func.func @attention_broadcast_mask(%q: tensor<2x3x5x8xf32>, %m: tensor<1x3x5x5xf32>) -> tensor<2x3x5x8xf32> {
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>, tensor<1x3x5x5xf32>) -> tensor<2x3x5x8xf32>
  return %0 : tensor<2x3x5x8xf32>
}

// -----

// Causal attention masks key positions after the query position (j > i) with -inf before the
// softmax; with fully_masked_rows_zero and no mask every row keeps its diagonal, so it lowers too.
// CHECK-LABEL: func.func @attention_causal
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = linalg.index 2 : index
// CHECK:           %[[J:.*]] = linalg.index 3 : index
// CHECK:           %[[ABOVE:.*]] = arith.cmpi ugt, %[[J]], %[[I]] : index
// CHECK:           arith.select %[[ABOVE]], %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.softmax
// CHECK-NOT:     strata.attention
func.func @attention_causal(%q: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64, is_causal = true, fully_masked_rows_zero = true} : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// fully_masked_rows_zero with a mask: linalg.softmax gives NaN for a row whose scores are all -inf
// and the op asks for 0, so the row maximum of the masked scores selects 0 in the output.
// CHECK-LABEL: func.func @attention_fully_masked_rows_zero
// CHECK:         %[[M3:.*]] = tensor.collapse_shape %{{.*}} into tensor<1x4x6xf32>
// CHECK:         linalg.softmax dimension(2) ins(%[[M3]]
// CHECK:         %[[O:.*]] = linalg.batch_matmul
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[M3]] : tensor<1x4x6xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} ins(%[[O]], %[[MAX]] : tensor<1x4x8xf32>, tensor<1x4xf32>)
// CHECK:           %[[ALL_MASKED:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select %[[ALL_MASKED]], %{{.*}}, %{{.*}} : f32
func.func @attention_fully_masked_rows_zero(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x6x8xf32>, %m: tensor<4x6xf32>) -> tensor<1x1x4x8xf32> {
  %0 = "strata.attention"(%q, %k, %k, %m) {scale = 0.5 : f64, is_causal = false, fully_masked_rows_zero = true} : (tensor<1x1x4x8xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>, tensor<4x6xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// Negative: a linear on a rank-1 input (no rows to collapse) is left for strata-lower-to-linalg,
// and so are the ops this pass does not take (softmax).
// CHECK-LABEL: func.func @left_alone
// CHECK:         "strata.linear"
// CHECK:         "strata.softmax"
// CHECK-NOT:     linalg.
func.func @left_alone(%x: tensor<8xf32>, %w: tensor<5x8xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<8xf32>, tensor<5x8xf32>) -> tensor<5xf32>
  %1 = "strata.softmax"(%0) {dim = 0 : i64} : (tensor<5xf32>) -> tensor<5xf32>
  return %0, %1 : tensor<5xf32>, tensor<5xf32>
}

// -----

// Dynamic batch and sequence: batch*heads collapses to a dynamic dim and the result is expanded
// with the sizes read from the query.
// CHECK-LABEL: func.func @attention_dynamic
// CHECK-SAME:    (%[[Q:[^:]*]]: tensor<?x2x?x8xf32>
// CHECK:         tensor.collapse_shape %[[Q]] {{.*}} into tensor<?x?x8xf32>
// CHECK:         %[[B:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<?x2x?x8xf32>
// CHECK:         %[[L:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<?x2x?x8xf32>
// CHECK:         linalg.softmax dimension(2) {{.*}} -> tensor<?x?x?xf32>
// CHECK:         tensor.expand_shape %{{.*}} output_shape [%[[B]], 2, %[[L]], 8] : tensor<?x?x8xf32> into tensor<?x2x?x8xf32>
func.func @attention_dynamic(%q: tensor<?x2x?x8xf32>, %k: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32> {
  %0 = "strata.attention"(%q, %k, %k) {scale = 0.5 : f64, is_causal = true} : (tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
  return %0 : tensor<?x2x?x8xf32>
}
