// Every type constraint, attribute constraint, verifying trait and verifier of dialects/strata.td
// rejects what it must, with the error at the offending op.
// RUN: strata-opt --split-input-file --verify-diagnostics %s

// --- Operand structure (declared through IRDL) ---------------------------------------------

func.func @too_many_operands(%x: tensor<4xf32>) {
  // expected-error @+1 {{op expects exactly 1 operands, but got 2}}
  %0 = "strata.softmax"(%x, %x) {dim = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{unregistered operation 'strata.softmx' found in dialect ('strata')}}
  %0 = "strata.softmx"(%x) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @missing_segment_sizes(%x: tensor<4xf32>) {
  // expected-error @+1 {{'operandSegmentSizes' attribute is expected but not provided}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// --- Strata_FloatTensor ----------------------------------------------------------------------

// -----

func.func @softmax_integer_input(%x: tensor<4xi32>) {
  // expected-error @+1 {{'strata.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = "strata.softmax"(%x) {dim = 0 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @silu_unranked_input(%x: tensor<*xf32>) {
  // expected-error @+1 {{'strata.silu' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "strata.silu"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @gelu_scalar_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.gelu' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'f32'}}
  %0 = "strata.gelu"(%x) {approximation = 0 : i32} : (tensor<4xf32>) -> f32
  return
}

// -----

func.func @layer_norm_integer_weight(%x: tensor<2x4xf32>, %w: tensor<4xi8>) {
  // expected-error @+1 {{'strata.layer_norm' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi8>'}}
  %0 = "strata.layer_norm"(%x, %w) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xi8>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_integer_bias(%x: tensor<2x4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'strata.layer_norm' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = "strata.layer_norm"(%x, %b) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x4xf32>, tensor<4xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_integer_input(%x: tensor<2x4xi64>) {
  // expected-error @+1 {{'strata.rms_norm' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x4xi64>'}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64} : (tensor<2x4xi64>) -> tensor<2x4xi64>
  return
}

// -----

func.func @linear_integer_weight(%x: tensor<2x4xf32>, %w: tensor<3x4xi32>) {
  // expected-error @+1 {{'strata.linear' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xi32>'}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_f8_bias(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf8E4M3FN>) {
  // expected-error @+1 {{'strata.linear' op operand #2 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3xf8E4M3FN>'}}
  %0 = "strata.linear"(%x, %w, %b) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf8E4M3FN>) -> tensor<2x3xf32>
  return
}

// -----

func.func @attention_integer_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xi1>) {
  // expected-error @+1 {{'strata.attention' op operand #3 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x3xi1>'}}
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi1>) -> tensor<1x2x3x4xf32>
  return
}

// --- Strata_Float4DTensor -------------------------------------------------------------------

// -----

func.func @attention_rank3_query(%q: tensor<2x3x4xf32>, %k: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op operand #0 must be 4D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x3x4xf32>'}}
  %0 = "strata.attention"(%q, %k, %k) {scale = 0.5 : f64, is_causal = false} : (tensor<2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_integer_key(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xi32>) {
  // expected-error @+1 {{'strata.attention' op operand #1 must be 4D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x2x3x4xi32>'}}
  %0 = "strata.attention"(%q, %k, %q) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xi32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_rank5_value(%q: tensor<1x2x3x4xf32>, %v: tensor<1x1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op operand #2 must be 4D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x1x2x3x4xf32>'}}
  %0 = "strata.attention"(%q, %q, %v) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_rank2_result(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op result #0 must be 4D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3x4xf32>'}}
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<3x4xf32>
  return
}

// --- I64Attr (softmax dim) ------------------------------------------------------------------

// -----

func.func @softmax_missing_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.softmax' op requires attribute 'dim'}}
  %0 = "strata.softmax"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @softmax_i32_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.softmax' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "strata.softmax"(%x) {dim = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @softmax_float_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.softmax' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "strata.softmax"(%x) {dim = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// --- Strata_GeluApproximationAttr -----------------------------------------------------------

// -----

func.func @gelu_missing_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.gelu' op requires attribute 'approximation'}}
  %0 = "strata.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_unknown_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.gelu' op attribute 'approximation' failed to satisfy constraint: approximation of gelu: 0 = none (erf), 1 = tanh}}
  %0 = "strata.gelu"(%x) {approximation = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_i64_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.gelu' op attribute 'approximation' failed to satisfy constraint: approximation of gelu: 0 = none (erf), 1 = tanh}}
  %0 = "strata.gelu"(%x) {approximation = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// --- Strata_ActivationAttr ------------------------------------------------------------------

// -----

func.func @linear_missing_activation(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op requires attribute 'activation'}}
  %0 = "strata.linear"(%x, %w) : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_unknown_activation(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op attribute 'activation' failed to satisfy constraint: activation fused into a linear layer: 0 = none, 1 = relu, 2 = gelu, 3 = gelu_tanh, 4 = silu}}
  %0 = "strata.linear"(%x, %w) {activation = 5 : i32} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_string_activation(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op attribute 'activation' failed to satisfy constraint: activation fused into a linear layer}}
  %0 = "strata.linear"(%x, %w) {activation = "relu"} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// --- Strata_ShapeAttr (normalized_shape) ----------------------------------------------------

// -----

func.func @layer_norm_missing_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op requires attribute 'normalized_shape'}}
  %0 = "strata.layer_norm"(%x) {eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_empty_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op attribute 'normalized_shape' failed to satisfy constraint: i64 dense array attribute with at least 1 elements whose value is positive}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_zero_in_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op attribute 'normalized_shape' failed to satisfy constraint: i64 dense array attribute with at least 1 elements whose value is positive}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 0>, eps = 1.0e-5 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_i32_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op attribute 'normalized_shape' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i32: 4>, eps = 1.0e-5 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// --- Strata_EpsAttr -------------------------------------------------------------------------

// -----

func.func @rms_norm_missing_eps(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op requires attribute 'eps'}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 4>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_zero_eps(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 4>, eps = 0.0 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_f32_eps(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// --- Strata_ScaleAttr -----------------------------------------------------------------------

// -----

func.func @attention_missing_scale(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op requires attribute 'scale'}}
  %0 = "strata.attention"(%q, %q, %q) {is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_negative_scale(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op attribute 'scale' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = "strata.attention"(%q, %q, %q) {scale = -0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// --- BoolAttr (is_causal) -------------------------------------------------------------------

// -----

func.func @attention_missing_is_causal(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op requires attribute 'is_causal'}}
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_integer_is_causal(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op attribute 'is_causal' failed to satisfy constraint: bool attribute}}
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64, is_causal = 1 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_string_fully_masked_rows_zero(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op attribute 'fully_masked_rows_zero' failed to satisfy constraint: bool attribute}}
  %0 = "strata.attention"(%q, %q, %q) {scale = 0.5 : f64, is_causal = false, fully_masked_rows_zero = "yes"} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// --- Traits ---------------------------------------------------------------------------------

// -----

func.func @softmax_result_type_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.softmax' op requires the same type for all operands and results}}
  %0 = "strata.softmax"(%x) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @silu_result_shape_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.silu' op requires the same type for all operands and results}}
  %0 = "strata.silu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @gelu_result_type_differs(%x: tensor<4xf16>) {
  // expected-error @+1 {{'strata.gelu' op requires the same type for all operands and results}}
  %0 = "strata.gelu"(%x) {approximation = 1 : i32} : (tensor<4xf16>) -> tensor<4xbf16>
  return
}

// -----

func.func @layer_norm_result_type_differs(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf16>
  return
}

// -----

func.func @rms_norm_result_shape_differs(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op failed to verify that all of {input, result} have same type}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @attention_mixed_element_types(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf16>) {
  // expected-error @+1 {{'strata.attention' op failed to verify that all of {query, key, value, result} have same element type}}
  %0 = "strata.attention"(%q, %k, %q) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf16>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @linear_mixed_element_types(%x: tensor<2x4xf32>, %w: tensor<3x4xbf16>) {
  // expected-error @+1 {{'strata.linear' op failed to verify that all of {input, weight, result} have same element type}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xbf16>) -> tensor<2x3xf32>
  return
}

// --- Verifiers ------------------------------------------------------------------------------

// -----

func.func @softmax_dim_too_large(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.softmax' op dim 2 is out of range for a rank-2 input (expected [-2, 2))}}
  %0 = "strata.softmax"(%x) {dim = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @softmax_dim_too_negative(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.softmax' op dim -3 is out of range for a rank-2 input (expected [-2, 2))}}
  %0 = "strata.softmax"(%x) {dim = -3 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_leading_dims(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op normalized_shape [2] must equal the trailing dimensions of the input [2, 4]}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 2>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_more_dims_than_input(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op normalized_shape [1, 4] must equal the trailing dimensions of the input [4]}}
  %0 = "strata.layer_norm"(%x) {normalized_shape = array<i64: 1, 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @layer_norm_weight_shape(%x: tensor<2x4xf32>, %w: tensor<2xf32>) {
  // expected-error @+1 {{'strata.layer_norm' op weight shape [2] must equal normalized_shape [4]}}
  %0 = "strata.layer_norm"(%x, %w) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_bias_element_type(%x: tensor<2x4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'strata.layer_norm' op bias element type f16 must match the input's f32}}
  %0 = "strata.layer_norm"(%x, %b) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @rms_norm_leading_dims(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op normalized_shape [3] must equal the trailing dimensions of the input [3, 4]}}
  %0 = "strata.rms_norm"(%x) {normalized_shape = array<i64: 3>, eps = 1.0e-5 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @rms_norm_weight_shape(%x: tensor<3x4xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.rms_norm' op weight shape [3, 4] must equal normalized_shape [4]}}
  %0 = "strata.rms_norm"(%x, %w) {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @attention_head_dims_disagree(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x5xf32>) {
  // expected-error @+1 {{'strata.attention' op query head dim 4 must match the key head dim 5}}
  %0 = "strata.attention"(%q, %k, %q) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x5xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_heads_disagree(%q: tensor<1x2x3x4xf32>, %k: tensor<1x4x3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op key batch and head dims [1, 4] must match the query's [1, 2]}}
  %0 = "strata.attention"(%q, %k, %q) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x4x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_key_value_lengths(%q: tensor<1x2x3x4xf32>, %v: tensor<1x2x5x4xf32>) {
  // expected-error @+1 {{'strata.attention' op key sequence length 3 must match the value sequence length 5}}
  %0 = "strata.attention"(%q, %q, %v) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_result_shape(%q: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x6xf32>) {
  // expected-error @+1 {{'strata.attention' op result shape [1, 2, 3, 4] must be [batch, heads, Lq, Ev] = [1, 2, 3, 6]}}
  %0 = "strata.attention"(%q, %q, %v) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x6xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<1x2x3x4xf32>, %m: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.attention' op mask shape [3, 4] does not broadcast to the scores [1, 2, 3, 3]}}
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_rank3(%q: tensor<1x2x3x4xf32>, %m: tensor<2x3x3xf32>) {
  // expected-error @+1 {{'strata.attention' op mask shape [2, 3, 3] does not broadcast to the scores [1, 2, 3, 3]}}
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<2x3x3xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_and_causal(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf32>) {
  // expected-error @+1 {{'strata.attention' op takes either a mask or is_causal, not both}}
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = true} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_element_type(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf16>) {
  // expected-error @+1 {{'strata.attention' op mask element type f16 must match the query's}}
  %0 = "strata.attention"(%q, %q, %q, %m) {scale = 0.5 : f64, is_causal = false} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf16>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<2x4xf32>, %w: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op weight must be 2-D [N, K], got [1, 3, 4]}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_inner_dims(%x: tensor<2x5xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op weight K 4 must match the input's last dimension 5}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<2x5xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_bias_shape(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'strata.linear' op bias shape [4] must be [N] = [3]}}
  %0 = "strata.linear"(%x, %w, %b) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @linear_result_shape(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op result shape [2, 4] must be [2, 3]}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.linear' op input must have at least one dimension}}
  %0 = "strata.linear"(%x, %w) {activation = 0 : i32} : (tensor<f32>, tensor<3x4xf32>) -> tensor<3xf32>
  return
}
