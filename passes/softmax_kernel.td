//===- softmax_kernel.td - row softmax by strata's kernel -----*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def SoftmaxKernel : Pass<"strata-softmax-kernel", "ModuleOp"> {
  let summary = "Compute softmax along the last dimension, as Torch-MLIR decomposes it, with strata's row-softmax kernel";
  let description = [{
    Torch-MLIR lowers `softmax(x, dim=-1)` to a max reduction (with an
    argmax nobody reads), `x - max`, its exponential, a sum reduction and a
    division; and `scaled_dot_product_attention`'s safe softmax adds a test
    of whether each row is all -inf and a select of zeros for such rows.
    IREE raises the first part to its softmax op, which its CPU codegen
    computes with each exponential evaluated twice, and computes the test in
    a dispatch of its own over the whole input.

    This pass finds that chain of `linalg.generic`s (each value read only by
    the next, unit dimensions reshaped anywhere between them) over a static
    f32 input whose last dimension is whole 8-element vectors, and replaces
    it with a call of `strata.softmax_kernel` on the input collapsed to rows
    (`@strata_kernel_softmax_r<rows>_c<cols>[_safe]`), which becomes a
    dispatch of its own when IREE takes the module: one exponential per
    element, and the safe variant's test from the row's max (a row is all
    -inf exactly when its max is -inf: a NaN makes the max NaN). Where a
    `linalg.pack` into 8-row x 1-column tiles (the next matmul's A) alone
    reads the result and the rows are whole tiles, the kernel writes those
    tiles and the pack goes.

    With `lanes=16` the kernel computes rows of whole 16-element vectors in
    AVX-512's 16-float vectors (`..._lanes16`: half the instructions; the
    8-row tiles stay in 8 floats, and so do rows of whole 8s only).

    llvm-cpu's tuned default `softmax-kernel` runs it on models with
    matmuls, after the other defaults (targets/llvm-cpu.toml has the
    figures: the GPT-2 block's softmax and pack 477 -> 279 us a call);
    `softmax-kernel-16` in 16 floats on Zen 4.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", "8",
           "Floats per vector of the row kernel: 8 (AVX2) or 16 (AVX-512)">,
  ];
}
