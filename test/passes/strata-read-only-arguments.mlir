// strata-read-only-arguments: tensor arguments of public function definitions become
// `bufferization.writable = false`; other arguments, other attributes, private functions and
// declarations are kept as they are. (That a matmul accumulating into an argument then compiles
// and leaves the caller's array alone: test/python/upstream/test_panel_matmul.py.)
// RUN: strata-opt --split-input-file --strata-read-only-arguments %s | FileCheck %s

// CHECK-LABEL: func.func @public
// CHECK-SAME:    (%{{.*}}: tensor<4xf32> {bufferization.writable = false, strata.keep = 1 : i64},
// CHECK-SAME:     %{{.*}}: f32,
// CHECK-SAME:     %{{.*}}: tensor<*xf32> {bufferization.writable = false})
func.func @public(%a: tensor<4xf32> {strata.keep = 1}, %s: f32, %u: tensor<*xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func private @helper
// CHECK-SAME:    (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @external
// CHECK-SAME:    (tensor<4xf32>) -> tensor<4xf32>
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
