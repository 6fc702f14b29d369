//===- fold_constant_pack.td - constant weights packed at compile time -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def FoldConstantPack : Pass<"strata-fold-constant-pack", "func::FuncOp"> {
  let summary = "Pack constant tensors while compiling: a `linalg.pack` of a constant becomes the packed constant";
  let description = [{
    strata's kernels and data tiling read a model's weights in tiles: a
    `linalg.pack` of each constant weight (16-column panels of B for
    strata.matmul_kernel, 16-channel filters for the convolution kernels,
    mmt4d tiles). With IREE's constant evaluation off (it JIT-compiles the
    initializers, 0.6-0.7 s a model), IREE computes those packs in
    initializer dispatches when the module loads, and compiles a dispatch
    for each: the packs of the TransformerEncoderLayer's four weights cost
    0.4 s of its 3.6 s iree-compile.

    This pass computes them here instead: each `linalg.pack` whose source is
    an `arith.constant` (a `dense` or `dense_resource` tensor, not a splat,
    which canonicalization folds already) with static shapes and static
    tiles becomes an `arith.constant` of the packed tensor, a
    `dense_resource` blob named after the source's (`<name>_packed`). Padding
    takes the pack's `padding_value` where that is a constant; packs that
    pad without one, or with a value that is not a constant, are left alone,
    as are element types of other widths than 8, 16, 32 or 64 bits.

    A `dense_resource` blob's elements come from strata.resource_blobs: for
    free where strata imported the weights itself, from the printed form
    (hex, 0.3 s per 28 MB) for blobs parsed from text.
  }];
}
