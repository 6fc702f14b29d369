"""The seam between torch-dialect values and strata ops, which work on builtin tensors.

Raising replaces torch ops (on `!torch.vtensor`) with strata ops (on `tensor<...>`), so each raised
op reads its operands through `torch_c.to_builtin_tensor` and hands its result back through
`torch_c.from_builtin_tensor`; torch-mlir's backend pipeline removes the casts when it lowers the
rest of the graph. A cast of a value that is itself a cast back is skipped, so chains of raised
ops connect directly, and a value already cast earlier in the block reuses that cast.
"""

import re

from torch_mlir import ir

from strata.dialects.specs import OPS

_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],(\w+)>")
_FLOAT_DTYPES = {"f16", "bf16", "f32", "f64"}


def builtin_float_type(torch_type: ir.Type) -> ir.RankedTensorType | None:
    """`tensor<...>` for a ranked float `!torch.vtensor`, or None for anything else."""
    found = _VTENSOR.fullmatch(str(torch_type))
    if not found or found.group(2) not in _FLOAT_DTYPES:
        return None
    dims = [d.strip() for d in found.group(1).split(",") if d.strip()]
    shape = "x".join(d if d != "?" else "?" for d in dims)
    return ir.RankedTensorType(ir.Type.parse(f"tensor<{shape + 'x' if shape else ''}{found.group(2)}>"))


def shape(value: ir.Value) -> list[int] | None:
    """The static-or-dynamic shape of a ranked float vtensor or builtin tensor value."""
    t = value.type
    if isinstance(t, ir.RankedTensorType):
        return list(t.shape)
    builtin = builtin_float_type(t)
    return list(builtin.shape) if builtin is not None else None


def _existing_cast(value: ir.Value, ip: ir.InsertionPoint) -> ir.Value | None:
    """A `to_builtin_tensor` of `value` already in the insertion block, before the insertion point."""
    ref = ip.ref_operation
    for use in value.uses:
        user = use.owner.operation if isinstance(use.owner, ir.OpView) else use.owner
        if (
            user.name == "torch_c.to_builtin_tensor"
            and user.block == ip.block
            and (ref is None or user.is_before_in_block(ref))
        ):
            return user.results[0]
    return None


def to_builtin(value: ir.Value, *, loc: ir.Location, ip: ir.InsertionPoint) -> tuple[ir.Value, bool]:
    """`value` as a builtin tensor for use at `ip`, and whether a new cast op was created for it.

    A new cast goes right after `value`'s definition, so later raisings anywhere in the block can
    reuse it whatever order the rewrite driver visits them in.
    """
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "torch_c.from_builtin_tensor":
        return owner.operation.operands[0], False
    existing = _existing_cast(value, ip)
    if existing is not None:
        return existing, False
    if isinstance(value, ir.BlockArgument):
        at = ir.InsertionPoint.at_block_begin(value.owner)
    else:
        at = ir.InsertionPoint.after(owner.operation if isinstance(owner, ir.OpView) else owner)
    builtin = builtin_float_type(value.type)
    cast = ir.Operation.create("torch_c.to_builtin_tensor", results=[builtin], operands=[value], loc=loc, ip=at)
    return cast.results[0], True


def from_builtin(value: ir.Value, torch_type: ir.Type, *, loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    return ir.Operation.create(
        "torch_c.from_builtin_tensor", results=[torch_type], operands=[value], loc=loc, ip=ip
    ).results[0]


def _removable(op: ir.Operation) -> bool:
    """Ops that compute values and nothing else: erasable once nothing uses them.

    torch-mlir declares no memory effects on aten ops, so MLIR's dead-code elimination keeps
    them; value-semantic aten ops (vtensor results, not in-place `..._`), constants, lists and the
    casts have no effect besides their results. strata ops are removable if their ODS says Pure.
    """
    name = op.name
    if name in OPS:
        return OPS[name]["pure"]
    if name.startswith(("torch.constant.", "torch_c.")) or name == "torch.prim.ListConstruct":
        return True
    return (
        name.startswith("torch.aten.")
        and not name.endswith("_")
        and all(str(r.type).startswith("!torch.vtensor") for r in op.results)
    )


def erase_dead_values(root: ir.Operation) -> None:
    """Erases removable ops under `root` whose results are unused, until none is left."""
    while True:
        dead = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.results and _removable(op) and not any(list(r.uses) for r in op.results):
                dead.append(op)
            return ir.WalkResult.ADVANCE

        root.walk(visit)
        if not dead:
            return
        for op in dead:
            op.erase()
