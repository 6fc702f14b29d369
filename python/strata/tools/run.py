"""strata-run: run a function of an IREE module, with iree-run-module's flags.

    strata-run --module=model.vmfb --device=local-task --function=main \
        --input=@x.npy --input=2x3xf32=1 --output=@y.npy [--parameters=weights.irpa]

An `--input` is `@file.npy` or `TYPE=VALUES` (`2x2xf32=1,2,3,4`, or one value for all elements).
Inputs are checked against the signature strata stores in the module: a wrong shape or dtype is a
one-line error naming the input and the type expected. Results go to `--output=@file.npy` in
order, and are printed otherwise.
"""

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from strata.errors import StrataError

PROG = "strata-run"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run a function of an IREE module.")
    p.add_argument("--module", required=True, help="the .vmfb to load")
    p.add_argument("--device", default="local-task", help="local-task (default), local-sync, vulkan, cuda, hip")
    p.add_argument("--function", default="main", help="function to call (default: main)")
    p.add_argument("--input", action="append", default=[], help="@file.npy or TYPE=VALUES, e.g. 2x3xf32=1")
    p.add_argument("--output", action="append", default=[], help="@file.npy for each result, in order")
    p.add_argument("--parameters", action="append", default=[], help="an IREE parameter archive (.irpa)")
    return p


def parse_input(text: str, index: int) -> np.ndarray:
    from strata.iree_runtime import TensorType

    if text.startswith("@"):
        path = Path(text[1:])
        try:
            return np.load(path, allow_pickle=False)
        except FileNotFoundError:
            raise StrataError(f"--input {index}: cannot read '{path}': no such file") from None
        except ValueError as e:
            raise StrataError(f"--input {index}: '{path}' is not a .npy array: {e}") from None
    type_text, sep, values_text = text.partition("=")
    if not sep:
        raise StrataError(f"--input {index}: expected @file.npy or TYPE=VALUES (e.g. 2x3xf32=1), got '{text}'")
    tensor_type = TensorType.parse(type_text)
    if None in tensor_type.shape:
        raise StrataError(f"--input {index}: '{type_text}' has a dynamic size; give concrete sizes")
    tokens = [t for t in re.split(r"[,\s\[\]]+", values_text) if t]
    dtype = tensor_type.numpy_dtype
    try:
        if dtype == np.bool_:
            values = np.array([t.lower() in ("1", "true") for t in tokens], dtype=dtype)
        else:
            values = np.array([float(t) if dtype.kind == "f" else int(t) for t in tokens], dtype=dtype)
    except ValueError as e:
        raise StrataError(f"--input {index}: bad value in '{values_text}': {e}") from None
    count = int(np.prod(tensor_type.shape, dtype=np.int64))
    if values.size == 1:
        return np.full(tensor_type.shape, values[0], dtype=dtype)
    if values.size != count:
        raise StrataError(f"--input {index}: {type_text} needs {count} values (or one for all), got {values.size}")
    return values.reshape(tensor_type.shape)


PRINT_MAX_ELEMENTS = 1024  # iree-run-module's --print_max_element_count default


def format_result(index: int, array: np.ndarray) -> str:
    """iree-run-module's spelling: `result[0]: 2x3xf32=[0 1 3][5 7 0]`."""
    from strata.iree_runtime import TensorType

    header = f"result[{index}]: {TensorType.of(array)}="
    if array.size > PRINT_MAX_ELEMENTS:
        return f"{header}... ({array.size} elements; write them with --output=@file.npy)"

    def render(a) -> str:
        if a.ndim == 0:
            value = a.item()
            return f"{value:g}" if isinstance(value, float) else str(int(value))
        if a.ndim == 1:
            return "[" + " ".join(render(v) for v in a) + "]"
        return "".join(render(row) for row in a)

    return header + render(array)


def run(args) -> int:
    from strata.atomic_output import atomic_write
    from strata.iree_runtime import LoadedModule

    module_path = Path(args.module)
    if not module_path.is_file():
        raise StrataError(f"cannot read '{module_path}': no such file")
    inputs = [parse_input(text, i) for i, text in enumerate(args.input)]
    for text in args.output:
        if not text.startswith("@"):
            raise StrataError(f"--output '{text}': expected @file.npy")
    module = LoadedModule(module_path, args.device, [Path(p) for p in args.parameters])
    results = module.function(args.function)(*inputs)
    if len(args.output) > len(results):
        raise StrataError(f"{len(args.output)} --output files given, but '{args.function}' returns {len(results)} result(s)")
    for index, array in enumerate(results):
        if index < len(args.output):
            with atomic_write(args.output[index][1:], "wb") as f:
                np.save(f, array, allow_pickle=False)
        else:
            print(format_result(index, array))
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except StrataError as e:
        print(f"{PROG}: error: {e.message}", file=sys.stderr)
        return 1
