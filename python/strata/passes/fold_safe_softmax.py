"""strata-fold-safe-softmax: a safe softmax's all(-inf) row check read from the row maximum the
softmax computes anyway (passes/fold_safe_softmax.td).

`all(x == -inf)` along a dimension is `max(x) == -inf` along it when the maximum propagates NaNs:
one pass over the attention scores fewer.
"""

import math

from torch_mlir import ir

from strata.errors import StrataError
from strata.ir_splice import erase_unused, insert_lowered, tensor_type
from strata.linalg_match import fill_constant, ops_named

# -inf as MLIR writes a float attribute's bits, per element type.
_MINUS_INF = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000", "f64": "0xFFF0000000000000"}


def _body(generic: ir.Operation) -> tuple[list[ir.Value], list[ir.Operation], list[ir.Value]]:
    """The block arguments, the ops before the yield, and the yielded values of `generic`."""
    block = generic.regions[0].blocks[0]
    *computation, yielded = [op.operation for op in block.operations]
    return list(block.arguments), computation, list(yielded.operands)


def _segments(generic: ir.Operation) -> tuple[int, int]:
    inputs, outputs = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))
    return inputs, outputs


def _maps(generic: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]


def _is_minus_inf(value: ir.Value) -> bool:
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is None or owner.name != "arith.constant" or not isinstance(owner.attributes["value"], ir.FloatAttr):
        return False
    return ir.FloatAttr(owner.attributes["value"]).value == -math.inf


