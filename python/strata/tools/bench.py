"""`strata-bench`: time strata against PyTorch eager, torch.compile, ONNX Runtime and plain IREE.

Prints a table (and optionally writes JSON and a PNG chart) of per-case latency, ratios, compile
time, peak memory and numeric error; see `strata.bench` for how it measures.
"""

import argparse
import os
import sys

from strata.errors import StrataError

TOOL = "strata-bench"


def _positive(text: str) -> int:
    return _integer(text, 1)


def _non_negative(text: str) -> int:
    return _integer(text, 0)


def _integer(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=TOOL,
        description="Compare strata with PyTorch eager, torch.compile (inductor), ONNX Runtime and "
        "plain IREE on a suite of models and kernels, interleaved in one process.",
    )
    parser.add_argument("--filter", action="append", metavar="REGEX",
                        help="run only cases whose name matches (repeatable; see --list)")
    parser.add_argument("--engines", metavar="LIST",
                        help="comma-separated engines to run (eager always runs: ratios are to eager)")
    parser.add_argument("--repeat", type=_positive, default=10, metavar="N",
                        help="timed repetitions per engine (default 10)")
    parser.add_argument("--warmup", type=_non_negative, default=3, metavar="N",
                        help="untimed warm-up calls per engine (default 3)")
    parser.add_argument("--threads", type=_positive, default=len(os.sched_getaffinity(0)), metavar="N",
                        help="compute threads for every engine (default: the CPUs this process may use)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--plot", metavar="FILE.png", help="write a bar chart of ratios to eager (needs matplotlib)")
    parser.add_argument("--list", action="store_true", help="list cases and engines, then exit")
    return parser


def _check_output_dir(path: str | None, flag: str) -> None:
    if path is not None:
        directory = os.path.dirname(path) or "."
        if not os.path.isdir(directory):
            raise StrataError(f"{flag} '{path}': directory '{directory}' does not exist")


def _progress_printer(index: int, total: int, name: str):
    if not sys.stderr.isatty():
        return lambda message: None

    def show(message: str) -> None:
        sys.stderr.write(f"\r\033[K[{index}/{total}] {name}: {message}")
        sys.stderr.flush()

    return show


def _run(options) -> int:
    # OpenBLAS reads its thread count when numpy loads it, and OpenMP runtimes (the upstream
    # route's libomp) theirs when they start, so both are set before anything loads them.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(options.threads))
    os.environ.setdefault("OMP_NUM_THREADS", str(options.threads))
    # Idle OpenMP workers spin for up to 200 ms by default; in an interleaved run that takes the
    # cores from whichever engine is timed next (as ONNX Runtime's spinning would; it is off too).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # OpenBLAS's idle threads spin for ~2^28 cycles after each call unless told otherwise; 2^4 makes
    # them sleep at once (numpy's own matmul time does not change: 180 GFLOP/s on 1024^3 either
    # way, while IREE timed right after it went from 90 to 130).
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    # numpy runs the OpenBLAS kernel OpenBLAS picks for this CPU, not one forced on every process
    # (`strata.bench.openblas`).
    from strata.bench.openblas import release_forced_kernel

    release_forced_kernel()
    import time

    from strata.atomic_output import write_text_atomic
    from strata.bench import report, runner, suite
    from strata.bench.engines import ENGINES

    if options.list:
        for case in suite.SUITE:
            print(f"case    {case.name}")
        for engine in ENGINES.values():
            print(f"engine  {engine.name}{'' if engine.available() else '  (not installed)'}")
        return 0
    cases = suite.select(options.filter)
    if options.engines:
        wanted = [name.strip() for name in options.engines.split(",") if name.strip()]
        unknown = [name for name in wanted if name not in ENGINES]
        if unknown:
            raise StrataError(f"unknown engine '{unknown[0]}'; engines: {', '.join(ENGINES)}")
        missing = [name for name in wanted if not ENGINES[name].available()]
        if missing:
            raise StrataError(f"engine '{missing[0]}' needs {', '.join(ENGINES[missing[0]].requires)} installed")
        engines = [ENGINES["eager"]] + [ENGINES[name] for name in wanted if name != "eager"]
    else:
        engines = [engine for engine in ENGINES.values() if engine.available()]
    _check_output_dir(options.json, "--json")
    _check_output_dir(options.plot, "--plot")

    runner.configure_threads(options.threads)
    if sys.stderr.isatty():
        sys.stderr.write("starting engines...")
    runner.prime(engines, options.threads)
    outcomes = []
    for index, case in enumerate(cases, 1):
        start = time.perf_counter()
        show = _progress_printer(index, len(cases), case.name)
        outcomes.append(runner.run_case(case, engines, threads=options.threads, repeat=options.repeat,
                                        warmup=options.warmup, progress=show))
        show(f"done in {time.perf_counter() - start:.1f} s\n")
    sys.stdout.write(report.table(outcomes))
    command = [TOOL] + sys.argv[1:]
    if options.json:
        document = report.to_json(outcomes, command=command, threads=options.threads,
                                  repeat=options.repeat, warmup=options.warmup)
        write_text_atomic(options.json, report.dumps(document))
    if options.plot:
        from strata.bench.plot import write_plot

        threads = f"{options.threads} thread{'s' if options.threads > 1 else ''}"
        write_plot(outcomes, options.plot, f"strata-bench: median of {options.repeat}, {threads}")
    return 0


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        return _run(options)
    except StrataError as error:
        print(f"{TOOL}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{TOOL}: interrupted", file=sys.stderr)
        return 130
