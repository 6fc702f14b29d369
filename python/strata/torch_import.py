"""Import a PyTorch program into MLIR's torch dialect, with errors that point at the user's code.

torch.export traces the model (or a `.pt2` archive supplies the traced program), Torch-MLIR's FX
importer turns it into `torch` dialect IR with one location per op taken from the FX node's stack
trace, so later failures (an op IREE cannot lower, say) can name the line of Python that produced
the op. Dynamic dimensions are declared by name, e.g. `batch=0:0` (argument 0, dimension 0).
"""

import logging
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from strata.errors import StrataError


@dataclass(frozen=True)
class DynamicDim:
    """Dimension `dim` of argument `arg` is dynamic; dims sharing a `name` are equal at run time."""

    name: str
    arg: int
    dim: int
    min: int = 1
    max: int | None = None

    @classmethod
    def parse(cls, text: str) -> "DynamicDim":
        """Parses `NAME=ARG:DIM[:MIN[:MAX]]`, the form of `strata-compile --dynamic-dim`."""
        match = re.fullmatch(r"([A-Za-z_]\w*)=(\d+):(\d+)(?::(\d+))?(?::(\d+))?", text)
        if not match:
            raise StrataError(f"bad --dynamic-dim '{text}': expected NAME=ARG:DIM[:MIN[:MAX]], e.g. batch=0:0")
        name, arg, dim, lo, hi = match.groups()
        return cls(name, int(arg), int(dim), int(lo or 1), int(hi) if hi else None)


def _dynamic_shapes(dynamic_dims, example_args):
    import torch

    if not dynamic_dims:
        return None
    dims: dict[str, object] = {}
    spec: list[dict | None] = [None] * len(example_args)
    for d in dynamic_dims:
        if d.arg >= len(example_args) or d.dim >= example_args[d.arg].dim():
            raise StrataError(f"dynamic dim '{d.name}' names argument {d.arg} dimension {d.dim}, which the example inputs do not have")
        if d.name not in dims:
            dims[d.name] = torch.export.Dim(d.name, min=d.min, max=d.max)
        spec[d.arg] = {**(spec[d.arg] or {}), d.dim: dims[d.name]}
    return tuple(spec)


def _is_library_file(filename: str) -> bool:
    """True for torch's, strata's and installed packages' own files: not where a user's bug is."""
    import torch

    import strata

    libraries = (str(Path(torch.__file__).parent), str(Path(strata.__file__).parent))
    return "/site-packages/" in filename or "/dist-packages/" in filename or filename.startswith(libraries)


def _describe(filename: str, line: int, code: str | None = None) -> str:
    """`file:line (`code`)`, the code read from the file when not given."""
    import linecache

    code = (code or linecache.getline(filename, line)).strip()
    return f"{filename}:{line}" + (f" (`{code}`)" if code else "")


def _user_frame(message: str) -> str:
    """The last `File "...", line N` of the user's code in a traceback's text, as file:line (`code`)."""
    frames = re.findall(r'File "([^"]+)", line (\d+)[^\n]*(?:\n[ \t]+(\S[^\n]*))?', message)
    user = [f for f in frames if not _is_library_file(f[0])]
    return _describe(user[-1][0], int(user[-1][1]), user[-1][2]) if user else ""


def _user_frame_of(error: BaseException) -> str:
    """The last frame of the user's code that the exception passed through, as file:line (`code`)."""
    import traceback

    user = [f for f in traceback.extract_tb(error.__traceback__) if not _is_library_file(f.filename)]
    return _describe(user[-1].filename, user[-1].lineno, user[-1].line) if user else ""


def load_exported_program(path: Path):
    """A `.pt2` archive written by `torch.export.save`."""
    import torch

    export_log = logging.getLogger("torch.export")  # logs a traceback before raising on bad files
    disabled, export_log.disabled = export_log.disabled, True
    try:
        return torch.export.load(str(path))
    except FileNotFoundError:
        raise StrataError(f"cannot read '{path}': no such file") from None
    except Exception as e:
        raise StrataError(f"cannot load '{path}' as a torch.export archive: {str(e).splitlines()[0]}") from None
    finally:
        export_log.disabled = disabled


