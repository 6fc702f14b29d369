"""The strata-opt driver: parse, verify, run a pipeline, print, for each input chunk.

Kept apart from the command-line parsing (strata.tools.opt) so that tests and other tools can
drive it directly with an `OptOptions`.
"""

import io
import sys
from typing import NamedTuple

from torch_mlir._mlir_libs._mlir import ir  # the native module: `torch_mlir.ir` also imports numpy (~0.1 s)

from strata.context import make_context
from strata.crash_guard import Reporter
from strata.diagnostics import Diagnostic, DiagnosticCollector, print_diagnostics
from strata.dialects.specs import DIALECTS
from strata.errors import StrataError
from strata.ir_text import op_section
from strata.pass_pipeline import NestedPipeline, build_pass_manager, names_strata_pass

BYTECODE_MAGIC = b"ML\xefR"
# Modules a run needs only with certain flags (split_input, verify_diagnostics, atomic_output,
# the dialect verifier) are imported where used: strata-opt's start-up is most of a small run.


class OptOptions(NamedTuple):
    input: str = "-"
    output: str | None = None
    pipeline: NestedPipeline | None = None
    emit_bytecode: bool = False
    split_input_file: bool = False
    verify_diagnostics: bool = False
    allow_unregistered_dialect: bool = False
    print_op_generic: bool = False
    print_debuginfo: bool = False
    print_local_scope: bool = False
    print_ir_before_all: bool = False
    print_ir_after_all: bool = False
    print_ir_after_change: bool = False
    print_ir_after_failure: bool = False
    print_ir_module_scope: bool = False
    timing: bool = False
    verify_each: bool = True
    strata_pipeline: str | None = None  # `name` or `name{option=value ...}` of pipelines/
    dump_stages: str | None = None
    stop_after: str | None = None
    print_stages: bool = False

    @property
    def display_name(self) -> str:
        return "<stdin>" if self.input == "-" else self.input


