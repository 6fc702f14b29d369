"""strata-attention-kernel: attention, as Torch-MLIR decomposes it, by strata's kernel
(passes/attention_kernel.td).

Matched from the second batch matmul backwards: its A is a softmax (`strata.softmax_match`) of
the first's result, perhaps scaled by a constant and with a constant causal mask added (unit and
batch reshapes between them); q, k^T and v are strided views (`strata.strided_views`) of the
tensors they come from, q and k perhaps scaled by constants on the way; the result is followed
forward through the reshapes and transposes that merge the heads. Anything else is left to IREE.
"""

import numpy as np
from torch_mlir import ir

from strata import resource_blobs
from strata.attention_kernel import Attention, Operand
from strata.conv_kernel import LANES, f32_bits
from strata.errors import StrataError
from strata.ir_splice import erase_unused, insert_lowered
from strata.kernel_calls import declare_kernels
from strata.linalg_match import fill_constant, ops_named
from strata.softmax_match import safe_select, softmax_chain
from strata.strided_views import StridedView, reassociation, source_view, target_view

_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _f32_static(value: ir.Value) -> bool:
    return (isinstance(value.type, ir.RankedTensorType) and value.type.has_static_shape
            and str(ir.RankedTensorType(value.type).element_type) == "f32")


def _owner(value: ir.Value) -> ir.Operation | None:
    return value.owner.operation if isinstance(value, ir.OpResult) else None


def _one_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def _behind_reshapes(value: ir.Value) -> tuple[ir.Value, list[ir.Operation]]:
    """`value` before reshapes of its leading (batch) dimensions that alone read it in turn."""
    ops = []
    while (op := _owner(value)) is not None and op.name in _RESHAPES and _shape(op.operands[0])[-2:] == _shape(value)[-2:] and _one_use(value):
        ops.append(op)
        value = op.operands[0]
    return value, ops


def _is_zero_fill(value: ir.Value) -> bool:
    attr = fill_constant(value)
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0


# linalg.batch_matmul's own maps (b, m, n, k): neither operand transposed nor broadcast.
_BATCH_MATMUL_MAPS = ["(d0, d1, d2, d3) -> (d0, d1, d3)", "(d0, d1, d2, d3) -> (d0, d3, d2)", "(d0, d1, d2, d3) -> (d0, d1, d2)"]


def _plain_batch_matmul(op: ir.Operation | None) -> bool:
    if op is None or op.name != "linalg.batch_matmul":
        return False
    if "indexing_maps" in op.attributes and [str(ir.AffineMapAttr(m).value) for m in ir.ArrayAttr(op.attributes["indexing_maps"])] != _BATCH_MATMUL_MAPS:
        return False
    return all(_f32_static(v) for v in op.operands) and _is_zero_fill(op.operands[2])


def _elementwise(op: ir.Operation, inputs: int) -> tuple[list[ir.AffineMap], list[ir.Value], list[ir.Operation]] | None:
    """The maps, block arguments and body (yield last) of `op`, a `linalg.generic` of `inputs`
    inputs and one result whose loops are all parallel."""
    if op.name != "linalg.generic" or len(op.operands) != inputs + 1 or len(op.results) != 1:
        return None
    if any("parallel" not in str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])):
        return None
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    block = op.regions[0].blocks[0]
    return maps, list(block.arguments), [inner.operation for inner in block.operations]


def _scalar_constant(value: ir.Value) -> float | None:
    """The value of an f32 or f64 `arith.constant` (through an `arith.truncf` to f32), or None."""
    op = _owner(value)
    if op is not None and op.name == "arith.truncf":
        inner = _scalar_constant(op.operands[0])
        return None if inner is None else float(np.float32(inner))
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return None
    return ir.FloatAttr(op.attributes["value"]).value


