// --verify-diagnostics in every expected-* form mlir-opt knows; the run passes only when every
// diagnostic was expected and every expectation met.
// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @same_line(%a: i32) {
  %0 = arith.addi %a, %b : i32 // expected-error {{use of undeclared SSA value name}}
  return
}

// -----

func.func @plus_one(%a: i32) {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %a, %b : i32
  return
}

// -----

func.func @minus_and_regex(%a: tensor<4xf32>) {
  %0 = tensor.extract %a[] : tensor<4xf32>
  // expected-error-re @-1 {{incorrect number of indices for extract_element{{.*}}}}
  return
}

// -----

// expected-note @below {{see existing symbol definition here}}
func.func @below_case(%a: i32) {
  return
}
// expected-error @below {{redefinition of symbol named 'below_case'}}
func.func @below_case(%a: i32) {
  return
}

// -----

func.func @above_case(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = "arith.addi"(%a, %0) : (i32, i32) -> i64
  // expected-error @above {{'arith.addi' op requires the same type for all operands and results}}
  return %a : i32
}

