//===- pack_matmul.td - matmuls with B in column panels ----*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def PackMatmul : Pass<"strata-pack-matmul", "func::FuncOp"> {
  let summary = "Compute static matmuls on B packed into column panels and rows in blocks of 6-row tiles, for the CPU register tile";
  let description = [{
    The upstream CPU route's register tile (pipelines/transforms/cpu.mlir)
    keeps 6 rows x `panel` columns of C in vector registers (twelve AVX2
    accumulators) and, at each step of the reduction, reads one `panel`-wide
    row of B. In a row-major B those rows are a whole row of B apart: with
    power-of-two widths every step maps to the same L1 cache set, and the
    tile waits on L2. This pass copies B once into panels,
    `[batch][N/panel][K][panel]` (a `linalg.transpose` marked
    `strata.panel_pack`), so the reduction reads it contiguously, and views
    A and C (reshapes of slices, no copies) as blocks of whole 6-row tiles:
    `[batch][blocks][rows][K]` and `[batch][blocks][rows][N/panel][panel]`.
    The rows are cut into three pieces, each a `linalg.generic` marked
    `strata.panel_matmul` over loops (batch, block, row, panel, k, column):
    blocks of 5-10 tiles (the size that shares out best over two threads),
    one block of the tiles left over, and one block of the last M % 6 rows.
    A `linalg.matmul` is computed as a batch of one, so the transform script
    knows one form. When C is a `linalg.fill` of a constant, each piece
    fills its own rows (`strata.panel_init`) in a new tensor, which the
    transform script fuses into the register tiles: the tiles start from
    zeros in registers, and C's separate fill and its read-back are gone.

    Rewritten: `linalg.matmul` and `linalg.batch_matmul` on floats with the
    default indexing maps, static shapes, N a multiple of `panel` and at
    least `min-rows` rows (fewer rows read B about once anyway, and a
    matrix-vector product would only pay for the copy).
  }];
  let options = [
    Option<"panel", "panel", "int64_t", "16",
           "Columns of B per panel: the width of the register tile">,
    Option<"minRows", "min-rows", "int64_t", "64",
           "Leave matmuls with fewer rows of A (per batch) as they are">,
  ];
}
