"""TableGen records of a `.td` file, read through `llvm-tblgen --dump-json`.

Using LLVM's own TableGen front end (rather than a hand-written parser) means every `.td` feature,
`include` and `let` resolves exactly as `mlir-tblgen` would resolve it.
"""

import json
import shutil
import subprocess
from pathlib import Path

from strata.errors import StrataError
from strata.resources import ROOT

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
MLIR_INCLUDE = Path("/usr/lib/llvm-22/include")


def find_tool(name: str) -> str:
    candidate = LLVM_BIN / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name) or shutil.which(f"{name}-22")
    if not found:
        raise StrataError(f"'{name}' not found: install Debian's mlir-22-tools and llvm-22")
    return found


def include_args() -> list[str]:
    if not (MLIR_INCLUDE / "mlir" / "IR" / "OpBase.td").exists():
        raise StrataError(f"MLIR's .td includes are missing in {MLIR_INCLUDE}: install libmlir-22-dev")
    return ["-I", str(MLIR_INCLUDE), "-I", str(ROOT / "dialects"), "-I", str(ROOT / "passes")]


def dump_json(td_file: Path) -> dict:
    """All records of `td_file` (and what it includes), keyed by record name."""
    result = subprocess.run(
        [find_tool("llvm-tblgen"), "--dump-json", *include_args(), str(td_file)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise StrataError(f"llvm-tblgen failed on {td_file}:\n{result.stderr.strip()}")
    return json.loads(result.stdout)


def resolve(records: dict, value):
    """Follows a `{'kind': 'def', 'def': NAME}` reference to the record it names."""
    if isinstance(value, dict) and value.get("kind") == "def":
        return records[value["def"]]
    return value
