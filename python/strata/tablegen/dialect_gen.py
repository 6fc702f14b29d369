"""Generates strata's dialect modules from the ODS in `dialects/*.td`.

For each `dialects/<name>.td` this writes, under `python/strata/dialects/`:
- `_<name>_ops_gen.py`: Python op builder classes from `mlir-tblgen -gen-python-op-bindings`;
- `_<name>_enum_gen.py`: Python enums and attribute builders from `-gen-python-enum-bindings`
  (only when the file declares enums);
- `_<name>_ods_gen.py`: the ODS facts strata needs at run time, as Python data: each op's operands,
  results and attributes with their constraints as predicate trees, its verifying traits and
  whether it declares a verifier. `strata.dialects` loads the dialect from these facts and enforces
  every constraint in them.

mlir-tblgen's Python output imports its helpers relatively (it expects to live inside an MLIR
package); the rewrite below points those imports at torch_mlir's bindings, which strata runs on.
"""

import pprint
import subprocess
from pathlib import Path

from strata.dialects.constraints import UnknownPredicate, check_known
from strata.errors import StrataError
from strata.resources import DIALECTS_DIR, ROOT
from strata.tablegen.records import dump_json, find_tool, include_args, resolve

OUTPUT_DIR = ROOT / "python" / "strata" / "dialects"

# Traits that constrain nothing a verifier can check (effects, speculation) or whose check is the
# operand/result structure that the IRDL definition already enforces.
_STRUCTURAL_TRAITS = {
    "Pure",
    "AlwaysSpeculatable",
    "NoMemoryEffect",
    "AttrSizedOperandSegments",
}

_IMPORT_REWRITES = (
    ("from ._ods_common import", "from torch_mlir.dialects._ods_common import"),
    ("from ..ir import", "from torch_mlir.ir import"),
)


