"""strata.diagnostics: MLIR diagnostics as `file:line:col: severity: message`."""

import pytest
from torch_mlir._mlir_libs._mlir import ir

from strata.diagnostics import Diagnostic, DiagnosticCollector, location_parts


@pytest.mark.parametrize(
    "location, parts",
    [
        ('loc("model.py":12:5)', ("model.py", 12, 5)),
        ('loc(callsite("inner.py":3:1 at "outer.py":9:2))', ("inner.py", 3, 1)),
        ('loc("aten::softmax"("model.py":7:0))', ("model.py", 7, 0)),
        ("loc(unknown)", (None, None, None)),
    ],
)
def test_location_parts(location, parts):
    assert location_parts(location) == parts


def test_format_with_notes_and_default_file():
    d = Diagnostic("error", "bad op", "-", 3, 4, notes=(Diagnostic("note", "here", "x.mlir", 1, 2),))
    assert d.format("input.mlir") == "input.mlir:3:4: error: bad op\nx.mlir:1:2: note: here"


def test_collector_sees_parse_errors_and_emitted_diagnostics():
    context = ir.Context()
    collector = DiagnosticCollector(context)
    with context, collector.collect():
        try:
            ir.Module.parse("func.func @f() {\n  %0 = arith.addi %x, %x : i32\n}")
        except ir.MLIRError as e:
            collector.add_error(e)
        ir.Location.file("a.mlir", 5, 6).emit_error("emitted")
    messages = [(d.severity, d.line, d.message) for d in collector.take()]
    assert ("error", 2, "use of undeclared SSA value name") in messages
    assert ("error", 5, "emitted") in messages
