//===- fold_constant_generic.td - elementwise ops on constants computed at compile time -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def FoldConstantGeneric : Pass<"strata-fold-constant-generic", "func::FuncOp"> {
  let summary = "Compute elementwise `linalg.generic`s of constants while compiling: the results become constants";
  let description = [{
    A model's constant expressions reach linalg as elementwise generics of
    constants: a batch norm in inference becomes a scale and a shift per
    channel (its variance plus epsilon, a square root, a reciprocal, a
    product and a difference), a causal mask the difference of two ranges.
    With IREE's constant evaluation off (it JIT-compiles them, 0.6-0.7 s a
    model), IREE computes each in an initializer dispatch when the module
    loads, and compiles a dispatch for each: half of the small CNN's 18.

    This pass computes them here, with numpy, in the element types of the
    IR (IEEE arithmetic as LLVM's without fast-math: the same values, up
    to the last bit of transcendental functions). Folded: `linalg.generic`s
    whose loops are all parallel, whose results are written with the
    identity map and whose inputs are constants (`dense`, `dense_resource`,
    splats) read through projected permutations (broadcasts, transposes),
    with static shapes and f16, f32, f64, i1, i8, i16, i32, i64 or index
    elements; whose bodies read only their inputs, `linalg.index`, and
    scalar constants, with ops of `arith` (float and integer arithmetic,
    comparisons, selects, casts) and `math` (sqrt, rsqrt, exp, log, tanh,
    absf), and `cf.assert`s that hold. Each result becomes an
    `arith.constant` (a `dense_resource` blob `folded`, i1 results a
    `dense` tensor). Others are left alone, as are folds that would add
    more than `max-growth-bytes` to the constants the generic reads (a
    broadcast of a vector to a large tensor is cheaper to compute than to
    store).
  }];
  let options = [
    Option<"maxGrowthBytes", "max-growth-bytes", "int64_t", "1048576",
           "Fold only where the results' bytes exceed the inputs' by at most this">,
  ];
}
