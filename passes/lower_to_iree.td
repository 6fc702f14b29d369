//===- lower_to_iree.td - strata ops -> IREE's native ops ---*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def LowerToIree : Pass<"strata-lower-to-iree", "func::FuncOp"> {
  let summary = "Lower strata ops to the linalg forms IREE compiles best, for the IREE route";
  let description = [{
    Runs before `strata-lower-to-linalg` on the IREE route and takes the ops
    whose generic-linalg lowering IREE compiles poorly, writing them as IREE's
    own torch input does:

    - `strata.linear` becomes `linalg.matmul` on the input with its leading
      dims collapsed and the transposed weight (IREE folds the transpose of a
      constant weight at compile time), then bias and activation as one
      elementwise `linalg.generic`, then the leading dims expanded back.
      IREE data-tiles a named matmul and calls its matmul microkernels; a
      contraction written as a generic absorbs neighbouring transposes and
      gets neither. Inputs of rank 1 are left as they are.
    - `strata.attention` becomes, over batch*heads, `linalg.batch_matmul` of
      the query and the transposed key, one elementwise `linalg.generic` for
      the scale, the additive mask (broadcast dims read at 0) and causal
      masking (`-inf` where key position > query position), `linalg.softmax`
      over the keys, and `linalg.batch_matmul` with the value. With
      `fully_masked_rows_zero` and a mask, a row whose masked scores are all
      `-inf` (NaN out of `linalg.softmax`) is set to 0 from the scores' row
      maximum; causal masking alone never masks a whole row.

    IREE's fused `iree_linalg_ext.attention` is not emitted: IREE 3.13's CPU
    codegen rejects it for the LLaMA block's shapes ("large vector sizes").
  }];
}
