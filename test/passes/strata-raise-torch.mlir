// strata-raise-torch, one pattern per case: the forms it raises and near misses it must leave
// alone. (The whole LLaMA block: strata-raise-torch-llama.mlir.)
// RUN: strata-opt --split-input-file --strata-raise-torch %s | FileCheck %s
// RUN: strata-opt --split-input-file --pass-pipeline='builtin.module(func.func(strata-raise-torch{fuse-activations=false}))' %s | FileCheck %s

// CHECK-LABEL: func.func @softmax$aten
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0 : !torch.vtensor<[2,8],f32> -> tensor<2x8xf32>
// CHECK:         %[[S:.*]] = "strata.softmax"(%[[X]]) {dim = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[R:.*]] = torch_c.from_builtin_tensor %[[S]] : tensor<2x8xf32> -> !torch.vtensor<[2,8],f32>
// CHECK:         return %[[R]]
func.func @softmax$aten(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %arg0, %int1, %none : !torch.vtensor<[2,8],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @softmax$decomposed
// CHECK:         "strata.softmax"(%{{.*}}) {dim = -1 : i64}
// CHECK-NOT:     torch.aten.exp
func.func @softmax$decomposed(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %float1 = torch.constant.float 1.000000e+00
  %values, %indices = torch.aten.max.dim %arg0, %int-1, %true : !torch.vtensor<[2,8],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],si64>
  %0 = torch.aten.sub.Tensor %arg0, %values, %float1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.exp %0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %2 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %3 = torch.aten.sum.dim_IntList %1, %2, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %4 = torch.aten.div.Tensor %1, %3 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,8],f32>
  return %4 : !torch.vtensor<[2,8],f32>
}

// -----

// Near miss: the max and the sum run over different dims; that is not a softmax.
// CHECK-LABEL: func.func @softmax$max_and_sum_disagree
// CHECK-NOT:     strata.softmax
// CHECK:         torch.aten.div.Tensor
func.func @softmax$max_and_sum_disagree(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int-1 = torch.constant.int -1
  %int0 = torch.constant.int 0
  %true = torch.constant.bool true
  %none = torch.constant.none
  %float1 = torch.constant.float 1.000000e+00
  %values, %indices = torch.aten.max.dim %arg0, %int-1, %true : !torch.vtensor<[2,8],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],si64>
  %0 = torch.aten.sub.Tensor %arg0, %values, %float1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.exp %0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %2 = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %3 = torch.aten.sum.dim_IntList %1, %2, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,8],f32>
  %4 = torch.aten.div.Tensor %1, %3 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[1,8],f32> -> !torch.vtensor<[2,8],f32>
  return %4 : !torch.vtensor<[2,8],f32>
}

// -----

// RMSNorm written as pow/mean/rsqrt/mul, times a weight over the last dim.
// CHECK-LABEL: func.func @rms_norm$pow_mean_weight
// CHECK-DAG:     %[[X:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK-DAG:     %[[W:.*]] = torch_c.to_builtin_tensor %arg1
// CHECK:         "strata.rms_norm"(%[[X]], %[[W]]) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
// CHECK-NOT:     torch.aten.rsqrt
func.func @rms_norm$pow_mean_weight(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %eps = torch.constant.float 9.9999999999999995E-7
  %0 = torch.aten.pow.Tensor_Scalar %arg0, %int2 : !torch.vtensor<[2,3,8],f32>, !torch.int -> !torch.vtensor<[2,3,8],f32>
  %1 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.mean.dim %0, %1, %true, %none : !torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,3,1],f32>
  %3 = torch.aten.add.Scalar %2, %eps, %int1 : !torch.vtensor<[2,3,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,3,1],f32>
  %4 = torch.aten.rsqrt %3 : !torch.vtensor<[2,3,1],f32> -> !torch.vtensor<[2,3,1],f32>
  %5 = torch.aten.mul.Tensor %arg0, %4 : !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,1],f32> -> !torch.vtensor<[2,3,8],f32>
  %6 = torch.aten.mul.Tensor %5, %arg1 : !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32> -> !torch.vtensor<[2,3,8],f32>
  return %6 : !torch.vtensor<[2,3,8],f32>
}

// -----

// F.rms_norm as torch.export decomposes it: x * x, sum over the last dim (as a positive index),
// divided by its size.
// CHECK-LABEL: func.func @rms_norm$square_sum_div
// CHECK:         "strata.rms_norm"(%{{.*}}, %{{.*}}) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 8>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @rms_norm$square_sum_div(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int8 = torch.constant.int 8
  %none = torch.constant.none
  %true = torch.constant.bool true
  %eps = torch.constant.float 9.9999999999999995E-7
  %int1 = torch.constant.int 1
  %0 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %1 = torch.aten.mul.Tensor %arg0, %arg0 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %2 = torch.aten.sum.dim_IntList %1, %0, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %3 = torch.aten.div.Scalar %2, %int8 : !torch.vtensor<[2,1],f32>, !torch.int -> !torch.vtensor<[2,1],f32>
  %4 = torch.aten.add.Scalar %3, %eps, %int1 : !torch.vtensor<[2,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,1],f32>
  %5 = torch.aten.rsqrt %4 : !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,1],f32>
  %6 = torch.aten.mul.Tensor %arg0, %5 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,8],f32>
  %7 = torch.aten.mul.Tensor %6, %arg1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32> -> !torch.vtensor<[2,8],f32>
  return %7 : !torch.vtensor<[2,8],f32>
}

