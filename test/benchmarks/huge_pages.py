"""strata's CPU modules with their load-time memory on huge pages against the same on 4 KiB pages.

    python test/benchmarks/huge_pages.py [--filter '/b1$'] [--rounds 25] [--calls 10]

Each suite case is compiled once, as `strata-bench` compiles it (llvm-cpu, tuned defaults), and
loaded twice on the local-sync device: once with `LoadedModule(..., huge_pages=False)`, once as
strata loads it (the memory the load allocated collapsed onto 2 MiB pages). The two are called
in alternating rounds in one process (each first in every other round), so that the host's load hits both alike, and the medians,
minimums and the median of per-round ratios (huge / 4 KiB) are printed. One thread.
"""

import argparse
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", action="append", default=None, help="case regex, as strata-bench's (default '/b1$')")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--calls", type=int, default=10, help="calls per round and variant")
    args = parser.parse_args()

    import numpy as np
    import torch

    import strata.api
    from strata.bench.suite import select
    from strata.huge_pages import huge_page_size
    from strata.iree_runtime import LoadedModule

    if not huge_page_size():
        print("this kernel offers no transparent huge pages: nothing to compare", file=sys.stderr)
        return 1
    print(f"{'case':16s} {'4 KiB ms':>9s} {'min':>7s} {'huge ms':>9s} {'min':>7s} {'huge/4KiB':>9s}")
    for case in select(args.filter or ["/b1$"]):
        if case.kind != "model":
            continue
        torch.manual_seed(0)
        model, inputs = case.build()
        vmfb = strata.api.compile(model, inputs, target="llvm-cpu", device="local-sync").vmfb
        arrays = [np.ascontiguousarray(t.numpy()) for t in inputs]
        variants = {
            "small": LoadedModule(vmfb, "local-sync", huge_pages=False).function("main").fast_invoker(),
            "huge": LoadedModule(vmfb, "local-sync").function("main").fast_invoker(),
        }
        times = {name: [] for name in variants}
        for name, run in variants.items():
            for _ in range(3):
                run(arrays)
        for round_ in range(args.rounds):
            # Each variant goes first in every other round: no order effect.
            for name, run in sorted(variants.items(), reverse=bool(round_ % 2)):
                start = time.perf_counter()
                for _ in range(args.calls):
                    run(arrays)
                times[name].append((time.perf_counter() - start) / args.calls * 1e3)
        ratio = statistics.median(h / s for h, s in zip(times["huge"], times["small"]))
        small, huge = times["small"], times["huge"]
        print(
            f"{case.name:16s} {statistics.median(small):9.3f} {min(small):7.3f} "
            f"{statistics.median(huge):9.3f} {min(huge):7.3f} {ratio:9.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
