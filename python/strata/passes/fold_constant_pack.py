"""strata-fold-constant-pack: `linalg.pack`s of constants computed while compiling
(passes/fold_constant_pack.td).

A pack only moves elements, so the packed constant is the source's elements reshaped and
transposed (after padding), which numpy does on the raw bits: any element type of 8, 16, 32 or
64 bits packs the same way.
"""

import re

import numpy as np
from torch_mlir import ir

from strata import resource_blobs
from strata.ir_splice import erase_unused
from strata.linalg_match import ops_named

_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_FLOATS = {16: np.float16, 32: np.float32, 64: np.float64}
_DYNAMIC = -(2**63)  # ShapedType::kDynamic in a static-sizes array


def _ints(op: ir.Operation, name: str) -> list[int] | None:
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else None


def _bits_type(element: ir.Type):
    """The unsigned numpy type of `element`'s width, or None."""
    if isinstance(element, (ir.FloatType, ir.IntegerType)):
        width = ir.FloatType(element).width if isinstance(element, ir.FloatType) else ir.IntegerType(element).width
        return _BITS.get(width)
    return None


def _padding_bits(pack: ir.Operation, bits) -> np.ndarray | None:
    """The pack's padding value as an unsigned integer of `bits`' width, or None."""
    segments = list(ir.DenseI32ArrayAttr(pack.attributes["operandSegmentSizes"]))
    if segments[2] == 0:
        return None
    padding = pack.operands[2]
    op = padding.owner if isinstance(padding, ir.OpResult) else None
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    width = np.dtype(bits).itemsize * 8
    if isinstance(padding.type, ir.IntegerType):
        return np.array(ir.IntegerAttr(attr).value & ((1 << width) - 1), dtype=bits)
    value = ir.FloatAttr(attr).value
    if str(padding.type) == "bf16":  # the upper half of the f32: exact for a bf16 value
        return np.array(np.array(value, dtype=np.float32).view(np.uint32) >> 16, dtype=bits)
    if width in _FLOATS and str(padding.type) == f"f{width}":
        return np.array(value, dtype=_FLOATS[width]).view(bits)
    return None


def _packed(source: np.ndarray, inner_dims_pos, inner_tiles, outer_dims_perm=None, padding=None) -> np.ndarray | None:
    """`linalg.pack` in numpy: `source` padded with `padding` to whole tiles (None: only whole
    tiles fold), each tiled dimension split into (tiles, tile), the outer dimensions permuted by
    `outer_dims_perm`, the tile dimensions last in the order of `inner_dims_pos`."""
    pads = [(0, 0)] * source.ndim
    for dim, tile in zip(inner_dims_pos, inner_tiles):
        pads[dim] = (0, -source.shape[dim] % tile)
    if any(after for _, after in pads):
        if padding is None:
            return None
        source = np.pad(source, pads, constant_values=padding)
    shape, outer, inner = [], [], {}
    for dim, size in enumerate(source.shape):
        outer.append(len(shape))
        if dim in inner_dims_pos:
            tile = inner_tiles[list(inner_dims_pos).index(dim)]
            shape += [size // tile, tile]
            inner[dim] = len(shape) - 1
        else:
            shape.append(size)
    order = [outer[d] for d in (outer_dims_perm or range(source.ndim))] + [inner[d] for d in inner_dims_pos]
    return np.ascontiguousarray(source.reshape(shape).transpose(order))


def _blob_name(value: ir.Value) -> str:
    """The name of the blob behind `value` (through reshapes), or "constant"."""
    op = value.owner
    while op.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        op = op.operands[0].owner
    name = re.match(r"dense_resource<([^>]+)>", str(op.attributes["value"])) if op.name == "arith.constant" else None
    return name.group(1) if name else "constant"


def _fold(pack: ir.Operation) -> bool:
    result = ir.RankedTensorType(pack.results[0].type)
    tiles = _ints(pack, "static_inner_tiles")
    if not result.has_static_shape or _DYNAMIC in tiles:
        return False
    bits = _bits_type(ir.RankedTensorType(pack.operands[0].type).element_type)
    source = resource_blobs.constant_elements(pack.operands[0], bits) if bits is not None else None
    if source is None:
        return False
    padding = _padding_bits(pack, source.dtype.type)
    array = _packed(source, _ints(pack, "inner_dims_pos"), tiles, _ints(pack, "outer_dims_perm"), padding)
    if array is None or list(array.shape) != list(result.shape):
        return False
    attr = resource_blobs.create(array, f"{_blob_name(pack.operands[0])}_packed", result)
    with ir.InsertionPoint(pack), pack.location:
        folded = ir.Operation.create("arith.constant", results=[result], attributes={"value": attr})
    pack.results[0].replace_all_uses_with(folded.results[0])
    producers = [v.owner for v in pack.operands if isinstance(v, ir.OpResult)]
    pack.erase()
    erase_unused(producers)
    return True


def run(op: ir.Operation, options) -> None:
    for pack in ops_named(op, "linalg.pack"):
        _fold(pack)
