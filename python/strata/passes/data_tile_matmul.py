"""strata-data-tile-matmul: matmuls as `linalg.mmt4d` in a chosen tile shape (passes/data_tile_matmul.td).

IREE's data tiling would rewrite the same matmuls into the same ops, but in the tile shape IREE
3.13 fixes per CPU (8 x 8 x 1 on AVX2). Doing the packing here, where the shape is an option,
is how strata's llvm-cpu target gets 8 x 16 tiles out of IREE's own mmt4d codegen; everything
after the rewrite (fusing the packs into neighbouring dispatches, evaluating the packs of
constant weights at compile time) is IREE's.
"""

from torch_mlir import ir

from strata.errors import StrataError
from strata.ir_splice import splice_each, tensor_type
from strata.linalg_match import transposed_source
from strata.plain_matmul import OPS, plain_matmul

# A rank-3 tensor that repeats one matrix along its first dimension, as Torch-MLIR writes
# `x @ w` for a batched x: `linalg.generic` copying `w` with these maps.
_BROADCAST_MAPS = "[affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _broadcast_matrix(value: ir.Value) -> ir.Value | None:
    """The matrix that `value` repeats along its first dimension, if it is such a broadcast."""
    op = value.owner if isinstance(value, ir.OpResult) else None
    if op is None:
        return None
    if op.name == "linalg.broadcast":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        return op.operands[0] if dims == [0] else None
    if op.name != "linalg.generic" or len(op.operands) != 2 or str(op.attributes["indexing_maps"]) != _BROADCAST_MAPS:
        return None
    body = list(op.regions[0].blocks[0].operations)
    block_args = op.regions[0].blocks[0].arguments
    if len(body) != 1 or body[0].operation.name != "linalg.yield" or list(body[0].operands) != [block_args[0]]:
        return None
    return op.operands[0]


def _tiled_lines(a: str, b: str, c: str, batch: list[int], m: int, n: int, k: int, elt, tile_m: int, tile_n: int,
                 b_transposed: bool = False) -> list[str]:
    """Lines computing `%out` = `c` + `a` x `b` (all `batch` x ...) as pack, (batch_)mmt4d, unpack;
    with `b_transposed`, `b` is B's transpose (`batch` x N x K), which packs to the same tiles."""
    mt, nt = _ceil_div(m, tile_m), _ceil_div(n, tile_n)
    d = len(batch)  # the position of M (and of K in B)

    def t(*shape):
        return tensor_type(list(batch) + list(shape), elt)

    def padding(needed: bool) -> str:
        return f"padding_value(%zero : {elt}) " if needed else ""

    a_type, b_type, c_type = t(m, k), t(n, k) if b_transposed else t(k, n), t(m, n)
    a_tiles, b_tiles, c_tiles = t(mt, k, tile_m, 1), t(nt, k, tile_n, 1), t(mt, nt, tile_m, tile_n)
    if b_transposed:  # N x K: the tiles run along N, in B's own order
        b_layout = f"inner_dims_pos = [{d}, {d + 1}]"
    else:  # K x N: the tiles run along N, and the outer dimensions swap to N, K
        b_layout = f"outer_dims_perm = [{', '.join(map(str, list(range(d)) + [d + 1, d]))}] inner_dims_pos = [{d + 1}, {d}]"
    mmt4d = "linalg.batch_mmt4d" if batch else "linalg.mmt4d"
    return [
        f"  %zero = arith.constant 0.0 : {elt}",
        f"  %a_dest = tensor.empty() : {a_tiles}",
        f"  %a_tiled = linalg.pack {a} {padding(m % tile_m)}inner_dims_pos = [{d}, {d + 1}] inner_tiles = [{tile_m}, 1]"
        f" into %a_dest : {a_type} -> {a_tiles}",
        f"  %b_dest = tensor.empty() : {b_tiles}",
        f"  %b_tiled = linalg.pack {b} {padding(n % tile_n)}{b_layout}"
        f" inner_tiles = [{tile_n}, 1] into %b_dest : {b_type} -> {b_tiles}",
        f"  %c_dest = tensor.empty() : {c_tiles}",
        f"  %c_tiled = linalg.pack {c} {padding(m % tile_m or n % tile_n)}inner_dims_pos = [{d}, {d + 1}]"
        f" inner_tiles = [{tile_m}, {tile_n}] into %c_dest : {c_type} -> {c_tiles}",
        f"  %product = {mmt4d} ins(%a_tiled, %b_tiled : {a_tiles}, {b_tiles}) outs(%c_tiled : {c_tiles}) -> {c_tiles}",
        f"  %out_dest = tensor.empty() : {c_type}",
        f"  %out = linalg.unpack %product inner_dims_pos = [{d}, {d + 1}] inner_tiles = [{tile_m}, {tile_n}]"
        f" into %out_dest : {c_tiles} -> {c_type}",
    ]


def _tiled(op: ir.Operation, tile_m: int, tile_n: int, min_rows: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` as pack, (batch_)mmt4d and unpack, and the values its arguments
    stand for; None where the rewrite does not apply."""
    plain = plain_matmul(op)
    if plain is None or plain.m < min_rows:
        return None
    batch, m, n, k, elt = plain
    a, b, c = (v.type for v in op.operands)
    header = f"func.func @lowered(%a: {a}, %b: {b}, %c: {c}"
    matrix = _broadcast_matrix(op.operands[1]) if batch else None
    if matrix is None:
        # B as a transpose (a linear layer's weight, K^T in attention): its source packs directly.
        source = transposed_source(op.operands[1])
        if source is None:
            lines = [header + f") -> {c} {{"] + _tiled_lines("%a", "%b", "%c", batch, m, n, k, elt, tile_m, tile_n)
            return "\n".join(lines + [f"  return %out : {c}", "}"]) + "\n", list(op.operands)
        lines = [header + f", %bt: {source.type}) -> {c} {{"]
        lines += _tiled_lines("%a", "%bt", "%c", batch, m, n, k, elt, tile_m, tile_n, b_transposed=True)
        return "\n".join(lines + [f"  return %out : {c}", "}"]) + "\n", [*op.operands, source]
    # One matrix for every batch: a single matmul over all the batches' rows, B packed once.
    rows = batch[0] * m
    lines = [
        header + f", %w: {matrix.type}) -> {c} {{",
        f"  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : {a} into {tensor_type([rows, k], elt)}",
        f"  %c2 = tensor.collapse_shape %c [[0, 1], [2]] : {c} into {tensor_type([rows, n], elt)}",
        *_tiled_lines("%a2", "%w", "%c2", [], rows, n, k, elt, tile_m, tile_n),
        f"  %out3 = tensor.expand_shape %out [[0, 1], [2]] output_shape [{batch[0]}, {m}, {n}] : {tensor_type([rows, n], elt)} into {c}",
        f"  return %out3 : {c}",
        "}",
    ]
    return "\n".join(lines) + "\n", [*op.operands, matrix]


def run(op: ir.Operation, options) -> None:
    sizes = {"tile-m": options.tile_m, "tile-n": options.tile_n, "min-rows": options.min_rows}
    bad = [f"{name}={value}" for name, value in sizes.items() if value < 1]
    if bad:
        raise StrataError(f"strata-data-tile-matmul: tile-m, tile-n and min-rows must be at least 1; got {', '.join(bad)}")

    splice_each(op, OPS, lambda matmul: _tiled(matmul, options.tile_m, options.tile_n, options.min_rows))