def _scaling(op: ir.Operation) -> float | None:
    """The factor `op` multiplies its one input by, if it is an elementwise `x * c` or `x / c`
    of a constant scalar `c` (0 and non-finite factors not taken)."""
    found = _elementwise(op, 1)
    if found is None:
        return None
    maps, arguments, body = found
    if any(m != ir.AffineMap.get_identity(maps[0].n_dims) for m in maps):
        return None
    *computation, yielded = body
    if not computation or list(yielded.operands) != [computation[-1].results[0]]:
        return None
    last = computation[-1]
    if any(inner.name != "arith.truncf" for inner in computation[:-1]) or last.name not in ("arith.mulf", "arith.divf"):
        return None
    x, c = last.operands
    if last.name == "arith.mulf" and c == arguments[0]:
        x, c = c, x
    factor = _scalar_constant(c)
    if x != arguments[0] or factor is None or factor == 0.0 or not np.isfinite(factor):
        return None
    return factor if last.name == "arith.mulf" else 1.0 / factor


def _causal_mask(op: ir.Operation) -> bool:
    """Whether `op` adds to its first input (the scores) a constant [queries][keys] mask of 0
    where the key is at or before the query and -inf after it, broadcast over the leading
    dimensions."""
    found = _elementwise(op, 2)
    if found is None:
        return False
    maps, arguments, body = found
    if len(body) != 2 or body[0].name != "arith.addf" or list(body[1].operands) != [body[0].results[0]]:
        return False
    if set(body[0].operands) != set(arguments[:2]):
        return False
    identity = ir.AffineMap.get_identity(maps[0].n_dims)
    if maps[0] != identity or maps[2] != identity:
        return False
    return _is_causal_mask(op.operands[1], maps[1])


def _scaled_and_masked(op: ir.Operation) -> tuple[float, bool] | None:
    """(factor, causal) if `op` is the one elementwise op strata-lower-to-iree writes for a raised
    `strata.attention`'s scores: `x * c` (a constant scalar), then either a constant causal mask
    added (`_causal_mask`'s mask, the second input) or, for `is_causal`, -inf selected where the
    key's index (`linalg.index 3`) is above the query's (`linalg.index 2`), or neither."""
    found = _elementwise(op, len(op.operands) - 1)
    if found is None or len(op.operands) not in (2, 3):
        return None
    maps, arguments, body = found
    rank = maps[0].n_dims
    identity = ir.AffineMap.get_identity(rank)
    *computation, yielded = body
    if not computation or maps[0] != identity or maps[-1] != identity or computation[0].name != "arith.mulf":
        return None
    x, c = computation[0].operands
    if c == arguments[0]:
        x, c = c, x
    factor = _scalar_constant(c)
    if x != arguments[0] or factor is None or factor == 0.0 or not np.isfinite(factor):
        return None
    score = computation[0].results[0]
    rest = [inner for inner in computation[1:] if inner.name != "arith.constant"]
    if not rest and len(op.operands) == 2:
        return (factor, False) if list(yielded.operands) == [score] else None
    if len(op.operands) == 3:  # + a constant causal mask
        if len(rest) != 1 or rest[0].name != "arith.addf" or set(rest[0].operands) != {score, arguments[1]}:
            return None
        if list(yielded.operands) != [rest[0].results[0]] or not _is_causal_mask(op.operands[1], maps[1]):
            return None
        return factor, True
    names = [inner.name for inner in rest]
    if names != ["linalg.index", "linalg.index", "arith.cmpi", "arith.select"]:
        return None
    query, key, above, select = rest
    positions = [ir.IntegerAttr(inner.attributes["dim"]).value for inner in (query, key)]
    predicate = ir.IntegerAttr(above.attributes["predicate"]).value
    lowest = _scalar_constant(select.operands[1])
    if (positions != [rank - 2, rank - 1] or list(above.operands) != [key.results[0], query.results[0]] or predicate != 8  # ugt
            or select.operands[0] != above.results[0] or select.operands[2] != score or lowest is None or not np.isneginf(lowest)):
        return None
    return (factor, True) if list(yielded.operands) == [select.results[0]] else None


