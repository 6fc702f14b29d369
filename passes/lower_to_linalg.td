//===- lower_to_linalg.td - strata ops -> linalg on tensors -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def LowerToLinalg : Pass<"strata-lower-to-linalg", "func::FuncOp"> {
  let summary = "Lower every strata op to linalg on tensors";
  let description = [{
    Replaces each strata op with `linalg.generic`/`linalg.fill` on tensors
    plus scalar `arith` and `math`, computing what PyTorch computes: softmax
    subtracts the row maximum, layer norm uses the biased variance, GELU is
    erf-based or the tanh approximation, attention is
    `softmax(q @ k^T * scale + mask) @ v` with later key positions masked when
    causal, and a linear layer's fused activation follows its matmul and bias.
    Dynamic dimensions are read with `tensor.dim`.
  }];
}
