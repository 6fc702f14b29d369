//===- merge_omp_parallel.td - one OpenMP region, not several --*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def MergeOmpParallel : Pass<"strata-merge-omp-parallel", "func::FuncOp"> {
  let summary = "Merge consecutive omp.parallel regions into one, the loops separated by their barriers";
  let description = [{
    `convert-scf-to-openmp` turns each parallel loop into its own
    `omp.parallel` region. Every region start wakes the runtime's worker
    threads; with `OMP_WAIT_POLICY=PASSIVE` (idle workers sleep at once) a
    wake-up costs tens to hundreds of microseconds on a virtual machine, and
    a packed matmul (B copied into panels, then multiplied) pays it twice a
    call. This pass merges an `omp.parallel` into the one before it in the
    same block when nothing between them but allocations, constants and
    memref views (moved in front of the first region): the merged region
    runs the first region's body and then the second's, as
    `#pragma omp parallel { #pragma omp for ...; #pragma omp for ... }`
    would. Each `omp.wsloop` keeps its implicit barrier, so no thread starts
    the second loop before every thread has finished the first. Regions with
    operands (a thread count, an `if`, private or reduction variables) are
    left alone, and so is any region after an op that reads or writes
    memory.
  }];
}