// -----

// Near miss: the sum is divided by 4, not by the normalized dim's size 8: not a mean.
// CHECK-LABEL: func.func @rms_norm$wrong_count
// CHECK-NOT:     strata.rms_norm
// CHECK:         torch.aten.rsqrt
func.func @rms_norm$wrong_count(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %int1 = torch.constant.int 1
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %0 = torch.aten.pow.Tensor_Scalar %arg0, %int2 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %1 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.sum.dim_IntList %0, %1, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %3 = torch.aten.div.Scalar %2, %int4 : !torch.vtensor<[2,1],f32>, !torch.int -> !torch.vtensor<[2,1],f32>
  %4 = torch.aten.add.Scalar %3, %eps, %int1 : !torch.vtensor<[2,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,1],f32>
  %5 = torch.aten.rsqrt %4 : !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,1],f32>
  %6 = torch.aten.mul.Tensor %arg0, %5 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,8],f32>
  return %6 : !torch.vtensor<[2,8],f32>
}

// -----

// Near miss: the squares of x normalize a different tensor y.
// CHECK-LABEL: func.func @rms_norm$other_tensor
// CHECK-NOT:     strata.rms_norm
func.func @rms_norm$other_tensor(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %0 = torch.aten.pow.Tensor_Scalar %arg0, %int2 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %1 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.mean.dim %0, %1, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %3 = torch.aten.add.Scalar %2, %eps, %int1 : !torch.vtensor<[2,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,1],f32>
  %4 = torch.aten.rsqrt %3 : !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,1],f32>
  %5 = torch.aten.mul.Tensor %arg1, %4 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,8],f32>
  return %5 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @layer_norm$aten
// CHECK:         "strata.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 3, 8>, operandSegmentSizes = array<i32: 1, 1, 1>}
func.func @layer_norm$aten(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[3,8],f32>, %arg2: !torch.vtensor<[3,8],f32>) -> !torch.vtensor<[2,3,8],f32> {
  %int3 = torch.constant.int 3
  %int8 = torch.constant.int 8
  %eps = torch.constant.float 1.000000e-05
  %false = torch.constant.bool false
  %0 = torch.prim.ListConstruct %int3, %int8 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.layer_norm %arg0, %0, %arg1, %arg2, %eps, %false : !torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.vtensor<[3,8],f32>, !torch.vtensor<[3,8],f32>, !torch.float, !torch.bool -> !torch.vtensor<[2,3,8],f32>
  return %1 : !torch.vtensor<[2,3,8],f32>
}

// -----

// Layer norm as torch-mlir decomposes nn.LayerNorm: mean, centered square mean, rsqrt, weight, bias.
// CHECK-LABEL: func.func @layer_norm$decomposed
// CHECK:         "strata.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8>, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NOT:     torch.aten.rsqrt
func.func @layer_norm$decomposed(%arg0: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int8 = torch.constant.int 8
  %true = torch.constant.bool true
  %none = torch.constant.none
  %eps = torch.constant.float 1.000000e-05
  %9 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %10 = torch.aten.sum.dim_IntList %arg0, %9, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %11 = torch.aten.div.Scalar %10, %int8 : !torch.vtensor<[2,1],f32>, !torch.int -> !torch.vtensor<[2,1],f32>
  %12 = torch.prim.ListConstruct %int2, %int8 : (!torch.int, !torch.int) -> !torch.list<int>
  %13 = torch.aten.broadcast_to %11, %12 : !torch.vtensor<[2,1],f32>, !torch.list<int> -> !torch.vtensor<[2,8],f32>
  %14 = torch.aten.sub.Tensor %arg0, %13, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %15 = torch.aten.mul.Tensor %14, %14 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %16 = torch.aten.sum.dim_IntList %15, %9, %true, %none : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1],f32>
  %17 = torch.aten.div.Scalar %16, %int8 : !torch.vtensor<[2,1],f32>, !torch.int -> !torch.vtensor<[2,1],f32>
  %18 = torch.aten.add.Scalar %17, %eps, %int1 : !torch.vtensor<[2,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,1],f32>
  %19 = torch.aten.rsqrt %18 : !torch.vtensor<[2,1],f32> -> !torch.vtensor<[2,1],f32>
  %21 = torch.aten.broadcast_to %19, %12 : !torch.vtensor<[2,1],f32>, !torch.list<int> -> !torch.vtensor<[2,8],f32>
  %22 = torch.aten.mul.Tensor %14, %21 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %23 = torch.aten.mul.Tensor %22, %w : !torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32> -> !torch.vtensor<[2,8],f32>
  %24 = torch.aten.add.Tensor %23, %b, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  return %24 : !torch.vtensor<[2,8],f32>
}

