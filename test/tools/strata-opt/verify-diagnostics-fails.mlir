// A diagnostic nobody expected, and an expectation nothing met, each fail the run with an
// error at their own line.
// RUN: not strata-opt --split-input-file --verify-diagnostics %s 2>&1 | FileCheck %s

func.func @unexpected(%a: i32) {
  // CHECK: verify-diagnostics-fails.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unexpected error: use of undeclared SSA value name
  %0 = arith.addi %a, %b : i32
  return
}

// -----

// CHECK: verify-diagnostics-fails.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected error "this never happens" was not produced
// expected-error @+1 {{this never happens}}
func.func @missing() {
  return
}

// -----

func.func @wrong_text(%a: i32) {
  // CHECK: error: unexpected error: use of undeclared SSA value name
  // CHECK: error: expected error "something else" was not produced
  // expected-error @+1 {{something else}}
  %0 = arith.addi %a, %b : i32
  return
}

// -----

func.func @wrong_severity(%a: i32) {
  // CHECK: error: expected warning "use of undeclared" was not produced
  // expected-warning @+1 {{use of undeclared}}
  %0 = arith.addi %a, %b : i32
  return
}
