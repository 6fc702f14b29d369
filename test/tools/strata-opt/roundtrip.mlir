// Parse and print round trips, in every printing mode strata-opt offers.
// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: strata-opt --mlir-print-op-generic %s | strata-opt | FileCheck %s
// RUN: strata-opt --mlir-print-debuginfo %s | FileCheck %s --check-prefix=DEBUGINFO
// RUN: strata-opt --mlir-print-local-scope %s | FileCheck %s --check-prefix=LOCAL
// RUN: strata-opt --emit-bytecode %s | strata-opt | FileCheck %s
// RUN: strata-opt --emit-bytecode %s -o %t.mlirbc && strata-opt %t.mlirbc | FileCheck %s
// RUN: cat %s | strata-opt - | FileCheck %s
// RUN: strata-opt %s -o %t.mlir && FileCheck %s < %t.mlir

#map = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @add
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// GENERIC: "func.func"() <{function_type = (f32, f32) -> f32, sym_name = "add"}>
// GENERIC: "arith.addf"
// DEBUGINFO: arith.addf {{.*}} loc(
// LOCAL: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>
func.func @add(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}

// CHECK-LABEL: func.func @copy
// CHECK: linalg.generic
func.func @copy(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
