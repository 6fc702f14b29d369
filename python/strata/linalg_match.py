"""Recognizing what produced a value in linalg IR, for rewrites that special-case it, and
finding the ops a rewrite visits.

Both matmul packing (upstream route) and convolution tiling (IREE route) treat an init written
by `linalg.fill` of a constant differently from any other accumulator: the fill folds into the
rewritten op instead of being read back.
"""

from torch_mlir import ir

UGT = 9  # arith::CmpFPredicate::UGT


def fill_constant(value: ir.Value) -> ir.Attribute | None:
    """The constant that a `linalg.fill` wrote into `value` (e.g. `0.000000e+00 : f32`), if it
    did; None for any other producer, or a fill of a non-constant scalar."""
    fill = value.owner if isinstance(value, ir.OpResult) else None
    if fill is None or fill.name != "linalg.fill":
        return None
    scalar = fill.operands[0]
    constant = scalar.owner if isinstance(scalar, ir.OpResult) else None
    if constant is None or constant.name != "arith.constant":
        return None
    return constant.attributes["value"]


def ops_named(root: ir.Operation, name: str) -> list[ir.Operation]:
    """Every op named `name` under `root`, in walk order: collected before a rewrite visits them,
    so that it may change the IR as it goes."""
    found = []

    def visit(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def transposed_source(value: ir.Value) -> ir.Value | None:
    """The matrix whose transpose `value` is (a `linalg.transpose` of the last two dimensions)."""
    op = value.owner if isinstance(value, ir.OpResult) else None
    if op is None or op.name != "linalg.transpose":
        return None
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    rank = len(perm)
    return op.operands[0] if perm == list(range(rank - 2)) + [rank - 1, rank - 2] else None


def is_zero(value: ir.Value) -> bool:
    """Whether `value` is the f32 constant 0.0 (or -0.0)."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant" or not isinstance(value.type, ir.F32Type):
        return False
    return ir.FloatAttr(owner.operation.attributes["value"]).value == 0.0


def is_relu(computation: list[ir.Operation], arg: ir.Value) -> bool:
    """Whether `computation` is max(`arg`, 0) as the kernels compute it: `arith.select` of an
    `arith.cmpf ugt` against 0.0 (a NaN kept), or `arith.maximumf` with 0.0."""
    if [op.name for op in computation] == ["arith.maximumf"]:
        a, b = computation[0].operands
        return a == arg and is_zero(b) or b == arg and is_zero(a)
    if [op.name for op in computation] != ["arith.cmpf", "arith.select"]:
        return False
    compare, select = computation
    return (
        ir.IntegerAttr(compare.attributes["predicate"]).value == UGT
        and list(compare.operands)[0] == arg
        and is_zero(compare.operands[1])
        and list(select.operands) [:2] == [compare.results[0], arg]
        and is_zero(select.operands[2])
    )