def _is_causal_mask(mask: ir.Value, map_: ir.AffineMap) -> bool:
    """Whether `mask`, read through `map_` by a generic over [..][queries][keys], is a constant
    [queries][keys] of 0 where the key is at or before the query and -inf after it."""
    rank = map_.n_dims
    trailing = list(map_.results)
    if len(trailing) != 2 or not all(isinstance(e, ir.AffineDimExpr) and e.position == rank - 2 + i for i, e in enumerate(trailing)):
        return False
    elements = resource_blobs.constant_elements(mask, splats=True)
    if elements is None or elements.shape[0] != elements.shape[1]:
        return False
    above = np.triu(np.ones(elements.shape, dtype=bool), 1)
    return bool(np.all(elements[~above] == 0.0) and np.all(np.isneginf(elements[above])))


def _scores(x: ir.Value) -> tuple[ir.Operation, float, bool, list[ir.Operation]] | None:
    """The batch matmul whose result `x` is, with the factor and causal mask applied on the way
    (and those ops). Other readers on the way (attention under another mask, of the same q and k)
    keep what they read: the kernel computes its scores itself."""
    factor, causal, ops, value = 1.0, False, [], x
    while (op := _owner(value)) is not None:
        if _plain_batch_matmul(op):
            return op, factor, causal, ops
        if op.name in _RESHAPES and _shape(op.operands[0])[-2:] == _shape(value)[-2:]:
            pass
        elif (scale := _scaling(op)) is not None:
            factor *= scale
        elif not causal and _causal_mask(op):
            causal = True
        elif not causal and (raised := _scaled_and_masked(op)) is not None:
            factor *= raised[0]
            causal = raised[1]
        else:
            return None
        ops.append(op)
        value = op.operands[0]
    return None


def _softmax(p: ir.Operation) -> tuple[ir.Value, list[ir.Operation], bool] | None:
    """The scores whose softmax `p` computes, the ops of that softmax, and whether it is the safe
    one (a row of only -inf gives zeros)."""
    if p.name == "linalg.softmax":  # strata-lower-to-iree's, of a raised strata.attention
        x = p.operands[0]
        last = len(_shape(x)) - 1
        return (x, [p], False) if ir.IntegerAttr(p.attributes["dimension"]).value == last and _f32_static(x) else None
    found = softmax_chain(p)
    if found is not None:
        x, ops, folded = found
        return (x, ops, False) if folded is None else None
    if p.name != "linalg.generic" or len(p.operands) != 4:
        return None
    div = _owner(p.operands[2])
    found = softmax_chain(div) if div is not None else None
    if found is None:
        return None
    x, ops, folded = found
    safe = safe_select(div, x, folded)
    if safe is None or safe[0] != p:
        return None
    return x, ops + safe, True


def _zeroed_rows(out: ir.Value, x: ir.Value) -> list[ir.Operation] | None:
    """The ops (select, then row maximum) if the only reader of `out`, the second batch matmul's
    result, sets to 0 its rows whose scores `x` are all -inf, as strata-lower-to-iree writes a
    raised attention's `fully_masked_rows_zero`: the safe softmax's zeros, which the kernel's
    safe variant computes itself."""
    users = [use.owner.operation for use in out.uses]
    if len(users) != 1 or (found := _elementwise(users[0], 2)) is None:
        return None
    select = users[0]
    maps, arguments, body = found
    *computation, yielded = [inner for inner in body if inner.name != "arith.constant"]
    rank = maps[0].n_dims
    identity = ir.AffineMap.get_identity(rank)
    per_row = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(i) for i in range(rank - 1)])
    if (select.operands[0] != out or maps != [identity, per_row, identity]
            or [inner.name for inner in computation] != ["arith.cmpf", "arith.select"]):
        return None
    test, choice = computation
    zero, lowest = _scalar_constant(choice.operands[1]), _scalar_constant(test.operands[1])
    if (ir.IntegerAttr(test.attributes["predicate"]).value != 1 or test.operands[0] != arguments[1]  # oeq
            or lowest is None or not np.isneginf(lowest) or choice.operands[0] != test.results[0] or zero != 0.0
            or choice.operands[2] != arguments[0] or list(yielded.operands) != [choice.results[0]]):
        return None
    row_max = _owner(select.operands[1])
    if row_max is None or row_max.name != "linalg.generic" or len(row_max.operands) != 2 or row_max.operands[0] != x:
        return None
    if [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(row_max.attributes["indexing_maps"])] != [identity, per_row]:
        return None
    kinds = [str(t) for t in ir.ArrayAttr(row_max.attributes["iterator_types"])]
    inner = [op.operation for op in row_max.regions[0].blocks[0].operations]
    start = fill_constant(row_max.operands[1])
    if (not all("parallel" in t for t in kinds[:-1]) or "reduction" not in kinds[-1] or len(inner) != 2
            or inner[0].name != "arith.maximumf" or not isinstance(start, ir.FloatAttr) or not np.isneginf(ir.FloatAttr(start).value)):
        return None
    return [select, row_max]


