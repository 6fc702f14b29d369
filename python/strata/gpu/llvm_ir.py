"""The kernels of a lowered module as LLVM IR, checked before translation.

After `linalg-to-nvvm` or `linalg-to-rocdl`, each `gpu.module` holds `llvm.func` kernels. MLIR's
translation to LLVM IR aborts the whole process (no exception) when it meets an op it cannot
translate, e.g. an `unrealized_conversion_cast` left behind on index arguments, so every op is
checked first and a leftover is reported as an error at its location instead.
"""

from __future__ import annotations

from torch_mlir._mlir_libs._mlir import ir

from strata import diagnostics
from strata.errors import StrataError

TRIPLES = {"nvvm": "nvptx64-nvidia-cuda", "rocdl": "amdgcn-amd-amdhsa"}


def gpu_modules(module) -> list:
    root = module.operation if hasattr(module, "operation") else module
    found = [op for op in root.regions[0].blocks[0].operations if op.operation.name == "gpu.module"]
    if not found:
        raise StrataError("the module has no gpu.module: run linalg-to-nvvm or linalg-to-rocdl first")
    return found


def _check_translatable(gpu_module, target: str) -> None:
    allowed = ("llvm", target)
    bad = []

    def visit(op):
        if op.name.split(".", 1)[0] not in allowed and op.name != "gpu.module" and op.name != "gpu.module_end":
            bad.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    for inner in gpu_module.regions[0].blocks[0].operations:
        inner.operation.walk(visit)
        if bad:
            op = bad[0]
            file, line, col = diagnostics.location_parts(op.location)
            where = f"{file}:{line}:{col}: " if line is not None else ""
            raise StrataError(
                f"{where}error: '{op.name}' was not lowered to the {target} and llvm dialects; "
                f"it cannot be translated to LLVM IR (kernel module @{_name(gpu_module)})"
            )


def _name(gpu_module) -> str:
    return ir.StringAttr(gpu_module.attributes["sym_name"]).value


def kernel_llvm_ir(module, target: str) -> dict[str, str]:
    """LLVM IR text of each gpu.module in `module`, by the gpu.module's name."""
    from torch_mlir.dialects import llvm

    texts = {}
    for gpu_module in gpu_modules(module):
        _check_translatable(gpu_module, target)
        context = gpu_module.context
        with context, ir.Location.unknown():
            kernels = ir.Module.create()
            kernels.operation.attributes["llvm.target_triple"] = ir.StringAttr.get(TRIPLES[target])
            for inner in gpu_module.regions[0].blocks[0].operations:
                inner.operation.clone(ir.InsertionPoint(kernels.body))
            texts[_name(gpu_module)] = str(llvm.translate_module_to_llvmir(kernels.operation))
    return texts
