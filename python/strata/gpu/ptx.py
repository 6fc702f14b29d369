"""PTX for the kernels of a `linalg-to-nvvm` module: LLVM IR, linked with libdevice, -> Debian's
llc (NVPTX) -> PTX.

`check_ptx` assembles PTX with CUDA's `ptxas` for the same chip, which is how the tests show that
the PTX is valid for the GPU it names.
"""

from __future__ import annotations

from pathlib import Path

from strata.gpu import device_libs, tools
from strata.gpu.llvm_ir import kernel_llvm_ir


def module_to_ptx(module, chip: str) -> dict[str, str]:
    """PTX text of every gpu.module in a module lowered by linalg-to-nvvm, by module name."""
    llc = tools.require("llc", "generate PTX")
    result = {}
    kernels = kernel_llvm_ir(module, "nvvm")
    math_library = device_libs.libdevice()
    with tools.scratch_dir() as scratch:
        for name, llvm_ir in kernels.items():
            source, linked, ptx = (Path(scratch) / f"{name}{suffix}" for suffix in (".ll", ".bc", ".ptx"))
            source.write_text(llvm_ir)
            device_libs.link(source, [math_library], linked)
            tools.run([llc, "-march=nvptx64", f"-mcpu={chip}", "-O3", str(linked), "-o", str(ptx)], f"llc for {chip} on @{name}")
            result[name] = ptx.read_text()
    return result


def check_ptx(ptx: str, chip: str) -> bytes:
    """The cubin `ptxas -arch=chip` makes of `ptx`; raises StrataError if ptxas rejects it."""
    ptxas = tools.require("ptxas", "assemble PTX")
    with tools.scratch_dir() as scratch:
        source, cubin = Path(scratch) / "kernels.ptx", Path(scratch) / "kernels.cubin"
        source.write_text(ptx)
        tools.run([ptxas, f"-arch={chip}", str(source), "-o", str(cubin)], f"ptxas -arch={chip}")
        return cubin.read_bytes()
