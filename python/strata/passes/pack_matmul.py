"""strata-pack-matmul: static matmuls in the shapes the CPU register tile wants (passes/pack_matmul.td).

Each choice measured on f32 1024^3, the upstream route against OpenBLAS in the same process.
B: the register tile reads one 16-wide row of B per reduction step, and in a row-major B with a
power-of-two width those rows share one L1 cache set; B copied into panels, `[N/16][K][16]`, is
read contiguously (one thread: 44 -> 66 GFLOP/s). Rows: the tile keeps 6 x 16 of C in twelve
AVX2 accumulators, four more than the FMA latency needs hidden (4 x 16 had eight: 64 -> 81-90
GFLOP/s); six does not divide power-of-two row counts, so A and C are viewed as blocks of whole
6-row tiles (a reshape, no copy) and the rows left over become matmuls of their own on slices.
Zeros: a C that starts as a constant is filled per register tile by the transform
script instead of by a pass over all of C that the matmul reads back (two threads: ~165 -> ~178
GFLOP/s; OpenBLAS ~180). A `linalg.matmul` is handled as a batch of one, so the transform script
knows one form.
"""

from torch_mlir import ir

from strata.ir_splice import splice_each, tensor_type
from strata.linalg_match import fill_constant
from strata.plain_matmul import OPS, plain_matmul

