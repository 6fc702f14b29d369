// strata-fold-constant-pack: a linalg.pack of a constant becomes the packed constant, its bytes
// checked here. Through IREE on the models: test/python/iree/test_fold_constant_pack.py.
// RUN: strata-opt --split-input-file --strata-fold-constant-pack %s | FileCheck %s

// An inline constant, 4 x 3 bytes 0..11, into tiles of 2 rows: each tile's column pairs.
// CHECK-LABEL: func.func @dense_rows
// CHECK-NEXT:    %[[P:.*]] = arith.constant dense_resource<constant_packed> : tensor<2x3x2xi8>
// CHECK-NEXT:    return %[[P]]
// CHECK:         constant_packed: "0x010000000003010402050609070A080B"
func.func @dense_rows() -> tensor<2x3x2xi8> {
  %w = arith.constant dense<[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]> : tensor<4x3xi8>
  %e = tensor.empty() : tensor<2x3x2xi8>
  %p = linalg.pack %w inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<4x3xi8> -> tensor<2x3x2xi8>
  return %p : tensor<2x3x2xi8>
}

// -----

// A blob as Torch-MLIR imports weights, [[1, 2, 3, 4], [5, 6, 7, 8]], into 2 x 2 tiles with the
// outer dimensions swapped: [[1, 2], [5, 6]], then [[3, 4], [7, 8]]. The weight is returned as
// well, so it stays.
// CHECK-LABEL: func.func @resource_tiles
// CHECK-DAG:     %[[W:.*]] = arith.constant dense_resource<weight> : tensor<2x4xf32>
// CHECK-DAG:     %[[P:.*]] = arith.constant dense_resource<weight_packed> : tensor<2x1x2x2xf32>
// CHECK-NOT:     linalg.pack
// CHECK:         return %[[W]], %[[P]]
// CHECK:         weight_packed: "0x040000000000803F000000400000A0400000C04000004040000080400000E04000000041"
func.func @resource_tiles() -> (tensor<2x4xf32>, tensor<2x1x2x2xf32>) {
  %w = arith.constant dense_resource<weight> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x1x2x2xf32>
  %p = linalg.pack %w outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : tensor<2x4xf32> -> tensor<2x1x2x2xf32>
  return %w, %p : tensor<2x4xf32>, tensor<2x1x2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}

// -----

// Padding: bf16 [2, 3, 4] into tiles of 2, padded with 1.0 (0x3F80).
// CHECK-LABEL: func.func @padded
// CHECK-NEXT:    %[[P:.*]] = arith.constant dense_resource<filter_packed> : tensor<2x2xbf16>
// CHECK-NEXT:    return %[[P]]
// CHECK:         filter_packed: "0x02000000004040408040803F"
func.func @padded() -> tensor<2x2xbf16> {
  %w = arith.constant dense_resource<filter> : tensor<3xbf16>
  %pad = arith.constant 1.0 : bf16
  %e = tensor.empty() : tensor<2x2xbf16>
  %p = linalg.pack %w padding_value(%pad : bf16) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<3xbf16> -> tensor<2x2xbf16>
  return %p : tensor<2x2xbf16>
}
{-#
  dialect_resources: {
    builtin: {
      filter: "0x02000000004040408040"
    }
  }
#-}

// -----

// Left alone: a pack of an argument, of a splat (canonicalization's), and one padded with a
// value that is not a constant.
// CHECK-LABEL: func.func @not_constant
// CHECK:         linalg.pack %arg0
// CHECK-LABEL: func.func @splat
// CHECK:         linalg.pack %{{.*}} inner_dims_pos
// CHECK-LABEL: func.func @padding_argument
// CHECK:         linalg.pack %{{.*}} padding_value(%arg0 : i32)
func.func @not_constant(%x: tensor<4x3xi8>) -> tensor<2x3x2xi8> {
  %e = tensor.empty() : tensor<2x3x2xi8>
  %p = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<4x3xi8> -> tensor<2x3x2xi8>
  return %p : tensor<2x3x2xi8>
}
func.func @splat() -> tensor<2x3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3xf32>
  %e = tensor.empty() : tensor<2x3x2xf32>
  %p = linalg.pack %w inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<4x3xf32> -> tensor<2x3x2xf32>
  return %p : tensor<2x3x2xf32>
}
func.func @padding_argument(%pad: i32) -> tensor<2x2xi32> {
  %w = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %e = tensor.empty() : tensor<2x2xi32>
  %p = linalg.pack %w padding_value(%pad : i32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<3xi32> -> tensor<2x2xi32>
  return %p : tensor<2x2xi32>
}

// -----

// Through a reshape, as convolution filters [F][C][KH][KW] are collapsed to [F][C*KH*KW]: bytes
// [[0, 1], [2, 3]] in [2][1][2], collapsed, in tiles of 2 rows: [[0, 2], [1, 3]].
// CHECK-LABEL: func.func @reshaped
// CHECK-NEXT:    %[[P:.*]] = arith.constant dense_resource<taps_packed> : tensor<1x2x2xi8>
// CHECK-NEXT:    return %[[P]]
// CHECK:         taps_packed: "0x0100000000020103"
func.func @reshaped() -> tensor<1x2x2xi8> {
  %w = arith.constant dense_resource<taps> : tensor<2x1x2xi8>
  %c = tensor.collapse_shape %w [[0], [1, 2]] : tensor<2x1x2xi8> into tensor<2x2xi8>
  %e = tensor.empty() : tensor<1x2x2xi8>
  %p = linalg.pack %c inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<2x2xi8> -> tensor<1x2x2xi8>
  return %p : tensor<1x2x2xi8>
}
{-#
  dialect_resources: {
    builtin: {
      taps: "0x0100000000010203"
    }
  }
#-}
