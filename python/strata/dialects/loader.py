"""Makes strata's ODS-defined dialects known to an MLIR context at run time, through IRDL.

strata ships no C++, so its dialects cannot be registered the way mlir-tblgen's C++ output would
be. IRDL can define dialects at run time; the definition below is built from the generated ODS
facts (`_<dialect>_ods_gen.py`) and declares each op with its named operands (single, optional or
variadic) and results. That makes the ops parse, print and verify their operand structure
(including `operandSegmentSizes`) natively, and rejects unknown op names in the dialect. Types and
attributes are declared `irdl.any` here: IRDL's C++ predicates are not checked at run time and it
has no optional attributes, so `strata.dialects.verification` enforces those constraints instead.
"""

from torch_mlir import passmanager
from torch_mlir._mlir_libs._mlir import ir  # native modules: the Python wrappers import numpy,
from torch_mlir._mlir_libs._mlirDialectsIRDL import load_dialects as load_irdl  # ~0.1 s a start

from strata.dialects.specs import DIALECTS


def _irdl_values(prefix: str, values: list[dict]) -> tuple[list[str], str]:
    lines = [f"%{prefix}{i} = irdl.any" for i in range(len(values))]
    decls = ", ".join(
        f"{v['name']}: {'' if v['variadicity'] == 'single' else v['variadicity'] + ' '}%{prefix}{i}"
        for i, v in enumerate(values)
    )
    return lines, decls


def irdl_text() -> str:
    """The IRDL module that defines every strata dialect."""
    out = []
    for dialect in DIALECTS.values():
        out.append(f"irdl.dialect @{dialect['name']} {{")
        for op_name, op in dialect["ops"].items():
            out.append(f"  irdl.operation @{op_name.split('.', 1)[1]} {{")
            operand_lines, operands = _irdl_values("operand", op["operands"])
            result_lines, results = _irdl_values("result", op["results"])
            out.extend("    " + line for line in operand_lines + result_lines)
            out.append(f"    irdl.operands({operands})")
            out.append(f"    irdl.results({results})")
            out.append("  }")
        out.append("}")
    return "\n".join(out) + "\n"


def _load_torch_conversion(context: ir.Context) -> None:
    """Loads `torch_c`, whose casts connect strata ops (builtin tensors) to torch-dialect values.

    torch-mlir's Python module registers only the torch dialect; `torch_c` is loaded as a
    dependency of its conversion passes, so running one on an empty module loads it.
    """
    if not context.is_registered_operation("torch_c.to_builtin_tensor"):
        passmanager.PassManager.parse("builtin.module(func.func(convert-torch-to-linalg))").run(
            ir.Module.create().operation
        )


def load_dialects(context: ir.Context) -> None:
    """Defines the `strata` and `probe` dialects in `context` (and loads `torch_c`)."""
    with context, ir.Location.unknown():
        load_irdl(ir.Module.parse(irdl_text()))
        _load_torch_conversion(context)
