// Each chunk is processed and printed separately; errors carry line numbers of the whole file,
// and a bad chunk does not stop the others.
// RUN: not strata-opt --split-input-file --canonicalize %s > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not strata-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @third
// CHECK-NOT: func.func @second
func.func @first() {
  return
}

// -----

func.func @second(%a: i32) -> i32 {
  // ERR: split-input-file.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: use of undeclared SSA value name
  // WHOLE: split-input-file.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  %0 = arith.addi %a, %undefined : i32
  return %0 : i32
}

// -----

func.func @third() {
  return
}

