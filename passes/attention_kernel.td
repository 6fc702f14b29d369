//===- attention_kernel.td - attention by strata's kernel -----*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def AttentionKernel : Pass<"strata-attention-kernel", "ModuleOp"> {
  let summary = "Compute attention, as Torch-MLIR decomposes it, with strata's attention kernel";
  let description = [{
    Torch-MLIR writes `scaled_dot_product_attention` and hand-written
    attention as a batch matmul of q and k^T, a softmax (the safe one of
    scaled_dot_product_attention or the plain one), perhaps a constant
    scale and an additive mask before it, and a batch matmul of the
    probabilities and v, with the heads split before and merged after by
    reshapes, transposes and slices. Through IREE that is some ten
    dispatches: copies of q, k and v per head, packs, two mmt4ds, the
    softmax, unpacks, a copy merging the heads; and with a causal mask every
    score is computed, the masked half too.

    This pass finds that chain over static f32 tensors and replaces it with
    a call of `strata.attention_kernel`
    (`@strata_kernel_attention_b<batch>_h<heads>_q<queries>_k<keys>_...`), one
    dispatch of strata's own: a workgroup takes 16 queries of one head,
    reads q, k and v through strides where they are (the tensors the
    reshapes, transposes and slices start from, passed whole and flat), and
    writes its rows of the result where the merged heads go (the tensor at
    the end of the reshapes and transposes that alone read the second
    matmul's result). Constant scales of q, of k and of the scores become one
    scale of q. A constant mask of 0 on and below the diagonal and -inf
    above it is a causal mask: keys after the block's last query are not
    computed at all.

    A raised attention (`strata.attention`, as strata-lower-to-iree writes
    it for IREE) is taken too: there the scale and a constant causal mask,
    or `is_causal`'s test of the key's index against the query's, are one
    elementwise op, the softmax is `linalg.softmax`, k^T is a transpose of
    the merged heads, and the rows of fully masked queries are set to 0
    after the second batch matmul (the safe softmax, computed by the
    kernel's safe variant).

    Other masks, dynamic shapes, queries or keys not whole
    8s, head sizes not whole 8s and more keys than a workgroup's scores hold
    in 32 KiB of stack (448 keys with heads of 64) are left to IREE. The
    mask must be a constant when the pass runs: strata-fold-constant-generic
    folds the `arange`s Torch-MLIR computes a causal mask from, up to its
    growth limit (1 MiB by default: 362 tokens, whose i64 differences it
    computes first); a mask registered as a buffer is one already.

    llvm-cpu's tuned default `attention-kernel` runs it on models with
    matmuls, before the other defaults (targets/llvm-cpu.toml has the
    figures).

    With `lanes=16` the kernel computes in AVX-512's 16-float vectors
    (`@strata_kernel_attention_..._lanes16`): a workgroup's 16 queries are
    one vector, so each score step and each row of v takes half the
    instructions, where queries, keys and both head sizes are whole 16s
    (others take 8 lanes). That is for CPUs that issue a 512-bit FMA once a
    cycle, such as Zen 4 (`attention-kernel-16` in llvm-cpu's tuned
    defaults).
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", "8",
           "Floats per vector: 8 (AVX2) or 16 (AVX-512)">,
  ];
}
