// Diagnostics that a failing pass emits are verified like parser and verifier ones.
// RUN: strata-opt --verify-diagnostics --allow-unregistered-dialect --one-shot-bufferize %s
// RUN: not strata-opt --allow-unregistered-dialect --one-shot-bufferize %s 2>&1 | FileCheck %s

// CHECK: verify-diagnostics-pass.mlir:[[# @LINE + 4]]:8: error: 'bufferization.to_tensor' op to_tensor ops without `restrict`
// CHECK-NOT: func.func
func.func @from_a_pass(%a: memref<4xf32>) {
  // expected-error @+1 {{to_tensor ops without `restrict` are not supported by One-Shot Analysis}}
  %0 = bufferization.to_tensor %a : memref<4xf32> to tensor<4xf32>
  "test.consume"(%0) : (tensor<4xf32>) -> ()
  return
}
