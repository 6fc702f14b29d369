"""The external LLVM and CUDA tools the GPU routes call, found once, run with errors kept.

torch-mlir's LLVM has no GPU back ends, so code generation runs Debian's LLVM 22 tools (`llc`,
`ld.lld`) and CUDA's `ptxas` as subprocesses; their failures become StrataErrors carrying the
tool's first error line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from strata.errors import StrataError

LLVM_BIN = Path("/usr/lib/llvm-22/bin")


def find(tool: str) -> str | None:
    """`tool` from Debian's LLVM 22 folder, else from PATH (also as `tool-22`)."""
    local = LLVM_BIN / tool
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which(tool) or shutil.which(f"{tool}-22")


def require(tool: str, why: str) -> str:
    path = find(tool)
    if path is None:
        raise StrataError(f"'{tool}' not found: it is needed to {why} (Debian: apt-get install llvm-22 lld-22; CUDA for ptxas)")
    return path


def run(argv: list[str], what: str) -> None:
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        lines = [l for l in (result.stderr + result.stdout).splitlines() if l.strip()]
        first = next((l for l in lines if "error" in l.lower()), lines[0] if lines else f"exit code {result.returncode}")
        raise StrataError(f"{what} failed: {first.strip()}")


def scratch_dir():
    """A private temporary folder (unique per call, removed afterwards)."""
    return tempfile.TemporaryDirectory(prefix="strata-gpu-")
