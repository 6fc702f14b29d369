"""Pipeline files load and validate; runs dump every stage; failures name stage, pass and place."""

import pytest

from strata import pipelines
from strata.context import make_context
from strata.errors import StrataError
from torch_mlir._mlir_libs._mlir import ir

MATMUL = """
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
"""

# A tosa op left in linalg-to-llvm's input cannot be bufferized: the error must point at model.py:7.
UNLOWERED = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.sin %a : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":7:0)
  return %r : tensor<4xf32>
}
"""


def _parse(text):
    return ir.Module.parse(text, make_context())


@pytest.mark.parametrize("name", pipelines.names())
def test_every_pipeline_loads(name):
    pipeline = pipelines.load(name)
    assert pipeline.name == name and pipeline.stages
    assert len({s.name for s in pipeline.active_stages(pipeline.resolve_options({}))}) == len(
        pipeline.active_stages(pipeline.resolve_options({}))
    )


def test_expected_pipelines_exist():
    assert {"torch-to-linalg", "linalg-to-llvm"} <= set(pipelines.names())


def test_parallel_option_selects_openmp_or_serial_stage():
    pipeline = pipelines.load("linalg-to-llvm")
    openmp = [s.name for s in pipeline.active_stages(pipeline.resolve_options({}))]
    serial = [s.name for s in pipeline.active_stages(pipeline.resolve_options({"parallel": "none"}))]
    assert openmp == ["panels", "vector", "bufferized", "openmp", "loops", "llvm"]
    assert serial == ["panels", "vector", "bufferized", "serial", "loops", "llvm"]


def test_route_option_selects_stages():
    pipeline = pipelines.load("torch-to-linalg")
    assert [s.name for s in pipeline.active_stages(pipeline.resolve_options({}))] == ["strata", "linalg"]
    tosa = pipeline.active_stages(pipeline.resolve_options({"route": "tosa"}))
    assert [s.name for s in tosa] == ["tosa", "linalg"]


def test_unknown_pipeline_option_and_value():
    pipeline = pipelines.load("torch-to-linalg")
    with pytest.raises(StrataError, match="has no option 'chip'"):
        pipeline.resolve_options({"chip": "sm_80"})
    with pytest.raises(StrataError, match="route=stablehlo is not one of strata, tosa, torch-mlir"):
        pipeline.resolve_options({"route": "stablehlo"})


def test_unknown_pipeline():
    with pytest.raises(StrataError, match="unknown pipeline 'linalg-to-fpga'"):
        pipelines.load("linalg-to-fpga")


def test_bad_pipeline_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('input = "linalg"\n[[stage]]\nname = "a"\npipeline = "builtin.module({chip})"\n')
    with pytest.raises(StrataError, match="unknown placeholder '{chip}'"):
        pipelines.load(path)


def test_dumps_and_op_counts(tmp_path):
    module = _parse(MATMUL)
    reports = []
    pipelines.run(module, "linalg-to-llvm", dump_dir=tmp_path, on_stage=reports.append)
    names = [f"{r.index:02d}-{r.name}.mlir" for r in reports]
    assert names == [
        "01-linalg.mlir", "02-panels.mlir", "03-vector.mlir", "04-bufferized.mlir", "05-openmp.mlir", "06-loops.mlir",
        "07-llvm.mlir",
    ]
    assert sorted(p.name for p in tmp_path.glob("*.mlir")) == names
    assert reports[0].op_counts["linalg"] == 4  # fill, matmul and the linalg.yield in each
    assert set(reports[-1].op_counts) == {"llvm"}
    # Each dump parses back: IR_{k+1} really is stage k applied to IR_k.
    for name in names:
        _parse((tmp_path / name).read_text())
    assert (tmp_path / "stages.txt").read_text().count("\n") == 7


def test_stop_after(tmp_path):
    module = _parse(MATMUL)
    pipelines.run(module, "linalg-to-llvm", stop_after="bufferized")
    counts = pipelines.op_counts_by_dialect(module)
    assert "memref" in counts and "llvm" not in counts
    with pytest.raises(StrataError, match="has no stage 'nope'"):
        pipelines.run(module, "linalg-to-llvm", stop_after="nope")


def test_failure_names_location_stage_and_pass(tmp_path):
    module = _parse(UNLOWERED)
    with pytest.raises(StrataError) as caught:
        pipelines.run(module, "linalg-to-llvm", dump_dir=tmp_path)
    message = str(caught.value)
    assert message.startswith("model.py:7:0: error: ")
    assert message.endswith("(pipeline 'linalg-to-llvm', stage 'bufferized', pass 'one-shot-bufferize')")
    assert any("03-vector.mlir" in note for note in caught.value.notes)
