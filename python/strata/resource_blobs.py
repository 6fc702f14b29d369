"""The elements behind `dense_resource` attributes, for passes that compute with constants.

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
