// Upstream passes and strata's Python passes run in one pipeline, in the written order, with
// nesting, options, single-pass flags, and IR printing and timing across both kinds.
// RUN: strata-opt --pass-pipeline='builtin.module(func.func(canonicalize,strata-raise-torch{fuse-activations=false},cse),symbol-dce)' %s | FileCheck %s
// RUN: strata-opt --canonicalize --strata-raise-torch --cse %s | FileCheck %s
// RUN: strata-opt --pass-pipeline='builtin.module(func.func(strata-raise-torch,canonicalize))' --mlir-print-ir-after-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT
// RUN: strata-opt --strata-raise-torch --cse --mlir-timing %s 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// RUN: not strata-opt --strata-raise-torch=fuse-activations=maybe %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not strata-opt '--pass-pipeline=builtin.module(func.func(strata-raise-torch{no-such=1}))' %s 2>&1 | FileCheck %s --check-prefix=NOOPT

// CHECK-LABEL: func.func @softmax
// CHECK: strata.softmax
// CHECK-NOT: torch.aten.softmax.int
// PRINT: IR Dump After strata-raise-torch
// PRINT: strata.softmax
// PRINT: IR Dump After Canonicalizer
// TIMING: strata-raise-torch
// TIMING: CSE
// BADOPT: strata-opt: error: pass 'strata-raise-torch': option 'fuse-activations' expects a value of type bool, got 'maybe'
// NOOPT: strata-opt: error: pass 'strata-raise-torch' has no option 'no-such' (its options: fuse-activations)
func.func @softmax(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %arg0, %int1, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
