"""Compile torch- or linalg-dialect IR to an IREE module (`.vmfb`) for a strata target.

The flags come from the target description (`targets/<name>.toml`) plus the options a user set:
the chip, strata's tuned defaults, parameter export. Two choices differ from plain iree-compile
on purpose: dtypes stay exact (`--iree-input-demote-f64-to-f32=false`; IREE's default silently
corrupts f64 models), and chips IREE's own table lacks (sm_90 in IREE 3.13) get their target
description injected into the module. A failed compile becomes one `StrataError` naming the
failing op, the user's Python line it came from, and a reproducer command.

IREE's embedded CPU linker carries no f64 libm and not all of f32 (`sin`, `tanh`, `atan2`,
`log10f` are undefined symbols in IREE 3.13), so an llvm-cpu compile that fails to link on an
undefined symbol is retried once with the system linker. That module embeds a host `.so`: it
runs exactly, but only on hosts like this one, so the retry raises a `HostLinkedModuleWarning`.
"""

import functools
import os
import re
import shlex
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from strata.errors import StrataError
from strata.ir_text import op_section
from strata.kernel_calls import calls_kernels, dispatch_kernels
from strata.targets import Target, get_target


@dataclass(frozen=True)
class CompileOptions:
    target: str = "llvm-cpu"
    chip: str | None = None
    tuned: bool = True  # strata's benchmarked defaults from the target file
    dump_dir: Path | None = None  # per-dispatch intermediates (.ll, .s, .rocmasm, .ptx) go here
    extra_flags: tuple[str, ...] = field(default_factory=tuple)

    def resolved_target(self) -> Target:
        return get_target(self.target)


# Traits assumed where no IR is at hand: every model-limited default but the matrix-vector one.
UNKNOWN_MODEL = frozenset({"conv", "matrix"})


def iree_flags(options: CompileOptions, *, traits: frozenset[str] = UNKNOWN_MODEL, f64_at_boundary: bool = True) -> list[str]:
    """The iree-compile flags for `options`; `traits` (`model_traits` of the IR) gate the tuned
    defaults limited to some models, and `f64_at_boundary` (unknown counts as True) whether f64
    may be demoted inside the model."""
    target = options.resolved_target()
    chip = target.chip(options.chip)
    flags = list(target.flags)
    flags.append(f"{target.chip_flag}={chip.name}")
    flags += chip.flags
    if options.tuned:
        for tuned in target.tuned_for(chip.name, traits):
            flags += tuned.flags
    # Keep the model's dtypes: IREE demotes f64 to f32 by default, which corrupts f64 results.
    # Chips without 64-bit arithmetic demote (compile_ir refuses 64-bit types at the boundary),
    # and so do targets that cannot compile f64 internals, for models with no f64 at the boundary.
    demote = not chip.bits64 or (target.demote_internal_f64 and not f64_at_boundary)
    flags.append(f"--iree-input-demote-f64-to-f32={'true' if demote else 'false'}")
    if not chip.bits64:
        flags.append("--iree-input-demote-i64-to-i32=true")
    if options.dump_dir is not None:
        dispatch_dir = Path(options.dump_dir) / "dispatches"
        flags.append(f"--iree-hal-dump-executable-intermediates-to={dispatch_dir}")
        flags.append(f"--iree-hal-dump-executable-binaries-to={dispatch_dir}")
        # Linking merges all CPU dispatches into one object; keep them apart so dumps and
        # `--audit` show one file per dispatch.
        flags.append("--iree-hal-link-executables=false")
    flags += options.extra_flags
    return flags


def _with_executable_target(text: str, device: str, executable_target: str) -> str:
    """`text` with a module-level `hal.device.targets` naming `executable_target` explicitly."""
    device_attr = f'hal.device.targets = [#hal.device.target<"{device}", [{executable_target}]> : !hal.device]'
    match = re.search(r"^module( attributes \{)?", text, re.MULTILINE)
    if not match:
        raise StrataError("cannot set the executable target: the IR has no top-level 'module'")
    if match.group(1):
        return text[: match.end()] + device_attr + ", " + text[match.end() :]
    return text[: match.end()] + f" attributes {{{device_attr}}}" + text[match.end() :]


