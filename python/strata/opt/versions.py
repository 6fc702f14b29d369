"""`--version`: strata, the MLIR/LLVM inside torch-mlir, torch-mlir, IREE and torch versions."""

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import strata


def _llvm_version() -> str:
    tool = Path(sys.executable).with_name("torch-mlir-opt")
    try:
        out = subprocess.run([str(tool), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    m = re.search(r"LLVM version (\S+)", out)
    return m.group(1) if m else "unknown"


def _dist(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def version_text() -> str:
    return "\n".join(
        [
            f"strata {strata.__version__}",
            f"  MLIR/LLVM (torch-mlir bindings): {_llvm_version()}",
            f"  torch-mlir: {_dist('torch-mlir')}",
            f"  iree-base-compiler: {_dist('iree-base-compiler')}",
            f"  iree-base-runtime: {_dist('iree-base-runtime')}",
            f"  torch: {_dist('torch')}",
        ]
    )
