"""Run a named pipeline stage by stage: dumps after each stage, op counts, failures that say where.

Each stage runs in its own pass manager so that the IR between stages can be written out
(`01-linalg.mlir`, `02-panels.mlir`, ...) and counted per dialect, and so that a failure is
pinned to a stage. When a stage fails, it is replayed pass by pass on a copy of its input to find
the pass that failed; the error then names the op's location (for an FX-imported model, the line
of the user's Python), the pipeline, the stage and the pass, and gives a command reproducing it.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from torch_mlir._mlir_libs._mlir import ir

from strata import diagnostics
from strata.atomic_output import write_text_atomic
from strata.errors import StrataError
from strata.pass_pipeline import NestedPipeline, build_pass_manager, parse_pipeline
from strata.pipelines.spec import Pipeline, load


@dataclass(frozen=True)
class StageReport:
    """What one stage left behind: `index` numbers the dump files, the input being 1."""

    index: int
    name: str
    seconds: float
    op_counts: dict[str, int]  # dialect name -> number of ops of that dialect in the module
    dump: Path | None

    def format(self) -> str:
        counts = " ".join(f"{d}={n}" for d, n in sorted(self.op_counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"{self.index:02d}-{self.name:<14} {self.seconds * 1e3:8.1f} ms  {counts}"


def op_counts_by_dialect(op) -> dict[str, int]:
    """Ops per dialect below (not counting) `op`, e.g. {'linalg': 12, 'arith': 40}."""
    counts: dict[str, int] = {}
    root = op.operation if hasattr(op, "operation") else op

    def count(child):
        if child != root:
            dialect = child.name.split(".", 1)[0]
            counts[dialect] = counts.get(dialect, 0) + 1
        return ir.WalkResult.ADVANCE

    root.walk(count)
    return counts


def run(
    module,
    name,
    *,
    options: dict[str, str] | None = None,
    dump_dir=None,
    stop_after: str | None = None,
    on_stage=None,
):
    """Lowers `module` (an `ir.Module` or module op) in place through pipeline `name`; returns it.

    `name` is a pipeline name, a `.toml` path or a loaded `Pipeline`. `dump_dir` receives the IR
    before the first stage and after each one plus `stages.txt` with the op counts;
    `on_stage(StageReport)` is called after each stage; `stop_after` ends the run after the stage
    of that name. Raises `StrataError` naming stage, pass and location when a stage fails.
    """
    pipeline = name if isinstance(name, Pipeline) else load(name)
    values = pipeline.resolve_options(options)
    stages = pipeline.active_stages(values)
    if stop_after is not None and stop_after not in [s.name for s in stages]:
        raise StrataError(
            f"pipeline '{pipeline.name}' has no stage '{stop_after}' "
            f"(stages: {', '.join(s.name for s in stages)})"
        )
    root = module.operation if hasattr(module, "operation") else module
    dump_dir = Path(dump_dir) if dump_dir is not None else None
    if dump_dir is not None:
        try:
            dump_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StrataError(f"cannot create dump folder '{dump_dir}': {e.strerror}") from None
    reports = []

    def record(report: StageReport) -> None:
        reports.append(report)
        if dump_dir is not None:  # rewritten after every stage, so a failed run keeps it too
            write_text_atomic(dump_dir / "stages.txt", "".join(r.format() + "\n" for r in reports))
        if on_stage:
            on_stage(report)

    record(_report(root, 1, pipeline.input, 0.0, dump_dir))
    for index, stage in enumerate(stages, start=2):
        text = stage.resolved(values)
        parsed = parse_pipeline(text)
        before = root.clone()
        start = time.perf_counter()
        try:
            _run_stage(root, parsed, stage)
        except ir.MLIRError as error:
            raise _stage_failure(pipeline, stage, parsed, before, error, reports[-1].dump) from None
        before.erase()
        record(_report(root, index, stage.name, time.perf_counter() - start, dump_dir))
        if stage.name == stop_after:
            break
    return module


def _run_stage(root, parsed, stage, passes=None) -> None:
    """Runs the stage's pipeline (or just `passes`) with its transform library in the module."""
    with root.context, _transform_library(root, stage.transform_library):
        build_pass_manager(passes or parsed, root.context).run(root)


@contextlib.contextmanager
def _transform_library(root, path):
    """The named sequences of the transform library at `path` inside module `root`, for a while."""
    if path is None:
        yield
        return
    library = ir.Module.parse(path.read_text(encoding="utf-8"), root.context)
    body = root.regions[0].blocks[0]
    inserted = [op.operation.clone(ir.InsertionPoint(body)) for op in library.body.operations]
    had_attribute = "transform.with_named_sequence" in root.attributes
    root.attributes["transform.with_named_sequence"] = ir.UnitAttr.get(root.context)
    try:
        yield
    finally:
        for op in inserted:
            op.erase()
        if not had_attribute:
            del root.attributes["transform.with_named_sequence"]


def _report(root, index: int, name: str, seconds: float, dump_dir: Path | None) -> StageReport:
    dump = None
    if dump_dir is not None:
        dump = dump_dir / f"{index:02d}-{name}.mlir"
        write_text_atomic(dump, root.get_asm(enable_debug_info=True))
    return StageReport(index, name, seconds, op_counts_by_dialect(root), dump)


def _single_passes(element, path=()):
    """The pipeline's passes one by one, each still nested under the ops it was written under."""
    if isinstance(element, NestedPipeline):
        for child in element.elements:
            yield from _single_passes(child, path + (element.op_name,))
        return
    text = element.text()
    for op_name in reversed(path):
        text = f"{op_name}({text})"
    yield element.name, text


def _stage_failure(pipeline: Pipeline, stage, parsed, before, error, stage_input: Path | None):
    """The error for a failed stage, after replaying it pass by pass to find the failing pass."""
    failing_pass, failing_error = None, error
    for pass_name, text in _single_passes(parsed):
        try:
            _run_stage(before, parsed, stage, parse_pipeline(text))
        except ir.MLIRError as replay_error:
            failing_pass, failing_error = pass_name, replay_error
            break
    before.erase()
    found = diagnostics.from_mlir_error(failing_error)
    first = found[0]
    where = f"pipeline '{pipeline.name}', stage '{stage.name}'" + (f", pass '{failing_pass}'" if failing_pass else "")
    location = f"{first.file}:{first.line}:{first.col}: " if first.line is not None else ""
    notes = [n.format() for d in found for n in d.notes] + [d.format() for d in found[1:]]
    if stage_input is not None:
        notes.append(f"the input of stage '{stage.name}' is {shlex.quote(str(stage_input))}")
    return StrataError(f"{location}error: {first.message} ({where})", notes=tuple(notes))