# Result types of matmul-like ops: torch's (`-> !torch.vtensor<[1,2048],f32>`) and linalg's
# named ops (`outs(%c : tensor<1x2048xf32>)`).
_TORCH_MATMUL = re.compile(r"torch\.aten\.(mm|addmm|matmul|bmm|baddbmm|linear)\b[^\n]*-> !torch\.vtensor<\[([^\]]*)\]")
_EXP = re.compile(r"(torch\.aten|math)\.exp\b")  # not expand, exp2 or expm1
_LINALG_MATMUL = re.compile(r"linalg\.(matmul|batch_matmul|matvec|vecmat)\b[^\n]*outs\([^:]*:\s*tensor<([^>]*)>")


def _rows(op: str, dims: list[str]) -> int | None:
    """Rows of a matmul's result (per batch), or None where a size is dynamic."""
    if op in ("matvec", "vecmat") or len(dims) < 2:
        return 1
    rows = dims[:-1] if op == "linear" else dims[-2:-1]
    if any(not d.isdigit() for d in rows):
        return None
    product = 1
    for d in rows:
        product *= int(d)
    return product


def tuned_passes(options: CompileOptions, traits: frozenset[str]) -> list[str]:
    """The strata passes the target's tuned defaults run on the model's linalg IR before IREE
    (empty: IREE takes the torch IR itself)."""
    if not options.tuned:
        return []
    target = options.resolved_target()
    chip = target.chip(options.chip)
    return [t.passes for t in target.tuned_for(chip.name, traits) if t.passes]


def model_traits(text: str) -> frozenset[str]:
    """The MODEL_TRAITS (targets.py) of torch- or linalg-dialect IR text."""
    text = op_section(text)
    traits = set()
    if "convolution" in text or "linalg.conv" in text:
        traits.add("conv")
    rows = [_rows(op, [d.strip() for d in dims.split(",")]) for op, dims in _TORCH_MATMUL.findall(text)]
    rows += [_rows(op, dims.split("x")[:-1]) for op, dims in _LINALG_MATMUL.findall(text)]
    # Convolutions become matmuls of many rows (im2col), whatever a classifier at the end computes.
    only_vectors = rows and all(r == 1 for r in rows) and "conv" not in traits
    traits.add("matvec" if only_vectors else "matrix")
    if any(r is not None and r > 1 for r in rows):
        traits.add("gemm")
    if "torch.aten.rsqrt" in text or "math.rsqrt" in text:
        traits.add("norm")
    if _EXP.search(text) and ("torch.aten.max.dim" in text or "torch.aten.amax" in text or "arith.maximumf" in text):
        traits.add("softmax")
    return frozenset(traits)


def compile_ir(text: str, options: CompileOptions, *, input_type: str = "torch", traits: frozenset[str] | None = None) -> bytes:
    """The vmfb for torch-dialect (`input_type="torch"`) or linalg (`"auto"`) IR text; `traits`
    (default: `model_traits(text)`) pick the tuned defaults limited to some models."""
    target = options.resolved_target()
    chip = target.chip(options.chip)
    if not chip.bits64 and re.search(r'strata\.(inputs|outputs) = "[^"]*[fi]64', text):
        raise StrataError(
            f"chip '{chip.name}' of target '{target.name}' has no 64-bit arithmetic and the model takes "
            "or returns f64/i64 tensors: IREE would demote them to 32 bits (convert the model, or pick another chip)"
        )
    if chip.executable_target:
        device = target.flags[0].split("=", 1)[1] if target.flags else target.name
        text = _with_executable_target(text, device, chip.executable_target)
    if options.dump_dir is not None:
        (Path(options.dump_dir) / "dispatches").mkdir(parents=True, exist_ok=True)
    return _run_compiler(text, options, input_type, model_traits(text) if traits is None else traits)


SYSTEM_LINKER_FLAG = "--iree-llvmcpu-link-embedded=false"


class HostLinkedModuleWarning(UserWarning):
    """A CPU module was linked by the system linker: it holds a host `.so`, not a portable ELF."""


