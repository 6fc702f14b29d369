// RUN: %python -m strata.pipelines linalg-to-llvm --stop-after=vector %s | FileCheck %s --check-prefix=VECTOR
// RUN: %python -m strata.pipelines linalg-to-llvm %s | FileCheck %s --check-prefix=LLVM
// RUN: %python -m strata.pipelines linalg-to-llvm --dump-dir=%t %s > /dev/null && FileCheck %s --check-prefix=STAGES < %t/stages.txt

// A matmul of 64 rows or more reads B from 16-wide panels (strata-pack-matmul): the panel copy
// runs in 8x16 vector steps; the 60 rows of two 30-row blocks are 6x16 register tiles that start
// from zeros in registers (C's fill is fused, no linalg.fill is left), the last 4 rows a 4x16
// tile; the transform library the stage used is gone again afterwards.
// VECTOR-LABEL: func.func @matmul
// VECTOR: vector.transfer_read {{.*}} : tensor<1x128x4x16xf32>, vector<1x8x1x16xf32>
// VECTOR: vector.transfer_write %{{.*}} : vector<1x1x6x1x16xf32>, tensor<1x1x6x1x16xf32>
// VECTOR: scf.for
// VECTOR: vector.contract {{.*}} : vector<1x1x6x1xf32>, vector<1x1x1x16xf32> into vector<1x1x6x1x16xf32>
// VECTOR: vector.contract {{.*}} : vector<1x1x4x1xf32>, vector<1x1x1x16xf32> into vector<1x1x4x1x16xf32>
// VECTOR-NOT: linalg.fill
// VECTOR-NOT: transform.named_sequence

// Down in the llvm dialect, the contraction is FMAs on 16-wide vectors, and the C interface the
// ExecutionEngine calls exists.
// LLVM-LABEL: llvm.func @matmul
// LLVM: llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// LLVM-LABEL: llvm.func @_mlir_ciface_matmul
// LLVM-NOT: linalg.
// LLVM-NOT: vector.contract

// STAGES: 01-linalg {{.*}}linalg=
// STAGES-NEXT: 02-panels {{.*}}linalg=
// STAGES-NEXT: 03-vector {{.*}}vector=
// STAGES-NEXT: 04-bufferized {{.*}}memref=
// STAGES-NEXT: 05-openmp
// STAGES-NEXT: 06-loops
// STAGES-NEXT: 07-llvm {{ *[0-9.]+ ms  llvm=[0-9]+ omp=[0-9]+$}}
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}


// A second function in the module, batched: its own panels and tiles (every transform rule
// applies per op, so several functions and several packed matmuls compile together).
// VECTOR-LABEL: func.func @batch_matmul
// VECTOR: vector.transfer_read {{.*}} : tensor<2x128x4x16xf32>, vector<1x8x1x16xf32>
// VECTOR: vector.contract {{.*}} : vector<1x1x6x1xf32>, vector<1x1x1x16xf32> into vector<1x1x6x1x16xf32>
// VECTOR: vector.contract {{.*}} : vector<1x1x4x1xf32>, vector<1x1x1x16xf32> into vector<1x1x4x1x16xf32>
// LLVM-LABEL: llvm.func @batch_matmul
// LLVM: llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
func.func @batch_matmul(%a: tensor<2x64x128xf32>, %b: tensor<2x128x64xf32>) -> tensor<2x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x64x128xf32>, tensor<2x128x64xf32>) outs(%acc : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %r : tensor<2x64x64xf32>
}
