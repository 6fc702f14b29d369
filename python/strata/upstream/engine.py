"""A function of an llvm-dialect module, JIT-compiled by MLIR's ExecutionEngine and callable
with numpy arrays.

The module's entry function has memref arguments and results and a C interface
(`llvm.emit_c_interface`, added by the `linalg-to-llvm` pipeline). The C interface takes a
pointer to the result (one descriptor, or a struct of descriptors when there are several) followed
by pointers to the argument descriptors; the ExecutionEngine's packed wrapper takes all of these
as one array of pointers.

The compiled code mallocs its buffers on every call (`memref.alloc`) and numpy frees the results;
loading a function keeps freed blocks in glibc's heap for the next call (`strata.heap_reuse`).
"""

from __future__ import annotations

import ctypes

import numpy as np

from strata.errors import StrataError
from strata.heap_reuse import keep_freed_buffers
from strata.upstream.memref import TensorType, Allocation, describe, descriptor_type


class JitFunction:
    """`name` in `llvm_module`, compiled once; calls take and return numpy arrays."""

    def __init__(
        self,
        llvm_module,
        name: str,
        inputs: tuple[TensorType, ...],
        results: tuple[TensorType, ...],
        opt_level: int = 3,
        shared_libs: tuple[str, ...] = (),
    ):
        from torch_mlir.execution_engine import ExecutionEngine

        self.name, self.inputs, self.results = name, tuple(inputs), tuple(results)
        try:
            self.engine = ExecutionEngine(llvm_module, opt_level=opt_level, shared_libs=list(shared_libs))
        except RuntimeError as e:
            raise StrataError(f"the ExecutionEngine could not compile @{name}: {e}") from None
        keep_freed_buffers()
        address = self.engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise StrataError(f"the compiled module has no C interface for @{name}")
        self._entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        fields = [(f"r{i}", descriptor_type(r.rank)) for i, r in enumerate(self.results)]
        self._result_type = (
            descriptor_type(self.results[0].rank)
            if len(self.results) == 1
            else type("Results", (ctypes.Structure,), {"_fields_": fields})
        )

    def __call__(self, *arrays: np.ndarray) -> list[np.ndarray]:
        if len(arrays) != len(self.inputs):
            raise StrataError(f"@{self.name} takes {len(self.inputs)} input(s), got {len(arrays)}")
        contiguous = [np.ascontiguousarray(a) for a in arrays]  # kept alive for the call
        descriptors = [describe(a, t, i) for i, (a, t) in enumerate(zip(contiguous, self.inputs))]
        result = self._result_type()
        pointers = [ctypes.pointer(result)] + [ctypes.pointer(d) for d in descriptors]
        packed = (ctypes.c_void_p * len(pointers))(
            *[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in pointers]
        )
        self._entry(packed)
        returned = [result] if len(self.results) == 1 else [getattr(result, f"r{i}") for i in range(len(self.results))]
        return _take_results(returned, self.results)


def _take_results(descriptors, types) -> list[np.ndarray]:
    """Arrays owning the returned buffers; a result that shares an earlier one's buffer is copied."""
    owned: set[int] = set()
    arrays = []
    for descriptor, type_ in zip(descriptors, types):
        allocation = Allocation(descriptor, type_)
        if descriptor.allocated and descriptor.allocated in owned:
            allocation.release_ownership()
            arrays.append(np.array(allocation))  # a copy, made while the owning array is alive
            continue
        owned.add(descriptor.allocated or 0)
        arrays.append(np.asarray(allocation))
    return arrays
