"""The zoo models compile for CUDA (sm_80, sm_90) and ROCm (gfx942); --audit finds each
target's matrix instructions in an f16 matmul. No GPU is needed: these check the compiler side.
Every zoo model is compiled for every chip (about 5 s per model and chip on two cores).
"""

import re

import pytest
import torch

from strata.dispatch_audit import audit_dispatches
from strata.iree_compile import CompileOptions, compile_torch_module
from strata.targets import get_target
from strata.torch_import import import_torch

GPU_CHIPS = [("cuda", "sm_80"), ("cuda", "sm_90"), ("rocm", "gfx942")]


@pytest.mark.parametrize("target,chip", GPU_CHIPS)
@pytest.mark.parametrize("name", ["transformer", "mlp", "cnn", "gpt2", "llama", "mlp-dynamic-batch"])
def test_model_compiles_for_gpu(name, target, chip, compiled):
    import iree.runtime as rt

    module = rt.VmModule.copy_buffer(rt.VmInstance(), compiled(name, target, chip))  # parses without a GPU
    assert "main" in module.function_names


class MatmulF16(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


@pytest.fixture(scope="session")
def matmul_f16():
    a = torch.randn(256, 256, dtype=torch.float16)
    return import_torch(MatmulF16(), (a, a))


@pytest.mark.parametrize(
    "target,chip,matrix_class",
    [("rocm", "gfx942", "mfma"), ("cuda", "sm_80", "mma"), ("cuda", "sm_90", "mma"), ("llvm-cpu", "host", "fma")],
)
def test_audit_finds_matrix_instructions(target, chip, matrix_class, matmul_f16, tmp_path):
    compile_torch_module(matmul_f16, CompileOptions(target=target, chip=chip, dump_dir=tmp_path))
    rows = audit_dispatches(tmp_path / "dispatches", get_target(target))
    assert sum(row.counts[matrix_class] for row in rows) > 0
    if target == "cuda":
        ptx = "\n".join(p.read_text() for p in (tmp_path / "dispatches").glob("*.ptx"))
        assert set(re.findall(r"^\.target (\w+)", ptx, re.MULTILINE)) == {chip}


def _cuda_device_arch() -> str | None:
    """The compute capability of the first CUDA device as `sm_XY`, or None without one."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    major, minor, device = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return None
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device)  # COMPUTE_CAPABILITY_MAJOR
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)  # COMPUTE_CAPABILITY_MINOR
    return f"sm_{major.value}{minor.value}"


def test_transformer_runs_on_the_cuda_device(compiled, zoo):
    """On a machine with an NVIDIA GPU: the transformer's CUDA module matches eager."""
    import numpy as np

    from strata.iree_runtime import LoadedModule

    arch = _cuda_device_arch()
    if arch is None:
        pytest.skip("no CUDA device on this machine")
    chip = "sm_90" if arch.startswith("sm_9") else "sm_80"
    model, inputs, _ = zoo("transformer")
    (result,) = LoadedModule(compiled("transformer", "cuda", chip), "cuda").function("main")(inputs[0].numpy())
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*inputs).numpy(), rtol=1e-4, atol=1e-4)
