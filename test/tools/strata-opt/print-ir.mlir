// IR printing around passes goes to stderr, as in mlir-opt.
// RUN: strata-opt --canonicalize --cse --mlir-print-ir-before-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: strata-opt --canonicalize --cse --mlir-print-ir-after-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: strata-opt --cse --canonicalize --mlir-print-ir-after-all --mlir-print-ir-after-change %s 2>&1 >/dev/null | FileCheck %s --check-prefix=CHANGE
// RUN: strata-opt --canonicalize --mlir-print-ir-after-all --mlir-print-ir-module-scope %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SCOPE
// RUN: not strata-opt --one-shot-bufferize --mlir-print-ir-after-failure %S/Inputs/failing-pass.mlir 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: strata-opt --canonicalize --mlir-timing %s 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING

// BEFORE: IR Dump Before CanonicalizerPass
// BEFORE: arith.addi
// BEFORE: IR Dump Before CSEPass
// AFTER: IR Dump After CanonicalizerPass
// AFTER-NOT: arith.addi
// AFTER: IR Dump After CSEPass
// CHANGE-NOT: IR Dump After CSEPass
// CHANGE: IR Dump After CanonicalizerPass
// SCOPE: IR Dump After CanonicalizerPass
// SCOPE-NEXT: module {
// FAILURE: IR Dump After OneShotBufferizePass Failed
// TIMING: Execution time report
// TIMING: CanonicalizerPass
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %0 = arith.addi %a, %c : i32
  return %0 : i32
}
