// Single-pass flags run in command-line order, with mlir-opt's implicit nesting and options.
// RUN: strata-opt --canonicalize --cse %s | FileCheck %s
// RUN: strata-opt --canonicalize=max-iterations=1 --cse %s | FileCheck %s
// RUN: strata-opt '--canonicalize=max-iterations=2 region-simplify=disabled' --cse %s | FileCheck %s
// RUN: strata-opt --convert-arith-to-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: strata-opt --cse --convert-arith-to-llvm %s | FileCheck %s --check-prefix=CSE-LLVM
// RUN: strata-opt --convert-arith-to-llvm --cse %s | FileCheck %s --check-prefix=CSE-LLVM

// CHECK-LABEL: func.func @square
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg0, %arg0
// CHECK-NEXT: return %[[M]]
// LLVM-LABEL: func.func @square
// LLVM: llvm.mul
// LLVM: llvm.mul
// CSE-LLVM-LABEL: func.func @square
// CSE-LLVM: llvm.mul
// CSE-LLVM-NOT: llvm.mul
func.func @square(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %0 = arith.muli %a, %a : i32
  %1 = arith.muli %a, %a : i32
  %2 = arith.addi %1, %c : i32
  return %2 : i32
}