def _captured(ops: list[ir.Operation]) -> list[ir.Operation]:
    """The ops outside `ops` whose results their bodies read (a scale's constant)."""
    found = []
    for op in ops:
        for region in op.regions:
            for inner in region.blocks[0].operations:
                for value in inner.operands:
                    owner = _owner(value)
                    if owner is not None and owner.parent != op:
                        found.append(owner)
    return found


def _scaled(op: ir.Operation) -> ir.Value | None:
    return op.operands[0] if _scaling(op) is not None else None


def _factor(chain: list[ir.Operation]) -> float:
    factor = 1.0
    for op in chain:
        if op.name == "linalg.generic":
            factor *= _scaling(op)
    return factor


_HEADS_MERGED = [[0, 1], [2], [3]]  # [batch][heads][..] as one batch of the batch matmul


def _batched(view: StridedView) -> StridedView:
    """A view of [batch * heads][..] as [1][batch * heads][..]."""
    return StridedView(view.root, (1, *view.shape), (0, *view.strides), view.offset)


def _source(value: ir.Value, scaled: bool) -> tuple[StridedView, list[ir.Operation]]:
    """The [batch][heads][position][i] view a batch matmul's operand is, and the ops from the
    tensor viewed to it; batch and heads apart where the operand merges them, since their
    strides need not merge (q, k and v of several sequences, split from one projection)."""
    through = _scaled if scaled else (lambda op: None)
    op = _owner(value)
    if op is not None and op.name == "tensor.collapse_shape" and reassociation(op) == _HEADS_MERGED:
        view, chain = source_view(op.operands[0], through)
        return view, chain + [op]
    if op is not None and op.name == "linalg.transpose" and list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) == [0, 2, 1]:
        # k^T of merged heads, as strata-lower-to-iree writes a raised attention's
        merged = _owner(op.operands[0])
        if merged is not None and merged.name == "tensor.collapse_shape" and reassociation(merged) == _HEADS_MERGED:
            view, chain = source_view(merged.operands[0], through)
            swapped = StridedView(view.root, (*view.shape[:2], view.shape[3], view.shape[2]),
                                  (*view.strides[:2], view.strides[3], view.strides[2]), view.offset)
            return swapped, chain + [merged, op]
    view, chain = source_view(value, through)
    return _batched(view), chain


def _target(value: ir.Value) -> tuple[StridedView, list[ir.Operation]]:
    """The [batch][heads][position][i] view of the tensor that the second batch matmul's result
    ends up in, and the ops to there."""
    users = [use.owner.operation for use in value.uses]
    if len(users) == 1 and users[0].name == "tensor.expand_shape" and reassociation(users[0]) == _HEADS_MERGED:
        view, chain = target_view(users[0].results[0])
        return view, [users[0]] + chain
    view, chain = target_view(value)
    return _batched(view), chain


def _operand(view: StridedView, roots: list[ir.Value], position: int) -> Operand:
    if view.root not in roots:
        roots.append(view.root)
    return Operand(roots.index(view.root), view.offset, view.strides[0], view.strides[1], view.strides[position])


