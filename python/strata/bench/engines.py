"""The engines strata-bench compares, each turning (PyTorch module, example inputs) into a call.

Every engine's `prepare` does all the work a deployment does once (export, compile, load) and
returns the call a user of that engine makes: host tensors or arrays in, host arrays out (the IREE
engines copy inputs to the device and results back inside the call, eager and ONNX Runtime read
host memory directly); the runner times that call. Engines of one `family` are variants of the
same compiler; a "peer" of an engine is an engine of another family.

- eager: the module under `torch.no_grad()` in eval mode.
- inductor: `torch.compile(backend="inductor")` with `compile_threads=1` (no pool of compile
  workers; the C++ compiler still runs as a child process) and on-disk caches off, so its compile
  time is a cold compile like everyone else's; it compiles lazily on the first call.
- onnxruntime: `torch.onnx.export(dynamo=True)` then an ORT CPU session with the same threads.
- iree: what an iree-turbine user gets: Torch-MLIR's FX importer to the torch dialect, then
  `iree-compile` with default flags for the host CPU, run on IREE's local-task driver.
- strata: `strata.compile` for llvm-cpu with its tuned target defaults (`targets/llvm-cpu.toml`),
  run on local-task, or on local-sync under `--threads 1`.
- strata-raised: the same with `raise_torch=True` (strata-raise-torch, then strata's dialect to
  linalg), on the cases tagged "raising" (the LLaMA block); raising is opt-in in `strata.compile`.
- upstream: `strata.compile(route="upstream")`, strata's upstream-MLIR CPU route, where it
  compiles the case.
- numpy: the case's numpy implementation (BLAS), for kernels that have one.
"""

import contextlib
import functools
import importlib.util
import io
import logging
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

IREE_HOST_FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)


@dataclass(frozen=True)
class Engine:
    name: str
    family: str
    prepare: Callable  # (case, model, args, threads) -> () -> list[np.ndarray]
    applies: Callable = lambda case: True
    requires: tuple[str, ...] = ()  # modules that must be importable for the engine to exist

    def available(self) -> bool:
        return all(_importable(module) for module in self.requires)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def to_numpy_list(outputs) -> list[np.ndarray]:
    """Flattens a model's result (tensor, tuple or list of them) into host numpy arrays."""
    import torch

    if isinstance(outputs, (tuple, list)):
        return [a for o in outputs for a in to_numpy_list(o)]
    if isinstance(outputs, torch.Tensor):
        return [outputs.detach().numpy()]
    if hasattr(outputs, "to_host"):
        return [outputs.to_host()]
    return [np.asarray(outputs)]


def _eager(case, model, args, threads):
    import torch

    def run():
        with torch.no_grad():
            return to_numpy_list(model(*args))

    return run


def _inductor(case, model, args, threads):
    import torch
    import torch._inductor.config as inductor_config

    inductor_config.compile_threads = 1
    inductor_config.fx_graph_cache = False
    inductor_config.autotune_local_cache = False
    compiled = torch.compile(model, backend="inductor")

    def run():
        with torch.no_grad():
            return to_numpy_list(compiled(*args))

    return run


@contextlib.contextmanager
def _quiet():
    """Silences the exporter's progress lines, logged warnings and Python warnings."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def _onnxruntime(case, model, args, threads):
    import onnxruntime
    import torch

    with _quiet(), torch.no_grad():
        program = torch.onnx.export(model, args, dynamo=True, verbose=False)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle ORT workers spin by default; in an interleaved run that would steal the cores from the
    # engine timed next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(
        program.model_proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    feed = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}

    def run():
        return session.run(None, feed)

    return run


@functools.cache
def iree_config(threads: int):
    """The local-task device every IREE-based engine shares, with `threads` worker threads.

    IREE reads its task-topology flags when the driver is first created, so the first thread count
    asked for in a process is the one it keeps.
    """
    import iree.runtime as rt

    rt.flags.parse_flags(f"--task_topology_group_count={threads}")
    return rt.Config("local-task")


def _iree(case, model, args, threads):
    import iree.compiler
    import iree.runtime as rt
    from torch_mlir import fx

    with _quiet():
        torch_ir = fx.export_and_import(model, *args, output_type="torch")
    vmfb = iree.compiler.compile_str(str(torch_ir), input_type="torch", extra_args=list(IREE_HOST_FLAGS))
    config = iree_config(threads)
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
    entry = context.modules.module["main"]
    arrays = [a.numpy() for a in args]

    def run():
        return to_numpy_list(entry(*arrays))

    return run


def _strata(case, model, args, threads, *, raise_torch: bool = False):
    import strata.api

    # With one thread, local-sync runs the dispatches in the calling thread; local-task hands every
    # call to a worker thread and back, ~110 us a call on these machines (an `x + 1` model: 135 us
    # on local-task, 22 us on local-sync). With more threads local-task is what spreads the work.
    device = "local-sync" if threads == 1 else None
    iree_config(threads)  # the worker count, before strata's local-task device is created
    compiled = strata.api.compile(model, args, target="llvm-cpu", device=device, raise_torch=raise_torch)
    arrays = [a.numpy() for a in args]

    def run():
        return compiled.run_numpy(*arrays)

    return run


def _upstream(case, model, args, threads):
    import strata.api

    compiled = strata.api.compile(model, args, target="llvm-cpu", route="upstream")

    def run():
        return to_numpy_list(compiled(*args))

    return run


def _numpy(case, model, args, threads):
    arrays = [a.numpy() for a in args]

    def run():
        return [case.numpy_impl(*arrays)]

    return run


ENGINES: dict[str, Engine] = {
    engine.name: engine
    for engine in (
        Engine("eager", "torch", _eager),
        Engine("inductor", "torch-inductor", _inductor),
        Engine("onnxruntime", "onnxruntime", _onnxruntime, requires=("onnxruntime", "onnx", "onnxscript")),
        Engine("iree", "iree", _iree),
        Engine("strata", "strata", _strata, requires=("strata.api",)),
        Engine("strata-raised", "strata", functools.partial(_strata, raise_torch=True),
               applies=lambda case: "raising" in case.tags, requires=("strata.api",)),
        Engine("upstream", "strata-upstream", _upstream, requires=("strata.upstream",)),
        Engine("numpy", "numpy", _numpy, applies=lambda case: case.numpy_impl is not None),
    )
}
