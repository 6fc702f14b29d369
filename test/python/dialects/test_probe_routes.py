"""probe ops observed at run time on both routes, after strata-lower-probes.

IREE route: the tap's tensor trace is printed by IREE's runtime under the tap's name, and
check_finite stops the call with a message naming the probe when the tensor holds a NaN.
CPU route (upstream lowering, ExecutionEngine): the host callback receives each tapped tensor
under the tap's name.
"""

import ctypes
from dataclasses import dataclass

import iree.compiler
import iree.runtime
import numpy as np
import pytest
from torch_mlir import execution_engine, ir, passmanager
from torch_mlir.runtime import UnrankedMemRefDescriptor, get_ranked_memref_descriptor, unranked_memref_to_numpy

from strata.context import make_context
from strata.passes import lower_probes

PROBED = """
func.func @probed(%x: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {llvm.emit_c_interface} {
  %0 = "probe.tap"(%x) {name = "after norm"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "probe.check_finite"(%0) {name = "logits"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
"""

# The CPU test calls a function without results, so it needs no result descriptors.
TAPPED = """
func.func @tapped(%x: tensor<2x3xf32>) attributes {llvm.emit_c_interface} {
  %0 = "probe.tap"(%x) {name = "after norm"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
"""

CPU_TO_LLVM = (
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries}, func.func(convert-linalg-to-loops),"
    " convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-math-to-llvm,"
    " convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, reconcile-unrealized-casts)"
)


@dataclass(frozen=True)
class Options:
    route: str


@pytest.fixture(scope="module")
def iree_module():
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(PROBED)
        lower_probes.run(module.operation, Options("iree"))
        text = str(module)
    vmfb = iree.compiler.compile_str(
        text,
        input_type="none",
        extra_args=["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"],
    )
    return iree.runtime.load_vm_flatbuffer(vmfb, driver="local-sync")


def test_iree_trace_prints_the_tapped_tensor(iree_module, capfd):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(iree_module.probed(x)), x)
    printed = capfd.readouterr()
    assert "after norm" in printed.out + printed.err


def test_iree_check_finite_stops_on_nan(iree_module):
    x = np.ones((2, 3), dtype=np.float32)
    x[1, 2] = np.nan
    with pytest.raises(RuntimeError, match="probe.check_finite 'logits': tensor holds NaN or infinity"):
        iree_module.probed(x)


def test_cpu_route_calls_back_with_each_tapped_tensor():
    seen = []
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(TAPPED)
        lower_probes.run(module.operation, Options("cpu"))
        names = [attr.value for attr in module.operation.attributes[lower_probes.PROBE_NAMES_ATTR]]
        passmanager.PassManager.parse(CPU_TO_LLVM).run(module.operation)

        @ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.POINTER(UnrankedMemRefDescriptor))
        def tap(probe_id, descriptor):
            seen.append((names[probe_id], unranked_memref_to_numpy(descriptor, np.float32).copy()))

        engine = execution_engine.ExecutionEngine(module)
        engine.register_runtime("strata_probe_tap_f32", tap)
        x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
        engine.invoke("tapped", ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(x))))
    assert [name for name, _ in seen] == ["after norm"]
    np.testing.assert_array_equal(seen[0][1], x)
