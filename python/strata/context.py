"""The one MLIR context strata's tools work in.

torch-mlir's bindings register every upstream dialect and pass when a context is created; strata
adds the torch dialect (FX-imported IR) and its own ODS-defined dialects, so that `strata-opt`,
the pipelines and the compiler all parse and verify the same IR the same way.
"""

from torch_mlir._mlir_libs._mlir import ir  # the native module: `torch_mlir.ir` also imports numpy (~0.1 s)
from torch_mlir._mlir_libs import _torchMlir

from strata import dialects


def make_context(*, allow_unregistered_dialects: bool = False) -> ir.Context:
    context = ir.Context()
    _torchMlir.register_dialect(context)
    dialects.load_dialects(context)
    context.allow_unregistered_dialects = allow_unregistered_dialects
    return context
