"""Evaluates ODS type and attribute constraints on `torch_mlir.ir` types and attributes.

ODS constraints are predicate trees whose leaves are C++ expressions over `$_self`
(`CPred<"$_self.isF32()">`), combined with And/Or/Not and rewritten by SubstLeaves/Concat (that is
how `RankedTensorOf<[F32]>` applies its element-type predicate to the tensor's element type).
mlir-tblgen pastes these into C++; strata loads its dialects at run time without compiling C++,
so it walks the same trees here and gives each leaf expression its Python meaning from `_LEAVES`.
A leaf that is not in `_LEAVES` raises `UnknownPredicate` when the dialect loads, so a constraint
in a `.td` file is either enforced or refused, never silently skipped.
"""

import re
from typing import Callable

from torch_mlir._mlir_libs._mlir import ir  # native: `torch_mlir.ir` imports numpy (~0.1 s per tool start)


class UnknownPredicate(Exception):
    """A C++ predicate of an ODS constraint that strata cannot evaluate."""


def _is_integer_attr(value) -> bool:
    # In C++ a BoolAttr is an IntegerAttr of type i1; the Python bindings downcast it to BoolAttr.
    return isinstance(value, (ir.IntegerAttr, ir.BoolAttr))


def _integer_value(value) -> int:
    return int(value.value) if isinstance(value, ir.BoolAttr) else value.value


_FLOAT_TYPES = {"F16": ir.F16Type, "F32": ir.F32Type, "F64": ir.F64Type, "BF16": ir.BF16Type}

# Leaf C++ expressions (whitespace collapsed, `$_self` as the subject) and their Python meaning.
_LEAVES: list[tuple[str, Callable[..., bool]]] = [
    (r"true", lambda s: True),
    (r"::llvm::isa<::mlir::RankedTensorType>\(\$_self\)", lambda s: isinstance(s, ir.RankedTensorType)),
    (
        r"::llvm::isa<::mlir::TensorType>\(\$_self\)",
        lambda s: isinstance(s, (ir.RankedTensorType, ir.UnrankedTensorType)),
    ),
    (r"::llvm::cast<::mlir::ShapedType>\(\$_self\)\.hasRank\(\)", lambda s: isinstance(s, ir.RankedTensorType)),
    (
        r"::llvm::cast<::mlir::ShapedType>\(\$_self\)\.getRank\(\) == (\d+)",
        lambda s, n: s.rank == int(n),
    ),
    (
        r"::llvm::cast<::mlir::ShapedType>\(\$_self\)\.getRank\(\) >= (\d+)",
        lambda s, n: s.rank >= int(n),
    ),
    (r"::llvm::isa<::mlir::FloatType>\(\$_self\)", lambda s: isinstance(s, ir.FloatType)),
    (r"\$_self\.is(F16|F32|F64|BF16)\(\)", lambda s, w: isinstance(s, _FLOAT_TYPES[w])),
    (r"::llvm::isa<::mlir::BFloat16Type>\(\$_self\)", lambda s: isinstance(s, ir.BF16Type)),
    (
        r"\$_self\.isSignlessInteger\((\d+)\)",
        lambda s, w: isinstance(s, ir.IntegerType) and s.is_signless and s.width == int(w),
    ),
    # Attributes.
    (r"::llvm::isa<::mlir::IntegerAttr>\(\$_self\)", _is_integer_attr),
    (
        r"::llvm::cast<::mlir::IntegerAttr>\(\$_self\)\.getType\(\)\.isSignlessInteger\((\d+)\)",
        lambda s, w: s.type.is_signless and s.type.width == int(w),
    ),
    (
        r"::llvm::cast<::mlir::IntegerAttr>\(\$_self\)\.getValue\(\)\.eq\(::llvm::APInt\((\d+), (-?\d+)\)\)",
        lambda s, w, v: _integer_value(s) == int(v),
    ),
    (
        r"::llvm::cast<::mlir::IntegerAttr>\(\$_self\)\.getInt\(\) (>=|<=) (-?\d+)",
        lambda s, op, v: _integer_value(s) >= int(v) if op == ">=" else _integer_value(s) <= int(v),
    ),
    (r"::llvm::isa<::mlir::BoolAttr>\(\$_self\)", lambda s: isinstance(s, ir.BoolAttr)),
    (r"::llvm::isa<::mlir::FloatAttr>\(\$_self\)", lambda s: isinstance(s, ir.FloatAttr)),
    (
        r"::llvm::cast<::mlir::FloatAttr>\(\$_self\)\.getType\(\)\.is(F16|F32|F64|BF16)\(\)",
        lambda s, w: isinstance(s.type, _FLOAT_TYPES[w]),
    ),
    (
        r"::llvm::cast<::mlir::FloatAttr>\(\$_self\)\.getValueAsDouble\(\) > 0\.0",
        lambda s: s.value > 0.0,
    ),
    (r"::llvm::isa<::mlir::StringAttr>\(\$_self\)", lambda s: isinstance(s, ir.StringAttr)),
    (
        r"!::llvm::cast<::mlir::StringAttr>\(\$_self\)\.getValue\(\)\.empty\(\)",
        lambda s: len(s.value) > 0,
    ),
    (r"::llvm::isa<::mlir::DenseI64ArrayAttr>\(\$_self\)", lambda s: isinstance(s, ir.DenseI64ArrayAttr)),
    (
        r"::llvm::cast<::mlir::DenseArrayAttr>\(\$_self\)\.size\(\) (>=|<=|==) (\d+)",
        lambda s, op, n: {">=": len(s) >= int(n), "<=": len(s) <= int(n), "==": len(s) == int(n)}[op],
    ),
    (
        r"::llvm::all_of\(::llvm::cast<DenseI64ArrayAttr>\(\$_self\)\.asArrayRef\(\), "
        r"\[&\]\(auto v\) \{ return v (>|>=) 0; \}\)",
        lambda s, op: all(v > 0 if op == ">" else v >= 0 for v in s),
    ),
]
_COMPILED_LEAVES = [(re.compile(pattern), fn) for pattern, fn in _LEAVES]

