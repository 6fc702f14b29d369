"""HSA code objects for the kernels of a `linalg-to-rocdl` module.

LLVM IR, linked with ocml/ockl, -> Debian's llc (AMDGPU) -> an ELF relocatable object ->
`ld.lld -shared` -> the `.hsaco` shared object the HIP runtime loads (`hipModuleLoadData`).
"""

from __future__ import annotations

from pathlib import Path

from strata.gpu import device_libs, tools
from strata.gpu.llvm_ir import kernel_llvm_ir


def module_to_hsaco(module, chip: str) -> dict[str, bytes]:
    """An HSA code object for every gpu.module in a module lowered by linalg-to-rocdl."""
    llc = tools.require("llc", "generate AMDGCN code")
    lld = tools.require("ld.lld", "link an HSA code object")
    result = {}
    kernels = kernel_llvm_ir(module, "rocdl")
    libraries = device_libs.rocm_libraries()
    with tools.scratch_dir() as scratch:
        constants = Path(scratch) / "oclc.ll"
        constants.write_text(device_libs.oclc_constants(chip))
        for name, llvm_ir in kernels.items():
            source, linked, obj, hsaco = (Path(scratch) / f"{name}{s}" for s in (".ll", ".bc", ".o", ".hsaco"))
            source.write_text(llvm_ir)
            device_libs.link(source, [*libraries, constants], linked)
            tools.run([llc, "-march=amdgcn", f"-mcpu={chip}", "-O3", "-filetype=obj", str(linked), "-o", str(obj)], f"llc for {chip} on @{name}")
            tools.run([lld, "-shared", str(obj), "-o", str(hsaco)], f"ld.lld on @{name}")
            result[name] = hsaco.read_bytes()
    return result
