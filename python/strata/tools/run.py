"""strata-run: run a function of an IREE module, with iree-run-module's flags.

    strata-run --module=model.vmfb --device=local-task --function=main \
        --input=@x.npy --input=2x3xf32=1 --output=@y.npy [--parameters=weights.irpa]

An `--input` is `@file.npy` or `TYPE=VALUES` (`2x2xf32=1,2,3,4`, or one value for all elements).
Inputs are checked against the signature strata stores in the module: a wrong shape or dtype is a
one-line error naming the input and the type expected. Results go to `--output=@file.npy` in
order, and are printed otherwise.

The work runs under strata.crash_guard: a damaged module that makes IREE's runtime segfault
becomes a one-line error naming the stage (loading, running) and a command that reproduces it.
"""

import argparse
import re
import shlex
import sys
import tokenize
from pathlib import Path

import numpy as np

from strata.errors import StrataError

PROG = "strata-run"
# An inline TYPE=VALUES input larger than this is a typo, not a tensor anyone types (2**31 f32s is
# 8 GiB); it is refused before numpy tries to allocate it.
MAX_INPUT_ELEMENTS = 2**31


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run a function of an IREE module.")
    p.add_argument("--module", required=True, help="the .vmfb to load")
    p.add_argument("--device", default="local-task", help="local-task (default), local-sync, vulkan, cuda, hip")
    p.add_argument("--function", default="main", help="function to call (default: main)")
    p.add_argument("--input", action="append", default=[], help="@file.npy or TYPE=VALUES, e.g. 2x3xf32=1")
    p.add_argument("--output", action="append", default=[], help="@file.npy for each result, in order")
    p.add_argument("--parameters", action="append", default=[], help="an IREE parameter archive (.irpa)")
    return p


def _load_npy(path: Path, index: int) -> np.ndarray:
    try:
        array = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise StrataError(f"--input {index}: cannot read '{path}': no such file") from None
    except OSError as e:
        raise StrataError(f"--input {index}: cannot read '{path}': {e.strerror or e}") from None
    except (ValueError, SyntaxError, EOFError, tokenize.TokenError) as e:
        # numpy parses the header dict with Python's tokenizer: a damaged header raises its errors.
        message = str(e).splitlines()[0] if str(e).strip() else type(e).__name__
        raise StrataError(f"--input {index}: '{path}' is not a .npy array: {message}") from None
    if not isinstance(array, np.ndarray):  # an .npz archive loads as a mapping of arrays
        array.close()
        raise StrataError(f"--input {index}: '{path}' is an .npz archive, not a single array; save one array with np.save")
    return array


def parse_input(text: str, index: int) -> np.ndarray:
    from strata.iree_runtime import TensorType

    if text.startswith("@"):
        return _load_npy(Path(text[1:]), index)
    type_text, sep, values_text = text.partition("=")
    if not sep:
        raise StrataError(f"--input {index}: expected @file.npy or TYPE=VALUES (e.g. 2x3xf32=1), got '{text}'")
    tensor_type = TensorType.parse(type_text)
    if None in tensor_type.shape:
        raise StrataError(f"--input {index}: '{type_text}' has a dynamic size; give concrete sizes")
    count = 1
    for dim in tensor_type.shape:  # checked one at a time: np.prod would overflow silently or raise
        count *= dim
        if count > MAX_INPUT_ELEMENTS:
            raise StrataError(f"--input {index}: '{type_text}' has more than {MAX_INPUT_ELEMENTS} elements; "
                              "pass large inputs as @file.npy")
    tokens = [t for t in re.split(r"[,\s\[\]]+", values_text) if t]
    dtype = tensor_type.numpy_dtype
    try:
        if dtype == np.bool_:
            values = np.array([t.lower() in ("1", "true") for t in tokens], dtype=dtype)
        else:
            values = np.array([float(t) if dtype.kind == "f" else int(t) for t in tokens], dtype=dtype)
    except ValueError as e:
        raise StrataError(f"--input {index}: bad value in '{values_text}': {e}") from None
    except OverflowError:
        raise StrataError(f"--input {index}: a value in '{values_text}' is out of range for {tensor_type.dtype}") from None
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


def run(args, reporter) -> int:
    from strata.atomic_output import atomic_write
    from strata.iree_runtime import LoadedModule

    module_path = Path(args.module)
    if not module_path.is_file():
        raise StrataError(f"cannot read '{module_path}': no such file")
    reporter.report("stage", "reading inputs")
    inputs = [parse_input(text, i) for i, text in enumerate(args.input)]
    for text in args.output:
        if not text.startswith("@"):
            raise StrataError(f"--output '{text}': expected @file.npy")
    reporter.report("stage", "loading module")
    module = LoadedModule(module_path, args.device, [Path(p) for p in args.parameters])
    reporter.report("stage", f"looking up '{args.function}'")
    function = module.function(args.function)
    reporter.report("stage", f"running '{args.function}'")
    results = function(*inputs)
    if len(args.output) > len(results):
        raise StrataError(f"{len(args.output)} --output files given, but '{args.function}' returns {len(results)} result(s)")
    reporter.report("stage", "writing results")
    for index, array in enumerate(results):
        if index < len(args.output):
            with atomic_write(args.output[index][1:], "wb") as f:
                reporter.report("temp", f.temp_path)
                np.save(f, array, allow_pickle=False)
        else:
            print(format_result(index, array))
    return 0


def report_crash(signal_name: str, context, argv: list[str], module: str) -> int:
    """One error line naming the stage and the module, and the command that reproduces it."""
    import os

    temp = context.fields.get("temp")
    if temp and os.path.exists(temp):
        os.unlink(temp)
    stage = context.fields.get("stage", "starting")
    print(f"{PROG}: error: crashed ({signal_name}) while {stage} on '{module}'", file=sys.stderr)
    # The module goes last, as its own word, so the reproducer's input is the command's last word.
    others, skip = [], False
    for arg in argv:
        if skip or arg.startswith("--module="):
            skip = False
        elif arg == "--module":
            skip = True
        else:
            others.append(arg)
    command = " ".join(shlex.quote(a) for a in [PROG, *others, "--module", module])
    print(f"{PROG}: note: reproduce with: {command}", file=sys.stderr)
    return 1


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    from strata.crash_guard import run_guarded

    def work(reporter) -> int:
        try:
            return run(args, reporter)
        except StrataError as e:
            print(f"{PROG}: error: {e.message}", file=sys.stderr)
            return 1

    def on_crash(signal_name: str, context) -> int:
        return report_crash(signal_name, context, argv, args.module)

    return run_guarded(work, on_crash)
