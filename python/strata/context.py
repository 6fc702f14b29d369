"""The one MLIR context strata's tools work in.

torch-mlir's bindings register every upstream dialect and pass when a context is created; strata
adds the torch dialect (FX-imported IR) and its own ODS-defined dialects, so that `strata-opt`,
the pipelines and the compiler all parse and verify the same IR the same way.
"""

from torch_mlir._mlir_libs._mlir import ir  # the native module: `torch_mlir.ir` also imports numpy (~0.1 s)
from torch_mlir._mlir_libs import _torchMlir


def make_context(*, allow_unregistered_dialects: bool = False, lazy: bool = False) -> ir.Context:
    """A context with every upstream dialect loaded, torch, torch_c and strata's dialects.

    `lazy=True` is for IR that involves neither strata's dialects nor its Python passes (strata-opt
    decides from the input and the pipeline): the upstream and torch dialects are registered but
    loaded only when the parser or a pass first needs one, as mlir-opt does, and strata's are not
    defined. Loading everything up front costs ~15 ms, a tenth of a small strata-opt run.
    """
    # load_on_create_dialects=[] stops torch-mlir's Context from loading all ~80 dialects.
    context = ir.Context(load_on_create_dialects=[]) if lazy else ir.Context()
    _torchMlir.register_dialect(context)
    if not lazy:
        from strata import dialects

        dialects.load_dialects(context)
    context.allow_unregistered_dialects = allow_unregistered_dialects
    return context
