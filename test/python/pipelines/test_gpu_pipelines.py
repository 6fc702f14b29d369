"""linalg-to-nvvm and linalg-to-rocdl on a matmul, a softmax and a layer norm from PyTorch.

The PTX must be accepted by `ptxas` for sm_80 and sm_90, and the rocdl output must link into a
gfx942 HSA code object. Nothing here launches a kernel: this machine has no GPU.
"""

import shutil

import pytest
import torch

from strata import pipelines
from strata.context import make_context
from strata.gpu import check_ptx, module_to_hsaco, module_to_ptx
from strata.gpu.tools import find
from strata.torch_import import import_torch
from torch_mlir._mlir_libs._mlir import ir


class Matmul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


MODELS = {
    "matmul": (Matmul(), (torch.randn(64, 96), torch.randn(96, 48))),
    "softmax": (torch.nn.Softmax(dim=-1), (torch.randn(8, 100),)),
    "layer_norm": (torch.nn.LayerNorm(80), (torch.randn(6, 80),)),
}


def _linalg(name):
    model, args = MODELS[name]
    imported = import_torch(model.eval(), args)
    module = ir.Module.parse(imported.operation.get_asm(enable_debug_info=True), make_context())
    pipelines.run(module, "torch-to-linalg")
    return module


@pytest.fixture(scope="module")
def linalg_text():
    return {name: str(_linalg(name)) for name in MODELS}


def _lowered(text, pipeline, chip):
    module = ir.Module.parse(text, make_context())
    pipelines.run(module, pipeline, options={"chip": chip})
    return module


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA) is not installed")
@pytest.mark.skipif(find("llc") is None, reason="Debian's llc-22 (NVPTX back end) is not installed")
@pytest.mark.parametrize("chip", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", list(MODELS))
def test_ptxas_accepts_the_kernels(linalg_text, name, chip):
    ptx = module_to_ptx(_lowered(linalg_text[name], "linalg-to-nvvm", chip), chip)
    assert ptx, "no kernels"
    for text in ptx.values():
        assert f".target {chip}" in text and ".entry" in text
        assert check_ptx(text, chip)[:4] == b"\x7fELF"


@pytest.mark.skipif(find("ld.lld") is None, reason="ld.lld (Debian lld-22) is not installed")
@pytest.mark.skipif(find("llc") is None, reason="Debian's llc-22 (AMDGPU back end) is not installed")
@pytest.mark.parametrize("name", list(MODELS))
def test_rocdl_kernels_link_into_gfx942_code_objects(linalg_text, name):
    objects = module_to_hsaco(_lowered(linalg_text[name], "linalg-to-rocdl", "gfx942"), "gfx942")
    assert objects, "no kernels"
    for blob in objects.values():
        assert blob[:4] == b"\x7fELF"
        assert int.from_bytes(blob[16:18], "little") == 3  # ET_DYN: a loadable shared object
        assert int.from_bytes(blob[18:20], "little") == 224  # EM_AMDGPU
        assert b"gfx942" in blob


def test_untranslatable_leftover_is_an_error_not_a_crash():
    from strata.errors import StrataError
    from strata.gpu.llvm_ir import kernel_llvm_ir

    text = """
    module attributes {gpu.container_module} {
      gpu.module @kernels {
        llvm.func @k(%arg0: i64) attributes {nvvm.kernel} {
          %0 = builtin.unrealized_conversion_cast %arg0 : i64 to index loc("model.py":3:0)
          llvm.return
        }
      }
    }
    """
    module = ir.Module.parse(text, make_context())
    with pytest.raises(StrataError, match=r"model.py:3:0: error: 'builtin.unrealized_conversion_cast' was not lowered"):
        kernel_llvm_ir(module, "nvvm")
