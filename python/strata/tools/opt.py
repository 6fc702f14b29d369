"""strata-opt: an mlir-opt-style driver over `.mlir` files, with strata's dialects and passes.

Flags follow mlir-opt so users' habits carry over. Only the standard library is imported before
the work is forked into a child (see strata.crash_guard), so a crash in native MLIR code becomes
a one-line error with a reproducer instead of a bare segfault.
"""

from __future__ import annotations

import os
import sys

from strata.errors import StrataError

PROG = "strata-opt"

# mlir-opt flags strata-opt understands: name -> OptOptions field (booleans).
BOOL_FLAGS = {
    "emit-bytecode": "emit_bytecode",
    "split-input-file": "split_input_file",
    "verify-diagnostics": "verify_diagnostics",
    "allow-unregistered-dialect": "allow_unregistered_dialect",
    "mlir-print-op-generic": "print_op_generic",
    "mlir-print-debuginfo": "print_debuginfo",
    "mlir-print-local-scope": "print_local_scope",
    "mlir-print-ir-before-all": "print_ir_before_all",
    "mlir-print-ir-after-all": "print_ir_after_all",
    "mlir-print-ir-after-change": "print_ir_after_change",
    "mlir-print-ir-after-failure": "print_ir_after_failure",
    "mlir-print-ir-module-scope": "print_ir_module_scope",
    "mlir-timing": "timing",
    "verify-each": "verify_each",
}
# strata's own flags that take a value: name -> OptOptions field.
VALUE_FLAGS = {
    "strata-pipeline": "strata_pipeline",
    "strata-dump-stages": "dump_stages",
    "strata-stop-after": "stop_after",
}
BOOL_FLAGS["strata-print-stages"] = "print_stages"
# Accepted for compatibility; they change nothing here.
IGNORED_FLAGS = {"mlir-disable-threading", "no-implicit-module"}

HELP = f"""OVERVIEW: strata modular optimizer driver (mlir-opt compatible)

USAGE: {PROG} [options] <input file | ->

OPTIONS:
  -o <file>                        Output file (default: stdout); written atomically
  --pass-pipeline=<pipeline>       Textual pipeline, e.g. 'builtin.module(func.func(canonicalize,cse))';
                                   upstream passes and strata passes mix freely
  --<pass>[=<options>]             Run one pass (in command-line order), e.g. --cse --strata-raise-torch
  --strata-pipeline=<name>[{{k=v}}]  Run a named pipeline of pipelines/ stage by stage (after any passes),
                                   e.g. --strata-pipeline='torch-to-linalg{{route=tosa}}'
  --strata-dump-stages=<dir>       With --strata-pipeline: write the IR before and after every stage
  --strata-stop-after=<stage>      With --strata-pipeline: stop after this stage
  --strata-print-stages            With --strata-pipeline: print per-stage time and ops per dialect
  --split-input-file               Split the input on '// -----' and process each chunk separately
  --verify-diagnostics             Check diagnostics against 'expected-*' comments in the input
  --allow-unregistered-dialect     Allow ops of unregistered dialects
  --emit-bytecode                  Write MLIR bytecode
  --mlir-print-op-generic          Print the generic op form
  --mlir-print-debuginfo           Print locations
  --mlir-print-local-scope         Print with local scope
  --mlir-print-ir-before-all       Print IR before each pass
  --mlir-print-ir-after-all        Print IR after each pass
  --mlir-print-ir-after-change     With --mlir-print-ir-after-all: only when the pass changed the IR
  --mlir-print-ir-after-failure    Print IR after a pass fails
  --mlir-print-ir-module-scope     Print the whole module when printing IR around passes
  --mlir-timing                    Report pass timing
  --verify-each[=true|false]       Verify IR after each pass (default: true)
  --list-passes                    List every pass (strata's first) with a one-line summary
  --version                        Print strata, MLIR/LLVM, torch-mlir and IREE versions
  --help                           This help, with strata's passes and their options
"""


def _split_flag(arg: str) -> tuple[str, str | None]:
    body = arg[2:] if arg.startswith("--") else arg[1:]
    name, sep, value = body.partition("=")
    return name, (value if sep else None)


