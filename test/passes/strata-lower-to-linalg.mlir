// strata-lower-to-linalg: each strata op becomes linalg on tensors; only the structure is checked
// here (numerics against PyTorch: test/python/dialects/test_lowering_numerics.py).
// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s --check-prefix=GONE
// GONE-NOT: strata.

// Softmax over dim 1: row max (reduction over d1, init -inf), exp(x - max), row sum, divide.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X:.*]] : tensor<2x4x8xf32>) outs(%[[MAX_INIT]] : tensor<2x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<2x4x8xf32>, tensor<2x8xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[EXP]] : tensor<2x4x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x4x8xf32>, tensor<2x8xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[OUT]]
func.func @softmax(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.softmax"(%x) {dim = 1 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Dynamic sizes are read with tensor.dim for every new tensor.
// CHECK-LABEL: func.func @softmax_dynamic
// CHECK:         %[[D:.*]] = tensor.dim %[[X:.*]], %{{.*}} : tensor<?x8xf32>
// CHECK:         tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK:         return %{{.*}} : tensor<?x8xf32>
func.func @softmax_dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "strata.softmax"(%x) {dim = -1 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_erf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           math.erf
// CHECK-NOT:       math.tanh
func.func @gelu_erf(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "strata.gelu"(%x) {approximation = 0 : i32} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_tanh
// CHECK:         linalg.generic
// CHECK:           math.tanh
// CHECK-NOT:       math.erf
func.func @gelu_tanh(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "strata.gelu"(%x) {approximation = 1 : i32} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// silu(x) = x / (1 + exp(-x)).
// CHECK-LABEL: func.func @silu
// CHECK:         linalg.generic
// CHECK:           arith.negf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:           arith.divf
func.func @silu(%x: tensor<7xf16>) -> tensor<7xf16> {
  %0 = "strata.silu"(%x) : (tensor<7xf16>) -> tensor<7xf16>
  return %0 : tensor<7xf16>
}

// -----

// Layer norm over the trailing two dims: mean, biased variance (divided by 3 * 8 = 24), rsqrt,
// weight and bias indexed by the trailing dims.
// CHECK-LABEL: func.func @layer_norm
// CHECK-DAG:     arith.constant 2.400000e+01 : f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[W:.*]], %[[B:.*]] : tensor<2x3x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK:           math.rsqrt
func.func @layer_norm(%x: tensor<2x3x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = "strata.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 3, 8>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// RMSNorm: mean of squares over the last dim, rsqrt(ms + eps), times the weight; no centering.
// CHECK-LABEL: func.func @rms_norm
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%[[X:.*]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<8xf32>)
// CHECK-NOT:       arith.subf
// CHECK:           math.rsqrt
func.func @rms_norm(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.rms_norm"(%x, %w) {normalized_shape = array<i64: 8>, eps = 1.0e-6 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Attention: q k^T contraction over the head dim, scale and mask, softmax over the keys,
// contraction with v over the keys.
// CHECK-LABEL: func.func @attention
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q:.*]], %[[K:.*]] : tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>) outs(%{{.*}} : tensor<1x2x5x7xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]], %[[M:.*]] : tensor<1x2x5x7xf32>, tensor<5x7xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         arith.maximumf
// CHECK:         math.exp
// CHECK:         arith.divf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[V:.*]] : tensor<1x2x5x7xf32>, tensor<1x2x7x3xf32>) outs(%{{.*}} : tensor<1x2x5x3xf32>)
func.func @attention(%q: tensor<1x2x5x8xf32>, %k: tensor<1x2x7x8xf32>, %v: tensor<1x2x7x3xf32>, %m: tensor<5x7xf32>) -> tensor<1x2x5x3xf32> {
  %0 = "strata.attention"(%q, %k, %v, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x5x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x3xf32>, tensor<5x7xf32>) -> tensor<1x2x5x3xf32>
  return %0 : tensor<1x2x5x3xf32>
}

// -----

// Causal attention masks key positions after the query position (j > i) with -inf.
// CHECK-LABEL: func.func @attention_causal
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = linalg.index 2 : index
// CHECK:           %[[J:.*]] = linalg.index 3 : index
// CHECK:           %[[ABOVE:.*]] = arith.cmpi ugt, %[[J]], %[[I]] : index
// CHECK:           arith.select %[[ABOVE]], %{{.*}}, %{{.*}} : f32
func.func @attention_causal(%q: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64, is_causal = true} : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// Linear: the bias initializes the accumulator, the contraction runs over K, then the fused
// activation (here silu).
// CHECK-LABEL: func.func @linear_silu
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B:.*]] : tensor<6xf32>) outs(%{{.*}} : tensor<2x4x6xf32>)
// CHECK:         %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X:.*]], %[[W:.*]] : tensor<2x4x8xf32>, tensor<6x8xf32>) outs(%[[INIT]] : tensor<2x4x6xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[MM]] : tensor<2x4x6xf32>)
// CHECK:           math.exp
func.func @linear_silu(%x: tensor<2x4x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>) -> tensor<2x4x6xf32> {
  %0 = "strata.linear"(%x, %w, %b) {activation = 4 : i32} : (tensor<2x4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

// Without a bias the accumulator starts at zero; without an activation nothing follows.
// CHECK-LABEL: func.func @linear_plain
// CHECK:         %[[ZERO:.*]] = linalg.fill
// CHECK:         %[[MM:.*]] = linalg.generic {{.*}} outs(%[[ZERO]] : tensor<3x5xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<3x5xf32>
// CHECK-NEXT:    return %[[MM]]
func.func @linear_plain(%x: tensor<3x8xf32>, %w: tensor<5x8xf32>) -> tensor<3x5xf32> {
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<3x8xf32>, tensor<5x8xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// fully_masked_rows_zero: rows whose maximum score is -inf become 0 instead of 0/0.
// CHECK-LABEL: func.func @attention_fully_masked_rows_zero
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[MAX]] : tensor<1x1x4x6xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
// CHECK:           %[[Q:.*]] = arith.divf
// CHECK:           %[[ALL_MASKED:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select %[[ALL_MASKED]], %{{.*}}, %[[Q]] : f32
func.func @attention_fully_masked_rows_zero(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x6x8xf32>, %m: tensor<4x6xf32>) -> tensor<1x1x4x8xf32> {
  %0 = "strata.attention"(%q, %k, %k, %m) {scale = 0.5 : f64, is_causal = false, fully_masked_rows_zero = true} : (tensor<1x1x4x8xf32>, tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>, tensor<4x6xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}
