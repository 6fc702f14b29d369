"""The ODS-derived dialect machinery: generated files current, every constraint enforceable,
verifiers wired to exactly the ops that declare one, Python builders producing valid ops."""

import pytest
from torch_mlir import ir

from strata.context import make_context
from strata.dialects import probe as P
from strata.dialects import strata as S
from strata.dialects import verify
from strata.dialects.constraints import UnknownPredicate, check_known, evaluate
from strata.dialects.specs import CONSTRAINTS, OPS
from strata.dialects.verifiers import VERIFIERS
from strata.errors import StrataError
from strata.tablegen import dialect_gen


def test_generated_dialect_files_are_current():
    for path, text in dialect_gen.generate().items():
        assert path.read_text() == text, f"{path.name} is stale: run strata-tblgen"


def test_every_constraint_has_a_python_meaning():
    for name, constraint in CONSTRAINTS.items():
        check_known(constraint["predicate"])  # raises UnknownPredicate otherwise


def test_verifiers_exist_exactly_for_ops_declaring_one():
    assert set(VERIFIERS) == {name for name, op in OPS.items() if op["has_verifier"]}


def test_generator_refuses_a_predicate_it_cannot_check(tmp_path):
    td = tmp_path / "odd.td"
    td.write_text(
        'include "mlir/IR/OpBase.td"\n'
        'def Odd_Dialect : Dialect { let name = "odd"; }\n'
        'def Odd_Op : Op<Odd_Dialect, "op"> {\n'
        '  let arguments = (ins Type<CPred<"$_self.isOdd()">, "odd type">:$x);\n'
        "}\n"
    )
    with pytest.raises(StrataError, match=r"isOdd"):
        dialect_gen.collect_dialect(td)


def test_unknown_leaf_is_reported():
    with pytest.raises(UnknownPredicate):
        check_known(("cpred", "$_self.isSomethingNew()"))


def test_element_type_predicates_follow_the_tensor():
    float_tensor = CONSTRAINTS["Strata_FloatTensor"]["predicate"]
    with make_context():
        assert evaluate(float_tensor, ir.Type.parse("tensor<2x?xbf16>"))
        assert not evaluate(float_tensor, ir.Type.parse("tensor<2xi32>"))
        assert not evaluate(float_tensor, ir.Type.parse("tensor<*xf32>"))
        assert not evaluate(float_tensor, ir.Type.parse("f32"))


def test_builders_make_ops_that_verify():
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            "func.func @f(%x: tensor<2x3x8xf32>, %w: tensor<8xf32>, %q: tensor<1x2x4x8xf32>, %lw: tensor<5x8xf32>) {\n"
            "  return\n}"
        )
        func = module.body.operations[0]
        block = func.regions[0].blocks[0]
        x, w, q, lw = block.arguments
        with ir.InsertionPoint.at_block_begin(block):
            ops = [
                S.SoftmaxOp(x, -1),
                S.GeluOp(x, S.GeluApproximation.Tanh),
                S.SiluOp(x),
                S.LayerNormOp(x, [8], 1e-5, weight=w, bias=w, results=[x.type]),
                S.RmsNormOp(x, [8], 1e-6, weight=w, results=[x.type]),
                S.AttentionOp(q.type, q, q, q, 0.35, True),
                S.LinearOp(ir.Type.parse("tensor<2x3x5xf32>"), x, lw, S.Activation.Silu),
                P.TapOp(x, "after norm"),
                P.CheckFiniteOp(x, "logits"),
            ]
        assert verify(module.operation)
        assert module.operation.verify()
        assert [op.operation.name for op in ops] == [
            "strata.softmax", "strata.gelu", "strata.silu", "strata.layer_norm", "strata.rms_norm",
            "strata.attention", "strata.linear", "probe.tap", "probe.check_finite",
        ]
        assert ops[3].weight == w and ops[3].bias == w and ops[4].weight == w
        assert ops[1].approximation.value == 1


def test_verify_reports_at_the_op_location():
    messages = []
    context = make_context()
    context.attach_diagnostic_handler(lambda d: messages.append((str(d.location), d.message)) or True)
    with context:
        module = ir.Module.parse(
            "func.func @f(%x: tensor<4xf32>) {\n"
            '  %0 = "strata.softmax"(%x) {dim = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n'
            "  return\n}"
        )
        assert not verify(module.operation)
    assert messages == [
        ('loc("-":2:8)', "'strata.softmax' op dim 1 is out of range for a rank-1 input (expected [-1, 1))")
    ]
