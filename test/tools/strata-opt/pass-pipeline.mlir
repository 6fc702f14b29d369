// --pass-pipeline: nesting, options, several anchors, and pipelines mixing anchors.
// RUN: strata-opt --pass-pipeline='builtin.module(func.func(canonicalize,cse))' %s | FileCheck %s
// RUN: strata-opt --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=3 region-simplify=normal}),cse)' %s | FileCheck %s
// RUN: strata-opt --pass-pipeline=' builtin.module( func.func( canonicalize ) , symbol-dce )' %s | FileCheck %s --check-prefix=DCE
// RUN: strata-opt --pass-pipeline='any(canonicalize)' %s | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return %arg0
// DCE-NOT: func.func private @unused
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %0 = arith.addi %a, %c : i32
  return %0 : i32
}

func.func private @unused() -> ()