# `Concat` wraps a predicate in a lambda applied to a projection of `$_self`; the projections
# strata knows (the only ones ODS's container types use).
_LAMBDA_PREFIX = re.compile(r"\[\]\(::mlir::Type (\w+)\) \{ return ")
_PROJECTIONS = {
    "; }(::llvm::cast<::mlir::ShapedType>($_self).getElementType())": lambda s: s.element_type,
}


def _strip_parens(expr: str) -> str:
    expr = " ".join(expr.split())
    while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
        expr = expr[1:-1].strip()
    return expr


def _balanced(expr: str) -> bool:
    depth = 0
    for ch in expr:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _leaf(expr: str) -> tuple[Callable[..., bool], tuple[str, ...]]:
    for pattern, fn in _COMPILED_LEAVES:
        match = pattern.fullmatch(expr)
        if match:
            return fn, match.groups()
    raise UnknownPredicate(expr)


def check_known(predicate: tuple, substitutions: tuple[tuple[str, str], ...] = ()) -> None:
    """Raises `UnknownPredicate` if some leaf of `predicate` has no Python meaning."""
    kind = predicate[0]
    if kind == "cpred":
        _leaf(_substituted(predicate[1], substitutions, variables=None)[0])
    elif kind == "subst":
        for child in predicate[3]:
            check_known(child, ((predicate[1], predicate[2]),) + substitutions)
    elif kind == "concat":
        if not _LAMBDA_PREFIX.fullmatch(predicate[1]) or predicate[2] not in _PROJECTIONS:
            raise UnknownPredicate(predicate[1] + "..." + predicate[2])
        for child in predicate[3]:
            check_known(child, substitutions)
    else:
        for child in predicate[1]:
            check_known(child, substitutions)


def _substituted(expr: str, substitutions, variables) -> tuple[str, str]:
    """`expr` after SubstLeaves (innermost first), with its one variable renamed to `$_self`."""
    for pattern, replacement in substitutions:
        expr = expr.replace(pattern, replacement)
    expr = _strip_parens(expr)
    if variables is None:
        return re.sub(r"\belementType\b", "$_self", expr), "$_self"
    for name in variables:
        if name != "$_self" and re.search(rf"(?<![\w$]){re.escape(name)}\b", expr):
            return re.sub(rf"(?<![\w$]){re.escape(name)}\b", "$_self", expr), name
    return expr, "$_self"


def evaluate(predicate: tuple, subject, variables=None, substitutions=()) -> bool:
    """Whether `subject` (an `ir.Type` or `ir.Attribute`) satisfies the ODS `predicate`."""
    variables = {"$_self": subject} if variables is None else variables
    kind = predicate[0]
    if kind == "cpred":
        expr, variable = _substituted(predicate[1], substitutions, variables)
        fn, groups = _leaf(expr)
        return bool(fn(variables[variable], *groups))
    if kind == "and":
        return all(evaluate(child, subject, variables, substitutions) for child in predicate[1])
    if kind == "or":
        return any(evaluate(child, subject, variables, substitutions) for child in predicate[1])
    if kind == "not":
        return not evaluate(predicate[1][0], subject, variables, substitutions)
    if kind == "subst":
        inner = ((predicate[1], predicate[2]),) + substitutions
        return all(evaluate(child, subject, variables, inner) for child in predicate[3])
    if kind == "concat":
        bound = _LAMBDA_PREFIX.fullmatch(predicate[1]).group(1)
        value = _PROJECTIONS[predicate[2]](variables["$_self"])
        inner_variables = {**variables, bound: value}
        return all(evaluate(child, subject, inner_variables, substitutions) for child in predicate[3])
    raise UnknownPredicate(kind)
