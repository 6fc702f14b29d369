"""Python builders for the `strata` dialect's ops and enums (generated from dialects/strata.td).

The attribute builders registered here cover strata's named attribute constraints, which wrap
upstream attribute kinds, so the generated builders accept plain Python values for them
(`strata.SoftmaxOp(t, x, dim=-1)`, `eps=1e-5`, `normalized_shape=[64]`).
"""

from torch_mlir import ir

from strata.dialects._strata_enum_gen import *  # noqa: F401,F403
from strata.dialects._strata_ops_gen import *  # noqa: F401,F403


@ir.register_attribute_builder("Strata_EpsAttr")
@ir.register_attribute_builder("Strata_ScaleAttr")
def _f64_attr(value, context):
    return ir.FloatAttr.get(ir.F64Type.get(context=context), float(value))


@ir.register_attribute_builder("Strata_ShapeAttr")
def _shape_attr(value, context):
    return ir.DenseI64ArrayAttr.get([int(v) for v in value], context=context)