// -----

// nn.LayerNorm after torch.export's decomposition: the variance in f64, cast back to f32.
// CHECK-LABEL: func.func @layer_norm$f64_variance
// CHECK:         "strata.layer_norm"(%{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 12>, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3x12xf32>) -> tensor<3x12xf32>
// CHECK-NOT:     torch.aten.rsqrt
func.func @layer_norm$f64_variance(%arg0: !torch.vtensor<[3,12],f32>) -> !torch.vtensor<[3,12],f32> {
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %int7 = torch.constant.int 7
  %int12 = torch.constant.int 12
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %none = torch.constant.none
  %float1 = torch.constant.float 1.000000e+00
  %eps = torch.constant.float 1.000000e-05
  %39 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %40 = torch.aten.to.dtype %arg0, %int7, %false, %false, %none : !torch.vtensor<[3,12],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3,12],f64>
  %41 = torch.aten.sum.dim_IntList %40, %39, %true, %none : !torch.vtensor<[3,12],f64>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3,1],f64>
  %42 = torch.aten.div.Scalar %41, %int12 : !torch.vtensor<[3,1],f64>, !torch.int -> !torch.vtensor<[3,1],f64>
  %43 = torch.aten.sub.Tensor %40, %42, %float1 : !torch.vtensor<[3,12],f64>, !torch.vtensor<[3,1],f64>, !torch.float -> !torch.vtensor<[3,12],f64>
  %44 = torch.aten.mul.Tensor %43, %43 : !torch.vtensor<[3,12],f64>, !torch.vtensor<[3,12],f64> -> !torch.vtensor<[3,12],f64>
  %45 = torch.aten.sum.dim_IntList %44, %39, %true, %none : !torch.vtensor<[3,12],f64>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3,1],f64>
  %46 = torch.aten.div.Scalar %45, %int12 : !torch.vtensor<[3,1],f64>, !torch.int -> !torch.vtensor<[3,1],f64>
  %47 = torch.aten.to.dtype %46, %int6, %false, %false, %none : !torch.vtensor<[3,1],f64>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3,1],f32>
  %48 = torch.aten.sum.dim_IntList %arg0, %39, %true, %none : !torch.vtensor<[3,12],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3,1],f32>
  %49 = torch.aten.div.Scalar %48, %int12 : !torch.vtensor<[3,1],f32>, !torch.int -> !torch.vtensor<[3,1],f32>
  %50 = torch.aten.add.Scalar %47, %eps, %int1 : !torch.vtensor<[3,1],f32>, !torch.float, !torch.int -> !torch.vtensor<[3,1],f32>
  %51 = torch.aten.rsqrt %50 : !torch.vtensor<[3,1],f32> -> !torch.vtensor<[3,1],f32>
  %52 = torch.aten.sub.Tensor %arg0, %49, %int1 : !torch.vtensor<[3,12],f32>, !torch.vtensor<[3,1],f32>, !torch.int -> !torch.vtensor<[3,12],f32>
  %53 = torch.aten.mul.Tensor %52, %51 : !torch.vtensor<[3,12],f32>, !torch.vtensor<[3,1],f32> -> !torch.vtensor<[3,12],f32>
  return %53 : !torch.vtensor<[3,12],f32>
}

// -----

// CHECK-LABEL: func.func @silu$forms
// CHECK:         %[[X:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK-COUNT-3: "strata.silu"(%[[X]]) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NOT:     torch.aten.sigmoid
func.func @silu$forms(%arg0: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) {
  %0 = torch.aten.silu %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.sigmoid %arg0 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %2 = torch.aten.mul.Tensor %1, %arg0 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %3 = torch.aten.mul.Tensor %arg0, %1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %0, %2, %3 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>
}

// -----

// Near miss: x * sigmoid(y) gates x by another tensor (a GLU, not a SiLU).
// CHECK-LABEL: func.func @silu$gated_by_other
// CHECK-NOT:     strata.silu
// CHECK:         torch.aten.sigmoid
func.func @silu$gated_by_other(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %0 = torch.aten.sigmoid %arg1 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.mul.Tensor %arg0, %0 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %1 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @gelu$aten
// CHECK:         "strata.gelu"(%{{.*}}) {approximation = 0 : i32}
// CHECK:         "strata.gelu"(%{{.*}}) {approximation = 1 : i32}
func.func @gelu$aten(%arg0: !torch.vtensor<[2,8],f32>) -> (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) {
  %none = torch.constant.str "none"
  %tanh = torch.constant.str "tanh"
  %0 = torch.aten.gelu %arg0, %none : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  %1 = torch.aten.gelu %arg0, %tanh : !torch.vtensor<[2,8],f32>, !torch.str -> !torch.vtensor<[2,8],f32>
  return %0, %1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>
}

// -----

// tanh-GELU written out: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu$tanh_written_out
// CHECK:         "strata.gelu"(%{{.*}}) {approximation = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NOT:     torch.aten.tanh
func.func @gelu$tanh_written_out(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %half = torch.constant.float 5.000000e-01
  %c = torch.constant.float 4.471500e-02
  %k = torch.constant.float 0.79788456080286541
  %42 = torch.aten.mul.Scalar %arg0, %half : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %43 = torch.aten.pow.Tensor_Scalar %arg0, %int3 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %44 = torch.aten.mul.Scalar %43, %c : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %45 = torch.aten.add.Tensor %arg0, %44, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %46 = torch.aten.mul.Scalar %45, %k : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %47 = torch.aten.tanh %46 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %48 = torch.aten.add.Scalar %47, %int1, %int1 : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,8],f32>
  %49 = torch.aten.mul.Tensor %42, %48 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %49 : !torch.vtensor<[2,8],f32>
}

