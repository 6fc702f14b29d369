"""`python -m strata.pipelines NAME INPUT`: run one named pipeline on an MLIR file, print the result.

The stand-alone runner for a pipeline (strata-opt's `--strata-pipeline=NAME` calls the same
`strata.pipelines.run`). `--list` names the pipelines and their stages; errors are one line on
stderr with exit code 1.
"""

import argparse
import sys

from strata.errors import StrataError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m strata.pipelines", description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", nargs="?", help="a pipeline name or a .toml file")
    parser.add_argument("input", nargs="?", default="-", help="MLIR input file ('-' for stdin)")
    parser.add_argument("-o", "--output", default="-", help="where to write the lowered IR")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--dump-dir", help="write the IR after every stage and stages.txt here")
    parser.add_argument("--stop-after", metavar="STAGE")
    parser.add_argument("--stats", action="store_true", help="print per-stage op counts to stderr")
    parser.add_argument("--list", action="store_true", help="list the pipelines and their stages")
    args = parser.parse_intermixed_args(argv)
    try:
        return _run(args)
    except StrataError as e:
        print(f"strata.pipelines: error: {e}", file=sys.stderr)
        for note in e.notes:
            print(f"  note: {note}", file=sys.stderr)
        return 1


def _run(args) -> int:
    from strata import pipelines

    if args.list:
        for name in pipelines.names():
            pipeline = pipelines.load(name)
            print(f"{name}: {pipeline.summary}")
            for stage in pipeline.stages:
                when = "".join(f" [{k}={v}]" for k, v in stage.when)
                print(f"  {stage.name}{when}: {stage.summary}")
        return 0
    if not args.pipeline:
        raise StrataError("name a pipeline (see --list)")
    options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            raise StrataError(f"bad --option '{item}': expected KEY=VALUE")
        options[key] = value
    pipeline = pipelines.load(args.pipeline)
    module = _parse(args.input)
    report = (lambda r: print(r.format(), file=sys.stderr)) if args.stats else None
    pipelines.run(module, pipeline, options=options, dump_dir=args.dump_dir, stop_after=args.stop_after, on_stage=report)
    text = module.operation.get_asm(enable_debug_info=False)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        from strata.atomic_output import write_text_atomic

        write_text_atomic(args.output, text)
    return 0


def _parse(path: str):
    from torch_mlir._mlir_libs._mlir import ir

    from strata import diagnostics
    from strata.context import make_context

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as e:
        raise StrataError(f"cannot read '{path}': {e.strerror}") from None
    context = make_context()
    try:
        return ir.Module.parse(text, context)
    except ir.MLIRError as e:
        first = diagnostics.from_mlir_error(e)[0]
        raise StrataError(first.format("<stdin>" if path == "-" else path)) from None


if __name__ == "__main__":
    sys.exit(main())
