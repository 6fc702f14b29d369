//===- data_tile_matmul.td - matmuls as mmt4d in AVX2 tiles ---*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def DataTileMatmul : Pass<"strata-data-tile-matmul", "func::FuncOp"> {
  let summary = "Compute static float matmuls as linalg.mmt4d on operands packed into tile-m x tile-n x 1 tiles, for IREE's CPU codegen";
  let description = [{
    IREE's data tiling packs the operands of a matmul so that the innermost
    loop of its CPU code reads them contiguously, then computes a
    `linalg.mmt4d`. The tile shape is IREE's choice per target, and on AVX2
    CPUs without AVX-512 IREE 3.13 picks 8 x 8 x 1: eight 8-wide
    accumulators, one load of B and eight broadcasts of A per eight FMAs.
    This pass does IREE's packing itself, with the tile shape as an option,
    before IREE sees the IR: A is packed to `[M/tile-m][K][tile-m][1]`, B to
    `[N/tile-n][K][tile-n][1]` (its transpose, as mmt4d wants), C to
    `[M/tile-m][N/tile-n][tile-m][tile-n]` (IREE folds a packed fill into a
    fill of the packed tensor), and the result is unpacked. Rows and columns
    that do not fill a tile are padded with zeros and dropped by the unpack.
    IREE's codegen computes a static mmt4d in register tiles of its inner
    tile's columns and as many of its rows as the 16 AVX2 registers allow:
    8 x 16 runs as two 4 x 16 halves (eight accumulators, two loads of B per
    four broadcasts), 8 x 8 whole (eight accumulators, one load of B per
    eight broadcasts); an f32 mmt4d of 128 x 1024 x 256 runs at 97 GFLOP/s on
    one Zen 3 core in 8 x 16 tiles against 88 in 8 x 8. IREE fuses the packs into the
    producers' dispatches and the unpacks into the consumers', and packs of
    constant weights are evaluated at compile time, as with its own data
    tiling.

    Where B is a `linalg.transpose` (a linear layer's weight, K^T in
    attention), its source is packed instead: the same tiles, no transposed
    copy. A `linalg.batch_matmul` whose B repeats one matrix for every batch
    (Torch-MLIR's `x @ w` for a batched `x`: a broadcast `linalg.generic` or
    `linalg.broadcast`) becomes one matmul over all the batches' rows, so the
    matrix is packed once instead of once per batch.

    Rewritten: `linalg.matmul` and `linalg.batch_matmul` with the default
    indexing maps, static shapes, one float element type and at least
    `min-rows` rows of A (per batch). The defaults leave narrower products to
    IREE; matrix-vector products have their own tile shape (tile-m=1, a wide
    tile-n for independent accumulators, min-rows=1).
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "8", "Rows of A and C per tile">,
    Option<"tileN", "tile-n", "int64_t", "16", "Columns of B and C per tile">,
    Option<"minRows", "min-rows", "int64_t", "8",
           "Leave matmuls with fewer rows of A (per batch) to IREE">,
  ];
}