// -----

// Near miss: the cubic coefficient is 0.05, not GELU's 0.044715.
// CHECK-LABEL: func.func @gelu$wrong_coefficient
// CHECK-NOT:     strata.gelu
// CHECK:         torch.aten.tanh
func.func @gelu$wrong_coefficient(%arg0: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %half = torch.constant.float 5.000000e-01
  %c = torch.constant.float 5.000000e-02
  %k = torch.constant.float 0.79788456080286541
  %42 = torch.aten.mul.Scalar %arg0, %half : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %43 = torch.aten.pow.Tensor_Scalar %arg0, %int3 : !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %44 = torch.aten.mul.Scalar %43, %c : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %45 = torch.aten.add.Tensor %arg0, %44, %int1 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.int -> !torch.vtensor<[2,8],f32>
  %46 = torch.aten.mul.Scalar %45, %k : !torch.vtensor<[2,8],f32>, !torch.float -> !torch.vtensor<[2,8],f32>
  %47 = torch.aten.tanh %46 : !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  %48 = torch.aten.add.Scalar %47, %int1, %int1 : !torch.vtensor<[2,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,8],f32>
  %49 = torch.aten.mul.Tensor %42, %48 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32> -> !torch.vtensor<[2,8],f32>
  return %49 : !torch.vtensor<[2,8],f32>
}

// -----

// scaled_dot_product_attention without a scale gets 1/sqrt(head_dim).
// CHECK-LABEL: func.func @attention$sdpa
// CHECK:         "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {fully_masked_rows_zero = true, is_causal = true, scale = 0.35355339059327379 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
func.func @attention$sdpa(%q: !torch.vtensor<[1,2,4,8],f32>, %k: !torch.vtensor<[1,2,4,8],f32>, %v: !torch.vtensor<[1,2,4,8],f32>) -> !torch.vtensor<[1,2,4,8],f32> {
  %none = torch.constant.none
  %zero = torch.constant.float 0.000000e+00
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0 = torch.aten.scaled_dot_product_attention %q, %k, %v, %none, %zero, %true, %none, %false : !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,2,4,8],f32>
  return %0 : !torch.vtensor<[1,2,4,8],f32>
}

// -----

