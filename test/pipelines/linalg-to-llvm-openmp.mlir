// RUN: %python -m strata.pipelines linalg-to-llvm --stop-after=openmp %s | FileCheck %s --check-prefix=OMP
// RUN: %python -m strata.pipelines linalg-to-llvm --option parallel=none --stop-after=serial %s | FileCheck %s --check-prefix=SERIAL
// RUN: %python -m strata.pipelines linalg-to-llvm %s | FileCheck %s --check-prefix=LLVM

// The 256 rows of this matmul are six blocks of 42 and 4 rows: the copy of B into panels and
// the row blocks are OpenMP parallel loops, in one region (strata-merge-omp-parallel: each
// wsloop's barrier orders them); the last 4 rows run in sequence. With parallel=none every
// loop runs in sequence. Inside a block the register tiles are the same either way.
// OMP-LABEL: func.func @matmul
// OMP: omp.parallel
// OMP: omp.wsloop
// OMP: omp.wsloop
// OMP: scf.for
// OMP: vector.contract
// OMP-NOT: omp.parallel

// SERIAL-LABEL: func.func @matmul
// SERIAL-NOT: omp.
// SERIAL: scf.for %{{.*}} = %c0 to %c6 step %c1
// SERIAL: vector.contract

// The omp ops stay, on llvm types: LLVM IR translation turns them into __kmpc_fork_call.
// LLVM-LABEL: llvm.func @matmul
// LLVM: omp.parallel
// LLVM: omp.wsloop
// LLVM: llvm.intr.fmuladd
func.func @matmul(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>) -> tensor<256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x64xf32>) outs(%acc : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}
