"""Which linalg matmuls strata's matmul rewrites take: static float ones in their plain form.

`strata-pack-matmul` (the upstream CPU route) and `strata-data-tile-matmul` (before IREE) both
rewrite `linalg.matmul` and `linalg.batch_matmul` with static shapes, one float element type and
the ops' default indexing maps (explicit other maps, a transposed or broadcast operand, are left).
"""

from typing import NamedTuple

from torch_mlir import ir

OPS = ("linalg.matmul", "linalg.batch_matmul")
_DEFAULT_MAPS = {
    "linalg.matmul": "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]",
    "linalg.batch_matmul": "[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]",
}


class PlainMatmul(NamedTuple):
    batch: list[int]  # [] for a linalg.matmul
    m: int
    n: int
    k: int
    element_type: ir.Type


def plain_matmul(op: ir.Operation) -> PlainMatmul | None:
    """The sizes of `op` (one of OPS) if it is a static float matmul in plain form, else None."""
    a, b, c = (v.type for v in op.operands)
    types = (a, b, c)
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    elt = a.element_type
    if not isinstance(elt, ir.FloatType) or any(t.element_type != elt for t in types):
        return None
    if "indexing_maps" in op.attributes and str(op.attributes["indexing_maps"]) != _DEFAULT_MAPS[op.name]:
        return None
    *batch, m, k = a.shape
    return PlainMatmul(list(batch), m, b.shape[-1], k, elt)
