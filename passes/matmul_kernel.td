//===- matmul_kernel.td - f32 matmuls by strata's kernel ------*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def MatmulKernel : Pass<"strata-matmul-kernel", "ModuleOp"> {
  let summary = "Compute static f32 matmuls with strata's 6 x 16 AVX2 matmul kernel";
  let description = [{
    IREE 3.13 computes a data-tiled f32 matmul on AVX2 in register tiles of
    4 x 16 (eight accumulators, no slack for the latency of two FMA pipes),
    after packing A into tiles, and unpacks C afterwards. This pass replaces
    a `linalg.matmul` with a call of `strata.matmul_kernel`
    (`@strata_kernel_matmul6x16_m<M>_k<K>_n<N>`), a dispatch of strata's own
    that keeps 6 x 16 of C in twelve accumulators, reads A and writes C
    row-major, and reads B packed into panels of 16 columns (`[N/16][K][16]`,
    a `linalg.pack`: constant weights pack once, when the module loads).
    Where B is a `linalg.transpose` (a linear layer's weight), its source is
    packed instead. A B that is an argument of the function (a matmul of two
    inputs) is packed at every call, by strata's pack kernel
    (`strata.panel_pack`, `@strata_kernel_panels16_k<K>_n<N>`) rather than
    IREE's `linalg.pack`, whose dispatch walks each panel down K one 4 KiB
    page per load: once per argument, at the top of the function, however
    many matmuls read it.

    What Torch-MLIR writes after a linear layer's matmul goes into the
    kernel's epilogue, applied as the last K block is stored: a bias added
    per column (`linalg.generic` reading a `tensor<N>` through `(d0, d1) ->
    (d1)`), then a residual added (an identity-mapped operand of the same
    shape), then a ReLU (`arith.select` of `arith.cmpf ugt` with 0, or
    `arith.maximumf` with 0), each at most once, in that order, each the only
    reader of the value before it, with reshapes of leading unit dimensions
    allowed between them. Otherwise those ops would be a dispatch of their
    own, reading and writing the whole result once more.

    Rewritten: a `linalg.matmul` in its default form with static f32
    operands, C a fill of zeros, N a multiple of 16, K a multiple of 4 (of 8
    for one row of A, whose product the kernel computes over the two halves
    of K at once: two streams of B from memory), and at least `min-rows`
    rows of A. llvm-cpu's tuned defaults run it with `min-rows=32` on models
    with matmuls of several rows (`matmul-kernel`) and `min-rows=1` on those
    whose every matmul is one row (`matvec-kernel`). Others are left, to IREE or to
    strata-data-tile-matmul after it.

    With `lanes=16` the kernel computes in AVX-512's 16-float vectors: a
    panel is one vector, a 6-row tile six accumulators, and a k-step half the
    instructions (`@strata_kernel_matmul6x16_..._lanes16`, and the pack's
    `..._lanes16`). That is for CPUs
    that issue a 512-bit FMA once a cycle, such as Zen 4 (`matmul-kernel-16`
    in llvm-cpu's tuned defaults); elsewhere LLVM splits the vectors in two.
  }];
  let options = [
    Option<"minRows", "min-rows", "int64_t", "1",
           "Leave matmuls with fewer rows of A to IREE">,
    Option<"lanes", "lanes", "int64_t", "8",
           "Floats per vector: 8 (AVX2) or 16 (AVX-512)">,
  ];
}
