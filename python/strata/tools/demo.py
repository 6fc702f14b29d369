"""The README's main command: compile an example PyTorch model, run it on IREE, compare with eager.

The example is a transformer encoder block (d_model 256, 4 heads, 128 tokens) from strata's model
zoo with fixed random weights. It is compiled for llvm-cpu with strata's tuned defaults, run on
IREE's local-task device, and checked against PyTorch eager: the max absolute error and the median
latency of both are printed.
"""

import argparse
import statistics
import sys
import time

from strata.errors import StrataError

PROG = "strata-demo"


def median_seconds(fn, *, warmup: int = 3, min_runs: int = 20, min_seconds: float = 1.0) -> float:
    for _ in range(warmup):
        fn()
    times = []
    started = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - started < min_seconds:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run(args) -> int:
    import torch

    import strata
    from strata.models.transformer import TransformerConfig, TransformerEncoderBlock, example_inputs

    torch.manual_seed(0)
    config = TransformerConfig(d_model=256, heads=4, feedforward=1024, batch=1, tokens=128)
    model = TransformerEncoderBlock(config)
    inputs = example_inputs(config)
    print(f"model: TransformerEncoderLayer d_model={config.d_model} heads={config.heads} tokens={config.tokens}")
    started = time.perf_counter()
    compiled = strata.compile(model, inputs, target="llvm-cpu", device=args.device)
    print(f"compiled for llvm-cpu in {time.perf_counter() - started:.1f} s; running on {args.device}")
    with torch.no_grad():
        expected = model(*inputs)
        error = (compiled(*inputs) - expected).abs().max().item()
        eager = median_seconds(lambda: model(*inputs))
    iree = median_seconds(lambda: compiled(*inputs))
    print(f"max abs error vs eager: {error:.3g}")
    print(f"latency (median): eager {eager * 1e3:.3f} ms, strata/IREE {iree * 1e3:.3f} ms ({eager / iree:.2f}x)")
    return 0 if error < 1e-3 else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="local-task", help="IREE device to run on (default: local-task)")
    try:
        return run(parser.parse_args(argv))
    except StrataError as e:
        print(f"{PROG}: error: {e.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