def _mlir_tblgen(td_file: Path, generator: str, dialect: str) -> str:
    result = subprocess.run(
        [find_tool("mlir-tblgen"), generator, f"-bind-dialect={dialect}", *include_args(), str(td_file)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise StrataError(f"mlir-tblgen {generator} failed on {td_file}:\n{result.stderr.strip()}")
    text = result.stdout
    for old, new in _IMPORT_REWRITES:
        text = text.replace(old, new)
    return text


def _predicate(records: dict, ref) -> tuple:
    """A TableGen `Pred` as a tree of tuples: ("cpred", expr) or (combiner, ..., children)."""
    record = resolve(records, ref)
    superclasses = record["!superclasses"]
    if "CPred" in superclasses:
        return ("cpred", " ".join(record["predExpr"].split()))
    if "CombinedPred" not in superclasses:
        raise StrataError(f"predicate {record['!name']} is neither a CPred nor a CombinedPred")
    kind = record["kind"]["def"]
    children = tuple(_predicate(records, child) for child in record["children"])
    if kind == "PredCombinerAnd":
        return ("and", children)
    if kind == "PredCombinerOr":
        return ("or", children)
    if kind == "PredCombinerNot":
        return ("not", children)
    if kind == "PredCombinerSubstLeaves":
        return ("subst", record["pattern"], record["replacement"], children)
    if kind == "PredCombinerConcat":
        return ("concat", record["prefix"], record["suffix"], children)
    raise StrataError(f"predicate combiner {kind} is not one strata knows")


def _constraint(records: dict, constraints: dict, ref) -> str:
    """Records the constraint `ref` (unwrapping Optional/Variadic/OptionalAttr) and returns its key."""
    record = resolve(records, ref)
    for wrapped in ("baseType", "baseAttr"):
        if wrapped in record and record[wrapped] and not record["!superclasses"][-1].startswith("Confined"):
            if {"Optional", "Variadic", "OptionalAttr", "DefaultValuedAttr"} & set(record["!superclasses"]):
                return _constraint(records, constraints, record[wrapped])
    key = record["!name"]
    if key not in constraints:
        predicate = record["predicate"]
        if "EnumAttrInfo" in record["!superclasses"] and record["genSpecializedAttr"]:
            # The predicate is `isa<SpecializedAttr>`, whose classof is the predicate of the
            # underlying integer attribute class (signless iN with one of the cases' values).
            predicate = resolve(records, record["baseAttrClass"])["predicate"]
        tree = _predicate(records, predicate)
        try:
            check_known(tree)
        except UnknownPredicate as error:
            raise StrataError(
                f"constraint {key} ({record['summary']}) uses the C++ predicate '{error}', which "
                "strata cannot check at run time: add its meaning to strata/dialects/constraints.py"
            ) from None
        constraints[key] = {"summary": record["summary"], "predicate": tree}
    return key


def _operand(records: dict, constraints: dict, ref, name: str) -> dict:
    superclasses = resolve(records, ref)["!superclasses"]
    if "Variadic" in superclasses:
        variadicity = "variadic"
    elif "Optional" in superclasses:
        variadicity = "optional"
    else:
        variadicity = "single"
    return {"name": name, "variadicity": variadicity, "constraint": _constraint(records, constraints, ref)}


def _attribute(records: dict, constraints: dict, ref, name: str) -> dict:
    record = resolve(records, ref)
    optional = bool(record.get("isOptional")) or bool(record.get("defaultValue"))
    return {"name": name, "optional": optional, "constraint": _constraint(records, constraints, ref)}


def _trait(records: dict, ref, op_name: str):
    record = resolve(records, ref)
    name = record["!name"]
    superclasses = record["!superclasses"]
    if name in _STRUCTURAL_TRAITS or "MemoryEffects" in superclasses:
        return []
    if name == "SameOperandsAndResultType":
        return [{"kind": "same_operands_and_result_type"}]
    if "AllTypesMatch" in superclasses:
        return [{"kind": "all_types_match", "values": record["values"], "summary": record["summary"]}]
    if "AllElementTypesMatch" in superclasses:
        return [{"kind": "all_element_types_match", "values": record["values"], "summary": record["summary"]}]
    if "TraitList" in superclasses:
        return [t for sub in record["traits"] for t in _trait(records, sub, op_name)]
    raise StrataError(f"{op_name}: trait {name} is not one strata enforces; add it to dialect_gen")


def _is_pure(records: dict, ref) -> bool:
    """Whether a trait makes the op free of memory effects (so an unused one may be erased)."""
    record = resolve(records, ref)
    if record["!name"] in ("Pure", "NoMemoryEffect"):
        return True
    return "TraitList" in record["!superclasses"] and any(_is_pure(records, t) for t in record["traits"])


def _dag_args(dag: dict) -> list[tuple]:
    return [(arg, name) for arg, name in dag["args"]]


def collect_dialect(td_file: Path) -> dict:
    """The run-time facts of the dialect declared in `td_file`."""
    records = dump_json(td_file)
    dialects = [
        records[name]
        for name in records["!instanceof"].get("Dialect", [])
        if Path(records[name]["!locs"][0].rsplit(":", 1)[0]).name == td_file.name
    ]
    if len(dialects) != 1:
        raise StrataError(f"{td_file}: expected exactly one Dialect definition, found {len(dialects)}")
    dialect = dialects[0]
    ops, constraints = {}, {}
    for name in records["!instanceof"].get("Op", []):
        record = records[name]
        if record["opDialect"]["def"] != dialect["!name"]:
            continue
        op_name = f"{dialect['name']}.{record['opName']}"
        operands, attributes = [], []
        for arg, arg_name in _dag_args(record["arguments"]):
            arg_record = resolve(records, arg)
            if "TypeConstraint" in arg_record["!superclasses"]:
                operands.append(_operand(records, constraints, arg, arg_name))
            elif "Attr" in arg_record["!superclasses"]:
                attributes.append(_attribute(records, constraints, arg, arg_name))
            else:
                raise StrataError(f"{op_name}: argument ${arg_name} is neither an operand nor an attribute")
        if record["regions"]["args"] or record["successors"]["args"]:
            raise StrataError(f"{op_name}: regions and successors are not supported by strata's loader")
        ops[op_name] = {
            "summary": record["summary"],
            "operands": operands,
            "results": [_operand(records, constraints, arg, n) for arg, n in _dag_args(record["results"])],
            "attributes": attributes,
            "traits": [t for ref in record["traits"] for t in _trait(records, ref, op_name)],
            "has_verifier": bool(record["hasVerifier"]),
            "pure": any(_is_pure(records, ref) for ref in record["traits"]),
        }
    return {
        "name": dialect["name"],
        "summary": dialect["summary"],
        "ops": dict(sorted(ops.items())),
        "constraints": dict(sorted(constraints.items())),
    }


def _ods_module(td_file: Path, dialect: dict) -> str:
    rel = td_file.relative_to(ROOT)
    return (
        f'"""Run-time facts of the `{dialect["name"]}` dialect, generated from {rel}.\n\n'
        f"Do not edit: run `strata-tblgen` after changing the .td file.\n"
        f'"""\n\nDIALECT = {pprint.pformat(dialect, width=120, sort_dicts=False)}\n'
    )


def generate() -> dict[Path, str]:
    """Every generated dialect module, keyed by its path."""
    outputs: dict[Path, str] = {}
    for td_file in sorted(DIALECTS_DIR.glob("*.td")):
        dialect = collect_dialect(td_file)
        name = dialect["name"]
        outputs[OUTPUT_DIR / f"_{name}_ops_gen.py"] = _mlir_tblgen(td_file, "-gen-python-op-bindings", name)
        enums = _mlir_tblgen(td_file, "-gen-python-enum-bindings", name)
        if "class " in enums:
            outputs[OUTPUT_DIR / f"_{name}_enum_gen.py"] = enums
        outputs[OUTPUT_DIR / f"_{name}_ods_gen.py"] = _ods_module(td_file, dialect)
    return outputs
