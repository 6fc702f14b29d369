// strata-fold-constant-generic: elementwise generics of constants computed while compiling, their
// values checked here. Through IREE on models: test/python/iree/test_fold_constant_generic.py.
// RUN: strata-opt --split-input-file --strata-fold-constant-generic %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-fold-constant-generic='max-growth-bytes=0' %s | FileCheck %s --check-prefix=GROWTH
// RUN: not strata-opt --split-input-file --strata-fold-constant-generic='max-growth-bytes=-1' %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: max-growth-bytes must be at least 0; got -1

// A batch norm's scale and shift as Torch-MLIR lowers them: variance [3, 15, 8, 126] plus an f64
// epsilon of 1 truncated to f32, its square root (checked nonzero), the reciprocal, times the
// weight (a splat of 2): scale [1, 0.5, 2/3, 2/sqrt(127)], shift -mean * scale. The scalar
// constants the bodies read go too.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %[[SCALE:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<4xf32>
// CHECK-NEXT:    %[[SHIFT:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<4xf32>
// CHECK-NEXT:    return %[[SCALE]], %[[SHIFT]]
// CHECK:         folded{{.*}}: "0x040000000000803F0000003FABAA2A3F0ABB353E"
// CHECK-NEXT:    folded{{.*}}: "0x04000000000080BF000080BF000000C00ABB35BF"
// Without growth: the same (the results are no larger than the inputs).
// GROWTH-LABEL: func.func @batch_norm
// GROWTH-NOT:     linalg.generic
// GROWTH:         return

#id = affine_map<(d0) -> (d0)>
func.func @batch_norm() -> (tensor<4xf32>, tensor<4xf32>) {
  %var = arith.constant dense_resource<var> : tensor<4xf32>
  %mean = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %weight = arith.constant dense<2.0> : tensor<4xf32>
  %eps = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%var : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %eps : f64 to f32
    %s = arith.addf %in, %t : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.sqrt %in : f32
    %nz = arith.cmpf one, %r, %zero : f32
    cf.assert %nz, "zero"
    %inv = arith.divf %one, %r : f32
    linalg.yield %inv : f32
  } -> tensor<4xf32>
  %2:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%1, %mean, %weight : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%inv: f32, %m: f32, %w: f32, %o0: f32, %o1: f32):
    %scale = arith.mulf %w, %inv : f32
    %ms = arith.mulf %m, %scale : f32
    %shift = arith.negf %ms : f32
    linalg.yield %scale, %shift : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %2#0, %2#1 : tensor<4xf32>, tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      var: "0x040000000000404000007041000000410000FC42"
    }
  }
#-}

// -----

// A causal mask from loop indices alone: j - i in i64, and an i1 result (a dense tensor) from
// index arithmetic with a captured index constant.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NEXT:    %[[D:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<2x3xi64>
// CHECK-NEXT:    %[[B:.*]] = arith.constant dense<{{\[}}[true, false, false], [true, true, false]]> : tensor<2x3xi1>
// CHECK-NEXT:    return %[[D]], %[[B]]
// CHECK:         folded{{.*}}: "0x08000000000000000000000001000000000000000200000000000000FFFFFFFFFFFFFFFF00000000000000000100000000000000"
// 48 + 6 bytes from none read: more than max-growth-bytes=0 allows.
// GROWTH-LABEL: func.func @causal_mask
// GROWTH:         linalg.generic
func.func @causal_mask() -> (tensor<2x3xi64>, tensor<2x3xi1>) {
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<2x3xi64>
  %eb = tensor.empty() : tensor<2x3xi1>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e, %eb : tensor<2x3xi64>, tensor<2x3xi1>) {
  ^bb0(%out: i64, %outb: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %d = arith.subi %jj, %ii : i64
    %k = arith.muli %i, %c3 : index
    %l = arith.addi %k, %j : index
    %q = arith.divsi %l, %c3 : index
    %r = arith.remsi %l, %c3 : index
    %eq = arith.cmpi eq, %q, %i : index
    %le = arith.cmpi sle, %r, %i : index
    %b = arith.andi %eq, %le : i1
    linalg.yield %d, %b : i64, i1
  } -> (tensor<2x3xi64>, tensor<2x3xi1>)
  return %0#0, %0#1 : tensor<2x3xi64>, tensor<2x3xi1>
}

// -----

// A broadcast row plus a transposed matrix: [[11, 23, 35], [12, 24, 36]].
// CHECK-LABEL: func.func @broadcast_transpose
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]]
// CHECK:         folded{{.*}}: "0x04000000000030410000B84100000C42000040410000C04100001042"
func.func @broadcast_transpose() -> tensor<2x3xf32> {
  %row = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %t = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%row, %t : tensor<3xf32>, tensor<3x2xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Left alone: an argument's generic, a reduction, a body that reads its output's initial value, an
// assert that fails (the module reports it when it runs), and an op numpy does not compute here.
// CHECK-LABEL: func.func @argument
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @reduction
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @reads_output
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @failing_assert
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @unknown_op
// CHECK:         linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @reduction() -> tensor<f32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %0 = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @reads_output() -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @failing_assert() -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 0.0, 3.0, 4.0]> : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %nz = arith.cmpf one, %in, %zero : f32
    cf.assert %nz, "zero"
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @unknown_op() -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.erf %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i1 addition wraps (true + true = false); numpy's on booleans would say true: left alone.
// CHECK-LABEL: func.func @i1_addition
// CHECK:         linalg.generic
func.func @i1_addition() -> tensor<2xi1> {
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  %e = tensor.empty() : tensor<2xi1>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<2xi1>) outs(%e : tensor<2xi1>) {
  ^bb0(%in: i1, %out: i1):
    %s = arith.addi %in, %in : i1
    linalg.yield %s : i1
  } -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// i1 read as signed: true is -1 (extsi to i8: 0xFF; sitofp to f32: -1.0, 0xBF800000).
// CHECK-LABEL: func.func @signed_i1
// CHECK:         folded{{.*}}: "0x01000000FF00"
// CHECK-NEXT:    folded{{.*}}: "0x04000000000080BF00000000"
func.func @signed_i1() -> (tensor<2xi8>, tensor<2xf32>) {
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  %e = tensor.empty() : tensor<2xi8>
  %f = tensor.empty() : tensor<2xf32>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<2xi1>) outs(%e, %f : tensor<2xi8>, tensor<2xf32>) {
  ^bb0(%in: i1, %out: i8, %out2: f32):
    %s = arith.extsi %in : i1 to i8
    %t = arith.sitofp %in : i1 to f32
    linalg.yield %s, %t : i8, f32
  } -> (tensor<2xi8>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xi8>, tensor<2xf32>
}
