"""strata-run given bad input: a one-line error, exit 1, no traceback, no output file.

Runs the shared compiled model (conftest.py): inputs 2x64xf32 and 2x32xf32, weights in an .irpa.
"""

import shutil

import numpy as np
import pytest

from conftest import MODEL_INPUTS, assert_one_line_error, run_tool

TOOL = "strata-run"


def run_error(compiled, args, pattern, *, module=None, params="default"):
    vmfb, irpa = compiled
    base = [f"--module={module or vmfb}"] + ([f"--parameters={irpa if params == 'default' else params}"] if params else [])
    return assert_one_line_error(run_tool(TOOL, *base, *args), TOOL, pattern)


def test_runs_cleanly(compiled, tmp_path):
    out = tmp_path / "y.npy"
    proc = run_tool(TOOL, f"--module={compiled[0]}", f"--parameters={compiled[1]}", *MODEL_INPUTS, f"--output=@{out}")
    assert proc.returncode == 0, proc.stderr.decode()
    assert np.load(out).shape == (2, 32)


def test_missing_module(compiled, tmp_path):
    run_error(compiled, MODEL_INPUTS, r"cannot read '.*absent.vmfb': no such file", module=tmp_path / "absent.vmfb")


def test_module_that_is_garbage(compiled, tmp_path):
    path = tmp_path / "garbage.vmfb"
    path.write_bytes(b"\x7fELF not a flatbuffer" * 50)
    run_error(compiled, MODEL_INPUTS, r"not a loadable IREE module", module=path)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.9])
def test_truncated_module(compiled, tmp_path, fraction):
    data = compiled[0].read_bytes()
    path = tmp_path / "truncated.vmfb"
    path.write_bytes(data[: int(len(data) * fraction)])
    run_error(compiled, MODEL_INPUTS, r"not a loadable IREE module|cannot load", module=path)


def test_module_with_flipped_bytes(compiled, tmp_path):
    data = bytearray(compiled[0].read_bytes())
    for i in range(0, 64, 4):  # the flatbuffer header and root table
        data[i] ^= 0xFF
    path = tmp_path / "flipped.vmfb"
    path.write_bytes(bytes(data))
    run_error(compiled, MODEL_INPUTS, r"not a loadable IREE module|cannot load", module=path)


def test_module_on_the_wrong_device(compiled):
    line = run_error(compiled, MODEL_INPUTS + ["--device=vulkan"], r"compiled for IREE device 'local'.*--device=local-task")
    assert len(line) < 300, line


def test_unknown_device(compiled):
    run_error(compiled, MODEL_INPUTS + ["--device=bogus"], r"cannot open device 'bogus'")


def test_device_that_is_not_here(compiled):
    run_error(compiled, MODEL_INPUTS + ["--device=cuda"], r"cannot open device 'cuda'")


def test_wrong_input_shape(compiled):
    run_error(compiled, ["--input=2x63xf32=1", MODEL_INPUTS[1]], r"input 0: expected 2x64xf32, got 2x63xf32")


def test_wrong_input_rank(compiled):
    run_error(compiled, ["--input=128xf32=1", MODEL_INPUTS[1]], r"input 0: expected 2x64xf32, got 128xf32")


def test_wrong_input_dtype(compiled):
    run_error(compiled, ["--input=2x64xf16=1", MODEL_INPUTS[1]], r"input 0: expected 2x64xf32, got 2x64xf16")


def test_too_few_inputs(compiled):
    run_error(compiled, MODEL_INPUTS[:1], r"takes 2 inputs, got 1")


def test_too_many_inputs(compiled):
    run_error(compiled, MODEL_INPUTS + MODEL_INPUTS[:1], r"takes 2 inputs, got 3")


def test_missing_parameter_archive_flag(compiled):
    run_error(compiled, MODEL_INPUTS, r"parameter", params=None)


def test_parameter_archive_that_does_not_exist(compiled, tmp_path):
    run_error(compiled, MODEL_INPUTS, r"cannot read parameter archive '.*absent.irpa'", params=tmp_path / "absent.irpa")