// scaled_dot_product_attention as torch.export decomposes it: q and k^T each scaled by
// sqrt(scale), the mask added, softmax, rows whose scores are all -inf zeroed, times v.
// CHECK-LABEL: func.func @attention$sdpa_decomposed
// CHECK:         "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {fully_masked_rows_zero = true, is_causal = false, scale = 0.50000000000000011 : f64} : (tensor<1x3x5x4xf32>, tensor<1x3x5x4xf32>, tensor<1x3x5x4xf32>, tensor<5x5xf32>) -> tensor<1x3x5x4xf32>
// CHECK-NOT:     torch.aten.bmm
// CHECK-NOT:     torch.aten.where.self
func.func @attention$sdpa_decomposed(%q: !torch.vtensor<[1,3,5,4],f32>, %k: !torch.vtensor<[1,3,5,4],f32>, %v: !torch.vtensor<[1,3,5,4],f32>, %mask: !torch.vtensor<[5,5],f32>) -> !torch.vtensor<[1,3,5,4],f32> {
  %zeros = torch.vtensor.literal(dense<0.000000e+00> : tensor<1x3x5x5xf32>) : !torch.vtensor<[1,3,5,5],f32>
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %one = torch.constant.float 1.000000e+00
  %ninf = torch.constant.float 0xFFF0000000000000
  %s = torch.constant.float 0.70710678118654757
  %70 = torch.aten.mul.Scalar %q, %s : !torch.vtensor<[1,3,5,4],f32>, !torch.float -> !torch.vtensor<[1,3,5,4],f32>
  %81 = torch.prim.ListConstruct %int0, %int1, %int3, %int2 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %82 = torch.aten.permute %k, %81 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[1,3,4,5],f32>
  %83 = torch.aten.mul.Scalar %82, %s : !torch.vtensor<[1,3,4,5],f32>, !torch.float -> !torch.vtensor<[1,3,4,5],f32>
  %84 = torch.prim.ListConstruct %int3, %int5, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %85 = torch.aten.view %70, %84 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[3,5,4],f32>
  %86 = torch.prim.ListConstruct %int3, %int4, %int5 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %87 = torch.aten.view %83, %86 : !torch.vtensor<[1,3,4,5],f32>, !torch.list<int> -> !torch.vtensor<[3,4,5],f32>
  %88 = torch.aten.bmm %85, %87 : !torch.vtensor<[3,5,4],f32>, !torch.vtensor<[3,4,5],f32> -> !torch.vtensor<[3,5,5],f32>
  %89 = torch.prim.ListConstruct %int1, %int3, %int5, %int5 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %90 = torch.aten.view %88, %89 : !torch.vtensor<[3,5,5],f32>, !torch.list<int> -> !torch.vtensor<[1,3,5,5],f32>
  %91 = torch.aten.add.Tensor %90, %mask, %int1 : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[5,5],f32>, !torch.int -> !torch.vtensor<[1,3,5,5],f32>
  %values_4, %indices_5 = torch.aten.max.dim %91, %int-1, %true : !torch.vtensor<[1,3,5,5],f32>, !torch.int, !torch.bool -> !torch.vtensor<[1,3,5,1],f32>, !torch.vtensor<[1,3,5,1],si64>
  %92 = torch.aten.sub.Tensor %91, %values_4, %one : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,1],f32>, !torch.float -> !torch.vtensor<[1,3,5,5],f32>
  %93 = torch.aten.exp %92 : !torch.vtensor<[1,3,5,5],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %94 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %95 = torch.aten.sum.dim_IntList %93, %94, %true, %none : !torch.vtensor<[1,3,5,5],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,3,5,1],f32>
  %96 = torch.aten.div.Tensor %93, %95 : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,1],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %97 = torch.aten.eq.Scalar %91, %ninf : !torch.vtensor<[1,3,5,5],f32>, !torch.float -> !torch.vtensor<[1,3,5,5],i1>
  %98 = torch.aten.all.dim %97, %int-1, %true : !torch.vtensor<[1,3,5,5],i1>, !torch.int, !torch.bool -> !torch.vtensor<[1,3,5,1],i1>
  %99 = torch.aten.where.self %98, %zeros, %96 : !torch.vtensor<[1,3,5,1],i1>, !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,5],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %100 = torch.prim.ListConstruct %int3, %int5, %int5 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %101 = torch.aten.view %99, %100 : !torch.vtensor<[1,3,5,5],f32>, !torch.list<int> -> !torch.vtensor<[3,5,5],f32>
  %103 = torch.aten.view %v, %84 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[3,5,4],f32>
  %104 = torch.aten.bmm %101, %103 : !torch.vtensor<[3,5,5],f32>, !torch.vtensor<[3,5,4],f32> -> !torch.vtensor<[3,5,4],f32>
  %105 = torch.prim.ListConstruct %int1, %int3, %int5, %int4 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %106 = torch.aten.view %104, %105 : !torch.vtensor<[3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[1,3,5,4],f32>
  return %106 : !torch.vtensor<[1,3,5,4],f32>
}

// -----

