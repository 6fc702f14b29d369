"""Finding Torch-MLIR's softmax along the last dimension in linalg IR, for the kernels that take it
over (strata-softmax-kernel, strata-attention-kernel).

The chain is matched backwards from its division, `y = e / sum(e)` with `e = exp(x - max(x))`,
and forwards from there to the safe softmax's `select(all(x == -inf), 0, y)` (or
`select(max(x) == -inf, 0, y)`, as strata-fold-safe-softmax leaves it). Each step checks a
generic's loops, maps, body and readers, so that anything else computing over the same values is
left alone. The helpers for generics over rows (`RowGeneric`, `producer`, `reader`, `filled`,
`constant`) serve strata-layer-norm-kernel's matcher too.
"""

from torch_mlir import ir

from strata.linalg_match import fill_constant

_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")
_OEQ = 1  # arith.cmpf's predicate for ordered equality


def shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _units_only(op: ir.Operation) -> bool:
    return [d for d in shape(op.operands[0]) if d != 1] == [d for d in shape(op.results[0]) if d != 1]


def producer(value: ir.Value) -> ir.Operation | None:
    """The op defining `value` behind reshapes of unit dimensions that nothing else reads."""
    while isinstance(value, ir.OpResult):
        op = value.owner.operation
        if op.name not in _RESHAPES:
            return op
        if not _units_only(op) or len(list(value.uses)) != 1:
            return None
        value = op.operands[0]
    return None


def reader(value: ir.Value) -> ir.Operation | None:
    """The one op reading `value`, behind reshapes of unit dimensions; None if more read it."""
    while True:
        users = [use.owner.operation for use in value.uses]
        if not users or any(user != users[0] for user in users):
            return None
        if users[0].name not in _RESHAPES or not _units_only(users[0]):
            return users[0]
        value = users[0].results[0]


def _is(op: ir.Operation | None, other: ir.Operation) -> bool:
    return op is not None and op == other


def base(value: ir.Value) -> ir.Value:
    while isinstance(value, ir.OpResult) and value.owner.operation.name in _RESHAPES:
        value = value.owner.operation.operands[0]
    return value


class RowGeneric:
    """A `linalg.generic` of one result whose loops are all parallel but perhaps the last, a
    reduction, read through its maps as whole (identity) or per row (all loops but the last)."""

    def __init__(self, op: ir.Operation | None, inputs: int, reduction: bool):
        self.op = op
        self.ok = op is not None and op.name == "linalg.generic" and len(op.operands) - len(op.results) == inputs
        if not self.ok:
            return
        iterators = ["reduction" if "reduction" in str(t) else "parallel" for t in ir.ArrayAttr(op.attributes["iterator_types"])]
        self.ok = iterators == ["parallel"] * (len(iterators) - 1) + ["reduction" if reduction else "parallel"]
        self.maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        self.rank = len(iterators)
        block = op.regions[0].blocks[0]
        self.arguments = list(block.arguments)
        self.body = [inner.operation for inner in block.operations]

    def whole(self, index: int) -> bool:
        return self.maps[index] == ir.AffineMap.get_identity(self.rank)

    def per_row(self, index: int) -> bool:
        results = self.maps[index].results
        rows = [isinstance(e, ir.AffineDimExpr) and e.position == i for i, e in enumerate(results[: self.rank - 1])]
        tail = results[self.rank - 1:]
        return len(rows) == self.rank - 1 and all(rows) and (not tail or (len(tail) == 1 and isinstance(tail[0], ir.AffineConstantExpr) and tail[0].value == 0))

    def computes(self, name: str, *arguments: int, index: int = 0) -> ir.Operation | None:
        """The op yielded as result `index`, if it is `name` applied to these block arguments, in order."""
        value = self.body[-1].operands[index]
        if not isinstance(value, ir.OpResult):
            return None
        op = value.owner.operation
        return op if op.name == name and list(op.operands) == [self.arguments[a] for a in arguments] else None


def _number(attr: ir.Attribute | None):
    """The number a scalar attribute (or a splat's element) holds, or None."""
    if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
        attr = attr.get_splat_value()
    return attr.value if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)) else None


def constant(value: ir.Value):
    """The value of an `arith.constant`, or None."""
    if not isinstance(value, ir.OpResult) or value.owner.operation.name != "arith.constant":
        return None
    return _number(value.owner.operation.attributes["value"])


def filled(value: ir.Value):
    """The constant a `linalg.fill` fills `value` with (behind unit reshapes), or None."""
    op = producer(value)
    return _number(fill_constant(op.results[0])) if op is not None else None


