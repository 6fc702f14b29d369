//===- read_only_arguments.td - caller-owned arguments -----*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def ReadOnlyArguments : Pass<"strata-read-only-arguments", "ModuleOp"> {
  let summary = "Mark the tensor arguments of public functions read-only for bufferization";
  let description = [{
    One-shot bufferization with function boundaries assumes a function may
    write into its tensor arguments: an op that updates an argument in place
    (a `linalg.matmul` accumulating into an `outs` argument) is bufferized
    to write into the argument's memory. Called through MLIR's
    ExecutionEngine, that memory is the caller's array, which the call would
    then change; and a function returning such an argument leaves an
    `unrealized_conversion_cast` that LLVM translation rejects. This pass
    sets `bufferization.writable = false` on every tensor argument of the
    public functions with a body, so bufferization copies instead.
  }];
}
