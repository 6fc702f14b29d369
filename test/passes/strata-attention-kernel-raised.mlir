// strata-attention-kernel on a raised attention: `strata.attention` as strata-lower-to-iree
// writes it for IREE (q, k and v with merged heads, k^T a linalg.transpose, the scale with a
// constant mask or `is_causal`'s index test in one elementwise op, `linalg.softmax`, and the
// rows of fully masked queries zeroed after the second batch matmul) becomes one call of
// strata's attention kernel. Numerics through IREE: test/python/iree/test_attention_kernel.py.
// RUN: strata-opt --split-input-file --strata-lower-to-iree --strata-attention-kernel %s | FileCheck %s

// A constant causal mask added after the scale (f32(1/sqrt(8)) is 0x3EB504F3).
// CHECK-LABEL: func.func @mask
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x8x8xf32>, %[[K:.*]]: tensor<1x2x8x8xf32>, %[[V:.*]]: tensor<1x2x8x8xf32>)
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[FQ:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1, 2, 3]] : tensor<1x2x8x8xf32> into tensor<128xf32>
// CHECK-DAG:     %[[FK:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1, 2, 3]]
// CHECK-DAG:     %[[FV:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1, 2, 3]]
// CHECK:         %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3eb504f3_causal_Q0o0b128h64p8_K1o0b128h64p8_V2o0b128h64p8_Ob128h64p8_in128x128x128(%[[FQ]], %[[FK]], %[[FV]])
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 2, 8, 8]
// CHECK-NEXT:    return %[[OUT]]
func.func @mask(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %0 = "strata.attention"(%q, %k, %v, %m) {scale = 0.35355339059327373 : f64, is_causal = false} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<8x8xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// `is_causal`: -inf where the key's index is above the query's.
// CHECK-LABEL: func.func @is_causal
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x8x8xf32>, %[[K:.*]]: tensor<1x2x8x8xf32>, %[[V:.*]]: tensor<1x2x8x8xf32>)
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[FQ:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1, 2, 3]] : tensor<1x2x8x8xf32> into tensor<128xf32>
// CHECK-DAG:     %[[FK:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1, 2, 3]]
// CHECK-DAG:     %[[FV:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1, 2, 3]]
// CHECK:         %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3e000000_causal_Q0o0b128h64p8_K1o0b128h64p8_V2o0b128h64p8_Ob128h64p8_in128x128x128(%[[FQ]], %[[FK]], %[[FV]])
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 2, 8, 8]
// CHECK-NEXT:    return %[[OUT]]
func.func @is_causal(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %0 = "strata.attention"(%q, %k, %v) {scale = 0.125 : f64, is_causal = true, fully_masked_rows_zero = true} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// A causal mask with `fully_masked_rows_zero`: the rows' zeroing is the kernel's safe softmax.
// CHECK-LABEL: func.func @mask_rows_zeroed
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x8x8xf32>, %[[K:.*]]: tensor<1x2x8x8xf32>, %[[V:.*]]: tensor<1x2x8x8xf32>)
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[FQ:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1, 2, 3]] : tensor<1x2x8x8xf32> into tensor<128xf32>
// CHECK-DAG:     %[[FK:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1, 2, 3]]
// CHECK-DAG:     %[[FV:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1, 2, 3]]
// CHECK:         %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3e000000_causal_safe_Q0o0b128h64p8_K1o0b128h64p8_V2o0b128h64p8_Ob128h64p8_in128x128x128(%[[FQ]], %[[FK]], %[[FV]])
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 2, 8, 8]
// CHECK-NEXT:    return %[[OUT]]
func.func @mask_rows_zeroed(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %0 = "strata.attention"(%q, %k, %v, %m) {scale = 0.125 : f64, is_causal = false, fully_masked_rows_zero = true} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<8x8xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// Any other constant mask stays IREE's.
// CHECK-LABEL: func.func @other_mask
// CHECK:         linalg.softmax
// CHECK-NOT:     call @strata_kernel_attention
func.func @other_mask(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %m = arith.constant dense<[[0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %0 = "strata.attention"(%q, %k, %v, %m) {scale = 0.125 : f64, is_causal = false} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<8x8xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}
