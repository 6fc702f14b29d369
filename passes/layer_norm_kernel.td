//===- layer_norm_kernel.td - layer norm by strata's kernel ---*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def LayerNormKernel : Pass<"strata-layer-norm-kernel", "ModuleOp"> {
  let summary = "Compute layer norm, as Torch-MLIR decomposes it, with strata's row kernel";
  let description = [{
    Torch-MLIR writes `layer_norm` over the last dimension as some ten
    generics: the variance in f64 (the input widened, its mean, the squared
    differences from it, their mean, narrowed to f32), the mean again in
    f32, then `(x - mean) * rsqrt(var + eps) * weight + bias`. IREE fuses
    that into three dispatches, two of them over the whole input in f64.

    This pass finds that chain, matched backwards from the bias added last,
    over a static f32 input whose last dimension is a whole number of 8s,
    with a weight and a bias, and replaces it with a call of
    `strata.layer_norm_kernel` (`@strata_kernel_layer_norm_r<rows>_c<cols>_e<eps>`,
    eps as its f32 bits), one dispatch of strata's own: a workgroup takes 16
    rows, each row's mean and variance (two passes, in f32 as PyTorch's own
    CPU kernel computes them) and its result computed while the row stays in
    L1. An intermediate value something else reads stays, computed as
    before; anything else is left to IREE.
  }];
}
