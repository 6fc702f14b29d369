"""`torch.compile(model, backend="strata")`: run Dynamo's graphs through strata and IREE.

Dynamo hands each captured FX graph with example inputs; the backend compiles it once for the
target (llvm-cpu by default) and returns a function that Dynamo calls on every later
call whose guards pass, so the same shapes never recompile. The per-call path is kept short:
tensors go to numpy without copies, straight into IREE's invoke, results come back as tensors.
Graphs strata cannot take (symbolic sizes, non-tensor inputs) run eagerly, as Dynamo's own
fallback would, instead of failing the user's program.

The backend is registered with Dynamo under the name "strata" (see the end of this module).
"""

import atexit
from importlib.metadata import entry_points

import torch

from strata.api import compile as strata_compile

BACKEND_NAME = "strata"


def _returns_tuple(graph_module) -> bool:
    output = next(n for n in reversed(graph_module.graph.nodes) if n.op == "output")
    return isinstance(output.args[0], (tuple, list))


# Graphs whose inputs hold fewer elements than this run on IREE's local-sync device (in the
# calling thread) instead of local-task (a worker pool): on a two-op 8x8 graph the IREE call takes
# 26 us on local-sync against 49 us on local-task (min of 9 x 3000 calls, 2-core EPYC, loaded).
SMALL_GRAPH_ELEMENTS = 1 << 16


def make_backend(target: str = "llvm-cpu", device: str | None = None, **options):
    """A Dynamo backend compiling for `target` with `strata.compile` options. Without a `device`,
    llvm-cpu graphs run on local-sync when small and local-task otherwise."""

    def backend(graph_module: torch.fx.GraphModule, example_inputs):
        if not all(isinstance(x, torch.Tensor) for x in example_inputs) or any(
            isinstance(d, torch.SymInt) for x in example_inputs for d in x.shape
        ):
            return graph_module.forward
        run_on = device
        if run_on is None and target == "llvm-cpu":
            small = sum(x.numel() for x in example_inputs) < SMALL_GRAPH_ELEMENTS
            run_on = "local-sync" if small else "local-task"
        compiled = strata_compile(graph_module, tuple(example_inputs), target, device=run_on, **options)
        run = compiled.function.fast_invoker()
        from_numpy = torch.from_numpy
        as_tuple = _returns_tuple(graph_module)

        def call(*args):
            results = run([(a.detach() if a.requires_grad else a).numpy() for a in args])
            if as_tuple:
                return tuple(map(from_numpy, results))
            return from_numpy(results[0])

        call.compiled_model = compiled
        return call

    return backend


strata_backend = make_backend()

# Dynamo's caches hold the compiled IREE modules until interpreter teardown, when nanobind reports
# every IREE object still alive as a leak; drop the caches while the runtime is still intact.
atexit.register(torch._dynamo.reset)

# Installed with its `torch_dynamo_backends` entry point, Dynamo finds and registers the backend
# itself on first use (registering it here too would be a duplicate); otherwise register now.
if BACKEND_NAME not in entry_points(group="torch_dynamo_backends").names:
    torch._dynamo.register_backend(strata_backend, name=BACKEND_NAME)
