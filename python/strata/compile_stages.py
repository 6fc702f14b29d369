"""The named stages a model goes through on the IREE route, so a driver can stop at or dump any.

    torch   FX-imported torch dialect (value semantics, shapes refined)
    strata  torch dialect with whole operators raised to strata ops (`strata-raise-torch`)
    linalg  linalg-on-tensors (strata ops lowered by `strata-lower-to-linalg`, the rest by
            Torch-MLIR's backend pipeline), after the target's tuned strata passes
    vmfb    the IREE module

By default IREE compiles the torch stage itself (its own torch input conversion); with `raise_torch`
the module goes through the strata and linalg stages first and IREE takes the linalg IR. Which is
the default is decided by measurement (see `RAISE_BY_DEFAULT`). A target's tuned defaults may name
strata passes for the linalg stage (`passes` in `targets/*.toml`); then IREE takes the linalg IR
too, unless Torch-MLIR's linalg lowering fails on the model, where IREE's own torch input
conversion (which covers more ops) still gets the torch IR.
"""

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

from strata.atomic_output import write_text_atomic
from strata.errors import StrataError
from strata.iree_compile import CompileOptions, annotate_signature, compile_ir, model_traits, tuned_passes

STAGES = ("torch", "strata", "linalg", "vmfb")

# Raising is an option, not the default. With strata-lower-to-iree the raised route is the faster
# one on the bench's LLaMA block (d_model 512, 8 heads, 128 tokens, batch 1): 28.8 / 24.8 ms
# against 32.8 / 26.9 ms unraised and 39.6 / 37.8 ms for plain IREE (torch input, default flags,
# host CPU), i.e. 1.38x / 1.53x plain; before that pass it took 90.9 / 66.8 ms. It is within noise
# of unraised on the GPT-2 block and TransformerEncoderLayer (medians of two interleaved runs,
# local-task with 2 threads, 2-core EPYC znver3 under load, 2026-11-29). It stays opt-in because
# with it as default two tests of test/python/iree/test_api.py fail: an op IREE cannot lower loses
# its reproducer note, and externalized parameters (`params=`) do not parse in strata's context.
# It is also 23% slower on the NCHW CNN (4.58 vs 3.71 ms; MLP 0.373 vs 0.399 ms, GPT-2 block 2.65
# vs 3.66 ms: best of 15 interleaved rounds, zoo configs of test/python/iree at d_model 256).
RAISE_BY_DEFAULT = False
RAISE_PIPELINE = "builtin.module(strata-raise-torch)"
LOWER_PIPELINE = "builtin.module(strata-lower-to-iree, strata-lower-to-linalg, torch-backend-to-linalg-on-tensors-backend-pipeline)"
TORCH_TO_LINALG_PIPELINE = "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline)"


@dataclass(frozen=True)
class StageOptions:
    stop_at: str = "vmfb"
    raise_torch: bool = RAISE_BY_DEFAULT
    dump_dir: Path | None = None
    # The target's tuned strata passes; off where the linalg stage cannot take the module
    # (weights externalized to parameters: Torch-MLIR's linalg pipeline rejects the globals).
    tuned_passes: bool = True


def _run_pipeline(text: str, pipeline: str, stage: str) -> str:
    """`pipeline` (strata and upstream passes) applied to IR `text`, printed with locations."""
    from torch_mlir._mlir_libs._mlir import ir

    from strata.context import make_context

    with make_context():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise StrataError(_stage_error(list(e.error_diagnostics), str(e), text, pipeline, stage)) from None
        return _run_pipeline_on(module, pipeline, stage, lambda: text)