def softmax_chain(div: ir.Operation) -> tuple[ir.Value, list[ir.Operation], ir.Operation | None] | None:
    """The input of the softmax `div` computes (`e / sum(e)`), the ops from there to it, and the
    `max(x) == -inf` test strata-fold-safe-softmax left reading its maximum, if any."""
    g = RowGeneric(div, 2, False)
    if not g.ok or len(g.body) != 2 or not g.whole(0) or not g.per_row(1) or not g.computes("arith.divf", 0, 1):
        return None
    e = div.operands[0]
    total = RowGeneric(producer(div.operands[1]), 1, True)
    if (not total.ok or len(total.body) != 2 or not total.whole(0) or not total.per_row(1) or base(total.op.operands[0]) != base(e)
            or not (total.computes("arith.addf", 0, 1) or total.computes("arith.addf", 1, 0)) or filled(total.op.operands[1]) != 0.0
            or not _is(reader(total.op.results[0]), div)):
        return None
    exp = RowGeneric(producer(e), 1, False)
    if not exp.ok or len(exp.body) != 2 or not exp.computes("math.exp", 0):
        return None
    readers = [use.owner.operation for use in exp.op.results[0].uses]
    if len(readers) != 2 or not any(r == total.op for r in readers) or not any(r == div for r in readers):
        return None
    sub = RowGeneric(producer(exp.op.operands[0]), 2, False)
    if not sub.ok or len(sub.body) != 2 or not sub.whole(0) or not sub.per_row(1) or not sub.computes("arith.subf", 0, 1):
        return None
    x = sub.op.operands[0]
    top = RowGeneric(producer(sub.op.operands[1]), 1, True)
    if not top.ok or not top.whole(0) or base(top.op.operands[0]) != base(x) or not top.computes("arith.maximumf", 0, 1):
        return None
    lowest = filled(top.op.operands[1])
    if lowest is None or lowest > -3.4e38 or not top.per_row(1):
        return None
    if any(len(list(r.uses)) for r in top.op.results[1:]):  # an argmax, unread
        return None
    readers = [use.owner.operation for use in top.op.results[0].uses]
    checks = [r for r in readers if _is_minus_inf_test(r)]  # strata-fold-safe-softmax's max(x) == -inf
    if len(checks) > 1 or len(readers) - len(checks) != 1:
        return None
    if not checks and not _is(reader(top.op.results[0]), sub.op) or checks and not _leads_to(top.op.results[0], sub.op, checks[0]):
        return None
    return x, [div, total.op, exp.op, sub.op, top.op, *checks], checks[0] if checks else None


def _is_minus_inf_test(op: ir.Operation) -> bool:
    """Whether `op` is an elementwise `x == -inf` (x perhaps widened by an `arith.extf` first)."""
    test = RowGeneric(op, 1, False)
    if not test.ok or len(test.body) not in (2, 3):
        return False
    compare = test.body[-1].operands[0]
    if not isinstance(compare, ir.OpResult) or compare.owner.operation.name != "arith.cmpf":
        return False
    compare = compare.owner.operation
    value, bound = compare.operands
    if isinstance(value, ir.OpResult) and value.owner.operation.name == "arith.extf":
        value = value.owner.operation.operands[0]
    return ir.IntegerAttr(compare.attributes["predicate"]).value == _OEQ and value == test.arguments[0] and constant(bound) == float("-inf")


def _leads_to(value: ir.Value, op: ir.Operation, besides: ir.Operation) -> bool:
    """Whether `value`'s readers other than `besides` are one chain of unit reshapes to `op`."""
    others = [use.owner.operation for use in value.uses if use.owner.operation != besides]
    if len(others) != 1:
        return False
    if others[0] == op:
        return True
    return others[0].name in _RESHAPES and _units_only(others[0]) and _is(reader(others[0].results[0]), op)


def safe_select(div: ir.Operation, x: ir.Value, folded: ir.Operation | None = None) -> list[ir.Operation] | None:
    """The ops of `select(all(x == -inf), 0, div)` reading `div`'s softmax, the select first; or,
    after strata-fold-safe-softmax, of `select(max(x) == -inf, 0, div)` with `folded` the test."""
    select = RowGeneric(reader(div.results[0]), 3, False)
    if (not select.ok or len(select.body) != 2 or not select.per_row(0) or not select.whole(1) or not select.whole(2)
            or select.op.operands[2] != div.results[0] or not select.computes("arith.select", 0, 1, 2) or constant(select.op.operands[1]) != 0.0):
        return None
    if folded is not None:
        return [select.op] if _is(producer(select.op.operands[0]), folded) and _is(reader(folded.results[0]), select.op) else None
    every = RowGeneric(producer(select.op.operands[0]), 1, True)
    if (not every.ok or len(every.body) != 2 or not every.whole(0) or not every.per_row(1) or filled(every.op.operands[1]) != 1
            or not (every.computes("arith.andi", 0, 1) or every.computes("arith.andi", 1, 0)) or not _is(reader(every.op.results[0]), select.op)):
        return None
    test = RowGeneric(producer(every.op.operands[0]), 1, False)
    if (not test.ok or not test.whole(0) or base(test.op.operands[0]) != base(x) or not _is(reader(test.op.results[0]), every.op)
            or not _is_minus_inf_test(test.op)):
        return None
    return [select.op, every.op, test.op]
