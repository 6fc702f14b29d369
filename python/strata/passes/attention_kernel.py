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
from strata.attention_kernel import LANES, Attention, Operand, f32_bits
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
    rank = maps[0].n_dims
    identity = ir.AffineMap.get_identity(rank)
    trailing = list(maps[1].results)
    if maps[0] != identity or maps[2] != identity or len(trailing) != 2:
        return False
    if not all(isinstance(e, ir.AffineDimExpr) and e.position == rank - 2 + i for i, e in enumerate(trailing)):
        return False
    mask = resource_blobs.constant_elements(op.operands[1], splats=True)
    if mask is None or mask.shape[0] != mask.shape[1]:
        return False
    above = np.triu(np.ones(mask.shape, dtype=bool), 1)
    return bool(np.all(mask[~above] == 0.0) and np.all(np.isneginf(mask[above])))


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
        else:
            return None
        ops.append(op)
        value = op.operands[0]
    return None


def _softmax(p: ir.Operation) -> tuple[ir.Value, list[ir.Operation], bool] | None:
    """The scores whose softmax `p` computes, the ops of that softmax, and whether it is the safe
    one (a row of only -inf gives zeros)."""
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


def _rewrite(pv: ir.Operation) -> bool:
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
    out_view, out_chain = _target(pv.results[0])
    batch, heads, queries, depth = q_view.shape
    keys = kt_view.shape[3]
    value_depth = v_view.shape[3]
    if any(view.shape[:2] != (batch, heads) for view in (kt_view, v_view, out_view)):
        return False
    if (q_view.strides[3] != 1 or kt_view.strides[2] != 1 or v_view.strides[3] != 1 or out_view.strides[3] != 1 or out_view.offset
            or queries % LANES or keys % LANES or depth % LANES or value_depth % LANES
            or not Attention.fits(queries, keys, depth) or (causal and queries != keys)):
        return False
    scale = np.float32(factor * _factor(q_chain) * _factor(k_chain))
    roots: list[ir.Value] = []
    q = _operand(q_view, roots, 2)
    k = _operand(kt_view, roots, 3)
    v = _operand(v_view, roots, 2)
    out = Operand(0, 0, out_view.strides[0], out_view.strides[1], out_view.strides[2])
    sizes = tuple(int(np.prod(_shape(r))) for r in roots)
    kernel = Attention(batch, heads, queries, keys, depth, value_depth, f32_bits(float(scale)), causal, safe, q, k, v, out, sizes)
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
    replaced = list(reversed(out_chain)) + [pv] + p_reshapes + softmax_ops + score_ops + [qk] + q_chain + k_chain + v_chain
    captured = _captured(replaced)
    erase_unused(replaced)
    erase_unused(captured)
    return True


def run(op: ir.Operation, options) -> None:
    for pv in ops_named(op, "linalg.batch_matmul"):
        _rewrite(pv)
    declare_kernels(op)