def _run_pipeline_on(module, pipeline: str, stage: str, source_text: Callable[[], str]) -> str:
    """`pipeline` applied to a copy of `module` (in its own context), printed with locations;
    `source_text()` is the module's text, printed only to name the torch ops in an error."""
    from torch_mlir._mlir_libs._mlir import ir

    from strata.pass_pipeline import build_pass_manager, parse_pipeline

    # In the importer's context a failing pass's errors reach the context's handlers instead of
    # the MLIRError: keep them (and off stderr) for the message.
    reported: list[_Reported] = []

    def keep(diagnostic) -> bool:
        if str(diagnostic.severity).lower().endswith("error"):
            reported.append(_Reported(str(diagnostic.message), str(diagnostic.location)))
        return True

    with module.context:
        handler = module.context.attach_diagnostic_handler(keep)
        copy = module.operation.clone()
        try:
            build_pass_manager(parse_pipeline(pipeline), module.context).run(copy.operation)
            return copy.operation.get_asm(enable_debug_info=True)
        except ir.MLIRError as e:
            diagnostics = list(e.error_diagnostics) or reported
            raise StrataError(_stage_error(diagnostics, str(e), source_text(), pipeline, stage)) from None
        finally:
            copy.operation.erase()
            handler.detach()


class _Reported(NamedTuple):
    message: str
    location: str


def _stage_error(diagnostics, error: str, text: str, pipeline: str, stage: str) -> str:
    """The first diagnostic (anything with a message and a location), with the torch ops and the
    user's source line at its location; `error` where there is none."""
    from strata.diagnostics import location_parts
    from strata.iree_compile import source_line, torch_ops_at

    if not diagnostics:
        return f"stage '{stage}' failed in '{pipeline}': {error.splitlines()[0]}"
    first = diagnostics[0]
    message = str(first.message).split(":", 1)[0] if "failed to legalize" in str(first.message) else str(first.message)
    file, line, _ = location_parts(first.location)
    where = ""
    if file is not None:
        location = f"{file}:{line}"
        culprits = torch_ops_at(text, location)
        if culprits:
            message = f"no lowering for {', '.join(culprits)} ({message})"
        source = source_line(location)
        where = f" at {location}" + (f" ({source})" if source else "")
    return f"stage '{stage}' ({pipeline}) failed{where}: {message}"


def raising_available() -> bool:
    from strata import passes

    needed = ("strata-raise-torch", "strata-lower-to-iree", "strata-lower-to-linalg")
    return all(passes.lookup(name) is not None for name in needed)


