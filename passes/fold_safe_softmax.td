//===- fold_safe_softmax.td - safe softmax's row check from its max -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def FoldSafeSoftmax : Pass<"strata-fold-safe-softmax", "func::FuncOp"> {
  let summary = "Read the safe softmax's all(-inf) row check from the row maximum the softmax already computes";
  let description = [{
    PyTorch's scaled_dot_product_attention computes a "safe" softmax: a row
    whose scores are all -inf (every key masked) gets zeros instead of the
    NaNs of exp(-inf - -inf). Decomposed to linalg, that check is a
    reduction of its own, `all(x == -inf)` along the softmax's dimension
    (an elementwise `arith.cmpf oeq` with -inf, perhaps after an
    `arith.extf`, and a `linalg.generic` reducing it with `arith.andi`
    from `true`), beside the softmax's maximum along the same dimension
    (`arith.maximumf` from -inf). The check is a pass over all the scores
    (the GPT-2 block of strata-bench: 0.15-0.19 ms a call) for a value the
    maximum already says: `all(x == -inf)` exactly when `max(x) == -inf`.
    If a row holds a NaN, the maximum is NaN (`arith.maximumf` propagates
    it), and NaN == -inf is false, as `all` is; otherwise the maximum is
    -inf exactly when every element is. This pass replaces the check by a
    comparison of that maximum with -inf.

    Rewritten: checks whose `all` reduction reads the comparison through the
    same indexing map and over the same iterator types as a reduction earlier
    in the block that yields `arith.maximumf` of the same tensor from a fill
    of -inf as its first result (Torch-MLIR's `aten.max.dim`, which also
    yields the argmax), with static shapes. Others, and maxima that ignore
    NaNs (`arith.maxnumf`), are left alone.

    With `row-multiple`, only checks whose innermost parallel loop (the
    attention's query rows) is a multiple of it: IREE 3.13's data tiling
    miscompiles the fold where a select reads the row maximum on its way
    into the attention's second batch matmul and those rows do not fill its
    tiles (strata-data-tile-matmul's 8 rows on AVX2): with 5 or 13 query
    rows and more than one head, every head but the first came out wrong.
    The llvm-cpu default sets 8.
  }];
  let options = [
    Option<"rowMultiple", "row-multiple", "int64_t", "1",
           "Rewrite only checks whose innermost parallel loop is a multiple of this">,
  ];
}