def import_torch(model, example_args=(), dynamic_dims=(), func_name: str = "main", hooks=None):
    """The model as a torch-dialect `torch_mlir.ir.Module` (value semantics, shapes refined).

    `model` is an `nn.Module` (traced with `example_args`) or a `torch.export.ExportedProgram`;
    `hooks` are FX importer hooks (`strata.parameters.ParameterExternalizer`); by default
    `strata.tensor_literals.TensorLiterals`, which imports constant tensors faster.
    """
    import torch
    from torch_mlir import fx, ir
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import FxImporter

    from strata.diagnostics import DiagnosticCollector
    from strata.tensor_literals import TensorLiterals

    example_args = tuple(example_args)
    if isinstance(model, torch.nn.Module):
        # fake_tensor logs a traceback of its own before the export error reaches us.
        fake_tensor_log = logging.getLogger("torch._subclasses.fake_tensor")
        level = fake_tensor_log.level
        fake_tensor_log.setLevel(logging.CRITICAL)
        try:
            model = torch.export.export(
                model.eval(), example_args, dynamic_shapes=_dynamic_shapes(dynamic_dims, example_args)
            )
        except StrataError:
            raise
        except Exception as e:
            raise _import_error("torch.export", e) from None
        finally:
            fake_tensor_log.setLevel(level)
    # The importer's context gets a diagnostic handler: MLIR prints to the process's stderr
    # otherwise, and the exception says only "failed with the following diagnostics:".
    context = ir.Context()
    torch_d.register_dialect(context)
    collector = DiagnosticCollector(context)
    with warnings.catch_warnings(), collector.collect():
        warnings.simplefilter("ignore", FutureWarning)  # torch-mlir uses a deprecated pytree API
        try:
            importer = FxImporter(context=context, hooks=hooks or TensorLiterals())
            return fx.export_and_import(model, output_type="torch", func_name=func_name, fx_importer=importer)
        except Exception as e:
            raise _fx_import_error(model, e, collector.take()) from None


def _import_error(stage: str, e: Exception) -> StrataError:
    text = str(e)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(e).__name__)
    where = _user_frame(text) or _user_frame_of(e)
    return StrataError(f"{stage} failed{' at ' + where if where else ''}: {first}")


def _fx_import_error(program, e: Exception, diagnostics) -> StrataError:
    """Names the op and the user's line: from the MLIR error diagnostic, or for a higher-order op
    the importer lacks (`with_effects` around `torch.linalg.inv`'s error check) from its FX node."""
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        first = errors[0]
        message = first.message.splitlines()[0]
        op_name = re.search(r'\{name = "([\w.]+)"', message)
        message = re.sub(r" that was explicitly marked illegal.*", "", message).rstrip(":")
        if op_name:
            message += f" ({op_name.group(1)})"
        where = _describe(first.file, first.line) if first.file and first.line else ""
        return StrataError(f"FX import failed{' at ' + where if where else ''}: {message}")
    hop = re.search(r"Higher-order operation '(\w+)'", str(e))
    node = hop and _higher_order_node(program, hop.group(1))
    if node:
        wrapped = node.args[1] if len(node.args) > 1 else "?"
        where = _user_frame(node.meta.get("stack_trace") or "")
        return StrataError(f"FX import failed{' at ' + where if where else ''}: {hop.group(1)}({wrapped}) "
                           "is not supported by the FX importer")
    return _import_error("FX import", e)


def _higher_order_node(program, name: str):
    """The first call of higher-order op `name` in the program as the importer saw it, that is
    after Torch-MLIR's decompositions (which is where `with_effects` wrappers appear)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    try:
        graph = program.run_decompositions(get_decomposition_table()).graph
    except Exception:  # noqa: BLE001  (only a better message was at stake)
        return None
    for node in graph.nodes:
        if node.op == "call_function" and getattr(node.target, "__name__", "") == name:
            return node
    return None


def function_signature(module, func_name: str = "main") -> tuple[list[str], list[str]]:
    """Input and output tensor types of `func_name` in iree-run-module's spelling (`?x64xf32`)."""
    from torch_mlir import ir

    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == func_name:
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            return [_tensor_spelling(t) for t in ftype.inputs], [_tensor_spelling(t) for t in ftype.results]
    raise StrataError(f"the module has no function '@{func_name}'")


_TORCH_DTYPES = {"si64": "i64", "si32": "i32", "si16": "i16", "si8": "i8", "ui8": "ui8", "i1": "i1"}


def _tensor_spelling(type_) -> str:
    """`!torch.vtensor<[?,64],f32>` (or a builtin tensor type) as `?x64xf32`."""
    text = str(type_)
    match = re.fullmatch(r"!torch\.vtensor<\[([^\]]*)\],(\w+)>", text)
    if match:
        dims = [("?" if d.strip() == "-1" else d.strip()) for d in match.group(1).split(",") if d.strip()]
        dtype = _TORCH_DTYPES.get(match.group(2), match.group(2))
        return "x".join(dims + [dtype])
    match = re.fullmatch(r"tensor<(.*)>", text)
    if match:
        return match.group(1)
    raise StrataError(f"unsupported function argument type {text}: strata passes tensors only")
