//===- fuse_conv_epilogue.td - elementwise ops into conv kernels -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def FuseConvEpilogue : Pass<"strata-fuse-conv-epilogue", "ModuleOp"> {
  let summary = "Fold the per-channel affine ops, residual addition, ReLU and 2x2 max pool that follow a call of strata's convolution kernels into the kernel";
  let description = [{
    strata-data-tile-conv hands convolutions to strata's own kernels as
    calls of `@strata_kernel_conv...` functions, which become dispatches of
    their own: IREE cannot fuse the elementwise ops that follow (the bias,
    a batch norm in inference, a residual addition, a ReLU) into them, and
    computes those in a dispatch that reads and writes the whole output
    again. The kernels can apply an epilogue to their registers before they
    store them: `relu(y * scale[f] + shift[f] + residual)`, each part
    optional.

    This pass follows each kernel call's result through the chain of
    elementwise `linalg.generic`s it alone feeds (all loops parallel, the
    result read and written with identity maps) and folds into the call:
    additions, subtractions, multiplications and divisions by a
    per-output-channel value (a `tensor<F>` broadcast by `linalg.broadcast`
    over dimensions [0, 2, 3], or a `tensor<Fx1x1>`-like operand read at
    `d1`), collected into one `scale` and one `shift` per channel by a
    `linalg.generic` over [F] (constant for constant weights, so computed
    when the module loads); then one addition of a tensor of the output's
    shape (a residual; nothing affine after it); then a ReLU (`arith.cmpf
    ugt` and `arith.select` against 0.0, as Torch-MLIR writes it, or
    `arith.maximumf` with 0.0), which ends the chain. For the row kernel
    (`strata.direct_conv`) and the Winograd kernel
    (`strata.winograd_conv`), a `linalg.pooling_nchw_max` after that with a
    2x2 window, stride 2, no dilation, into a fill of -inf (`MaxPool2d(2)`)
    folds too: the row kernel computes two output rows at a time and stores
    their pool, the Winograd kernel the max of each 2x2 output tile. The call becomes one
    of the same kernel with the epilogue named in its symbol
    (`..._affine_residual_relu_pool2`), where the chain's last op was; the chain
    and what only it used are erased, and the kernel declarations are
    brought up to date.

    Values the chain computes are rounded as the kernel computes them: the
    scale and shift are folded first and applied with one FMA, so results
    differ from the unfused chain's in the last bits.
  }];
}
