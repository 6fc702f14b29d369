"""Latency of the upstream CPU route (linalg-to-llvm + ExecutionEngine) against IREE llvm-cpu.

    python test/benchmarks/upstream_vs_iree.py [--repeat N]

Both compile the same input: a 1024x1024x1024 f32 matmul (the same linalg text) and the MLP
512-2048-512 at batch 8 (the same torch-dialect import; upstream through the default tosa route
and through strata's raising). IREE uses its default flags plus the
host CPU (`--iree-llvmcpu-target-cpu=host`) on the local-task device. Calls alternate between the
two so that load from other processes hits both alike; the medians and their ratio are printed.
"""

import argparse
import statistics
import time

import numpy as np

MATMUL = """
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%acc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
"""

IREE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
]


def iree_function(text: str, input_type: str):
    import iree.compiler as compiler
    import iree.runtime as runtime

    vmfb = compiler.compile_str(text, input_type=input_type, extra_args=IREE_FLAGS)
    context = runtime.SystemContext(config=runtime.Config("local-task"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
    function = context.modules.module["main"]
    return lambda *arrays: function(*arrays).to_host()


def upstream_matmul(threads: bool):
    from strata.context import make_context
    from strata.upstream import compile_linalg
    from torch_mlir._mlir_libs._mlir import ir

    with make_context() as context:
        compiled = compile_linalg(ir.Module.parse(MATMUL, context), threads=threads)
    return lambda *arrays: compiled.run_numpy(*arrays)[0]


def mlp_pair():
    import torch

    from strata import upstream
    from strata.models.mlp import MLP, MLPConfig, example_inputs
    from strata.torch_import import import_torch

    torch.manual_seed(0)
    config = MLPConfig(in_features=512, hidden=2048, out_features=512, layers=2, batch=8)
    model, args = MLP(config).eval(), example_inputs(config)
    routes = {route: upstream.compile(model, args, linalg_route=route) for route in ("tosa", "strata")}
    iree = iree_function(str(import_torch(model, args)), "torch")
    x = args[0].numpy()
    ours = {route: (lambda a, c=c: c.run_numpy(a)[0]) for route, c in routes.items()}
    return ours, iree, (x,), model(*args).detach().numpy()


def side_by_side(name, ours, iree, args, expected, repeat):
    np.testing.assert_allclose(ours(*args), expected, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(iree(*args), expected, rtol=1e-3, atol=1e-3)
    times = {"upstream": [], "iree": []}
    for _ in range(repeat):
        for label, fn in (("upstream", ours), ("iree", iree)):
            start = time.perf_counter()
            fn(*args)
            times[label].append(time.perf_counter() - start)
    up, ir = (statistics.median(times[k]) * 1e3 for k in ("upstream", "iree"))
    print(f"{name:<18} upstream {up:9.3f} ms   iree {ir:9.3f} ms   upstream/iree {up / ir:5.2f}x")
    return up / ir


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a, b = (rng.random((1024, 1024), dtype=np.float32) for _ in range(2))
    iree_matmul = iree_function(MATMUL, "auto")
    side_by_side("matmul 1024^3 omp", upstream_matmul(True), iree_matmul, (a, b), a @ b, args.repeat)
    side_by_side("matmul 1024^3 1thr", upstream_matmul(False), iree_matmul, (a, b), a @ b, args.repeat)
    ours, iree, mlp_args, expected = mlp_pair()
    for route, fn in ours.items():
        side_by_side(f"mlp ({route} route)", fn, iree, mlp_args, expected, args.repeat * 10)


if __name__ == "__main__":
    main()