def test_corrupt_parameter_archive(compiled, tmp_path):
    path = tmp_path / "corrupt.irpa"
    data = bytearray(compiled[1].read_bytes())
    data[8:40] = b"\xff" * 32
    path.write_bytes(bytes(data))
    run_error(compiled, MODEL_INPUTS, r"parameter archive '.*corrupt.irpa'", params=path)


def test_truncated_parameter_archive(compiled, tmp_path):
    path = tmp_path / "truncated.irpa"
    path.write_bytes(compiled[1].read_bytes()[:100])
    run_error(compiled, MODEL_INPUTS, r"parameter archive '.*truncated.irpa'", params=path)


def test_unknown_function(compiled):
    run_error(compiled, MODEL_INPUTS + ["--function=forward"], r"module has no function 'forward'")


def test_internal_async_function(compiled):
    run_error(compiled, MODEL_INPUTS + ["--function=main$async"], r"main\$async")


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("2x64xf32", r"expected @file.npy or TYPE=VALUES"),
        ("2x64xq7=1", r"element type 'q7'"),
        ("2x64xf32=abc", r"bad value"),
        ("2x64xf32=1,2,3", r"needs 128 values"),
        ("?x64xf32=1", r"dynamic size"),
        ("2x64xi32=99999999999", r"99999999999"),
    ],
)
def test_malformed_input_text(compiled, text, pattern):
    run_error(compiled, [f"--input={text}", MODEL_INPUTS[1]], pattern)


def test_input_file_missing(compiled, tmp_path):
    run_error(compiled, [f"--input=@{tmp_path}/absent.npy", MODEL_INPUTS[1]], r"cannot read '.*absent.npy'")


def test_input_file_with_a_corrupt_header(compiled, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones((2, 64), np.float32))
    data = path.read_bytes()
    path.write_bytes(data[:20] + b"(" + data[21:])  # an unbalanced bracket in the header dict
    run_error(compiled, [f"--input=@{path}", MODEL_INPUTS[1]], r"x.npy")


def test_input_file_truncated(compiled, tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones((2, 64), np.float32))
    path.write_bytes(path.read_bytes()[:200])
    run_error(compiled, [f"--input=@{path}", MODEL_INPUTS[1]], r"x.npy")


def test_input_file_of_pickled_objects(compiled, tmp_path):
    path = tmp_path / "objects.npy"
    np.save(path, np.array([{}, []], dtype=object), allow_pickle=True)
    run_error(compiled, [f"--input=@{path}", MODEL_INPUTS[1]], r"Object arrays cannot be loaded")


def test_input_file_that_is_an_npz_archive(compiled, tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, x=np.ones((2, 64), np.float32))
    run_error(compiled, [f"--input=@{path}", MODEL_INPUTS[1]], r"x.npz")


def test_output_without_at(compiled, tmp_path):
    run_error(compiled, MODEL_INPUTS + [f"--output={tmp_path}/y.npy"], r"expected @file.npy")


def test_output_in_a_missing_directory(compiled, tmp_path):
    run_error(compiled, MODEL_INPUTS + [f"--output=@{tmp_path}/nowhere/y.npy"], r"does not exist")
    assert not (tmp_path / "nowhere").exists()


def test_output_that_is_a_directory(compiled, tmp_path):
    run_error(compiled, MODEL_INPUTS + [f"--output=@{tmp_path}"], r"cannot write '.*': Is a directory")


def test_output_where_nothing_can_be_created(compiled):
    run_error(compiled, MODEL_INPUTS + ["--output=@/proc/strata-y.npy"], r"cannot write '/proc/strata-y.npy'")


def test_more_outputs_than_results(compiled, tmp_path):
    outs = [f"--output=@{tmp_path}/y{i}.npy" for i in range(3)]
    run_error(compiled, MODEL_INPUTS + outs, r"3 --output files given, but 'main' returns 2 result")
    assert not list(tmp_path.glob("y*.npy"))


def test_module_path_that_is_a_directory(compiled, tmp_path):
    shutil.rmtree(tmp_path / "d", ignore_errors=True)
    (tmp_path / "d").mkdir()
    run_error(compiled, MODEL_INPUTS, r"cannot read '.*d'", module=tmp_path / "d")
