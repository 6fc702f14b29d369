"""The elements behind constant tensors (`dense_resource` blobs above all), for passes that
compute with constants.

MLIR's Python bindings create a resource blob from a buffer but give no access to a blob's bytes:
only the attribute's printed form holds them, in hex (0.3 s per 28 MB of weights, as much as
strata-fold-constant-pack saves IREE on such a model). strata creates the blobs of an imported
model's weights itself, from numpy arrays (`strata.tensor_literals`), so it records each array
here by its attribute, and reading it back costs nothing; blobs parsed from text (strata-opt's
input) are read from their printed form. The records go with their MLIR context.
"""

import re
import weakref

import numpy as np
from torch_mlir import ir

# context -> {printed attribute (its resource handle and type) -> the array the blob holds}
_ARRAYS: "weakref.WeakKeyDictionary[ir.Context, dict[str, np.ndarray]]" = weakref.WeakKeyDictionary()
_BLOB = re.compile(r'dialect_resources: \{\s*builtin: \{\s*[^:\s]+: "0x([0-9A-Fa-f]*)"')


def create(array: np.ndarray, name: str, tensor_type: ir.Type) -> ir.Attribute:
    """A `dense_resource` attribute of `tensor_type` whose blob is `array` (contiguous, kept
    alive by the blob), named `name` or, where that is taken, a name MLIR derives from it."""
    attribute = ir.DenseResourceElementsAttr.get_from_buffer(array, name, tensor_type)
    _ARRAYS.setdefault(attribute.context, {})[str(attribute)] = array
    return attribute


def elements(attribute: ir.Attribute, dtype) -> np.ndarray | None:
    """The elements of a `dense_resource` attribute of static shape as `dtype` (a numpy type of
    the element type's width), in the attribute's shape; None where the blob is not that size."""
    shape = ir.ShapedType(attribute.type).shape
    recorded = _ARRAYS.get(attribute.context, {}).get(str(attribute))
    if recorded is not None:
        data = recorded.reshape(-1).view(np.uint8)
    else:
        # A detached copy of a constant prints the one blob it uses after the op, behind the
        # blob's 4-byte alignment; an op inside a module prints none.
        copy = ir.Operation.create("arith.constant", results=[attribute.type], attributes={"value": attribute},
                                   loc=ir.Location.unknown(attribute.context))
        match = _BLOB.search(copy.get_asm())
        copy.erase()
        if match is None:
            return None
        data = np.frombuffer(bytes.fromhex(match.group(1))[4:], dtype=np.uint8)
    if data.size != int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize:
        return None
    return data.view(dtype).reshape(shape)


# numpy's type for each MLIR element type it has (index: MLIR's constants hold 64 bits)
NUMPY_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_, "i8": np.int8,
               "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}


def constant_elements(value: ir.Value, dtype=None, splats: bool = False) -> np.ndarray | None:
    """The elements of `value`, where an `arith.constant` of static shape produced it (perhaps
    through reshapes), in its shape: as `dtype` (a numpy type of the element type's width; an
    unsigned one reads the bits), by default as NUMPY_TYPES says. Splats only with `splats`
    (read-only, broadcast from one element). None otherwise, and for element types numpy lacks
    unless `dtype` reads bits."""
    op = value.owner if isinstance(value, ir.OpResult) else None
    if op is None or not isinstance(value.type, ir.RankedTensorType):
        return None
    if op.name in ("tensor.expand_shape", "tensor.collapse_shape") and ir.RankedTensorType(value.type).has_static_shape:
        source = constant_elements(op.operands[0], dtype, splats)  # a reshape moves no element
        return None if source is None else source.reshape(ir.RankedTensorType(value.type).shape)
    if op.name != "arith.constant":
        return None
    tensor = ir.RankedTensorType(value.type)
    natural = NUMPY_TYPES.get(str(tensor.element_type))
    dtype = dtype or natural
    if dtype is None or not tensor.has_static_shape:
        return None
    attr = op.attributes["value"]
    try:
        resource = ir.DenseResourceElementsAttr(attr)
    except ValueError:
        resource = None
    if resource is not None:
        return elements(resource, dtype)
    try:
        dense = ir.DenseElementsAttr(attr)
    except ValueError:
        return None
    if natural is None or (dense.is_splat and not splats):
        return None
    if dense.is_splat:
        splat = dense.get_splat_value()
        scalar = ir.FloatAttr(splat).value if isinstance(splat, ir.FloatAttr) else ir.IntegerAttr(splat).value
        return np.broadcast_to(np.array(scalar).astype(natural).view(dtype), tensor.shape)
    try:
        array = np.array(dense)
    except (TypeError, ValueError, RuntimeError):
        return None
    return array.astype(natural, copy=False).view(dtype).reshape(tensor.shape)