def _static(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and value.type.has_static_shape


def _compared(check: ir.Operation) -> ir.Value | None:
    """The tensor x of `check`, an elementwise `x == -inf` (through an `arith.extf` or not)."""
    if check.name != "linalg.generic" or _segments(check) != (1, 1):
        return None
    maps = _maps(check)
    if any("parallel" not in str(t) for t in check.attributes["iterator_types"]) or maps[0] != maps[1] or not maps[0].is_permutation:
        return None
    args, computation, yielded = _body(check)
    value = args[0]
    if computation and computation[0].name == "arith.extf" and computation[0].operands[0] == value:
        value, computation = computation[0].results[0], computation[1:]
    if len(computation) != 1 or computation[0].name != "arith.cmpf" or yielded != [computation[0].results[0]]:
        return None
    compare = computation[0]
    if ir.IntegerAttr(compare.attributes["predicate"]).value != 1:  # oeq
        return None
    a, b = compare.operands
    if not (a == value and _is_minus_inf(b) or b == value and _is_minus_inf(a)):
        return None
    return check.operands[0]


def _reduces_with(generic: ir.Operation, combiner: str) -> bool:
    """Whether `generic`'s first output is `combiner(input 0, that output)`."""
    args, computation, yielded = _body(generic)
    inputs, _ = _segments(generic)
    op = yielded[0].owner if isinstance(yielded[0], ir.OpResult) else None
    if op is None or op.name != combiner or not any(op == c for c in computation):
        return False
    return {*op.operands} == {args[0], args[inputs]} and args[0] != args[inputs]


def _maximum_of(x: ir.Value, all_op: ir.Operation) -> ir.Operation | None:
    """A reduction before `all_op` whose first result is the NaN-propagating maximum of `x` from
    -inf over the same loops as `all_op`."""
    for use in x.uses:
        op = use.owner.operation
        if op.name != "linalg.generic" or op.operands[0] != x or op.parent != all_op.parent:
            continue
        if str(op.attributes["iterator_types"]) != str(all_op.attributes["iterator_types"]):
            continue
        inputs, _ = _segments(op)
        if _maps(op)[0] != _maps(all_op)[0] or not _reduces_with(op, "arith.maximumf"):
            continue
        init = fill_constant(op.operands[inputs])
        if init is None or not isinstance(init, ir.FloatAttr) or ir.FloatAttr(init).value != -math.inf:
            continue
        if _precedes(op, all_op):
            return op
    return None


def _precedes(first: ir.Operation, second: ir.Operation) -> bool:
    """Whether `first` comes before `second` in their block."""
    for op in first.block.operations:
        if op.operation == first:
            return True
        if op.operation == second:
            return False
    return False


def _innermost_parallel(generic: ir.Operation, shape: list[int]) -> int | None:
    """The size of `generic`'s innermost parallel loop, which its identity-read input `shape` spans."""
    parallel = [i for i, t in enumerate(generic.attributes["iterator_types"]) if "parallel" in str(t)]
    return shape[parallel[-1]] if parallel else None


def _rewrite(all_op: ir.Operation, row_multiple: int) -> bool:
    if _segments(all_op) != (1, 1) or not _reduces_with(all_op, "arith.andi"):
        return False
    init = fill_constant(all_op.operands[1])
    if init is None or not isinstance(init, ir.BoolAttr) or not init.value:
        return False
    check = all_op.operands[0].owner if isinstance(all_op.operands[0], ir.OpResult) else None
    x = _compared(check.operation) if check is not None else None
    if x is None or not _static(x) or _maps(check.operation)[0] != _maps(all_op)[0] or _maps(all_op)[0] != ir.AffineMap.get_identity(len(_maps(all_op)[0].results)):
        return False
    rows = _innermost_parallel(all_op, list(ir.RankedTensorType(check.results[0].type).shape))
    if rows is None or rows % row_multiple:
        return False  # IREE's data tiling miscompiles the fold where the rows pad to whole tiles
    maximum = _maximum_of(x, all_op)
    if maximum is None:
        return False
    # Each dimension of the maximum's result is one of the check's result's (same loop, or both
    # reduced to a unit dimension): index the maximum from the check's result's positions.
    all_map, max_map = _maps(all_op)[1], _maps(maximum)[_segments(maximum)[0]]
    out_shape = list(ir.RankedTensorType(all_op.results[0].type).shape)
    if any(not isinstance(e, ir.AffineDimExpr) and size != 1 for e, size in zip(all_map.results, out_shape)):
        return False  # an `all` that writes one index of a longer dimension and leaves the rest
    all_results = [str(e) for e in all_map.results]
    positions = []
    for expr in max_map.results:
        if str(expr) not in all_results or not isinstance(expr, ir.AffineDimExpr):
            return False
        positions.append(all_results.index(str(expr)))
    values = maximum.results[0]
    element = str(ir.RankedTensorType(values.type).element_type)
    if element not in _MINUS_INF:
        return False
    rank = len(out_shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    index_map = f"affine_map<({dims}) -> ({', '.join(f'd{p}' for p in positions)})>"
    identity = f"affine_map<({dims}) -> ({dims})>"
    out_type = tensor_type(out_shape, "i1")
    text = f"""func.func @lowered(%max: {values.type}) -> {out_type} {{
  %empty = tensor.empty() : {out_type}
  %minus_inf = arith.constant {_MINUS_INF[element]} : {element}
  %all = linalg.generic {{indexing_maps = [{index_map}, {identity}], iterator_types = [{', '.join(['"parallel"'] * rank)}]}}
      ins(%max : {values.type}) outs(%empty : {out_type}) {{
  ^bb0(%m: {element}, %out: i1):
    %is = arith.cmpf oeq, %m, %minus_inf : {element}
    linalg.yield %is : i1
  }} -> {out_type}
  return %all : {out_type}
}}"""
    (replacement,) = insert_lowered(text, all_op, [values], all_op.location)
    all_op.results[0].replace_all_uses_with(replacement)
    producers = [v.owner for v in all_op.operands if isinstance(v, ir.OpResult)]
    all_op.erase()
    erase_unused(producers)
    return True


def _is_all_reduction(generic: ir.Operation) -> bool:
    """Whether `generic` reduces into one i1 tensor (the shape of `all`)."""
    if len(generic.results) != 1 or not any("reduction" in str(t) for t in generic.attributes["iterator_types"]):
        return False
    return str(ir.RankedTensorType(generic.results[0].type).element_type) == "i1"


def run(op: ir.Operation, options) -> None:
    if options.row_multiple < 1:
        raise StrataError(f"strata-fold-safe-softmax: row-multiple must be at least 1; got {options.row_multiple}")
    # The candidates first: a rewrite erases ops (the check, its fill) that the walk would visit.
    for generic in [g for g in ops_named(op, "linalg.generic") if _is_all_reduction(g)]:
        _rewrite(generic, options.row_multiple)
