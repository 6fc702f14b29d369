"""Declarative matching of expression trees in torch-dialect IR, for strata's raising patterns.

A raising pattern describes the subgraph it recognizes as a tree of `Op`, `Var`, constants and
`AnyOf` alternatives, e.g. SiLU written out as `x * sigmoid(x)`:

    Op("torch.aten.mul.Tensor", Var("x"), Op("torch.aten.sigmoid", Var("x")), commutative=True)

`match(pattern, value)` walks from `value` up through defining ops and returns the bindings
(`{"x": <Value>}`) or None. A variable bound twice must bind the same value, which is how a
pattern says "the same tensor feeds both places". Torch constants (`torch.constant.int/float/
bool/str/none`) and `torch.prim.ListConstruct` lists of them match by value.
"""

import math
from dataclasses import dataclass

from torch_mlir import ir


@dataclass(frozen=True)
class Var:
    """Matches any value and binds it to `name` (or checks it equals the earlier binding)."""

    name: str


@dataclass(frozen=True)
class Op:
    """Matches a value produced by result `result` of an op named `name` with matching operands.

    With `commutative`, two operands may match in either order. Operands beyond those given are
    not looked at only if `prefix` is set; otherwise the operand count must be exact.
    """

    name: str
    operands: tuple
    commutative: bool = False
    prefix: bool = False
    result: int = 0
    bind: str | None = None  # also bind the matched op's result value to this name

    def __init__(self, name, *operands, commutative=False, prefix=False, result=0, bind=None):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "commutative", commutative)
        object.__setattr__(self, "prefix", prefix)
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "bind", bind)


@dataclass(frozen=True)
class Const:
    """Matches a torch constant (or list of constants) whose Python value satisfies `accept`.

    `accept` is a value to compare with (floats compare with a relative tolerance) or a predicate;
    with `bind`, the constant's Python value is bound to that name.
    """

    accept: object = None
    bind: str | None = None


@dataclass(frozen=True)
class AnyOf:
    """Matches if any alternative matches (first match wins)."""

    alternatives: tuple

    def __init__(self, *alternatives):
        object.__setattr__(self, "alternatives", alternatives)


ANY = Var("_")  # matches anything; "_" is never checked for consistency

_CONSTANT_OPS = {
    "torch.constant.int",
    "torch.constant.float",
    "torch.constant.bool",
    "torch.constant.str",
    "torch.constant.none",
}


def constant_value(value: ir.Value):
    """The Python value of a torch constant or constant list; raises LookupError if not constant."""
    owner = _owner(value)
    if owner is None:
        raise LookupError
    if owner.name in _CONSTANT_OPS:
        if owner.name == "torch.constant.none":
            return None
        attr = owner.attributes["value"]
        return bool(attr.value) if owner.name == "torch.constant.bool" else attr.value
    if owner.name == "torch.prim.ListConstruct":
        return [constant_value(v) for v in owner.operands]
    raise LookupError


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView) else (owner if isinstance(owner, ir.Operation) else None)


def _accepts(accept, actual) -> bool:
    if callable(accept):
        return bool(accept(actual))
    if isinstance(accept, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return math.isclose(accept, actual, rel_tol=1e-6)
    return accept == actual


def _match(pattern, value: ir.Value, bindings: dict) -> dict | None:
    if isinstance(pattern, Var):
        if pattern.name == "_":
            return bindings
        if pattern.name in bindings:
            return bindings if bindings[pattern.name] == value else None
        return {**bindings, pattern.name: value}
    if isinstance(pattern, Const):
        try:
            actual = constant_value(value)
        except LookupError:
            return None
        if pattern.accept is not None and not _accepts(pattern.accept, actual):
            return None
        return {**bindings, pattern.bind: actual} if pattern.bind else bindings
    if isinstance(pattern, AnyOf):
        for alternative in pattern.alternatives:
            found = _match(alternative, value, bindings)
            if found is not None:
                return found
        return None
    owner = _owner(value)
    if owner is None or owner.name != pattern.name or value != owner.results[pattern.result]:
        return None
    operands = list(owner.operands)
    if len(operands) < len(pattern.operands) or (not pattern.prefix and len(operands) != len(pattern.operands)):
        return None
    orders = [list(pattern.operands)]
    if pattern.commutative:
        orders.append([pattern.operands[1], pattern.operands[0], *pattern.operands[2:]])
    for order in orders:
        found = bindings if not pattern.bind else {**bindings, pattern.bind: value}
        for sub, operand in zip(order, operands):
            found = _match(sub, operand, found)
            if found is None:
                break
        if found is not None:
            return found
    return None


def match(pattern, value: ir.Value) -> dict | None:
    """Bindings of `pattern` matched at `value`, or None."""
    return _match(pattern, value, {})


def match_op(pattern, op: ir.Operation) -> dict | None:
    """Bindings of `pattern` matched at the first result of `op`, or None."""
    op = op.operation if isinstance(op, ir.OpView) else op
    return match(pattern, op.results[0]) if len(op.results) else None
