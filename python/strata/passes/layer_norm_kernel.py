"""strata-layer-norm-kernel: layer norm over the last dimension, as Torch-MLIR decomposes it, by
strata's row kernel (passes/layer_norm_kernel.td).

Matched backwards from the bias added last: `((x - mean(x)) * rsqrt(var + eps)) * weight + bias`,
with `var` the mean of `(widen(x) - mean(widen(x)))^2` in f64, narrowed to f32. Each step checks
a generic's loops, maps and body (`strata.softmax_match.RowGeneric`); only the final value is
replaced, so an intermediate something else reads stays, computed as before.
"""

from torch_mlir import ir

from strata.ir_splice import erase_unused, insert_lowered, tensor_type
from strata.kernel_calls import declare_kernels
from strata.conv_kernel import f32_bits
from strata.layer_norm_kernel import LayerNorm
from strata.linalg_match import ops_named
from strata.softmax_match import RowGeneric, base, constant, filled, producer, shape


def _per_column(g: RowGeneric, index: int, columns: int) -> bool:
    """Whether input `index` of `g` is a [columns] f32 vector read along the last loop."""
    results = g.maps[index].results
    value = g.op.operands[index]
    return (len(results) == 1 and isinstance(results[0], ir.AffineDimExpr) and results[0].position == g.rank - 1
            and shape(value) == [columns] and str(ir.RankedTensorType(value.type).element_type) == "f32")


def _scalar(value: ir.Value) -> float | None:
    """A constant scalar, perhaps narrowed by an `arith.truncf` in the body."""
    if isinstance(value, ir.OpResult) and value.owner.operation.name == "arith.truncf":
        value = value.owner.operation.operands[0]
    number = constant(value)
    return float(number) if isinstance(number, float) else None


def _mean(value: ir.Value, count: int) -> tuple[ir.Value, list[ir.Operation]] | None:
    """(what is summed, the ops) if `value` is a sum along the last dimension divided by `count`."""
    divide = RowGeneric(producer(value), 1, False)
    if not divide.ok or len(divide.body) != 2 or not divide.whole(0):
        return None
    quotient = divide.body[0]
    if quotient.name != "arith.divf" or quotient.operands[0] != divide.arguments[0] or _scalar(quotient.operands[1]) != float(count):
        return None
    total = RowGeneric(producer(divide.op.operands[0]), 1, True)
    if (not total.ok or len(total.body) != 2 or not total.whole(0) or not total.per_row(1) or filled(total.op.operands[1]) != 0.0
            or not (total.computes("arith.addf", 0, 1) or total.computes("arith.addf", 1, 0))):
        return None
    return total.op.operands[0], [divide.op, total.op]


def _variance(value: ir.Value, x: ir.Value, count: int) -> list[ir.Operation] | None:
    """The ops of Torch-MLIR's variance of `x` along the last dimension, if `value` is it:
    `narrow(mean((widen(x) - mean(widen(x)))^2))`."""
    narrow = RowGeneric(producer(value), 1, False)
    if not narrow.ok or len(narrow.body) != 2 or not narrow.whole(0) or not narrow.computes("arith.truncf", 0):
        return None
    outer = _mean(narrow.op.operands[0], count)
    square = RowGeneric(producer(outer[0]), 2, False) if outer is not None else None
    if (square is None or not square.ok or len(square.body) != 2 or not square.whole(0) or not square.whole(1)
            or square.op.operands[0] != square.op.operands[1] or not square.computes("arith.mulf", 0, 1)):
        return None
    centered = RowGeneric(producer(square.op.operands[0]), 2, False)
    if not centered.ok or len(centered.body) != 2 or not centered.whole(0) or not centered.per_row(1) or not centered.computes("arith.subf", 0, 1):
        return None
    wide = RowGeneric(producer(centered.op.operands[0]), 1, False)
    if not wide.ok or len(wide.body) != 2 or not wide.whole(0) or not wide.computes("arith.extf", 0) or base(wide.op.operands[0]) != base(x):
        return None
    inner = _mean(centered.op.operands[1], count)
    if inner is None or base(inner[0]) != base(wide.op.results[0]):
        return None
    return [narrow.op, *outer[1], square.op, centered.op, *inner[1], wide.op]


