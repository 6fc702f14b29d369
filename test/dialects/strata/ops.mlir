// Every strata op in its valid forms parses, verifies, prints and parses again unchanged.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x?x7xf32>, %h: tensor<3xf16>) -> (tensor<2x?x7xf32>, tensor<3xf16>) {
  // CHECK: "strata.softmax"(%{{.*}}) {dim = -1 : i64} : (tensor<2x?x7xf32>) -> tensor<2x?x7xf32>
  %0 = "strata.softmax"(%x) {dim = -1 : i64} : (tensor<2x?x7xf32>) -> tensor<2x?x7xf32>
  // CHECK: "strata.softmax"(%{{.*}}) {dim = 0 : i64} : (tensor<3xf16>) -> tensor<3xf16>
  %1 = "strata.softmax"(%h) {dim = 0 : i64} : (tensor<3xf16>) -> tensor<3xf16>
  return %0, %1 : tensor<2x?x7xf32>, tensor<3xf16>
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<4x5xbf16>, %y: tensor<1xf64>) -> (tensor<4x5xbf16>, tensor<4x5xbf16>, tensor<1xf64>) {
  // CHECK: "strata.gelu"(%{{.*}}) {approximation = 0 : i32} : (tensor<4x5xbf16>) -> tensor<4x5xbf16>
  %0 = "strata.gelu"(%x) {approximation = 0 : i32} : (tensor<4x5xbf16>) -> tensor<4x5xbf16>
  // CHECK: "strata.gelu"(%{{.*}}) {approximation = 1 : i32} : (tensor<4x5xbf16>) -> tensor<4x5xbf16>
  %1 = "strata.gelu"(%x) {approximation = 1 : i32} : (tensor<4x5xbf16>) -> tensor<4x5xbf16>
  // CHECK: "strata.silu"(%{{.*}}) : (tensor<1xf64>) -> tensor<1xf64>
  %2 = "strata.silu"(%y) : (tensor<1xf64>) -> tensor<1xf64>
  return %0, %1, %2 : tensor<4x5xbf16>, tensor<4x5xbf16>, tensor<1xf64>
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<2x3x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3x8xf32>, %v: tensor<8xf32>, %d: tensor<?x8xf32>)
    -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<?x8xf32>) {
  // CHECK: "strata.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 3, 8>, operandSegmentSizes = array<i32: 1, 1, 1>}
  %0 = "strata.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 3, 8>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: "strata.layer_norm"(%{{.*}}) {eps = 1.000000e-03 : f64, normalized_shape = array<i64: 8>, operandSegmentSizes = array<i32: 1, 0, 0>}
  %1 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 8>, eps = 1.0e-3 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: "strata.rms_norm"(%{{.*}}, %{{.*}}) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %2 = "strata.rms_norm"(%x, %v) {normalized_shape = array<i64: 8>, eps = 1.0e-6 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  // CHECK: "strata.rms_norm"(%{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 3, 8>} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %3 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 3, 8>, eps = 1.0e-5 : f64} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  // CHECK: "strata.rms_norm"(%{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %4 = "strata.rms_norm"(%d) {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<?x8xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x7x8xf32>, %v: tensor<2x4x7x3xf32>, %m2: tensor<5x7xf32>, %m4: tensor<1x4x5x7xf32>)
    -> (tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>) {
  // CHECK: "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {is_causal = true, scale = 3.535500e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  %0 = "strata.attention"(%q, %k, %v) {scale = 0.35355 : f64, is_causal = true} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {is_causal = false, scale = 1.000000e+00 : f64} : ({{.*}}, tensor<5x7xf32>) -> tensor<2x4x5x3xf32>
  %1 = "strata.attention"(%q, %k, %v, %m2) {scale = 1.0 : f64, is_causal = false} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {is_causal = false, scale = 5.000000e-01 : f64} : ({{.*}}, tensor<1x4x5x7xf32>) -> tensor<2x4x5x3xf32>
  %2 = "strata.attention"(%q, %k, %v, %m4) {scale = 0.5 : f64, is_causal = false} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<1x4x5x7xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {fully_masked_rows_zero = true, is_causal = false, scale = 5.000000e-01 : f64}
  %3 = "strata.attention"(%q, %k, %v, %m2) {scale = 0.5 : f64, is_causal = false, fully_masked_rows_zero = true} : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xf32>) -> tensor<2x4x5x3xf32>
  return %0, %1, %2 : tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>
}

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<2x3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>, %d: tensor<?x8xf32>) -> (tensor<2x3x5xf32>, tensor<?x5xf32>) {
  // CHECK: "strata.linear"(%{{.*}}, %{{.*}}, %{{.*}}) {activation = 4 : i32} : (tensor<2x3x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %0 = "strata.linear"(%x, %w, %b) {activation = 4 : i32} : (tensor<2x3x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  // CHECK: "strata.linear"(%{{.*}}, %{{.*}}) {activation = 0 : i32} : (tensor<?x8xf32>, tensor<5x8xf32>) -> tensor<?x5xf32>
  %1 = "strata.linear"(%d, %w) {activation = 0 : i32} : (tensor<?x8xf32>, tensor<5x8xf32>) -> tensor<?x5xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<?x5xf32>
}
