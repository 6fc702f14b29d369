// --strata-pipeline runs a named pipeline of pipelines/ stage by stage, with options, stage
// dumps, per-stage reports and stop-after; bad names are one-line errors.
// RUN: strata-opt --strata-pipeline=linalg-to-llvm %s | FileCheck %s
// RUN: rm -rf %t.stages && strata-opt --strata-pipeline=linalg-to-llvm --strata-dump-stages=%t.stages --strata-print-stages %s 2>&1 >/dev/null | FileCheck %s --check-prefix=STAGES
// RUN: ls %t.stages | FileCheck %s --check-prefix=DUMPS
// RUN: strata-opt --strata-pipeline=linalg-to-llvm --strata-stop-after=vector %s | FileCheck %s --check-prefix=VECTOR
// RUN: not strata-opt --strata-pipeline=no-such-pipeline %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt --strata-pipeline=linalg-to-llvm --strata-stop-after=no-such-stage %s 2>&1 | FileCheck %s --check-prefix=NOSTAGE

// CHECK-LABEL: llvm.func @matmul
// CHECK-NOT: linalg.
// STAGES: 01-linalg
// STAGES: {{[0-9]+}}-llvm {{.*}}llvm=
// DUMPS: 01-linalg.mlir
// DUMPS: {{[0-9]+}}-llvm.mlir
// DUMPS: stages.txt
// VECTOR-LABEL: func.func @matmul
// VECTOR: scf.for
// VECTOR-NOT: llvm.
// UNKNOWN: strata-opt: error: unknown pipeline 'no-such-pipeline' (known: {{.*}}linalg-to-llvm
// NOSTAGE: strata-opt: error: pipeline 'linalg-to-llvm' has no stage 'no-such-stage'
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}
