// Every probe op in its valid forms parses, verifies, prints and parses again unchanged.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @probes
func.func @probes(%x: tensor<2x?xf32>, %i: tensor<4xi32>, %h: tensor<bf16>) -> (tensor<2x?xf32>, tensor<4xi32>, tensor<bf16>) {
  // CHECK: "probe.tap"(%{{.*}}) {name = "after norm"} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = "probe.tap"(%x) {name = "after norm"} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: "probe.tap"(%{{.*}}) {name = "token ids"} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = "probe.tap"(%i) {name = "token ids"} : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: "probe.check_finite"(%{{.*}}) {name = "logits"} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %2 = "probe.check_finite"(%0) {name = "logits"} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: "probe.check_finite"(%{{.*}}) {name = "scalar"} : (tensor<bf16>) -> tensor<bf16>
  %3 = "probe.check_finite"(%h) {name = "scalar"} : (tensor<bf16>) -> tensor<bf16>
  return %2, %1, %3 : tensor<2x?xf32>, tensor<4xi32>, tensor<bf16>
}
