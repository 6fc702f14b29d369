"""strata.pass_pipeline: parsing textual pipelines and running upstream + Python passes together."""

import pytest
from torch_mlir._mlir_libs._mlir import ir

from strata.context import make_context
from strata.errors import StrataError
from strata.pass_pipeline import NestedPipeline, PassElement, build_pass_manager, parse_pipeline


def test_parse_nesting_and_options():
    pipeline = parse_pipeline(
        "builtin.module(func.func(canonicalize{max-iterations=3 region-simplify=normal}, cse),"
        "strata-raise-torch{fuse-activations=true})"
    )
    assert pipeline == NestedPipeline(
        "builtin.module",
        (
            NestedPipeline(
                "func.func",
                (PassElement("canonicalize", "max-iterations=3 region-simplify=normal"), PassElement("cse")),
            ),
            PassElement("strata-raise-torch", "fuse-activations=true"),
        ),
    )
    assert parse_pipeline(pipeline.text()) == pipeline


def test_parse_nested_braces_in_options():
    pipeline = parse_pipeline("builtin.module(inline{op-pipelines=func.func(canonicalize{max-iterations=1})})")
    assert pipeline.elements[0].options == "op-pipelines=func.func(canonicalize{max-iterations=1})"


@pytest.mark.parametrize(
    "text, message",
    [
        ("canonicalize", "must be anchored on an op"),
        ("builtin.module(cse", "expected ')'"),
        ("builtin.module(cse{a=1)", "unbalanced '{'"),
        ("builtin.module(cse) extra", "unexpected text after the pipeline"),
        ("builtin.module(,)", "expected a pass or op name"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(StrataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pipeline(text)


TORCH_SOFTMAX = """
func.func @softmax(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %arg0, %int1, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
"""


def _run(text: str, pipeline: str) -> str:
    context = make_context()
    with context:
        module = ir.Module.parse(text)
        build_pass_manager(parse_pipeline(pipeline), context).run(module.operation)
        return str(module)


def test_python_pass_runs_between_upstream_passes_in_order():
    out = _run(TORCH_SOFTMAX, "builtin.module(func.func(canonicalize,strata-raise-torch,cse),canonicalize)")
    assert "strata.softmax" in out and "torch.aten.softmax" not in out


def test_python_pass_written_at_module_level_nests_onto_functions():
    out = _run(TORCH_SOFTMAX, "builtin.module(strata-raise-torch)")
    assert "strata.softmax" in out


def test_unknown_pass_is_a_clear_error():
    with pytest.raises(StrataError, match="unknown pass or pass pipeline 'not-a-pass'"):
        build_pass_manager(parse_pipeline("builtin.module(not-a-pass)"), make_context())


def test_python_pass_option_is_type_checked():
    with pytest.raises(StrataError, match="expects a value of type bool, got 'sometimes'"):
        build_pass_manager(
            parse_pipeline("builtin.module(strata-raise-torch{fuse-activations=sometimes})"), make_context()
        )