def _run_compiler(text: str, options: CompileOptions, input_type: str, traits: frozenset[str]) -> bytes:
    from iree.compiler import tools as ireec

    signature = re.search(r'strata\.inputs = "([^"]*)", strata\.outputs = "([^"]*)"', text)
    f64_at_boundary = signature is None or "f64" in signature.group(1) + signature.group(2)
    flags = iree_flags(options, traits=traits, f64_at_boundary=f64_at_boundary)
    try:
        return ireec.compile_str(_with_kernels(text, flags), input_type=input_type, extra_args=flags)
    except ireec.CompilerToolError as e:
        symbols = _undefined_symbols(_stderr_of(e))
        if not symbols or options.resolved_target().name != "llvm-cpu" or SYSTEM_LINKER_FLAG in flags:
            raise _compile_error(e, text, input_type, flags) from None
        first_error = e
    try:
        system_flags = [*flags, SYSTEM_LINKER_FLAG]
        vmfb = ireec.compile_str(_with_kernels(text, system_flags), input_type=input_type, extra_args=system_flags)
    except ireec.CompilerToolError as e:
        error = _compile_error(first_error, text, input_type, flags)
        retry = _compile_error(e, text, input_type, [*flags, SYSTEM_LINKER_FLAG])
        raise StrataError(error.message, notes=(*error.notes, f"retrying with the system linker ({SYSTEM_LINKER_FLAG}) failed too: {retry.message}")) from None
    warnings.warn(
        HostLinkedModuleWarning(
            f"IREE's embedded linker lacks {', '.join(symbols)}: linked with the system linker "
            f"({SYSTEM_LINKER_FLAG}), so the module runs only on hosts like this one"
        ),
        stacklevel=2,
    )
    return vmfb


def _with_kernels(text: str, flags: list[str]) -> str:
    """`text` with its calls of strata's CPU kernels dispatched (`strata.kernel_calls`), their
    executables on the very target these flags give IREE's own dispatches: IREE links executables
    of one target attribute into one variant, and the runtime loads only the first variant a
    device supports, so a kernel on a target of its own would be missing from it (and unlinked
    executables double the compile time of a ResNet-18)."""
    if not calls_kernels(text):
        return text
    target = executable_target(tuple(flags))
    if not target.startswith('#hal.executable.target<"llvm-cpu"') or "x86_64" not in target:
        raise StrataError(
            "the module calls strata's x86-64 CPU kernels (@strata_kernel_...), which compile only "
            f"for llvm-cpu on x86-64; IREE's target here is {target.split(',')[0]}...>: compile the model "
            "for this target from PyTorch or from a linalg stage written for it"
        )
    return dispatch_kernels(text, target)


_PROBE = "func.func @probe(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = arith.addf %x, %x : tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n"
_DEVICE_TARGET = re.compile(r"#hal\.device\.target<\"[^\"]*\", \[(#hal\.executable\.target<.*>)\]> : !hal\.device")


@functools.cache
def executable_target(flags: tuple[str, ...]) -> str:
    """The `#hal.executable.target` IREE compiles dispatches for under `flags` (a one-op module
    compiled to where IREE has assigned its devices: 0.3 s, once per process and flags)."""
    from iree.compiler import tools as ireec

    kept = [f for f in flags if not f.startswith("--iree-hal-dump-")]
    try:
        sources = ireec.compile_str(_PROBE, input_type="auto", extra_args=[*kept, "--compile-to=preprocessing"])
    except ireec.CompilerToolError as e:
        raise StrataError(f"cannot find IREE's executable target for strata's kernels: {_stderr_of(e).strip()}") from None
    targets = _DEVICE_TARGET.findall(sources.decode())
    if len(targets) != 1:
        raise StrataError("cannot find IREE's executable target for strata's kernels: expected one device with one target")
    return targets[0]