// Near miss: the guard fills fully masked rows with ones, not zeros; no attention op means that.
// CHECK-LABEL: func.func @attention$sdpa_guard_not_zero
// CHECK-NOT:     strata.attention
// CHECK:         torch.aten.where.self
func.func @attention$sdpa_guard_not_zero(%q: !torch.vtensor<[1,3,5,4],f32>, %k: !torch.vtensor<[1,3,5,4],f32>, %v: !torch.vtensor<[1,3,5,4],f32>, %mask: !torch.vtensor<[5,5],f32>) -> !torch.vtensor<[1,3,5,4],f32> {
  %zeros = torch.vtensor.literal(dense<1.000000e+00> : tensor<1x3x5x5xf32>) : !torch.vtensor<[1,3,5,5],f32>
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int5 = torch.constant.int 5
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %one = torch.constant.float 1.000000e+00
  %ninf = torch.constant.float 0xFFF0000000000000
  %s = torch.constant.float 0.70710678118654757
  %70 = torch.aten.mul.Scalar %q, %s : !torch.vtensor<[1,3,5,4],f32>, !torch.float -> !torch.vtensor<[1,3,5,4],f32>
  %81 = torch.prim.ListConstruct %int0, %int1, %int3, %int2 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %82 = torch.aten.permute %k, %81 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[1,3,4,5],f32>
  %83 = torch.aten.mul.Scalar %82, %s : !torch.vtensor<[1,3,4,5],f32>, !torch.float -> !torch.vtensor<[1,3,4,5],f32>
  %84 = torch.prim.ListConstruct %int3, %int5, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %85 = torch.aten.view %70, %84 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[3,5,4],f32>
  %86 = torch.prim.ListConstruct %int3, %int4, %int5 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %87 = torch.aten.view %83, %86 : !torch.vtensor<[1,3,4,5],f32>, !torch.list<int> -> !torch.vtensor<[3,4,5],f32>
  %88 = torch.aten.bmm %85, %87 : !torch.vtensor<[3,5,4],f32>, !torch.vtensor<[3,4,5],f32> -> !torch.vtensor<[3,5,5],f32>
  %89 = torch.prim.ListConstruct %int1, %int3, %int5, %int5 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %90 = torch.aten.view %88, %89 : !torch.vtensor<[3,5,5],f32>, !torch.list<int> -> !torch.vtensor<[1,3,5,5],f32>
  %91 = torch.aten.add.Tensor %90, %mask, %int1 : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[5,5],f32>, !torch.int -> !torch.vtensor<[1,3,5,5],f32>
  %values_4, %indices_5 = torch.aten.max.dim %91, %int-1, %true : !torch.vtensor<[1,3,5,5],f32>, !torch.int, !torch.bool -> !torch.vtensor<[1,3,5,1],f32>, !torch.vtensor<[1,3,5,1],si64>
  %92 = torch.aten.sub.Tensor %91, %values_4, %one : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,1],f32>, !torch.float -> !torch.vtensor<[1,3,5,5],f32>
  %93 = torch.aten.exp %92 : !torch.vtensor<[1,3,5,5],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %94 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %95 = torch.aten.sum.dim_IntList %93, %94, %true, %none : !torch.vtensor<[1,3,5,5],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,3,5,1],f32>
  %96 = torch.aten.div.Tensor %93, %95 : !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,1],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %97 = torch.aten.eq.Scalar %91, %ninf : !torch.vtensor<[1,3,5,5],f32>, !torch.float -> !torch.vtensor<[1,3,5,5],i1>
  %98 = torch.aten.all.dim %97, %int-1, %true : !torch.vtensor<[1,3,5,5],i1>, !torch.int, !torch.bool -> !torch.vtensor<[1,3,5,1],i1>
  %99 = torch.aten.where.self %98, %zeros, %96 : !torch.vtensor<[1,3,5,1],i1>, !torch.vtensor<[1,3,5,5],f32>, !torch.vtensor<[1,3,5,5],f32> -> !torch.vtensor<[1,3,5,5],f32>
  %100 = torch.prim.ListConstruct %int3, %int5, %int5 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %101 = torch.aten.view %99, %100 : !torch.vtensor<[1,3,5,5],f32>, !torch.list<int> -> !torch.vtensor<[3,5,5],f32>
  %103 = torch.aten.view %v, %84 : !torch.vtensor<[1,3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[3,5,4],f32>
  %104 = torch.aten.bmm %101, %103 : !torch.vtensor<[3,5,5],f32>, !torch.vtensor<[3,5,4],f32> -> !torch.vtensor<[3,5,4],f32>
  %105 = torch.prim.ListConstruct %int1, %int3, %int5, %int4 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %106 = torch.aten.view %104, %105 : !torch.vtensor<[3,5,4],f32>, !torch.list<int> -> !torch.vtensor<[1,3,5,4],f32>
  return %106 : !torch.vtensor<[1,3,5,4],f32>
}

// -----

// Near miss: dropout is not part of strata.attention.
// CHECK-LABEL: func.func @attention$sdpa_dropout
// CHECK-NOT:     strata.attention
// CHECK:         torch.aten.scaled_dot_product_attention
func.func @attention$sdpa_dropout(%q: !torch.vtensor<[1,2,4,8],f32>) -> !torch.vtensor<[1,2,4,8],f32> {
  %none = torch.constant.none
  %p = torch.constant.float 1.000000e-01
  %false = torch.constant.bool false
  %0 = torch.aten.scaled_dot_product_attention %q, %q, %q, %none, %p, %false, %none, %false : !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,2,4,8],f32>
  return %0 : !torch.vtensor<[1,2,4,8],f32>
}

// -----

