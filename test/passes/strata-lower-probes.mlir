// strata-lower-probes on both routes: IREE's tensor trace or a host callback for probe.tap, a
// finiteness reduction and cf.assert for probe.check_finite.
// RUN: strata-opt --split-input-file --strata-lower-probes %s | FileCheck %s --check-prefix=IREE
// RUN: strata-opt --split-input-file --strata-lower-probes=route=cpu %s | FileCheck %s --check-prefix=CPU
// RUN: not strata-opt --pass-pipeline='builtin.module(strata-lower-probes{route=gpu})' %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: route must be one of iree, cpu; got 'gpu'

// IREE-LABEL: func.func @tap
// IREE:         "flow.tensor.trace"(%[[X:.*]]) {key = "after norm", operandSegmentSizes = array<i32: 1, 0>} : (tensor<2x3xf32>) -> ()
// IREE-NOT:     probe.tap
// IREE:         return %[[X]]
// CPU:        module attributes {strata.probe_names = ["after norm"]}
// CPU-LABEL:  func.func @tap
// CPU:          %[[BUF:.*]] = bufferization.to_buffer %[[X:.*]] read_only : tensor<2x3xf32> to memref<2x3xf32, strided<[?, ?], offset: ?>>
// CPU:          %[[U:.*]] = memref.cast %[[BUF]] : {{.*}} to memref<*xf32>
// CPU:          %[[ID:.*]] = arith.constant 0 : i64
// CPU:          call @strata_probe_tap_f32(%[[ID]], %[[U]]) : (i64, memref<*xf32>) -> ()
// CPU:          return %[[X]]
// CPU:        func.func private @strata_probe_tap_f32(i64, memref<*xf32>) attributes {llvm.emit_c_interface}
func.func @tap(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "probe.tap"(%x) {name = "after norm"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Dynamic dimensions travel with the traced tensor on the IREE route.
// IREE-LABEL: func.func @tap_dynamic
// IREE:         %[[C0:.*]] = arith.constant 0 : index
// IREE:         %[[D0:.*]] = tensor.dim %[[X:.*]], %[[C0]] : tensor<?x4xf16>
// IREE:         "flow.tensor.trace"(%[[X]], %[[D0]]) {key = "dyn", operandSegmentSizes = array<i32: 1, 1>} : (tensor<?x4xf16>, index) -> ()
// Two taps of different element types get one callback each and ids in order.
// CPU:        module attributes {strata.probe_names = ["dyn", "second"]}
// CPU-LABEL:  func.func @tap_dynamic
// CPU:          arith.constant 0 : i64
// CPU:          call @strata_probe_tap_f16
// CPU:          arith.constant 1 : i64
// CPU:          call @strata_probe_tap_f64
// CPU-DAG:    func.func private @strata_probe_tap_f16(i64, memref<*xf16>)
// CPU-DAG:    func.func private @strata_probe_tap_f64(i64, memref<*xf64>)
func.func @tap_dynamic(%x: tensor<?x4xf16>, %y: tensor<3xf64>) -> (tensor<?x4xf16>, tensor<3xf64>) {
  %0 = "probe.tap"(%x) {name = "dyn"} : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %1 = "probe.tap"(%y) {name = "second"} : (tensor<3xf64>) -> tensor<3xf64>
  return %0, %1 : tensor<?x4xf16>, tensor<3xf64>
}

// -----

// check_finite lowers the same way on both routes.
// IREE-LABEL: func.func @check_finite
// CPU-LABEL:  func.func @check_finite
// IREE:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[X:.*]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<i1>)
// IREE:           math.absf
// IREE:           arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// IREE:           arith.andi
// IREE:         %[[OK:.*]] = tensor.extract
// IREE:         cf.assert %[[OK]], "probe.check_finite 'logits': tensor holds NaN or infinity"
// IREE:         return %[[X]]
// CPU:          cf.assert %{{.*}}, "probe.check_finite 'logits': tensor holds NaN or infinity"
func.func @check_finite(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "probe.check_finite"(%x) {name = "logits"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
