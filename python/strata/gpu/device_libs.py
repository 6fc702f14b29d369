"""The vendor math libraries kernels call into, found on this machine and linked as bitcode.

`convert-gpu-to-nvvm` and `convert-gpu-to-rocdl` lower `math.exp`, `math.rsqrt` and friends to
calls into CUDA's libdevice (`__nv_expf`) and ROCm's ocml (`__ocml_exp_f32`). Those are bitcode
libraries: `llvm-link --only-needed --internalize` pulls the functions a kernel uses into it
before code generation. libdevice comes with CUDA (next to ptxas); ocml and ockl come with
IREE's compiler wheel. ocml reads its configuration from `__oclc_*` constants that ROCm
normally supplies in further bitcode files; they are written out here for the chosen chip.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from strata.errors import StrataError
from strata.gpu import tools


def libdevice() -> Path:
    candidates = []
    ptxas = tools.find("ptxas")
    if ptxas:
        candidates.append(Path(os.path.realpath(ptxas)).parents[1] / "nvvm/libdevice/libdevice.10.bc")
    for root in filter(None, (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"))):
        candidates.append(Path(root) / "nvvm/libdevice/libdevice.10.bc")
    candidates += [Path(p) for p in sorted(glob.glob("/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc"))]
    for path in candidates:
        if path.is_file():
            return path
    raise StrataError("CUDA's libdevice.10.bc not found (looked next to ptxas, in $CUDA_HOME and /usr/local/cuda*)")


def rocm_libraries() -> list[Path]:
    import iree.compiler

    folder = Path(iree.compiler.__file__).parent / "_mlir_libs/iree_platform_libs/rocm"
    found = [folder / "ocml.bc", folder / "ockl.bc"]
    missing = [p.name for p in found if not p.is_file()]
    if missing:
        raise StrataError(f"ROCm device library {missing[0]} not found in {folder}")
    return found


def oclc_constants(chip: str) -> str:
    """LLVM IR defining the `__oclc_*` constants ocml reads, for `chip` (e.g. gfx942)."""
    digits = chip.removeprefix("gfx")
    if not digits.isalnum():
        raise StrataError(f"not an AMDGPU chip name: '{chip}'")
    major, minor, stepping = digits[:-2], int(digits[-2], 16), int(digits[-1], 16)
    isa_version = int(major) * 1000 + minor * 100 + stepping
    wave64 = 0 if chip.startswith("gfx1") and len(digits) == 4 else 1  # RDNA (gfx10/11/12) runs wave32
    values = {
        "__oclc_finite_only_opt": ("i8", 0),
        "__oclc_unsafe_math_opt": ("i8", 0),
        "__oclc_daz_opt": ("i8", 0),
        "__oclc_correctly_rounded_sqrt32": ("i8", 1),
        "__oclc_wavefrontsize64": ("i8", wave64),
        "__oclc_ISA_version": ("i32", isa_version),
        "__oclc_ABI_version": ("i32", 500),
    }
    lines = ['target triple = "amdgcn-amd-amdhsa"']
    lines += [
        f"@{name} = linkonce_odr hidden local_unnamed_addr addrspace(4) constant {ty} {value}, align {4 if ty == 'i32' else 1}"
        for name, (ty, value) in values.items()
    ]
    return "\n".join(lines) + "\n"


def link(source: Path, libraries: list[Path], output: Path) -> None:
    """`source` with the library functions it calls linked in and internalized, as bitcode."""
    llvm_link = tools.require("llvm-link", "link the vendor math library into the kernels")
    tools.run([llvm_link, str(source), "--only-needed", "--internalize", *map(str, libraries), "-o", str(output)], "llvm-link")
