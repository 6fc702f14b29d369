"""strata's Python API: `strata.compile(model, example_args, target=...)` and `strata.load(path)`.

A compiled model is callable like the original (torch tensors or numpy arrays in, torch tensors
out) and saves to a `.vmfb` that `strata.load` and `strata-run` read back. The IREE route is the
default; `route="upstream"` hands the model to `strata.upstream` (upstream MLIR passes and the
ExecutionEngine) with the same options.
"""

import functools
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from strata.atomic_output import write_bytes_atomic
from strata.errors import StrataError
from strata.compile_stages import RAISE_BY_DEFAULT, StageOptions, run_stages
from strata.iree_compile import CompileOptions
from strata.iree_runtime import LoadedModule, check_loads_without_crashing
from strata.parameters import ParameterExternalizer
from strata.targets import get_target
from strata.torch_import import DynamicDim, import_torch

ROUTES = ("iree", "upstream")
# torch.export keeps process-wide state (the mode stack, the module hierarchy being exported), so
# two threads exporting at once break each other. Only the export and FX import hold this lock;
# iree-compile runs in a subprocess, so the long part of compiles still runs in parallel.
_EXPORT_LOCK = threading.Lock()


def _to_numpy(value) -> np.ndarray:
    import torch

    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bfloat16:
            raise StrataError("bfloat16 inputs are not supported yet: numpy, strata's bridge to IREE, has no bfloat16")
        return value.detach().cpu().contiguous().numpy()
    if isinstance(value, np.ndarray):
        return value
    raise StrataError(f"expected a torch tensor or numpy array, got {type(value).__name__}")


@dataclass
class CompiledModel:
    """An IREE module for a device, callable with the model's inputs.

    The module is loaded on the device at the first call, so a model compiled for a GPU this
    machine lacks can still be saved (`strata.compile(m, args, target="cuda").save("m.vmfb")`).
    """

    vmfb: bytes
    device: str
    parameters: tuple[Path, ...] = ()
    function_name: str = "main"

    @functools.cached_property
    def function(self):
        return LoadedModule(self.vmfb, self.device, self.parameters).function(self.function_name)

    @property
    def inputs(self):
        return self.function.inputs

    def run_numpy(self, *arrays: np.ndarray) -> list[np.ndarray]:
        return self.function(*arrays)

    def __call__(self, *args):
        import torch

        results = [torch.from_numpy(r) for r in self.function(*map(_to_numpy, args))]
        return results[0] if len(results) == 1 else tuple(results)

    def save(self, path) -> None:
        write_bytes_atomic(path, self.vmfb)


def compile(
    model,
    example_args=(),
    target: str = "llvm-cpu",
    *,
    route: str = "iree",
    chip: str | None = None,
    device: str | None = None,
    dynamic_dims=(),
    tuned: bool = True,
    params=None,
    raise_torch: bool = RAISE_BY_DEFAULT,
    **options,
):
    """Compile `model` (an `nn.Module` or `ExportedProgram`) for `target`; returns a callable.

    `dynamic_dims` takes `DynamicDim`s or their `NAME=ARG:DIM` text; `params` names an `.irpa`
    file to move the weights into (the compiled model then reads them from there); `raise_torch`
    sends the model through strata's dialect and linalg before IREE (see `compile_stages`).
    """
    if route == "upstream":
        from strata import upstream

        return upstream.compile(model, example_args, target=target, chip=chip, dynamic_dims=dynamic_dims, **options)
    if route != "iree":
        raise StrataError(f"unknown route '{route}' (known: {', '.join(ROUTES)})")
    if options:
        raise StrataError(f"unknown option(s) for the IREE route: {', '.join(sorted(options))}")
    if params and raise_torch:
        raise StrataError("params= does not combine with raise_torch=True yet: Torch-MLIR's linalg pipeline rejects the parameter globals")
    dims = [d if isinstance(d, DynamicDim) else DynamicDim.parse(d) for d in dynamic_dims]
    compile_options = CompileOptions(target=target, chip=chip, tuned=tuned)
    compile_options.resolved_target().chip(chip)  # fail on a bad target or chip before importing
    externalizer = ParameterExternalizer(named_tensors=_named_tensors(model)) if params else None
    with _EXPORT_LOCK:
        module = import_torch(model, tuple(example_args), dims, hooks=externalizer)
    vmfb = run_stages(module, compile_options, StageOptions(raise_torch=raise_torch, tuned_passes=not params))
    if externalizer:
        externalizer.save(params)
    runtime_device = device or get_target(target).runtime_device
    return CompiledModel(vmfb, runtime_device, (Path(params),) if params else ())


def _named_tensors(model):
    state = model.state_dict() if hasattr(model, "state_dict") else {}
    return list(state.items()) + list(getattr(model, "constants", {}).items())


def load(path, device: str = "local-task", parameters=()) -> CompiledModel:
    """A saved `.vmfb` (from `CompiledModel.save` or strata-compile) loaded on `device`."""
    path = Path(path)
    if not path.is_file():
        raise StrataError(f"cannot read '{path}': no such file")
    model = CompiledModel(path.read_bytes(), device, tuple(Path(p) for p in parameters))
    check_loads_without_crashing(model.vmfb, [p for p in model.parameters if p.is_file()], str(path))
    model.function  # noqa: B018  (load now: a damaged file, a bad device or a missing archive fails here, not at the first call)
    return model
