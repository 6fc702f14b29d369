"""Import a PyTorch program into MLIR's torch dialect, with errors that point at the user's code.

torch.export traces the model (or a `.pt2` archive supplies the traced program), Torch-MLIR's FX
importer turns it into `torch` dialect IR with one location per op taken from the FX node's stack
trace, so later failures (an op IREE cannot lower, say) can name the line of Python that produced
the op. Dynamic dimensions are declared by name, e.g. `batch=0:0` (argument 0, dimension 0).
"""

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


def _user_frame(message: str) -> str:
    """The last `File "...", line N` of the user's code in a torch.export error, as file:line."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', message)
    user = [f for f in frames if "/site-packages/" not in f[0] and "/torch/" not in f[0]]
    return f"{user[-1][0]}:{user[-1][1]}" if user else ""


def load_exported_program(path: Path):
    """A `.pt2` archive written by `torch.export.save`."""
    import logging

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
    `hooks` are FX importer hooks (`strata.parameters.ParameterExternalizer`).
    """
    import torch
    from torch_mlir import fx

    example_args = tuple(example_args)
    if isinstance(model, torch.nn.Module):
        try:
            model = torch.export.export(
                model.eval(), example_args, dynamic_shapes=_dynamic_shapes(dynamic_dims, example_args)
            )
        except StrataError:
            raise
        except Exception as e:
            raise _import_error("torch.export", e) from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch-mlir uses a deprecated pytree API
        try:
            return fx.export_and_import(model, output_type="torch", func_name=func_name, hooks=hooks)
        except Exception as e:
            raise _import_error("FX import", e) from None


def _import_error(stage: str, e: Exception) -> StrataError:
    text = str(e)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(e).__name__)
    where = _user_frame(text)
    return StrataError(f"{stage} failed{' at ' + where if where else ''}: {first}")


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
