//===- raise_torch.td - torch dialect -> strata ops --------*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def RaiseTorch : Pass<"strata-raise-torch", "func::FuncOp"> {
  let summary = "Recognize whole operators in torch-dialect IR and raise them to strata ops";
  let description = [{
    Replaces torch-dialect subgraphs with the strata op they compute, so later
    stages see attention, normalization, activations and linear layers whole.
    Recognized: the direct aten ops (softmax, layer_norm, gelu, silu,
    scaled_dot_product_attention, linear/addmm) and the decomposed forms that
    hand-written models and torch.export's decompositions produce:
    max/sub/exp/sum/div softmax; RMSNorm as pow/mean (or sum/div)/rsqrt/mul
    with an optional weight; `x * sigmoid(x)`; tanh-GELU written out;
    explicit-matmul attention (`matmul` or `view`/`bmm`) with an optional
    scale and an optional additive mask, whose softmax runs over the last
    dimension; `mm`/`addmm` with a transposed weight.

    Raised ops read torch values through `torch_c.to_builtin_tensor` and hand
    results back through `torch_c.from_builtin_tensor`. A candidate whose
    strata op would not verify is left as it is. Afterwards, unused
    value-semantic torch ops (what the raised subgraphs replaced) are erased.
    A scaled_dot_product_attention, direct or decomposed, raises with
    `fully_masked_rows_zero` set, as its fully masked rows are 0.
  }];
  let options = [
    Option<"fuseActivations", "fuse-activations", "bool", "false",
           "Fold a relu, gelu or silu that follows a strata.linear into the "
           "linear's fused activation">,
  ];
}