# The loops (`b` the batch, `mb` counting row blocks, `m` the row in a block, `n1` counting
# panels, `n0` the column in a panel), then the maps of A's blocks, of B's panels and of C's blocks.
_LOOPS = ["b", "mb", "m", "n1", "k", "n0"]
_A_MAP, _PANELS_MAP, _C_MAP = "b, mb, m, k", "b, n1, k, n0", "b, mb, m, n1, n0"
# Rows of the register tile (cpu.mlir tiles the `m` loop by this), and the row blocks tried, in
# tiles: a block of A (5-10 tiles x the reduction) stays in L2 while a slab of B's panels passes
# it; blocks are what the threads share out.
_TILE_ROWS = 6
_BLOCK_TILES = range(5, 11)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def row_pieces(m: int) -> list[tuple[int, int, int]]:
    """`(first row, blocks, rows per block)` covering `m` rows: whole blocks of whole 6-row tiles,
    then one block of the tiles left over, then the last rows (fewer than 6) as one block.

    The block size minimizes the tiles one of two threads computes (its half of the blocks, and
    the leftover tiles, which run alone), then is the largest: 1024 rows are 34 blocks of 30 and 4
    rows; 2048 are 34 blocks of 60, 6 rows and 2 rows; 128 are 2 blocks of 60, 6 rows and 2 rows.
    """
    tiles, last = divmod(m, _TILE_ROWS)
    if tiles < _BLOCK_TILES[0]:
        per_block = max(tiles, 1)
    else:
        per_block = min(_BLOCK_TILES, key=lambda b: (_ceil_div(tiles // b, 2) * b + tiles % b, -b))
    blocks, spare = divmod(tiles, per_block)
    pieces, start = [], 0
    for count, rows in ((blocks, per_block * _TILE_ROWS), (1, spare * _TILE_ROWS), (1, last)):
        if count and rows:
            pieces.append((start, count, rows))
            start += count * rows
    return pieces


def _panel_text(op: ir.Operation, panel: int, min_rows: int) -> str | None:
    """`@lowered` computing `op` on panels of B and blocks of rows, or None where the rewrite does
    not apply."""
    plain = plain_matmul(op)
    if plain is None or plain.n % panel or plain.m < min_rows:
        return None
    batch, m, n, k, elt = plain
    a, b, c = (v.type for v in op.operands)
    nb = batch[0] if batch else 1
    n1 = n // panel

    def t(*shape):
        return tensor_type(shape, elt)

    dims = ", ".join(_LOOPS)
    iterators = ", ".join('"reduction"' if name == "k" else '"parallel"' for name in _LOOPS)
    lines = [f"func.func @lowered(%a: {a}, %b: {b}, %c: {c}) -> {c} {{"]
    if batch:
        lines.append(f"  %b3 = tensor.expand_shape %b [[0], [1], [2, 3]] output_shape [{nb}, {k}, {n1}, {panel}] : {b} into {t(nb, k, n1, panel)}")
        a3, init = "%a", "%c"
    else:  # a batch of one
        lines += [
            f"  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, {m}, {k}] : {a} into {t(1, m, k)}",
            f"  %b3 = tensor.expand_shape %b [[0, 1], [2, 3]] output_shape [1, {k}, {n1}, {panel}] : {b} into {t(1, k, n1, panel)}",
            f"  %c3 = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, {m}, {n}] : {c} into {t(1, m, n)}",
        ]
        a3, init = "%a3", "%c3"
    fill = fill_constant(op.operands[2])
    if fill is not None:  # every row is filled and accumulated by its piece: C's own fill is not needed
        init = "%dest"
        lines += [f"  %dest = tensor.empty() : {t(nb, m, n)}", f"  %zero = arith.constant {fill}"]
    lines += [
        f"  %empty = tensor.empty() : {t(nb, n1, k, panel)}",
        f"  %panels = linalg.transpose ins(%b3 : {t(nb, k, n1, panel)}) outs(%empty : {t(nb, n1, k, panel)})"
        " permutation = [0, 2, 1, 3] {strata.panel_pack}",
    ]
    result = init
    for i, (start, blocks, rows) in enumerate(row_pieces(m)):
        span = blocks * rows
        c_tiles = t(nb, blocks, rows, n1, panel)
        lines += [
            f"  %a{i} = tensor.extract_slice {a3}[0, {start}, 0] [{nb}, {span}, {k}] [1, 1, 1] : {t(nb, m, k)} to {t(nb, span, k)}",
            f"  %ab{i} = tensor.expand_shape %a{i} [[0], [1, 2], [3]] output_shape [{nb}, {blocks}, {rows}, {k}] : {t(nb, span, k)} into {t(nb, blocks, rows, k)}",
            f"  %c{i} = tensor.extract_slice {result}[0, {start}, 0] [{nb}, {span}, {n}] [1, 1, 1] : {t(nb, m, n)} to {t(nb, span, n)}",
            f"  %cb{i} = tensor.expand_shape %c{i} [[0], [1, 2], [3, 4]] output_shape [{nb}, {blocks}, {rows}, {n1}, {panel}] : {t(nb, span, n)} into {c_tiles}",
        ]
        out = f"%cb{i}"
        if fill is not None:
            lines.append(f"  %cf{i} = linalg.fill {{strata.panel_init}} ins(%zero : {elt}) outs(%cb{i} : {c_tiles}) -> {c_tiles}")
            out = f"%cf{i}"
        lines += [
            f"  %r{i} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({_A_MAP})>, affine_map<({dims}) -> ({_PANELS_MAP})>,",
            f"                                          affine_map<({dims}) -> ({_C_MAP})>], iterator_types = [{iterators}]}}",
            f"      ins(%ab{i}, %panels : {t(nb, blocks, rows, k)}, {t(nb, n1, k, panel)}) outs({out} : {c_tiles}) attrs = {{strata.panel_matmul}} {{",
            f"  ^bb0(%x: {elt}, %y: {elt}, %acc: {elt}):",
            f"    %p = arith.mulf %x, %y : {elt}",
            f"    %s = arith.addf %acc, %p : {elt}",
            f"    linalg.yield %s : {elt}",
            f"  }} -> {c_tiles}",
            f"  %o{i} = tensor.collapse_shape %r{i} [[0], [1, 2], [3, 4]] : {c_tiles} into {t(nb, span, n)}",
            f"  %u{i} = tensor.insert_slice %o{i} into {result}[0, {start}, 0] [{nb}, {span}, {n}] [1, 1, 1] : {t(nb, span, n)} into {t(nb, m, n)}",
        ]
        result = f"%u{i}"
    if not batch:
        lines.append(f"  %out = tensor.collapse_shape {result} [[0, 1], [2]] : {t(1, m, n)} into {c}")
        result = "%out"
    lines += [f"  return {result} : {c}", "}"]
    return "\n".join(lines) + "\n"


def run(op: ir.Operation, options) -> None:
    def lowering(matmul):
        text = _panel_text(matmul, options.panel, options.min_rows)
        return None if text is None else (text, None)

    splice_each(op, OPS, lowering)