// softmax(q @ k^T * 0.5 + mask, dim=-1) @ v with explicit matmuls and an additive mask.
// CHECK-LABEL: func.func @attention$explicit_matmul
// CHECK-DAG:     %[[Q:.*]] = torch_c.to_builtin_tensor %arg0
// CHECK-DAG:     %[[K:.*]] = torch_c.to_builtin_tensor %arg1
// CHECK-DAG:     %[[V:.*]] = torch_c.to_builtin_tensor %arg2
// CHECK-DAG:     %[[M:.*]] = torch_c.to_builtin_tensor %arg3
// CHECK:         "strata.attention"(%[[Q]], %[[K]], %[[V]], %[[M]]) {is_causal = false, scale = 5.000000e-01 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x3xf32>, tensor<4x6xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NOT:     strata.softmax
// CHECK-NOT:     torch.aten.matmul
func.func @attention$explicit_matmul(%arg0: !torch.vtensor<[1,2,4,8],f32>, %arg1: !torch.vtensor<[1,2,6,8],f32>, %arg2: !torch.vtensor<[1,2,6,3],f32>, %arg3: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[1,2,4,3],f32> {
  %int-2 = torch.constant.int -2
  %int-1 = torch.constant.int -1
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %half = torch.constant.float 5.000000e-01
  %0 = torch.aten.transpose.int %arg1, %int-2, %int-1 : !torch.vtensor<[1,2,6,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[1,2,8,6],f32>
  %1 = torch.aten.matmul %arg0, %0 : !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,8,6],f32> -> !torch.vtensor<[1,2,4,6],f32>
  %2 = torch.aten.mul.Scalar %1, %half : !torch.vtensor<[1,2,4,6],f32>, !torch.float -> !torch.vtensor<[1,2,4,6],f32>
  %3 = torch.aten.add.Tensor %2, %arg3, %int1 : !torch.vtensor<[1,2,4,6],f32>, !torch.vtensor<[4,6],f32>, !torch.int -> !torch.vtensor<[1,2,4,6],f32>
  %4 = torch.aten.softmax.int %3, %int-1, %none : !torch.vtensor<[1,2,4,6],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,2,4,6],f32>
  %5 = torch.aten.matmul %4, %arg2 : !torch.vtensor<[1,2,4,6],f32>, !torch.vtensor<[1,2,6,3],f32> -> !torch.vtensor<[1,2,4,3],f32>
  return %5 : !torch.vtensor<[1,2,4,3],f32>
}

// -----

// Near miss: the softmax runs over the query dim (2), not the key dim, before the second
// matmul. The softmax is raised on its own; no attention is.
// CHECK-LABEL: func.func @attention$softmax_over_wrong_dim
// CHECK:         "strata.softmax"(%{{.*}}) {dim = 2 : i64}
// CHECK-NOT:     strata.attention
// CHECK:         torch.aten.matmul
func.func @attention$softmax_over_wrong_dim(%arg0: !torch.vtensor<[1,2,4,8],f32>, %arg1: !torch.vtensor<[1,2,4,8],f32>, %arg2: !torch.vtensor<[1,2,4,8],f32>) -> !torch.vtensor<[1,2,4,8],f32> {
  %int-2 = torch.constant.int -2
  %int-1 = torch.constant.int -1
  %int2 = torch.constant.int 2
  %none = torch.constant.none
  %0 = torch.aten.transpose.int %arg1, %int-2, %int-1 : !torch.vtensor<[1,2,4,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[1,2,8,4],f32>
  %1 = torch.aten.matmul %arg0, %0 : !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,8,4],f32> -> !torch.vtensor<[1,2,4,4],f32>
  %2 = torch.aten.softmax.int %1, %int2, %none : !torch.vtensor<[1,2,4,4],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,2,4,4],f32>
  %3 = torch.aten.matmul %2, %arg2 : !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,2,4,8],f32> -> !torch.vtensor<[1,2,4,8],f32>
  return %3 : !torch.vtensor<[1,2,4,8],f32>
}

// -----

// Near miss: k is not transposed (q @ k with square head and sequence dims type-checks).
// CHECK-LABEL: func.func @attention$key_not_transposed
// CHECK-NOT:     strata.attention
func.func @attention$key_not_transposed(%arg0: !torch.vtensor<[1,2,4,4],f32>, %arg1: !torch.vtensor<[1,2,4,4],f32>, %arg2: !torch.vtensor<[1,2,4,4],f32>) -> !torch.vtensor<[1,2,4,4],f32> {
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %1 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,2,4,4],f32> -> !torch.vtensor<[1,2,4,4],f32>
  %2 = torch.aten.softmax.int %1, %int-1, %none : !torch.vtensor<[1,2,4,4],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,2,4,4],f32>
  %3 = torch.aten.matmul %2, %arg2 : !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,2,4,4],f32> -> !torch.vtensor<[1,2,4,4],f32>
  return %3 : !torch.vtensor<[1,2,4,4],f32>
}

// -----

// nn.Linear as torch-mlir decomposes it: mm with the transposed weight, then the bias added.
// CHECK-LABEL: func.func @linear$mm_bias
// CHECK:         "strata.linear"(%{{.*}}, %{{.*}}, %{{.*}}) {activation = 0 : i32} : (tensor<2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NOT:     torch.aten.mm
func.func @linear$mm_bias(%arg0: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[6,8],f32>, %b: !torch.vtensor<[6],f32>) -> !torch.vtensor<[2,6],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %29 = torch.aten.transpose.int %w, %int0, %int1 : !torch.vtensor<[6,8],f32>, !torch.int, !torch.int -> !torch.vtensor<[8,6],f32>
  %30 = torch.aten.mm %arg0, %29 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[8,6],f32> -> !torch.vtensor<[2,6],f32>
  %31 = torch.aten.add.Tensor %30, %b, %int1 : !torch.vtensor<[2,6],f32>, !torch.vtensor<[6],f32>, !torch.int -> !torch.vtensor<[2,6],f32>
  return %31 : !torch.vtensor<[2,6],f32>
}