def _stderr_of(error) -> str:
    """iree-compile's stderr from a `CompilerToolError` (its text wraps it as `Diagnostics:`)."""
    text = getattr(error, "stderr_text", None) or str(error)
    match = re.search(r"^Diagnostics:\n(.*?)\n\nInvoked with:", text, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else text


def _undefined_symbols(stderr: str) -> list[str]:
    """The symbols a failed link lacked, in order of first mention."""
    return list(dict.fromkeys(re.findall(r"^\S*(?:lld|ld): error: undefined symbol: (\S+)", stderr, re.MULTILINE)))


def _linker_errors(stderr: str) -> list[str]:
    """The linker's own error messages (lld's or the system linker's), without repeats."""
    return list(dict.fromkeys(re.findall(r"^\S*(?:lld|ld)\S*: error: (.*\S)", stderr, re.MULTILINE)))


_LOC_ERROR = re.compile(r'^(?P<loc>\S.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$', re.MULTILINE)


def annotate_signature(module, func_name: str = "main") -> None:
    """Stores `func_name`'s tensor types in the module's reflection metadata for the runtime."""
    from torch_mlir import ir

    from strata.torch_import import function_signature

    try:
        inputs, outputs = function_signature(module, func_name)
    except StrataError:
        return  # a type the runtime cannot check (complex, lists): IREE's own checks remain
    with module.context:
        for op in module.body.operations:
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == func_name:
                op.attributes["iree.reflection"] = ir.DictAttr.get(
                    {"strata.inputs": ir.StringAttr.get(",".join(inputs)), "strata.outputs": ir.StringAttr.get(",".join(outputs))}
                )


def compile_torch_module(module, options: CompileOptions) -> bytes:
    """The vmfb of a torch-dialect module from `strata.torch_import`, signature included."""
    annotate_signature(module)
    return compile_ir(module.operation.get_asm(enable_debug_info=True), options, input_type="torch")


def _compile_error(error, text: str, input_type: str, flags: list[str]) -> StrataError:
    """A one-line error: the first diagnostic, the user's source line, and a reproducer."""
    stderr = _stderr_of(error)
    diagnostics = [m for m in _LOC_ERROR.finditer(stderr)]
    if diagnostics:
        first = diagnostics[0]
        location = f"{first.group('loc')}:{first.group('line')}"
        message = first.group("msg").strip()
    else:
        location = ""
        lines = [l.strip() for l in stderr.splitlines() if l.strip()]
        # Without any `error:` line (an unknown flag), iree-compile's first words say what is wrong.
        message = next((l for l in lines if "error:" in l), lines[0] if lines else "iree-compile exited without output")
        message = message.split("error:", 1)[-1].strip()
        message = re.sub(r"^iree-compile: |\s+Try: .*$", "", message)
    linker = _linker_errors(stderr)
    if linker:
        symbols = _undefined_symbols(stderr)
        cause = f"undefined symbol(s) {', '.join(symbols)}" if symbols else "; ".join(linker)
        message = f"failed to link the executable: {cause}"
    stage = "IREE compilation"
    illegal = re.match(r"failed to legalize operation '(torch\.[\w.]+)'", message)
    if illegal:
        stage = "IREE's torch-to-linalg input conversion"
        culprits = torch_ops_at(text, location) or [illegal.group(1)]
        message = f"no lowering for {', '.join(culprits)} ({message.split(':', 1)[0]})"
    source = source_line(location)
    reproducer = _write_reproducer(text, input_type, flags)
    where = f" at {location}" + (f" ({source})" if source else "") if location else ""
    return StrataError(f"{stage} failed{where}: {message}", notes=(f"reproduce with: {reproducer}",))


def torch_ops_at(text: str, location: str) -> list[str]:
    """The `torch.aten.*` ops of `text` whose location is `location` (file:line)."""
    aliases = dict(re.findall(r'^(#loc\d*) = loc\((".*?":\d+):\d+\)', text, re.MULTILINE))
    wanted = re.sub(r'^"?(.*?)"?:(\d+)$', r'"\1":\2', location)
    ops = []
    for op, loc in re.findall(r'= (torch\.aten\.[\w.]+) .* loc\((#loc\d*|".*?":\d+)', text):
        if aliases.get(loc, loc) == wanted and op not in ops:
            ops.append(op)
    return ops


def source_line(location: str) -> str:
    """The stripped text of `file:line` when the file is readable (the user's model source)."""
    match = re.fullmatch(r'"?(.+?)"?:(\d+)', location)
    if not match or not os.path.isfile(match.group(1)):
        return ""
    try:
        lines = Path(match.group(1)).read_text(encoding="utf-8", errors="replace").splitlines()
        return lines[int(match.group(2)) - 1].strip()
    except (OSError, IndexError):
        return ""


def _write_reproducer(text: str, input_type: str, flags: list[str]) -> str:
    directory = Path(tempfile.mkdtemp(prefix="strata-repro-"))
    source = directory / "input.mlir"
    source.write_text(text, encoding="utf-8")
    args = ["iree-compile", str(source), f"--iree-input-type={input_type}", *flags, "-o", str(directory / "out.vmfb")]
    return shlex.join(args)