def _layer_norm(add: ir.Operation) -> tuple[ir.Value, ir.Value, ir.Value, float, list[ir.Operation]] | None:
    """(x, weight, bias, eps, the ops) if `add` ends Torch-MLIR's layer norm of x over its last
    dimension, with a weight and a bias."""
    biased = RowGeneric(add, 2, False)
    if not biased.ok or len(biased.body) != 2 or not biased.whole(0) or not biased.computes("arith.addf", 0, 1):
        return None
    x_shape = shape(add.results[0])
    columns = x_shape[-1]
    if len(x_shape) < 2 or not _per_column(biased, 1, columns):
        return None
    scaled = RowGeneric(producer(add.operands[0]), 2, False)
    if not scaled.ok or len(scaled.body) != 2 or not scaled.whole(0) or not _per_column(scaled, 1, columns) or not scaled.computes("arith.mulf", 0, 1):
        return None
    normed = RowGeneric(producer(scaled.op.operands[0]), 2, False)
    if not normed.ok or len(normed.body) != 2 or not normed.whole(0) or not normed.per_row(1) or not normed.computes("arith.mulf", 0, 1):
        return None
    centered = RowGeneric(producer(normed.op.operands[0]), 2, False)
    if not centered.ok or len(centered.body) != 2 or not centered.whole(0) or not centered.per_row(1) or not centered.computes("arith.subf", 0, 1):
        return None
    x = centered.op.operands[0]
    if shape(x) != x_shape or str(ir.RankedTensorType(x.type).element_type) != "f32" or not ir.RankedTensorType(x.type).has_static_shape:
        return None
    mean = _mean(centered.op.operands[1], columns)
    root = RowGeneric(producer(normed.op.operands[1]), 1, False)
    if mean is None or base(mean[0]) != base(x) or not root.ok or len(root.body) != 2 or not root.whole(0) or not root.computes("math.rsqrt", 0):
        return None
    shifted = RowGeneric(producer(root.op.operands[0]), 1, False)
    if not shifted.ok or not shifted.whole(0) or len(shifted.body) not in (2, 3):
        return None
    total = shifted.body[-1].operands[0]
    plus = total.owner.operation if isinstance(total, ir.OpResult) else None
    if plus is None or plus.name != "arith.addf" or shifted.arguments[0] not in list(plus.operands):
        return None
    eps = _scalar([v for v in plus.operands if v != shifted.arguments[0]][0])
    variance = _variance(shifted.op.operands[0], x, columns)
    if eps is None or variance is None:
        return None
    ops = [add, scaled.op, normed.op, centered.op, *mean[1], root.op, shifted.op, *variance]
    return x, scaled.op.operands[1], add.operands[1], eps, ops


def _rewrite(add: ir.Operation) -> bool:
    found = _layer_norm(add)
    if found is None:
        return False
    x, weight, bias, eps, ops = found
    x_shape = shape(x)
    rows, columns = 1, x_shape[-1]
    for d in x_shape[:-1]:
        rows *= d
    if not LayerNorm.applies(columns):
        return False
    kernel = LayerNorm(rows, columns, f32_bits(eps))
    matrix, row, _, _ = kernel.types()
    rank = len(x_shape)
    groups = f"[[{', '.join(map(str, range(rank - 1)))}], [{rank - 1}]]"
    lines = [f"func.func @lowered(%x: {x.type}, %w: {row}, %b: {row}) -> {x.type} {{"]
    if rank == 2:
        lines.append(f"  %rows = tensor.cast %x : {x.type} to {matrix}")
    else:
        lines.append(f"  %rows = tensor.collapse_shape %x {groups} : {x.type} into {matrix}")
    lines.append(f"  %y = func.call @{kernel.symbol}(%rows, %w, %b) : ({matrix}, {row}, {row}) -> {matrix}")
    if rank == 2:
        lines.append(f"  %out = tensor.cast %y : {matrix} to {x.type}")
    else:
        lines.append(f"  %out = tensor.expand_shape %y {groups} output_shape [{', '.join(map(str, x_shape))}] : {matrix} into {x.type}")
    lines += [f"  return %out : {x.type}", "}", f"func.func private @{kernel.symbol}({matrix}, {row}, {row}) -> {matrix}"]
    (value,) = insert_lowered("\n".join(lines), add, [x, weight, bias], add.location)
    add.results[0].replace_all_uses_with(value)
    erase_unused(ops)
    return True


def run(op: ir.Operation, options) -> None:
    for generic in ops_named(op, "linalg.generic"):
        _rewrite(generic)
    declare_kernels(op)
