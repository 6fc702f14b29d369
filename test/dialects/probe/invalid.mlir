// Every type constraint, attribute constraint and verifying trait of dialects/probe.td rejects
// what it must, with the error at the offending op.
// RUN: strata-opt --split-input-file --verify-diagnostics %s

// --- AnyRankedTensor (probe.tap) -------------------------------------------------------------

func.func @tap_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'probe.tap' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "probe.tap"(%x) {name = "x"} : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @tap_scalar(%x: f32) {
  // expected-error @+1 {{'probe.tap' op operand #0 must be ranked tensor of any type values, but got 'f32'}}
  %0 = "probe.tap"(%x) {name = "x"} : (f32) -> f32
  return
}

// -----

func.func @tap_memref_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.tap' op result #0 must be ranked tensor of any type values, but got 'memref<4xf32>'}}
  %0 = "probe.tap"(%x) {name = "x"} : (tensor<4xf32>) -> memref<4xf32>
  return
}

// --- RankedTensorOf<[AnyFloat]> (probe.check_finite) -----------------------------------------

// -----

func.func @check_finite_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'probe.check_finite' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = "probe.check_finite"(%x) {name = "x"} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @check_finite_unranked(%x: tensor<*xf16>) {
  // expected-error @+1 {{'probe.check_finite' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<*xf16>'}}
  %0 = "probe.check_finite"(%x) {name = "x"} : (tensor<*xf16>) -> tensor<*xf16>
  return
}

// --- Probe_NameAttr ----------------------------------------------------------------------------

// -----

func.func @tap_missing_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.tap' op requires attribute 'name'}}
  %0 = "probe.tap"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tap_empty_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.tap' op attribute 'name' failed to satisfy constraint: string attribute that is not empty}}
  %0 = "probe.tap"(%x) {name = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @check_finite_integer_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.check_finite' op attribute 'name' failed to satisfy constraint: string attribute that is not empty}}
  %0 = "probe.check_finite"(%x) {name = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @check_finite_missing_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.check_finite' op requires attribute 'name'}}
  %0 = "probe.check_finite"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// --- SameOperandsAndResultType -----------------------------------------------------------------

// -----

func.func @tap_changes_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.tap' op requires the same type for all operands and results}}
  %0 = "probe.tap"(%x) {name = "x"} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @check_finite_changes_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'probe.check_finite' op requires the same type for all operands and results}}
  %0 = "probe.check_finite"(%x) {name = "x"} : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}
