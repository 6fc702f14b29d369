"""Enforces, for every strata and probe op, what its ODS declares.

For each op: operand and result types against their type constraints, required attributes
present and every attribute against its attribute constraint, the verifying traits
(`SameOperandsAndResultType`, `AllTypesMatch`, `AllElementTypesMatch`), then, if the ODS says
`hasVerifier = 1`, the op's verifier from `strata.dialects.verifiers`. Errors use MLIR's wording
for the same failures and go to the op's location, so the context's diagnostic handler reports
them like any other verifier error.
"""

from torch_mlir._mlir_libs._mlir import ir  # native: `torch_mlir.ir` imports numpy (~0.1 s per tool start)

from strata.dialects.constraints import evaluate
from strata.dialects.specs import CONSTRAINTS, OPS
from strata.dialects.verifiers import VERIFIERS


def _named_values(op: ir.Operation, declared: list[dict], values, segment_attr: str) -> dict | None:
    """Maps each declared operand (or result) name to its value (None when an optional is absent)."""
    values = list(values)
    if segment_attr in op.attributes:
        sizes = list(op.attributes[segment_attr])
    else:
        non_single = [d for d in declared if d["variadicity"] != "single"]
        if len(non_single) > 1:
            return None
        spare = len(values) - (len(declared) - len(non_single))
        sizes = [spare if d["variadicity"] != "single" else 1 for d in declared]
    if len(sizes) != len(declared) or sum(sizes) != len(values):
        return None
    named, start = {}, 0
    for decl, size in zip(declared, sizes):
        group = values[start:start + size]
        start += size
        named[decl["name"]] = group if decl["variadicity"] == "variadic" else (group[0] if group else None)
    return named


def _check_values(kind: str, declared: list[dict], values: dict) -> list[str]:
    errors = []
    position = 0
    for decl, value in _flatten(declared, values):
        constraint = CONSTRAINTS[decl["constraint"]]
        if not evaluate(constraint["predicate"], value.type):
            errors.append(f"{kind} #{position} must be {constraint['summary']}, but got '{value.type}'")
        position += 1
    return errors


def _flatten(declared: list[dict], named_values: dict):
    for decl in declared:
        value = named_values[decl["name"]]
        for v in value if isinstance(value, list) else ([] if value is None else [value]):
            yield decl, v


def _check_attributes(op: ir.Operation, spec: dict) -> list[str]:
    errors = []
    for decl in spec["attributes"]:
        name = decl["name"]
        if name not in op.attributes:
            if not decl["optional"]:
                errors.append(f"requires attribute '{name}'")
            continue
        constraint = CONSTRAINTS[decl["constraint"]]
        if not evaluate(constraint["predicate"], op.attributes[name]):
            errors.append(f"attribute '{name}' failed to satisfy constraint: {constraint['summary']}")
    return errors


def _element_type(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _check_traits(op: ir.Operation, spec: dict, values: dict) -> list[str]:
    errors = []
    for trait in spec["traits"]:
        if trait["kind"] == "same_operands_and_result_type":
            types = [v.type for v in list(op.operands) + list(op.results)]
            if any(t != types[0] for t in types):
                errors.append("requires the same type for all operands and results")
            continue
        present = [values[name] for name in trait["values"] if values.get(name) is not None]
        if trait["kind"] == "all_types_match":
            types = [v.type for v in present]
        else:
            types = [_element_type(v.type) for v in present]
        if any(t != types[0] for t in types):
            errors.append(f"failed to verify that {trait['summary']}")
    return errors


def op_error(op: ir.Operation) -> str | None:
    """The first verification error of one strata or probe op, or None when it verifies.

    Like MLIR's generated verifiers: operand and result types, then attributes, then traits,
    then the op's own verifier, stopping at the first failure.
    """
    spec = OPS[op.name]
    operands = _named_values(op, spec["operands"], op.operands, "operandSegmentSizes")
    results = _named_values(op, spec["results"], op.results, "resultSegmentSizes")
    if operands is None or results is None:
        return f"has {len(op.operands)} operands and {len(op.results)} results, which does not match its ODS"
    errors = (
        _check_values("operand", spec["operands"], operands)
        or _check_values("result", spec["results"], results)
        or _check_attributes(op, spec)
        or _check_traits(op, spec, {**operands, **results})
    )
    if errors:
        return errors[0]
    if spec["has_verifier"]:
        return VERIFIERS[op.name](op, {**operands, **results})
    return None


def verify(root: ir.Operation) -> bool:
    """Checks every strata and probe op under `root`; emits each error at its op's location."""
    ok = True

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal ok
        if op.name in OPS:
            message = op_error(op)
            if message:
                op.location.emit_error(f"'{op.name}' op {message}")
                ok = False
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return ok
