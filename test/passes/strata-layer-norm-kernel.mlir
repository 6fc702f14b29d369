// strata-layer-norm-kernel: Torch-MLIR's layer norm over the last dimension (the variance in
// f64, the mean in f32, then (x - mean) * rsqrt(var + eps) * weight + bias) becomes one call of
// strata's layer-norm kernel on the rows, flat. Numerics through IREE:
// test/python/iree/test_layer_norm_kernel.py.
// RUN: strata-opt --split-input-file --strata-layer-norm-kernel %s | FileCheck %s

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>

// F.layer_norm(x, (16,), w, b) on 2 x 4 rows of 16 as Torch-MLIR writes it; eps = 1e-5 as f32
// bits 0x3727C5AC.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x16xf32>, %[[W:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     linalg.
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = call @strata_kernel_layer_norm_r8_c16_e3727c5ac(%[[ROWS]], %[[W]], %[[B]]) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
// CHECK-NEXT:    return %[[OUT]]
// CHECK:       func.func private @strata_kernel_layer_norm_r8_c16_e3727c5ac(tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
func.func @layer_norm(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.600000e+01 : f64
  %cst_3 = arith.constant 1.600000e+01 : f32
  %0 = tensor.empty() : tensor<2x4x16xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %22 = arith.extf %in : f32 to f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %2 = tensor.empty() : tensor<2x4x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x4x16xf64>, tensor<2x4x1xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.subf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x4x16xf64>, tensor<2x4x16xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.mulf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %10 = tensor.empty() : tensor<2x4x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x1xf64>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %22 = arith.truncf %in : f64 to f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%12 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.addf %in, %out : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.divf %in, %cst_3 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.truncf %cst_1 : f64 to f32
    %23 = arith.addf %in, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<2x4x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = math.rsqrt %in : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %17 = tensor.empty() : tensor<2x4x16xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %14 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.subf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %arg1 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %arg2 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.addf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  return %21 : tensor<2x4x16xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>

// The f32 mean read by something else too: the kernel computes the result, the mean stays.
// CHECK-LABEL: func.func @mean_read_too
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]]
// CHECK-NOT:     f64
// CHECK:         %[[Y:.*]] = call @strata_kernel_layer_norm_r8_c16_e3727c5ac(
// CHECK:         return %{{.*}}, %[[MEAN]]
func.func @mean_read_too(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x1xf32>) {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.600000e+01 : f64
  %cst_3 = arith.constant 1.600000e+01 : f32
  %0 = tensor.empty() : tensor<2x4x16xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %22 = arith.extf %in : f32 to f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %2 = tensor.empty() : tensor<2x4x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x4x16xf64>, tensor<2x4x1xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.subf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x4x16xf64>, tensor<2x4x16xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.mulf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %10 = tensor.empty() : tensor<2x4x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x1xf64>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %22 = arith.truncf %in : f64 to f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%12 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.addf %in, %out : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.divf %in, %cst_3 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.truncf %cst_1 : f64 to f32
    %23 = arith.addf %in, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<2x4x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = math.rsqrt %in : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %17 = tensor.empty() : tensor<2x4x16xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %14 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.subf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %arg1 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %arg2 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.addf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  return %21, %14 : tensor<2x4x16xf32>, tensor<2x4x1xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>

// The variance divided by N - 1 (unbiased) is not layer norm's: left alone.
// CHECK-LABEL: func.func @unbiased_variance
// CHECK-NOT:     call @strata_kernel_layer_norm
// CHECK:         math.rsqrt
func.func @unbiased_variance(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.600000e+01 : f64
  %cst_3 = arith.constant 1.600000e+01 : f32
  %cst_n1 = arith.constant 1.500000e+01 : f64
  %0 = tensor.empty() : tensor<2x4x16xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %22 = arith.extf %in : f32 to f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %2 = tensor.empty() : tensor<2x4x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x4x16xf64>, tensor<2x4x1xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.subf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x4x16xf64>, tensor<2x4x16xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.mulf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_n1 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %10 = tensor.empty() : tensor<2x4x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x1xf64>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %22 = arith.truncf %in : f64 to f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%12 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.addf %in, %out : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.divf %in, %cst_3 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.truncf %cst_1 : f64 to f32
    %23 = arith.addf %in, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<2x4x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = math.rsqrt %in : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %17 = tensor.empty() : tensor<2x4x16xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %14 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.subf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %arg1 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %arg2 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.addf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  return %21 : tensor<2x4x16xf32>
}