class OptDriver:
    def __init__(self, options: OptOptions, reporter: Reporter | None = None):
        self.options = options
        self.reporter = reporter or Reporter(None)
        self.context = None

    def run(self, data: bytes) -> int:
        """Processes the input bytes; returns the exit code."""
        options = self.options
        # Walking every op from Python costs ~0.3 s on a large module (the bindings import each
        # dialect's Python module on first sight); input that never names a strata or probe op
        # cannot hold one, in text or in bytecode's string table. Unless the input, a pass or a
        # named pipeline involves them, strata's dialects (and torch_c) are not even loaded.
        # Split input can hold a resource section per case, so all of it is searched.
        ops = data if options.split_input_file else _op_section(data)
        self._may_hold_strata_ops = any(name.encode() in ops for name in DIALECTS)
        needs_strata = (
            self._may_hold_strata_ops
            or b"torch_c." in ops
            or options.strata_pipeline is not None
            or (options.pipeline is not None and names_strata_pass(options.pipeline))
        )
        self.context = make_context(
            allow_unregistered_dialects=options.allow_unregistered_dialect, lazy=not needs_strata
        )
        chunks = [None]  # the whole input, parsed straight from the file or the bytes
        if not data.startswith(BYTECODE_MAGIC):
            try:
                # ASCII (nearly all MLIR) is valid UTF-8: skip decoding a copy of a large input.
                text = None if data.isascii() else data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise StrataError(
                    f"{options.display_name}: input is neither MLIR text (invalid UTF-8 at byte "
                    f"{e.start}) nor MLIR bytecode"
                ) from None
            if options.split_input_file or options.verify_diagnostics:
                from strata.opt import split_input

                chunks = split_input.split(text or data.decode("ascii"), options.split_input_file)
        if options.pipeline is not None:
            self.reporter.report("pipeline", options.pipeline.text())
            # Built once up front so a bad pipeline is reported before any input is processed.
            build_pass_manager(options.pipeline, self.context)
        results, ok = [], True
        for chunk in chunks:
            if chunk is not None:
                self.reporter.report("chunk", f"{chunk.first_line}:{chunk.last_line}")
            chunk_ok, output = self._process(chunk, data)
            ok &= chunk_ok
            if output is not None:
                results.append(output)
        self._write(results, ok)
        return 0 if ok else 1

    def _process(self, chunk, data: bytes):
        options = self.options
        collector = DiagnosticCollector(self.context)
        module = pm = None
        with self.context, collector.collect():
            self.reporter.report("stage", "parsing")
            try:
                if chunk is not None:
                    module = ir.Module.parse(chunk.text)
                elif options.input != "-":
                    module = ir.Module.parseFile(options.input)  # no copy through Python
                else:
                    module = ir.Module.parse(data)
            except ir.MLIRError as e:
                collector.add_error(e)
            if module is not None and self._may_hold_strata_ops:
                from strata import dialects

                if not dialects.verify(module.operation):
                    module = None
            if module is not None and options.pipeline is not None:
                pm = build_pass_manager(options.pipeline, self.context)
                self._configure(pm)
                self.reporter.report("stage", "running pipeline")
                try:
                    pm.run(module.operation)
                except ir.MLIRError as e:
                    collector.add_error(e)
                    module = None
            if module is not None and options.strata_pipeline is not None:
                self.reporter.report("stage", f"running strata pipeline '{options.strata_pipeline}'")
                self._run_named_pipeline(module)
        del pm  # prints the timing report, if asked for; only outside the context's scope
        diagnostics = collector.take()
        if options.verify_diagnostics:
            from strata.opt import verify_diagnostics

            # mlir-opt turns off printing the op on diagnostics when verifying them; the bindings
            # cannot, so drop those notes here.
            diagnostics = [_without_op_dumps(d) for d in diagnostics]
            expectations, malformed = verify_diagnostics.parse_expectations(
                chunk.text if chunk else "", options.display_name
            )
            failures = malformed + verify_diagnostics.verify(diagnostics, expectations, "-")
            print_diagnostics(failures, options.display_name)
            ok = not failures
        else:
            print_diagnostics(diagnostics, options.display_name)
            ok = not any(d.severity == "error" for d in diagnostics)
        self.reporter.report("stage", "printing")
        return ok, (self._render(module) if module is not None else None)

    def _run_named_pipeline(self, module) -> None:
        from strata import pipelines

        o = self.options
        name, _, rest = o.strata_pipeline.partition("{")
        options = dict(item.partition("=")[::2] for item in rest.rstrip("}").split()) if rest else {}
        on_stage = (lambda report: print(report.format(), file=sys.stderr)) if o.print_stages else None
        pipelines.run(module, name.strip(), options=options, dump_dir=o.dump_stages, stop_after=o.stop_after, on_stage=on_stage)

    def _configure(self, pm) -> None:
        o = self.options
        if o.print_ir_before_all or o.print_ir_after_all or o.print_ir_after_change or o.print_ir_after_failure:
            pm.enable_ir_printing(
                print_before_all=o.print_ir_before_all,
                # As in mlir-opt, after-failure alone prints after every pass that fails.
                print_after_all=o.print_ir_after_all or o.print_ir_after_failure,
                print_module_scope=o.print_ir_module_scope,
                print_after_change=o.print_ir_after_change,
                print_after_failure=o.print_ir_after_failure,
                enable_debug_info=o.print_debuginfo,
                print_generic_op_form=o.print_op_generic,
            )
        if o.timing:
            pm.enable_timing()
        pm.enable_verifier(o.verify_each)

    def _render(self, module) -> bytes:
        o = self.options
        if o.emit_bytecode:
            buffer = io.BytesIO()
            module.operation.write_bytecode(buffer)
            return buffer.getvalue()
        return module.operation.get_asm(
            enable_debug_info=o.print_debuginfo,
            print_generic_op_form=o.print_op_generic,
            use_local_scope=o.print_local_scope,
            assume_verified=True,
            binary=True,  # bytes straight from the printer: a Python str costs ~40% more
        )

    def _write(self, results: list[bytes], ok: bool) -> None:
        separator = b"" if self.options.emit_bytecode else b"// -----\n"
        payload = separator.join(r if r.endswith(b"\n") or self.options.emit_bytecode else r + b"\n" for r in results)
        if self.options.output in (None, "-"):
            sys.stdout.buffer.write(payload)
            sys.stdout.flush()
            return
        if not ok:
            return  # never leave a partial result where a build system would take it for output
        from strata.atomic_output import atomic_write

        with atomic_write(self.options.output, "wb") as f:
            self.reporter.report("temp", f.temp_path)
            f.write(payload)


def _op_section(data: bytes):
    """The part of textual IR that can name ops (`strata.ir_text`); bytecode as it is."""
    if data.startswith(BYTECODE_MAGIC):
        return data
    return op_section(data)


def _without_op_dumps(d: Diagnostic) -> Diagnostic:
    notes = tuple(_without_op_dumps(n) for n in d.notes if not n.message.startswith("see current operation"))
    return d._replace(notes=notes)
