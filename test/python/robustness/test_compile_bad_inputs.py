"""strata-compile given bad input: a one-line error, exit 1, no traceback, no output file.

Each case is a mistake a user makes with a model file, the command line or the file system.
"""

import os
import re

import pytest

from conftest import MODEL_SOURCE, assert_one_line_error, run_tool

TOOL = "strata-compile"


def compile_error(tmp_path, args, pattern):
    out = tmp_path / "out.vmfb"
    proc = run_tool(TOOL, *args, *(["-o", out] if "-o" not in args else []))
    line = assert_one_line_error(proc, TOOL, pattern)
    assert not out.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".strata-tmp-")]
    return line


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_missing_model_file(tmp_path):
    compile_error(tmp_path, [f"{tmp_path}/absent.py:Net"], r"cannot read '.*absent.py': no such file")


def test_model_file_with_a_syntax_error_names_file_and_line(tmp_path):
    path = write(tmp_path, "syntax.py", "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x +* 1\n")
    compile_error(tmp_path, [f"{path}:Net"], r"SyntaxError: invalid syntax \(syntax.py, line 4\)")


def test_model_file_with_nul_bytes(tmp_path):
    path = tmp_path / "binary.py"
    path.write_bytes(b"import torch\n\x00\xff\xfe garbage\n")
    compile_error(tmp_path, [f"{path}:Net"], r"importing '.*binary.py' failed: SyntaxError")


def test_model_file_raising_on_import(tmp_path):
    path = write(tmp_path, "raises.py", "import no_such_module_anywhere\n")
    compile_error(tmp_path, [f"{path}:Net"], r"ModuleNotFoundError: No module named 'no_such_module_anywhere'")


def test_missing_class(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Nope"], r"defines no 'Nope'")


def test_model_spec_without_a_name(tmp_path, model_file):
    compile_error(tmp_path, [str(model_file)], r"bad model|expected file.py:Name|\.py")


def test_factory_that_raises(tmp_path):
    path = write(tmp_path, "factory.py", "def Net():\n    raise RuntimeError('boom')\n")
    compile_error(tmp_path, [f"{path}:Net"], r"'Net\(\)' failed: RuntimeError: boom")


def test_factory_returning_something_else(tmp_path):
    path = write(tmp_path, "factory.py", "def Net():\n    return 42\n")
    compile_error(tmp_path, [f"{path}:Net"], r"returned a int, not a torch.nn.Module")


def test_no_example_inputs(tmp_path):
    path = write(tmp_path, "noinputs.py", MODEL_SOURCE.split("def example_inputs")[0])
    compile_error(tmp_path, [f"{path}:Net"], r"no example_inputs\(\) function: pass --input-shape")


@pytest.mark.parametrize("shape", ["2xq7", "axbxf32", "2x64xf99"])
def test_malformed_input_shape(tmp_path, model_file, shape):
    compile_error(tmp_path, [f"{model_file}:Net", f"--input-shape={shape}"], r"element type|bad tensor type")


def test_input_shape_the_model_cannot_take_names_the_users_line(tmp_path, model_file):
    line = compile_error(tmp_path, [f"{model_file}:Net", "--input-shape=2x5xf32", "--input-shape=2x32xf32"], r".")
    assert re.search(r"net\.py\D{0,10}12\b", line), line  # the line of `self.linear(x)`


def test_malformed_dynamic_dim(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "--dynamic-dim=batch"], r"dynamic|NAME=ARG:DIM")


def test_unknown_target(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "--target=tpu"], r"unknown target 'tpu' \(known: .*llvm-cpu")


def test_unknown_chip(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "--target=cuda", "--chip=sm_1"], r"unknown chip 'sm_1' for target 'cuda'")


def test_no_output_file(tmp_path, model_file):
    proc = run_tool(TOOL, f"{model_file}:Net")
    assert_one_line_error(proc, TOOL, r"no output file")


def test_output_in_a_missing_directory(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "-o", tmp_path / "nowhere" / "net.vmfb"], r"does not exist")


def test_output_under_a_regular_file(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "-o", f"{model_file}/net.vmfb"], r"cannot write")


def test_output_where_nothing_can_be_created(tmp_path, model_file):
    # The suite runs as root, which chmod cannot stop; /proc refuses new files even to root.
    compile_error(tmp_path, [f"{model_file}:Net", "-o", "/proc/strata-net.vmfb"], r"cannot write '/proc/strata-net.vmfb'")


def test_output_that_is_a_directory(tmp_path, model_file):
    target = tmp_path / "out-dir"
    target.mkdir()
    compile_error(tmp_path, [f"{model_file}:Net", "-o", target], r"cannot write '.*out-dir'")
    assert not os.listdir(target)


def test_mlir_with_a_syntax_error(tmp_path):
    path = write(tmp_path, "bad.mlir", "func.func @main(%a: !torch.vtensor<[2],f32>) {\n  return %b\n}\n")
    compile_error(tmp_path, [path], r"bad.mlir")


def test_mlir_that_is_binary_garbage(tmp_path):
    path = tmp_path / "garbage.mlir"
    path.write_bytes(bytes(range(256)) * 4)
    compile_error(tmp_path, [path], r"garbage.mlir")


def test_corrupt_pt2_archive(tmp_path):
    path = tmp_path / "model.pt2"
    path.write_bytes(b"PK\x03\x04 this is not a zip archive")
    compile_error(tmp_path, [path], r"model.pt2")


def test_params_with_mlir_input(tmp_path):
    path = write(tmp_path, "m.mlir", "func.func @main() {\n  return\n}\n")
    compile_error(tmp_path, [path, "--params", tmp_path / "w.irpa"], r"--params needs a PyTorch model")


def test_bogus_iree_flag(tmp_path, model_file):
    compile_error(tmp_path, [f"{model_file}:Net", "--iree-flag=--iree-no-such-flag"], r"iree-no-such-flag")


UNLOWERABLE = '''import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return {expression}


def example_inputs():
    return (torch.randn(3, 4),)
'''


def test_op_no_route_lowers_names_op_stage_and_line(tmp_path):
    # A complex-valued abs after an FFT: it imports, but no IREE lowering takes complex math.absf.
    path = write(tmp_path, "fft.py", UNLOWERABLE.format(expression="torch.fft.rfft(y).abs()"))
    line = compile_error(tmp_path, [f"{path}:Net"], r"IREE compilation failed")
    assert "fft.py:7" in line and "torch.fft.rfft(y).abs()" in line, line
    assert "'math.absf' op" in line, line


def test_op_the_importer_rejects_names_op_stage_and_line(tmp_path):
    # torch.linalg.inv exports as a with_effects wrapper around aten._linalg_check_errors, which
    # the FX importer does not take; the error must still say which op and which line.
    path = write(tmp_path, "inv.py", UNLOWERABLE.format(expression="torch.linalg.inv(y[:, :3])"))
    line = compile_error(tmp_path, [f"{path}:Net"], r"FX import failed")
    assert "inv.py:7" in line and "linalg" in line, line
