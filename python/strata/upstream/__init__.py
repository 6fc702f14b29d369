"""The upstream route: a PyTorch model through strata's own pipelines, run by the ExecutionEngine.

    compiled = strata.upstream.compile(model, (x,))      # or strata.compile(..., route="upstream")
    y = compiled(x)                                       # torch tensors or numpy arrays in

The model is imported with torch.export and the FX importer, lowered by `torch-to-linalg` and
`linalg-to-llvm` (`pipelines/`), JIT-compiled in-process for the host CPU, and called through
MLIR's memref C interface. Results are torch tensors that own their memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from strata.errors import StrataError
from strata.upstream.engine import JitFunction
from strata.upstream.memref import DTYPES, TensorType

__all__ = ["DEFAULT_LINALG_ROUTE", "UpstreamModel", "compile", "compile_linalg", "function_types"]

# How torch ops reach linalg by default (torch-to-linalg's `route` option), chosen by measurement: the
# tosa route folds the transposes of constant weights at compile time (TOSA's constant folding),
# so matmuls read weights row-major, while raised strata.linear ops keep a transposed weight that
# the CPU kernels read column by column. Medians on the 2-core EPYC, loaded machine, 2026-11-29:
# MLP 512-2048-512 batch 8: tosa 0.71 ms, strata 3.2 ms, torch-mlir 14.2 ms; encoder layer
# d=256 x 128 tokens: tosa 9.0 ms, strata 33 ms; LLaMA block d=256: tosa 44 ms, strata 63 ms.
DEFAULT_LINALG_ROUTE = "tosa"


def function_types(module, name: str = "main") -> tuple[tuple[TensorType, ...], tuple[TensorType, ...]]:
    """Argument and result types of tensor (or memref) function `name` in a builtin module."""
    from torch_mlir._mlir_libs._mlir import ir

    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            return tuple(map(_tensor_type, ftype.inputs)), tuple(map(_tensor_type, ftype.results))
    raise StrataError(f"the module has no function '@{name}'")


def _tensor_type(type_) -> TensorType:
    from torch_mlir._mlir_libs._mlir import ir

    if not isinstance(type_, ir.ShapedType) or not type_.has_rank:
        raise StrataError(f"unsupported function boundary type {type_}: the upstream route passes ranked tensors only")
    shaped = type_
    element = str(shaped.element_type)
    if element not in DTYPES:
        raise StrataError(f"unsupported element type {element} at the function boundary (supported: {', '.join(DTYPES)})")
    shape = tuple(None if shaped.is_dynamic_dim(i) else shaped.get_dim_size(i) for i in range(shaped.rank))
    return TensorType(shape, element)


@dataclass
class UpstreamModel:
    """A model compiled through `linalg-to-llvm`, callable like the IREE route's CompiledModel."""

    function: JitFunction
    route: str = "upstream"

    @property
    def inputs(self) -> tuple[TensorType, ...]:
        return self.function.inputs

    def run_numpy(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return self.function(*arrays)

    def __call__(self, *args):
        import torch

        arrays = [a.detach().cpu().numpy() if isinstance(a, torch.Tensor) else np.asarray(a) for a in args]
        results = [torch.from_numpy(r) for r in self.function(*arrays)]
        return results[0] if len(results) == 1 else tuple(results)


# LLVM's OpenMP runtime, which the `openmp` stage of linalg-to-llvm calls (`__kmpc_fork_call`);
# its ABI is stable across LLVM releases, so Debian's libomp5 serves torch-mlir's LLVM.
LIBOMP_CANDIDATES = ("/usr/lib/x86_64-linux-gnu/libomp.so.5", "/usr/lib/llvm-22/lib/libomp.so.5", "/usr/lib/llvm-14/lib/libomp.so.5")


def libomp() -> str | None:
    import os

    return next((p for p in LIBOMP_CANDIDATES if os.path.isfile(p)), None)


def compile_linalg(module, *, name: str = "main", dump_dir=None, on_stage=None, opt_level: int = 3, threads: bool = True) -> UpstreamModel:
    """A linalg-on-tensors module (lowered in place) compiled by the ExecutionEngine.

    With `threads` and libomp installed, contractions run their row blocks on OpenMP threads
    (OMP_NUM_THREADS caps them); otherwise everything runs in the calling thread.
    """
    from strata import pipelines

    inputs, results = function_types(module, name)
    runtime = libomp() if threads else None
    options = {"parallel": "openmp" if runtime else "none"}
    pipelines.run(module, "linalg-to-llvm", options=options, dump_dir=dump_dir, on_stage=on_stage)
    return UpstreamModel(JitFunction(module, name, inputs, results, opt_level=opt_level, shared_libs=(runtime,) if runtime else ()))


def compile(
    model,
    example_args=(),
    target: str = "llvm-cpu",
    *,
    chip: str | None = None,
    dynamic_dims=(),
    linalg_route: str = DEFAULT_LINALG_ROUTE,
    dump_dir=None,
    on_stage=None,
    threads: bool = True,
) -> UpstreamModel:
    """Import `model` (an `nn.Module` or `ExportedProgram`) and compile it for the host CPU.

    `linalg_route` picks how torch ops reach linalg (`torch-to-linalg`'s `route` option: tosa,
    strata, torch-mlir; see DEFAULT_LINALG_ROUTE; `strata.compile(..., route="upstream",
    linalg_route=...)` passes it through); `dump_dir` receives every stage's IR, one folder per pipeline.
    """
    from strata import pipelines
    from strata.context import make_context
    from strata.torch_import import DynamicDim, import_torch
    from torch_mlir._mlir_libs._mlir import ir

    if target != "llvm-cpu" or chip is not None:
        raise StrataError(f"the upstream route compiles for the host CPU only (target llvm-cpu, no chip), not '{target}'")
    dims = [d if isinstance(d, DynamicDim) else DynamicDim.parse(d) for d in dynamic_dims]
    imported = import_torch(model, tuple(example_args), dims)
    with make_context() as context:
        module = ir.Module.parse(_bytecode(imported), context)
        pipelines.run(module, "torch-to-linalg", options={"route": linalg_route}, dump_dir=_sub(dump_dir, "1-torch-to-linalg"), on_stage=on_stage)
        return compile_linalg(module, dump_dir=_sub(dump_dir, "2-linalg-to-llvm"), on_stage=on_stage, threads=threads)


def _bytecode(module) -> bytes:
    import io

    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _sub(dump_dir, name: str):
    from pathlib import Path

    return None if dump_dir is None else Path(dump_dir) / name