def parse_args(argv: list[str]):
    """Returns (OptOptions kwargs, pass flags in order, action) or raises StrataError."""
    fields: dict = {}
    pass_flags: list[tuple[str, str]] = []
    inputs: list[str] = []
    pipeline_text = None
    action = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
            continue
        if arg == "-o" or arg.startswith("-o="):
            if arg == "-o":
                if i >= len(argv):
                    raise StrataError("-o requires a file name")
                fields["output"], i = argv[i], i + 1
            else:
                fields["output"] = arg[3:]
            continue
        name, value = _split_flag(arg)
        if name in ("help", "h"):
            action = "help"
        elif name == "version":
            action = "version"
        elif name == "list-passes":
            action = "list-passes"
        elif name == "pass-pipeline":
            if value is None:
                if i >= len(argv):
                    raise StrataError("--pass-pipeline requires a pipeline")
                value, i = argv[i], i + 1
            pipeline_text = value
        elif name in VALUE_FLAGS:
            if not value:
                raise StrataError(f"--{name} requires a value, e.g. --{name}=...")
            fields[VALUE_FLAGS[name]] = value
        elif name in BOOL_FLAGS:
            if value is None or value.lower() in ("true", "1"):
                fields[BOOL_FLAGS[name]] = True
            elif value.lower() in ("false", "0"):
                fields[BOOL_FLAGS[name]] = False
            else:
                raise StrataError(f"--{name} takes true or false, not '{value}'")
        elif name in IGNORED_FLAGS:
            pass
        elif arg.startswith("--"):
            pass_flags.append((name, (value or "").strip()))
        else:
            raise StrataError(f"unknown command line argument '{arg}'; try --help")
    if len(inputs) > 1:
        raise StrataError(f"too many input files: {' '.join(inputs)}")
    fields["input"] = inputs[0] if inputs else "-"
    if pipeline_text is not None and pass_flags:
        raise StrataError("--pass-pipeline cannot be combined with individual pass flags")
    return fields, pipeline_text, pass_flags, action


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise StrataError(f"could not open input file '{path}': {e.strerror}") from None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _main(argv)
    except BrokenPipeError:  # `strata-opt --list-passes | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: list[str]) -> int:
    try:
        fields, pipeline_text, pass_flags, action = parse_args(argv)
        if action == "help":
            from strata.opt.pass_listing import strata_pass_help

            print(HELP + "\n" + strata_pass_help())
            return 0
        if action == "version":
            from strata.opt.versions import version_text

            print(version_text())
            return 0
        if action == "list-passes":
            from strata.opt.pass_listing import list_passes

            print(list_passes())
            return 0
        # stdin can be read once only, so the parent keeps it for a crash reproducer; a file is
        # read by the child (a second copy of a 25 MB input costs ~10% of its run) and re-read
        # here only if the child crashes.
        stdin_data = read_input("-") if fields["input"] == "-" else None
    except StrataError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130

    from strata.crash_guard import run_guarded

    def work(reporter) -> int:
        try:
            data = stdin_data if stdin_data is not None else read_input(fields["input"])
            from strata.opt.driver import OptDriver, OptOptions
            from strata.pass_pipeline import parse_pipeline, pipeline_from_pass_flags

            pipeline = None
            if pipeline_text is not None:
                pipeline = parse_pipeline(pipeline_text)
            elif pass_flags:
                pipeline = pipeline_from_pass_flags(pass_flags)
            options = OptOptions(**fields, pipeline=pipeline)
            return OptDriver(options, reporter).run(data)
        except StrataError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 1

    def on_crash(signal_name: str, context) -> int:
        data = stdin_data if stdin_data is not None else read_input(fields["input"])
        return report_crash(signal_name, context, fields["input"], data)

    return run_guarded(work, on_crash)


def report_crash(signal_name: str, context, input_name: str, data: bytes) -> int:
    """One error line naming input and pipeline, plus a reproducer written to a unique temp file."""
    temp = context.fields.get("temp")
    if temp and os.path.exists(temp):
        os.unlink(temp)
    chunk = context.fields.get("chunk")
    source = data
    where = f"'{'<stdin>' if input_name == '-' else input_name}'"
    if chunk:
        first, last = (int(x) for x in chunk.split(":"))
        lines = data.decode("utf-8", errors="replace").split("\n")
        source = "\n".join(lines[first - 1 : last]).encode()
        where += f" (lines {first}-{last})"
    pipeline = context.fields.get("pipeline", "")
    import tempfile

    fd, repro = tempfile.mkstemp(prefix="strata-opt-repro-", suffix=".mlir")
    with os.fdopen(fd, "wb") as f:
        f.write(source)
    stage = context.fields.get("stage", "starting")
    if stage == "running pipeline":
        stage += f" '{pipeline}'"
    print(f"{PROG}: error: crashed ({signal_name}) while {stage} on {where}", file=sys.stderr)
    quoted = f" --pass-pipeline='{pipeline}'" if pipeline else ""
    print(f"{PROG}: note: reproduce with: {PROG}{quoted} {repro}", file=sys.stderr)
    return 1