def _rewrite(pv: ir.Operation, lanes: int) -> bool:
    if not _plain_batch_matmul(pv):
        return False
    p_value, p_reshapes = _behind_reshapes(pv.operands[0])
    p = _owner(p_value)
    softmax = _softmax(p) if p is not None else None
    if softmax is None:
        return False
    x, softmax_ops, safe = softmax
    found = _scores(x)
    if found is None:
        return False
    qk, factor, causal, score_ops = found
    q_view, q_chain = _source(qk.operands[0], True)
    kt_view, k_chain = _source(qk.operands[1], True)
    v_view, v_chain = _source(pv.operands[1], False)
    zeroed = _zeroed_rows(pv.results[0], x)
    if zeroed is not None:
        safe = True
    out_view, out_chain = _target(zeroed[0].results[0] if zeroed else pv.results[0])
    batch, heads, queries, depth = q_view.shape
    keys = kt_view.shape[3]
    value_depth = v_view.shape[3]
    if any(view.shape[:2] != (batch, heads) for view in (kt_view, v_view, out_view)):
        return False
    if not Attention.applies(queries, keys, depth, value_depth, lanes):
        lanes = LANES[0]  # 16 lanes where the sizes come in 16s, else 8
    if (q_view.strides[3] != 1 or kt_view.strides[2] != 1 or v_view.strides[3] != 1 or out_view.strides[3] != 1 or out_view.offset
            or not Attention.applies(queries, keys, depth, value_depth, lanes) or (causal and queries != keys)):
        return False
    scale = np.float32(factor * _factor(q_chain) * _factor(k_chain))
    roots: list[ir.Value] = []
    q = _operand(q_view, roots, 2)
    k = _operand(kt_view, roots, 3)
    v = _operand(v_view, roots, 2)
    out = Operand(0, 0, out_view.strides[0], out_view.strides[1], out_view.strides[2])
    sizes = tuple(int(np.prod(_shape(r))) for r in roots)
    kernel = Attention(batch, heads, queries, keys, depth, value_depth, f32_bits(float(scale)), causal, safe, q, k, v, out, sizes, lanes)
    result = out_view.root
    result_type = result.type
    flat = [f"tensor<{n}xf32>" for n in sizes]
    out_flat = f"tensor<{batch * heads * queries * value_depth}xf32>"
    lines = [f"func.func @lowered({', '.join(f'%r{i}: {r.type}' for i, r in enumerate(roots))}) -> {result_type} {{"]
    for i, root in enumerate(roots):
        rank = len(_shape(root))
        if rank == 1:
            lines.append(f"  %f{i} = tensor.cast %r{i} : {root.type} to {flat[i]}")
        else:
            lines.append(f"  %f{i} = tensor.collapse_shape %r{i} [[{', '.join(map(str, range(rank)))}]] : {root.type} into {flat[i]}")
    arguments = ", ".join(f"%f{i}" for i in range(len(roots)))
    lines.append(f"  %y = func.call @{kernel.symbol}({arguments}) : ({', '.join(flat)}) -> {out_flat}")
    out_shape = _shape(result)
    if len(out_shape) == 1:
        lines.append(f"  %out = tensor.cast %y : {out_flat} to {result_type}")
    else:
        lines.append(f"  %out = tensor.expand_shape %y [[{', '.join(map(str, range(len(out_shape))))}]] output_shape [{', '.join(map(str, out_shape))}] : {out_flat} into {result_type}")
    lines += [f"  return %out : {result_type}", "}", f"func.func private @{kernel.symbol}({', '.join(flat)}) -> {out_flat}"]
    anchor = _owner(result)
    (value,) = insert_lowered("\n".join(lines), anchor, roots, pv.location)
    result.replace_all_uses_with(value)
    replaced = list(reversed(out_chain)) + (zeroed or []) + [pv] + p_reshapes + softmax_ops + score_ops + [qk] + q_chain + k_chain + v_chain
    # The constants the bodies read first in the list, so that they are erased after the bodies
    # (and once: some are operands of the chain too).
    erase_unused(_captured(replaced) + replaced)
    return True


def run(op: ir.Operation, options) -> None:
    if options.lanes not in LANES:
        raise StrataError(f"strata-attention-kernel: lanes must be {' or '.join(map(str, LANES))}; got {options.lanes}")
    for pv in ops_named(op, "linalg.batch_matmul"):
        _rewrite(pv, options.lanes)
    declare_kernels(op)
