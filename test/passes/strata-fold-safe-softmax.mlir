// strata-fold-safe-softmax: the safe softmax's all(x == -inf) row check, a reduction of its own,
// becomes max(x) == -inf from the maximum the softmax computes anyway. Numerics through IREE:
// test/python/iree/test_fold_safe_softmax.py.
// RUN: strata-opt --split-input-file --strata-fold-safe-softmax %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-fold-safe-softmax='row-multiple=8' %s | FileCheck %s --check-prefix=ROWS
// RUN: not strata-opt --split-input-file --strata-fold-safe-softmax='row-multiple=0' %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: row-multiple must be at least 1; got 0

// As Torch-MLIR lowers scaled_dot_product_attention's safe softmax: the maximum with its argmax
// (aten.max.dim), the check through an f64 extension, the all reduction keeping the dimension.
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @sdpa_safe_softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x8xf32>)
// CHECK:         %[[MAX:.*]]:2 = linalg.generic
// CHECK:           arith.maximumf
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.andi
// CHECK:         %[[MINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ALL:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[MAX]]#0 : tensor<1x2x4xf32>) outs(%{{.*}} : tensor<1x2x4x1xi1>)
// CHECK:           %[[IS:.*]] = arith.cmpf oeq, %{{.*}}, %[[MINF]] : f32
// CHECK:           linalg.yield %[[IS]] : i1
// CHECK:         return %[[ALL]], %[[MAX]]#0
// With row-multiple=8, 4 query rows (the innermost parallel loop) are left alone.
// ROWS-LABEL: func.func @sdpa_safe_softmax
// ROWS:         arith.andi
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @sdpa_safe_softmax(%x: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x1xi1>, tensor<1x2x4xf32>) {
  %minf = arith.constant 0xFF800000 : f32
  %minf64 = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0 : i64
  %true = arith.constant true
  %e = tensor.empty() : tensor<1x2x4xf32>
  %init = linalg.fill ins(%minf : f32) outs(%e : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %ei = tensor.empty() : tensor<1x2x4xi64>
  %initi = linalg.fill ins(%zero : i64) outs(%ei : tensor<1x2x4xi64>) -> tensor<1x2x4xi64>
  %max:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x4x8xf32>) outs(%init, %initi : tensor<1x2x4xf32>, tensor<1x2x4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %out_i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x4xf32>, tensor<1x2x4xi64>)
  %eb = tensor.empty() : tensor<1x2x4x8xi1>
  %eq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x4x8xf32>) outs(%eb : tensor<1x2x4x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %w = arith.extf %in : f32 to f64
    %c = arith.cmpf oeq, %w, %minf64 : f64
    linalg.yield %c : i1
  } -> tensor<1x2x4x8xi1>
  %ea = tensor.empty() : tensor<1x2x4x1xi1>
  %inita = linalg.fill ins(%true : i1) outs(%ea : tensor<1x2x4x1xi1>) -> tensor<1x2x4x1xi1>
  %all = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%eq : tensor<1x2x4x8xi1>) outs(%inita : tensor<1x2x4x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %a = arith.andi %in, %out : i1
    linalg.yield %a : i1
  } -> tensor<1x2x4x1xi1>
  return %all, %max#0 : tensor<1x2x4x1xi1>, tensor<1x2x4xf32>
}

// -----

// A maximum that ignores NaNs (arith.maxnumf) is -inf for a row of NaNs and -infs, where the
// check is false: left alone. So is a check along another dimension than the maximum's.
// CHECK-LABEL: func.func @nan_ignoring_max
// CHECK:         arith.maxnumf
// CHECK:         arith.andi
// CHECK-LABEL: func.func @other_dimension
// CHECK:         arith.andi
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @nan_ignoring_max(%x: tensor<4x8xf32>) -> (tensor<4xi1>, tensor<4xf32>) {
  %minf = arith.constant 0xFF800000 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%minf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %eb = tensor.empty() : tensor<4x8xi1>
  %eq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%eb : tensor<4x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf oeq, %in, %minf : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %ea = tensor.empty() : tensor<4xi1>
  %inita = linalg.fill ins(%true : i1) outs(%ea : tensor<4xi1>) -> tensor<4xi1>
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%eq : tensor<4x8xi1>) outs(%inita : tensor<4xi1>) {
  ^bb0(%in: i1, %out: i1):
    %a = arith.andi %in, %out : i1
    linalg.yield %a : i1
  } -> tensor<4xi1>
  return %all, %max : tensor<4xi1>, tensor<4xf32>
}

func.func @other_dimension(%x: tensor<8x8xf32>) -> (tensor<8xi1>, tensor<8xf32>) {
  %minf = arith.constant 0xFF800000 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%minf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %eb = tensor.empty() : tensor<8x8xi1>
  %eq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%eb : tensor<8x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf oeq, %in, %minf : f32
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %ea = tensor.empty() : tensor<8xi1>
  %inita = linalg.fill ins(%true : i1) outs(%ea : tensor<8xi1>) -> tensor<8xi1>
  %all = linalg.generic {indexing_maps = [#swap, #row], iterator_types = ["parallel", "reduction"]} ins(%eq : tensor<8x8xi1>) outs(%inita : tensor<8xi1>) {
  ^bb0(%in: i1, %out: i1):
    %a = arith.andi %in, %out : i1
    linalg.yield %a : i1
  } -> tensor<8xi1>
  return %all, %max : tensor<8xi1>, tensor<8xf32>
}

// -----

// A maximum from a finite init (the lowest float) is not -inf on a row of -infs: left alone.
// CHECK-LABEL: func.func @finite_init
// CHECK:         arith.andi
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @finite_init(%x: tensor<4x8xf32>) -> (tensor<4xi1>, tensor<4xf32>) {
  %lowest = arith.constant -3.40282347E+38 : f32
  %minf = arith.constant 0xFF800000 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %eb = tensor.empty() : tensor<4x8xi1>
  %eq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%eb : tensor<4x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf oeq, %in, %minf : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %ea = tensor.empty() : tensor<4xi1>
  %inita = linalg.fill ins(%true : i1) outs(%ea : tensor<4xi1>) -> tensor<4xi1>
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%eq : tensor<4x8xi1>) outs(%inita : tensor<4xi1>) {
  ^bb0(%in: i1, %out: i1):
    %a = arith.andi %in, %out : i1
    linalg.yield %a : i1
  } -> tensor<4xi1>
  return %all, %max : tensor<4xi1>, tensor<4xf32>
}
