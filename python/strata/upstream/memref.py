"""MLIR's memref calling convention from Python: descriptors in, Python-owned arrays out.

A ranked memref crosses the C interface as a struct `{allocated, aligned, offset, sizes[r],
strides[r]}` (strides in elements). Inputs are described in place (no copy) from contiguous
numpy arrays. Results were allocated by the compiled code with `malloc`; they are handed to numpy
without a copy, and the numpy array owns the allocation: it is freed when the last array (or a
torch tensor sharing it) goes away. Deallocation inside the compiled code guarantees every
returned buffer is a fresh allocation owned by the caller, never an input or a constant.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

import numpy as np

from strata.errors import StrataError

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None

# MLIR element type spelling -> numpy dtype. i1 is stored one byte per element.
DTYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.bool_,
    "ui8": np.uint8,
}


@functools.cache
def descriptor_type(rank: int) -> type:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


@dataclass(frozen=True)
class TensorType:
    """The shape (None for a dynamic size) and element type of one argument or result."""

    shape: tuple[int | None, ...]
    element: str

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(DTYPES[self.element])

    @property
    def rank(self) -> int:
        return len(self.shape)

    def spelling(self) -> str:
        return "x".join([("?" if d is None else str(d)) for d in self.shape] + [self.element])


def describe(array: np.ndarray, expected: TensorType, position: int):
    """A descriptor of `array` for argument `position`; checks rank, sizes and dtype first."""
    if array.dtype != expected.dtype:
        raise StrataError(f"input {position} has dtype {array.dtype}, the compiled model expects {expected.spelling()}")
    if array.ndim != expected.rank or any(
        want is not None and got != want for got, want in zip(array.shape, expected.shape)
    ):
        shape = "x".join(map(str, array.shape)) or "scalar"
        raise StrataError(f"input {position} has shape {shape}, the compiled model expects {expected.spelling()}")
    descriptor = descriptor_type(array.ndim)()
    descriptor.allocated = descriptor.aligned = array.ctypes.data
    descriptor.offset = 0
    if array.ndim:
        descriptor.sizes[:] = array.shape
        descriptor.strides[:] = [s // array.itemsize for s in array.strides]
    return descriptor


class Allocation:
    """Owns one buffer malloc'ed by compiled code; numpy arrays over it keep it alive."""

    def __init__(self, descriptor, element: TensorType):
        self._allocated = descriptor.allocated
        rank = element.rank
        shape = tuple(descriptor.sizes) if rank else ()
        itemsize = element.dtype.itemsize
        strides = tuple(s * itemsize for s in descriptor.strides) if rank else ()
        data = (descriptor.aligned or 0) + descriptor.offset * itemsize
        self.__array_interface__ = {
            "shape": shape,
            "typestr": element.dtype.str,
            "data": (data, False),
            "strides": strides,
            "version": 3,
        }

    def release_ownership(self) -> None:
        self._allocated = None

    def __del__(self):
        if self._allocated:
            _libc.free(self._allocated)
            self._allocated = None