// -----

// addmm after torch.export's decomposition: mm and bias each multiplied by 1, then added.
// CHECK-LABEL: func.func @linear$addmm_decomposed
// CHECK:         "strata.linear"(%{{.*}}, %{{.*}}, %{{.*}}) {activation = 0 : i32} : (tensor<3x12xf32>, tensor<5x12xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-NOT:     torch.aten.add.Tensor
func.func @linear$addmm_decomposed(%arg0: !torch.vtensor<[3,12],f32>, %w: !torch.vtensor<[5,12],f32>, %b: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %56 = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %57 = torch.aten.permute %w, %56 : !torch.vtensor<[5,12],f32>, !torch.list<int> -> !torch.vtensor<[12,5],f32>
  %58 = torch.aten.mm %arg0, %57 : !torch.vtensor<[3,12],f32>, !torch.vtensor<[12,5],f32> -> !torch.vtensor<[3,5],f32>
  %59 = torch.aten.mul.Scalar %58, %int1 : !torch.vtensor<[3,5],f32>, !torch.int -> !torch.vtensor<[3,5],f32>
  %60 = torch.aten.mul.Scalar %b, %int1 : !torch.vtensor<[5],f32>, !torch.int -> !torch.vtensor<[5],f32>
  %61 = torch.aten.add.Tensor %59, %60, %int1 : !torch.vtensor<[3,5],f32>, !torch.vtensor<[5],f32>, !torch.int -> !torch.vtensor<[3,5],f32>
  return %61 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK-LABEL: func.func @linear$aten
// CHECK:         "strata.linear"(%{{.*}}, %{{.*}}) {activation = 0 : i32} : (tensor<2x3x8xf32>, tensor<6x8xf32>) -> tensor<2x3x6xf32>
func.func @linear$aten(%arg0: !torch.vtensor<[2,3,8],f32>, %w: !torch.vtensor<[6,8],f32>) -> !torch.vtensor<[2,3,6],f32> {
  %none = torch.constant.none
  %0 = torch.aten.linear %arg0, %w, %none : !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[6,8],f32>, !torch.none -> !torch.vtensor<[2,3,6],f32>
  return %0 : !torch.vtensor<[2,3,6],f32>
}

// -----

// Near miss: x @ w without the transpose is a matmul, not a linear layer with weight w.
// CHECK-LABEL: func.func @linear$weight_not_transposed
// CHECK-NOT:     strata.linear
// CHECK:         torch.aten.mm
func.func @linear$weight_not_transposed(%arg0: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[8,6],f32>) -> !torch.vtensor<[2,6],f32> {
  %0 = torch.aten.mm %arg0, %w : !torch.vtensor<[2,8],f32>, !torch.vtensor<[8,6],f32> -> !torch.vtensor<[2,6],f32>
  return %0 : !torch.vtensor<[2,6],f32>
}

// -----

// Integer tensors are not raised (strata ops take floats), even where the pattern fits.
// CHECK-LABEL: func.func @softmax$integer_input_untouched
// CHECK-NOT:     strata.
func.func @softmax$integer_input_untouched(%arg0: !torch.vtensor<[2,8],si64>) -> !torch.vtensor<[2,8],si64> {
  %0 = torch.aten.sigmoid %arg0 : !torch.vtensor<[2,8],si64> -> !torch.vtensor<[2,8],si64>
  %1 = torch.aten.mul.Tensor %arg0, %0 : !torch.vtensor<[2,8],si64>, !torch.vtensor<[2,8],si64> -> !torch.vtensor<[2,8],si64>
  return %1 : !torch.vtensor<[2,8],si64>
}

// -----

// With fuse-activations, a SiLU after a raised linear layer folds into it.
// RUN: strata-opt --split-input-file --strata-raise-torch=fuse-activations=true %s | FileCheck %s --check-prefix=FUSE
// FUSE-LABEL: func.func @linear$then_silu
// FUSE:         "strata.linear"(%{{.*}}, %{{.*}}, %{{.*}}) {activation = 4 : i32} : (tensor<2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// FUSE-NOT:     strata.silu
// CHECK-LABEL: func.func @linear$then_silu
// CHECK:         "strata.linear"(%{{.*}}, %{{.*}}, %{{.*}}) {activation = 0 : i32}
// CHECK:         "strata.silu"
func.func @linear$then_silu(%arg0: !torch.vtensor<[2,8],f32>, %w: !torch.vtensor<[6,8],f32>, %b: !torch.vtensor<[6],f32>) -> !torch.vtensor<[2,6],f32> {
  %0 = torch.aten.linear %arg0, %w, %b : !torch.vtensor<[2,8],f32>, !torch.vtensor<[6,8],f32>, !torch.vtensor<[6],f32> -> !torch.vtensor<[2,6],f32>
  %1 = torch.aten.silu %0 : !torch.vtensor<[2,6],f32> -> !torch.vtensor<[2,6],f32>
  return %1 : !torch.vtensor<[2,6],f32>
}