def run_stages(
    torch_module,
    compile_options: CompileOptions,
    stage_options: StageOptions = StageOptions(),
    on_stage: Callable[[str, float], None] = lambda name, seconds: None,
) -> str | bytes:
    """The artifact of stage `stage_options.stop_at` (IR text, or vmfb bytes) for a torch module."""
    stop_at = stage_options.stop_at
    if stop_at not in STAGES:
        raise StrataError(f"unknown stage '{stop_at}' (stages: {', '.join(STAGES)})")
    raising = stage_options.raise_torch or stop_at == "strata"
    if raising and not raising_available():
        raise StrataError("the strata stage needs strata's raising and lowering passes, which this checkout lacks")
    dump = Path(stage_options.dump_dir) if stage_options.dump_dir else None
    if dump:
        dump.mkdir(parents=True, exist_ok=True)

    def finish(name: str, artifact, started: float):
        on_stage(name, time.perf_counter() - started)
        if dump and isinstance(artifact, str):
            write_text_atomic(dump / f"{STAGES.index(name) + 1:02d}-{name}.mlir", artifact)
        return artifact

    started = time.perf_counter()
    annotate_signature(torch_module)
    # The tuned defaults go by the model as imported, where every matmul is a named torch op with
    # its shape; raising may rewrite matmuls into ops model_traits does not read (contractions
    # written as linalg.generic). The ops alone print in a millisecond; the whole module, with
    # the weights' blobs, takes a tenth of a second per 50 MB and is printed only where needed.
    traits = model_traits("\n".join(op.operation.get_asm() for op in torch_module.body.operations))
    foreign = _foreign_ops(torch_module)
    if foreign and (raising or stop_at == "linalg"):
        raise StrataError(
            f"stage '{'strata' if raising else 'linalg'}' cannot take ops of dialects Torch-MLIR does not know"
            f" ({', '.join(foreign)}: weights externalized to parameters?); IREE's torch input can"
        )
    # Torch-MLIR's linalg pipeline run on such ops (the util/stream globals of externalized
    # parameters) failed, changed the module it had not been given, and now and then crashed the
    # process: those modules go to IREE's torch input as they are.
    passes = tuned_passes(compile_options, traits) if stage_options.tuned_passes and not foreign else []
    linalg_only = passes and not raising and stop_at != "torch" and not dump
    text = None if linalg_only else torch_module.operation.get_asm(enable_debug_info=True)
    finish("torch", text, started)
    if stop_at == "torch":
        return text
    if raising:
        started = time.perf_counter()
        text = finish("strata", _run_pipeline(text, RAISE_PIPELINE, "strata"), started)
        if stop_at == "strata":
            return text
    input_type = "torch"
    if raising or passes or stop_at == "linalg" or dump:
        started = time.perf_counter()
        pipeline = _linalg_pipeline(raising, passes)
        try:
            if text is None:  # straight from the imported module: no print and parse of the weights
                source = lambda: torch_module.operation.get_asm(enable_debug_info=True)  # noqa: E731
                linalg = _run_pipeline_on(torch_module, pipeline, "linalg", source)
            else:
                linalg = _run_pipeline(text, pipeline, "linalg")
            linalg = finish("linalg", linalg, started)
        except StrataError:
            # IREE's torch input conversion gets its chance (see the docstring), on the imported
            # module as it was: the pipeline ran on a copy, and the module must still verify.
            if raising or stop_at == "linalg" or (text is None and not _verifies(torch_module)):
                raise
            linalg = None
        if stop_at == "linalg":
            return linalg
        if linalg is not None and (raising or passes):
            text, input_type = linalg, "auto"
    if text is None:
        text = torch_module.operation.get_asm(enable_debug_info=True)
    started = time.perf_counter()
    options = compile_options if not dump else _with_dump(compile_options, dump)
    vmfb = compile_ir(text, options, input_type=input_type, traits=traits)
    return finish("vmfb", vmfb, started)


def _foreign_ops(module) -> list[str]:
    """The names of the top-level ops of `module` whose dialects its context does not know."""
    context = module.context
    names = {op.operation.name for op in module.body.operations}
    return sorted(name for name in names if not context.is_registered_operation(name))


def _verifies(module) -> bool:
    from torch_mlir._mlir_libs._mlir import ir

    try:
        return module.operation.verify()
    except ir.MLIRError:
        return False


def compile_linalg(
    text: str, compile_options: CompileOptions, on_stage: Callable[[str, float], None] = lambda name, seconds: None
) -> bytes:
    """The vmfb for linalg IR text, through the target's tuned strata passes where it has any
    (IREE takes the text as it is where they fail on it, and reports its own errors)."""
    traits = model_traits(text)
    passes = tuned_passes(compile_options, traits)
    if passes:
        started = time.perf_counter()
        try:
            text = _run_pipeline(text, "builtin.module(" + ", ".join(passes) + ")", "linalg")
        except StrataError:
            pass
        on_stage("linalg", time.perf_counter() - started)
    started = time.perf_counter()
    vmfb = compile_ir(text, compile_options, input_type="auto", traits=traits)
    on_stage("vmfb", time.perf_counter() - started)
    return vmfb


def _linalg_pipeline(raising: bool, passes: list[str]) -> str:
    stages = LOWER_PIPELINE if raising else TORCH_TO_LINALG_PIPELINE
    if not passes:
        return stages
    return stages[: -len(")")] + ", " + ", ".join(passes) + ")"


def _with_dump(options: CompileOptions, dump: Path) -> CompileOptions:
    import dataclasses

    return dataclasses.replace(options, dump_dir=dump)
