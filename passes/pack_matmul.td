//===- pack_matmul.td - matmuls with B in column panels ----*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def PackMatmul : Pass<"strata-pack-matmul", "func::FuncOp"> {
  let summary = "Compute static matmuls on B packed into column panels, for the CPU register tile";
  let description = [{
    The upstream CPU route's register tile (pipelines/transforms/cpu.mlir)
    keeps a rows x `panel` block of C in vector registers and, at each step
    of the reduction, reads one `panel`-wide row of B. In a row-major B those
    rows are a whole row of B apart: with power-of-two widths every step maps
    to the same L1 cache set, and the tile waits on L2. This pass copies B
    once into panels, `[N/panel][K][panel]`, so the reduction reads it
    contiguously, and computes C in place viewed as `[M][N/panel][panel]`
    (a reshape, no copy).

    Rewritten: `linalg.matmul` and `linalg.batch_matmul` on floats with the
    default indexing maps, static shapes, N a multiple of `panel` and at
    least `min-rows` rows (fewer rows read B about once anyway, and a
    matrix-vector product would only pay for the copy). The copy is a
    `linalg.transpose` and the product a `linalg.generic`, both marked
    (`strata.panel_pack`, `strata.panel_matmul`) for the transform script.
  }];
  let options = [
    Option<"panel", "panel", "int64_t", "16",
           "Columns of B per panel: the width of the register tile">,
    Option<"minRows", "min-rows", "int64_t", "64",
           "Leave matmuls with fewer rows of A (per batch) as they are">,
  ];
}
