"""GPU code from the `linalg-to-nvvm` and `linalg-to-rocdl` pipelines: PTX and HSA code objects.

    module_to_ptx(module, "sm_90")      {gpu.module name: PTX text}; check_ptx runs ptxas on it
    module_to_hsaco(module, "gfx942")   {gpu.module name: HSA code object bytes}

The kernels are translated to LLVM IR in-process (after checking nothing untranslatable is left)
and compiled by Debian's LLVM 22 tools; see `strata.gpu.tools`.
"""

from strata.gpu.hsaco import module_to_hsaco
from strata.gpu.ptx import check_ptx, module_to_ptx

__all__ = ["check_ptx", "module_to_hsaco", "module_to_ptx"]
