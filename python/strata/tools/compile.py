"""strata-compile: compile a PyTorch model (or torch/linalg MLIR) to an IREE module for a target.

    strata-compile model.py:Net --target=cuda --chip=sm_90 -o net.vmfb

MODEL is `file.py:Name` (an nn.Module class or a factory taking no arguments; example inputs come
from `--input-shape` flags or the file's `example_inputs()`), a `.pt2` archive from
`torch.export.save`, or an `.mlir` file in the torch or linalg dialect. Every user mistake is a
one-line `strata-compile: error: ...`; outputs appear whole or not at all.
"""

import argparse
import importlib.util
import sys
import time
import warnings
from pathlib import Path

from strata.errors import StrataError

PROG = "strata-compile"
STAGE_CHOICES = ("torch", "strata", "linalg", "vmfb")
_TORCH_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i1": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "ui8": "uint8",
}  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Compile a PyTorch model to an IREE module.")
    p.add_argument("model", nargs="?", help="file.py:Name | model.pt2 | model.mlir (torch or linalg dialect)")
    p.add_argument("--target", default="llvm-cpu", help="llvm-cpu (default), vulkan-spirv, cuda, rocm")
    p.add_argument("--chip", help="target chip or alias, e.g. sm_90, gfx942, znver4 (default: the target's)")
    p.add_argument("-o", "--output", help="output file ('-' for stdout, IR stages only)")
    p.add_argument("--list-targets", action="store_true", help="print the targets with their chips and exit")
    p.add_argument("--input-shape", action="append", default=[], metavar="SHAPE",
                   help="an example input, e.g. 1x3x224x224xf32 (repeat per input)")
    p.add_argument("--dynamic-dim", action="append", default=[], metavar="NAME=ARG:DIM[:MIN[:MAX]]",
                   help="make dimension DIM of input ARG dynamic, e.g. batch=0:0")
    p.add_argument("--compile-to", choices=STAGE_CHOICES, default="vmfb", help="stop after this stage and write its IR")
    p.add_argument("--dump-stages", metavar="DIR", help="write every stage's IR and IREE's per-dispatch files to DIR")
    p.add_argument("--audit", action="store_true", help="print which instruction classes each dispatch uses")
    p.add_argument("--params", metavar="FILE.irpa", help="move the weights into this IREE parameter archive")
    p.add_argument("--raise-torch", action="store_true", help="raise and lower through strata's dialect before IREE")
    p.add_argument("--no-tuned-defaults", action="store_true", help="plain iree-compile flags (no strata defaults)")
    p.add_argument("--iree-flag", action="append", default=[], metavar="FLAG", help="extra iree-compile flag (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    return p


class Progress:
    """Stage-by-stage progress on stderr, only on a terminal and not with -q."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, stage: str, seconds: float) -> None:
        if self.enabled:
            print(f"{PROG}: {stage:<8} {seconds:6.2f} s", file=sys.stderr, flush=True)


def _example_input(spec: str):
    import torch

    from strata.iree_runtime import TensorType

    tensor_type = TensorType.parse(spec)
    if None in tensor_type.shape:
        raise StrataError(f"--input-shape '{spec}': example inputs need static sizes (use --dynamic-dim)")
    dtype = getattr(torch, _TORCH_DTYPES[tensor_type.dtype])
    if dtype.is_floating_point:
        return torch.randn(tensor_type.shape, dtype=dtype)
    if dtype == torch.bool:
        return torch.rand(tensor_type.shape) > 0.5
    return torch.randint(0, 8, tensor_type.shape, dtype=dtype)


def load_python_model(spec: str, input_shapes: list[str]):
    """`file.py:Name` -> (nn.Module, example inputs). Imports torch only once the file runs: a
    mistake in the spec or the file is reported in a fraction of a second, not after seconds of
    loading torch."""
    path_text, _, name = spec.rpartition(":")
    path = Path(path_text)
    if not path_text or not name:
        raise StrataError(f"bad model '{spec}': expected file.py:Name")
    if not path.is_file():
        raise StrataError(f"cannot read '{path}': no such file")
    module_spec = importlib.util.spec_from_file_location(f"strata_user_model_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:
        raise StrataError(f"importing '{path}' failed: {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    if not hasattr(module, name):
        raise StrataError(f"'{path}' defines no '{name}'")
    factory = getattr(module, name)
    try:
        model = factory()
    except Exception as e:
        raise StrataError(f"'{name}()' failed: {type(e).__name__}: {e}") from None
    import torch

    if not isinstance(model, torch.nn.Module):
        raise StrataError(f"'{name}()' returned a {type(model).__name__}, not a torch.nn.Module")
    if input_shapes:
        return model, tuple(_example_input(s) for s in input_shapes)
    if not hasattr(module, "example_inputs"):
        raise StrataError(f"'{path}' has no example_inputs() function: pass --input-shape for each input")
    inputs = module.example_inputs()
    return model, tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def _write(path: str, artifact) -> None:
    from strata.atomic_output import write_bytes_atomic, write_text_atomic

    if path == "-":
        if isinstance(artifact, bytes):
            raise StrataError("refusing to write a binary module to stdout: pass -o FILE.vmfb")
        sys.stdout.write(artifact)
        return
    (write_bytes_atomic if isinstance(artifact, bytes) else write_text_atomic)(path, artifact)


def check_writable(path: str, flag: str) -> None:
    """Fails now, not after minutes of compiling, when `path` could not be written at the end."""
    import contextlib
    import os
    import tempfile

    from strata.atomic_output import TEMP_PREFIX

    if path == "-":
        return
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise StrataError(f"cannot write '{target}' ({flag}): it is a directory")
    if not directory.exists():
        raise StrataError(f"cannot write '{target}' ({flag}): directory '{directory}' does not exist")
    if not directory.is_dir():
        raise StrataError(f"cannot write '{target}' ({flag}): '{directory}' is not a directory")
    try:  # as root, permission bits say nothing: try what the atomic write will do
        fd, probe = tempfile.mkstemp(prefix=TEMP_PREFIX + "probe.", dir=directory)
    except OSError as e:
        raise StrataError(f"cannot write '{target}' ({flag}): {e.strerror}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _compile_mlir(args, options, stage_options, progress):
    """An `.mlir` input: torch dialect goes through the stages, linalg through the target's tuned
    passes to IREE."""
    from strata.compile_stages import compile_linalg, run_stages

    path = Path(args.model)
    if not path.is_file():
        raise StrataError(f"cannot read '{path}': no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise StrataError(f"cannot read '{path}': not MLIR text (byte {e.start} is not UTF-8)") from None
    except OSError as e:
        raise StrataError(f"cannot read '{path}': {e.strerror}") from None
    if "!torch.vtensor" in text:
        from torch_mlir import ir

        from strata.context import make_context

        try:
            module = ir.Module.parse(text, make_context())
        except ir.MLIRError as e:
            raise StrataError(f"cannot parse '{path}': {e.error_diagnostics[0].message if e.error_diagnostics else e}") from None
        return run_stages(module, options, stage_options, progress)
    if stage_options.stop_at != "vmfb":
        raise StrataError(f"'{path}' is not torch-dialect IR: only --compile-to=vmfb applies to linalg input")
    return compile_linalg(text, options, progress)


def run(args) -> int:
    from strata import targets

    if args.list_targets:
        print(targets.format_target_list())
        return 0
    if not args.model:
        raise StrataError("no model given (see --help)")
    if not args.output and not args.audit:
        raise StrataError("no output file: pass -o FILE")
    if args.output:
        check_writable(args.output, "-o")
    if args.params:
        check_writable(args.params, "--params")
    target = targets.get_target(args.target)
    chip = target.chip(args.chip)
    from strata.compile_stages import StageOptions, run_stages
    from strata.iree_compile import CompileOptions
    from strata.torch_import import DynamicDim

    dims = [DynamicDim.parse(d) for d in args.dynamic_dim]
    dump_dir = Path(args.dump_stages) if args.dump_stages else None
    audit_dir = None
    if args.audit and dump_dir is None:
        import tempfile

        audit_dir = Path(tempfile.mkdtemp(prefix="strata-audit-"))
    options = CompileOptions(
        target=target.name, chip=chip.name, tuned=not args.no_tuned_defaults, extra_flags=tuple(args.iree_flag)
    )
    stage_options = StageOptions(
        stop_at=args.compile_to, raise_torch=args.raise_torch, dump_dir=dump_dir or audit_dir, tuned_passes=not args.params
    )
    progress = Progress(sys.stderr.isatty() and not args.quiet)
    if args.params and (args.raise_torch or args.compile_to in ("strata", "linalg")):
        raise StrataError("--params does not combine with the strata or linalg stages yet: Torch-MLIR's linalg pipeline rejects the parameter globals")
    if args.audit and args.compile_to != "vmfb":
        raise StrataError("--audit needs --compile-to=vmfb")

    if args.model.endswith(".mlir"):
        if args.params:
            raise StrataError("--params needs a PyTorch model (.py or .pt2): MLIR input carries its weights already")
        artifact = _compile_mlir(args, options, stage_options, progress)
    else:
        started = time.perf_counter()
        if args.model.endswith(".pt2"):
            if args.input_shape:
                raise StrataError("--input-shape does not apply to a .pt2 archive: it carries its inputs")
            from strata.torch_import import load_exported_program

            model, inputs = load_exported_program(Path(args.model)), ()
            named = list(model.state_dict.items()) + list(model.constants.items())
        else:
            # The user's file first: Torch-MLIR's importer loads for seconds.
            model, inputs = load_python_model(args.model, args.input_shape)
            named = list(model.state_dict().items())
        from strata.parameters import ParameterExternalizer
        from strata.torch_import import import_torch
        externalizer = ParameterExternalizer(named_tensors=named) if args.params else None
        module = import_torch(model, inputs, dims, hooks=externalizer)
        progress("import", time.perf_counter() - started)
        artifact = run_stages(module, options, stage_options, progress)
        if externalizer and args.output:
            externalizer.save(args.params)
    if args.output:
        _write(args.output, artifact)
    if args.audit:
        from strata.dispatch_audit import audit_dispatches, format_audit

        print(format_audit(audit_dispatches(stage_options.dump_dir / "dispatches", target), target, chip.name))
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (a host-linked module, say) as one `strata-compile: warning:` line each."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        return run(args)
    except StrataError as e:
        print(f"{PROG}: error: {e.message}", file=sys.stderr)
        for note in e.notes:
            print(f"{PROG}: note: {note}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `strata-compile --compile-to=torch -o - | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
