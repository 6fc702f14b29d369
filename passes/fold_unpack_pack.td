//===- fold_unpack_pack.td - matmul tiles kept between matmuls -*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def FoldUnpackPack : Pass<"strata-fold-unpack-pack", "func::FuncOp"> {
  let summary = "Keep a data-tiled matmul's result in its tiles when elementwise ops carry it to the next matmul's A: the ops run on the tiles, and a transpose of each tile replaces the unpack and the pack";
  let description = [{
    After strata-data-tile-matmul, a transformer's MLP is a chain
    `mmt4d -> linalg.unpack -> elementwise ops (bias, GELU; SiLU(gate) * up)
    -> linalg.pack -> mmt4d`: the first product's result, in tiles of
    `tile-m` rows x `tile-n` columns (`C[M1][N1][tm][tn]`), is unpacked to
    rows, and the rows packed again into the next product's A tiles of `tm`
    rows x 1 (`A[M1][K][tm][1]`, K = N). IREE computes the unpack, the
    elementwise ops and the pack in one dispatch, but vectorizes that pack
    element by element.

    Element (m1, n1, i, j) of C is element (m1, n1 * tn + j, i) of A: the
    repacking is a transpose of each tm x tn tile, and the elementwise ops
    can run on the tiles as well as on rows. This pass rewrites each
    `linalg.pack` into tm x 1 tiles that feeds an mmt4d's A, and whose
    source is a tree of single-use elementwise `linalg.generic`s (all loops
    parallel, the result written with the identity map and its old value
    not read), reshapes that add or drop unit dimensions, and
    `linalg.unpack`s of tm x tn tiles (no generic reading `linalg.index`),
    into the same generics on the tiles
    (`[M1][N1][tm][tn]`), the last of which writes each tile transposed
    (`[M1][N1][tn][tm]`), and a reshape of that into A's tiles. A generic's
    other operands may be values per column (a bias: read at n, reshaped to
    `[N1][tn]`), per row (read at m, reshaped to `[M1][tm]`, only where
    whole tiles hold M rows) or scalars. Rows that pad M to whole tiles now
    hold the elementwise ops of padding instead of zeros; the next matmul's
    rows are independent, and the unpack of its result drops them.

    Not rewritten: packs into other tiles, packs of values something else
    also reads, unpacks whose N is not whole tiles (A's K would include
    padding), and generics that read an operand in any other way. With
    `math-only`, only chains that call a `math` function (GELU's tanh or
    erf, SiLU's exp): IREE vectorizes the elementwise ops of its
    unpack-and-pack dispatch along the pack's 8-row tiles, 8 elements a
    whole row apart, which costs most where each element takes many
    instructions; on the tiles the vectors are contiguous.
  }];
  let options = [
    Option<"mathOnly", "math-only", "bool", "false",
           "Only rewrite chains whose elementwise ops call a math-dialect function">,
  ];
}
