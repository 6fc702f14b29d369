"""strata-opt against torch-mlir-opt (same MLIR inside) on a 10,000-op file, side by side.

strata-opt is Python over the same native MLIR, so its cost over the C++ driver is interpreter
start-up, imports, loading strata's dialects and the crash-guard fork. This measures that
whole-process cost on `--canonicalize` of a 10,000-op function, alternating the two commands so
machine noise hits both alike, and prints the medians and the median of per-pair ratios.

    python test/benchmarks/strata_opt_overhead.py [--runs 15] [--input FILE.mlir]

strata's modules are byte-compiled first, as a wheel install (or tools/setup.sh) leaves them.
"""

import argparse
import compileall
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ten_thousand_ops() -> str:
    """A function of 10,000 ops that canonicalize keeps (multiplications by an argument)."""
    lines = ["func.func @chain(%a: i32, %b: i32) -> i32 {"]
    previous = "%a"
    for i in range(9999):
        lines.append(f"  %v{i} = arith.muli {previous}, %b : i32")
        previous = f"%v{i}"
    lines.append(f"  return {previous} : i32")
    lines.append("}")
    return "\n".join(lines) + "\n"


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--input", type=Path, help="time this file instead of the 10,000-op chain")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "python" / "strata", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        source = args.input or Path(tmp) / "ten-thousand-ops.mlir"
        if args.input is None:
            source.write_text(ten_thousand_ops())
        strata = [sys.executable, str(ROOT / "tools" / "strata-opt"), "--canonicalize", str(source)]
        reference = [str(Path(sys.executable).with_name("torch-mlir-opt")), "--canonicalize", str(source)]
        timed(strata), timed(reference)  # warm the page cache for both
        pairs = [(timed(strata), timed(reference)) for _ in range(args.runs)]
    strata_times, reference_times = zip(*pairs)
    ratio = statistics.median(s / r for s, r in pairs)
    print(f"strata-opt --canonicalize {source.name}: median {statistics.median(strata_times) * 1e3:.0f} ms "
          f"(min {min(strata_times) * 1e3:.0f}, max {max(strata_times) * 1e3:.0f})")
    print(f"torch-mlir-opt --canonicalize {source.name}: median {statistics.median(reference_times) * 1e3:.0f} ms "
          f"(min {min(reference_times) * 1e3:.0f}, max {max(reference_times) * 1e3:.0f})")
    print(f"median ratio strata-opt / torch-mlir-opt: {ratio:.2f} (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
