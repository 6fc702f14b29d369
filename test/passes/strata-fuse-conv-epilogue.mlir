// strata-fuse-conv-epilogue: the per-channel affine ops, residual addition and ReLU after a call
// of a strata convolution kernel fold into the call. Structure only here; numerics through IREE:
// test/python/iree/test_direct_conv.py.
// RUN: strata-opt --split-input-file --strata-fuse-conv-epilogue %s | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#par = ["parallel", "parallel", "parallel", "parallel"]

// A convolution, its bias, a batch norm and a ReLU as Torch-MLIR lowers them: the bias a
// linalg.broadcast over [0, 2, 3], the batch norm four ops on tensor<Fx1x1> (expanded from
// tensor<F>) read at d1, the ReLU a select of cmpf ugt against 0.0. One generic over [F] folds
// them into a scale and a shift, read from the tensor<F>s themselves: s = 1 * istd * gamma and
// t = ((0 + bias - mean) * istd) * gamma + beta. The call takes them, with `_affine_relu` in its
// name; the chain, the broadcast and the expansions are gone, the old declaration replaced.
// CHECK-LABEL: func.func @batch_norm_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x18x18xf32>, %[[W:.*]]: tensor<2x3x3x3x6xf32>, %[[BIAS:.*]]: tensor<8xf32>, %[[MEAN:.*]]: tensor<8xf32>, %[[ISTD:.*]]: tensor<8xf32>, %[[GAMMA:.*]]: tensor<8xf32>, %[[BETA:.*]]: tensor<8xf32>)
// CHECK-NOT:     linalg.broadcast
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[ST:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[BIAS]], %[[MEAN]], %[[ISTD]], %[[GAMMA]], %[[BETA]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK:         ^bb0(%[[B:.*]]: f32, %[[M:.*]]: f32, %[[I:.*]]: f32, %[[G:.*]]: f32, %[[BE:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-DAG:       %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[T1:.*]] = arith.addf %[[ZERO]], %[[B]] : f32
// CHECK:           %[[T2:.*]] = arith.subf %[[T1]], %[[M]] : f32
// CHECK:           %[[S3:.*]] = arith.mulf %[[ONE]], %[[I]] : f32
// CHECK:           %[[T3:.*]] = arith.mulf %[[T2]], %[[I]] : f32
// CHECK:           %[[S4:.*]] = arith.mulf %[[S3]], %[[G]] : f32
// CHECK:           %[[T4:.*]] = arith.mulf %[[T3]], %[[G]] : f32
// CHECK:           %[[T5:.*]] = arith.addf %[[T4]], %[[BE]] : f32
// CHECK:           linalg.yield %[[S4]], %[[T5]] : f32, f32
// CHECK:         %[[Y:.*]] = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3_affine_relu(%[[X]], %[[W]], %[[ST]]#0, %[[ST]]#1) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
// CHECK-NOT:   func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(
// CHECK:       func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3_affine_relu(tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
func.func @batch_norm_relu(%x: tensor<1x3x18x18xf32>, %w: tensor<2x3x3x3x6xf32>, %bias: tensor<8xf32>, %mean: tensor<8xf32>,
                           %istd: tensor<8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<1x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x16x16xf32>) dimensions = [0, 2, 3]
  %y = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par} ins(%y, %b : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %m3 = tensor.expand_shape %mean [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y1, %m3 : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.subf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %i3 = tensor.expand_shape %istd [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %y3 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y2, %i3 : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %g3 = tensor.expand_shape %gamma [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %y4 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y3, %g3 : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %be3 = tensor.expand_shape %beta [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %y5 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y4, %be3 : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y5 : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %r = arith.select %p, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  return %y6 : tensor<1x8x16x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#par = ["parallel", "parallel", "parallel", "parallel"]

// The pixel-tile kernel's call the same way: a scale read at d1 from a tensor<F> itself, a
// channel value subtracted from (v - y: the scale negated, the shift v - t), a residual added
// (a whole tensor of the output's shape, either side of the addition), and a ReLU as
// arith.maximumf with 0.0. `_affine_residual_relu`, the residual after the scale and shift.
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x9x9xf32>, %[[W:.*]]: tensor<1x4x3x3x16xf32>, %[[S:.*]]: tensor<16xf32>, %[[V:.*]]: tensor<16xf32>, %[[R:.*]]: tensor<1x16x4x4xf32>)
// CHECK:         %[[ST:.*]]:2 = linalg.generic {{.*}} ins(%[[S]], %[[V]] : tensor<16xf32>, tensor<16xf32>)
// CHECK:           %[[S1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[T1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[S2:.*]] = arith.negf %[[S1]] : f32
// CHECK:           %[[T2:.*]] = arith.subf %{{.*}}, %[[T1]] : f32
// CHECK:           linalg.yield %[[S2]], %[[T2]] : f32, f32
// CHECK:         %[[Y:.*]] = call @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1_affine_residual_relu(%[[X]], %[[W]], %[[ST]]#0, %[[ST]]#1, %[[R]])
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
// CHECK:       func.func private @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1_affine_residual_relu(tensor<1x4x9x9xf32>, tensor<1x4x3x3x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
func.func private @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1(tensor<1x4x9x9xf32>, tensor<1x4x3x3x16xf32>) -> tensor<1x16x4x4xf32>
func.func @residual(%x: tensor<1x4x9x9xf32>, %w: tensor<1x4x3x3x16xf32>, %s: tensor<16xf32>, %v: tensor<16xf32>, %res: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %y = call @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1(%x, %w) : (tensor<1x4x9x9xf32>, tensor<1x4x3x3x16xf32>) -> tensor<1x16x4x4xf32>
  %y1 = linalg.generic {indexing_maps = [#ch, #id, #id], iterator_types = #par} ins(%s, %y : tensor<16xf32>, tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %r = arith.mulf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x16x4x4xf32>
  %y2 = linalg.generic {indexing_maps = [#ch, #id, #id], iterator_types = #par} ins(%v, %y1 : tensor<16xf32>, tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %r = arith.subf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x16x4x4xf32>
  %y3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par} ins(%res, %y2 : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %r = arith.addf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x16x4x4xf32>
  %y4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y3 : tensor<1x16x4x4xf32>) outs(%e : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %zero, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x16x4x4xf32>
  return %y4 : tensor<1x16x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#one = affine_map<(d0, d1, d2, d3) -> (0, 0, 0)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#par = ["parallel", "parallel", "parallel", "parallel"]

// A value for all channels (a tensor<1x1x1> read at 0, 0, 0) becomes a tensor<f32> read by the
// scale-and-shift generic at (). After a residual, a scaling is not y * scale + shift: the chain
// stops there (`_affine_residual`), and the generic after it stays.
// CHECK-LABEL: func.func @scalar_then_scaled_residual
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1x1xf32> into tensor<f32>
// CHECK:         %[[ST:.*]]:2 = linalg.generic {indexing_maps = [#[[SCALAR:map[0-9]*]], #{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%[[FLAT]] : tensor<f32>)
// CHECK:         %[[Y:.*]] = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3_affine_residual(%{{.*}}, %{{.*}}, %[[ST]]#0, %[[ST]]#1, %{{.*}})
// CHECK:         %[[Z:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>)
// CHECK:           arith.mulf
// CHECK:         return %[[Z]]
func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
func.func @scalar_then_scaled_residual(%x: tensor<1x3x18x18xf32>, %w: tensor<2x3x3x3x6xf32>, %k: tensor<1x1x1xf32>, %g: tensor<8x1x1xf32>,
                                       %res: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %y = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #one, #id], iterator_types = #par} ins(%y, %k : tensor<1x8x16x16xf32>, tensor<1x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par} ins(%y1, %res : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y3 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y2, %g : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  return %y3 : tensor<1x8x16x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#par = ["parallel", "parallel", "parallel", "parallel"]

// Left as they are: a result used twice (the ReLU's input is also returned), a ReLU by
// `cmpf ogt` (it maps NaN to 0, the kernels keep it), a division of a channel value by the
// result (not affine), and a generic that reads its output.
// CHECK:       func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(
// CHECK-LABEL: func.func @untouched
// CHECK-COUNT-4: call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(
// CHECK-NOT:     _affine
// CHECK-NOT:     _relu
func.func private @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
func.func @untouched(%x: tensor<1x3x18x18xf32>, %w: tensor<2x3x3x3x6xf32>, %g: tensor<8x1x1xf32>)
    -> (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %y = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %r = arith.select %p, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y1 = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y1 : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %p, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y2 = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = #par} ins(%y2, %g : tensor<1x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %y3 = call @strata_kernel_conv6x16_n1_c3_h18_w18_f8_k3x3(%x, %w) : (tensor<1x3x18x18xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x16x16xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y3 : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  return %y, %r0, %r1, %r2, %r3 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#par = ["parallel", "parallel", "parallel", "parallel"]

// A 2x2 max pool of stride 2 into a fill of -inf after the row kernel's ReLU: `_relu_pool2`, the
// call's result the pooled tensor (odd rows and columns floored: 17x19 -> 8x9); the pool's fill
// is gone. The pixel-tile kernel does not pool: its ReLU folds, the pool stays. A pool into
// another init, or of stride 1, stays too.
// CHECK-LABEL: func.func @pooled
// CHECK:         %[[Y:.*]] = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3_relu_pool2(%{{.*}}, %{{.*}}) : (tensor<1x3x19x21xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x8x9xf32>
// CHECK:         %[[P:.*]] = call @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1_relu(
// CHECK:         %[[PP:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[P]], %{{.*}} : tensor<1x16x4x4xf32>, tensor<2x2xf32>)
// CHECK:         %[[Z:.*]] = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(
// CHECK:         %[[ZP:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[Z]], %{{.*}} : tensor<1x8x17x19xf32>, tensor<2x2xf32>)
// CHECK:         %[[S:.*]] = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(
// CHECK:         %[[SP:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[S]], %{{.*}} : tensor<1x8x17x19xf32>, tensor<2x2xf32>)
// CHECK:         return %[[Y]], %[[PP]], %[[ZP]], %[[SP]]
func.func private @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(tensor<1x3x19x21xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x17x19xf32>
func.func private @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1(tensor<1x4x9x9xf32>, tensor<1x4x3x3x16xf32>) -> tensor<1x16x4x4xf32>
func.func @pooled(%x: tensor<1x3x19x21xf32>, %w: tensor<2x3x3x3x6xf32>, %x2: tensor<1x4x9x9xf32>, %w2: tensor<1x4x3x3x16xf32>)
    -> (tensor<1x8x8x9xf32>, tensor<1x16x2x2xf32>, tensor<1x8x8x9xf32>, tensor<1x8x16x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x8x17x19xf32>
  %pe = tensor.empty() : tensor<1x8x8x9xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x8x8x9xf32>) -> tensor<1x8x8x9xf32>
  %y = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(%x, %w) : (tensor<1x3x19x21xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x17x19xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%y : tensor<1x8x17x19xf32>) outs(%e : tensor<1x8x17x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %p, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x8x17x19xf32>
  %pooled = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%r, %window : tensor<1x8x17x19xf32>, tensor<2x2xf32>) outs(%init : tensor<1x8x8x9xf32>) -> tensor<1x8x8x9xf32>
  %e2 = tensor.empty() : tensor<1x16x4x4xf32>
  %p2 = call @strata_kernel_conv6p16c_n1_c4_h9_w9_f16_k3x3_s2x2_d1x1(%x2, %w2) : (tensor<1x4x9x9xf32>, tensor<1x4x3x3x16xf32>) -> tensor<1x16x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = #par} ins(%p2 : tensor<1x16x4x4xf32>) outs(%e2 : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x4xf32>
  %pe2 = tensor.empty() : tensor<1x16x2x2xf32>
  %init2 = linalg.fill ins(%ninf : f32) outs(%pe2 : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %pooled2 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%r2, %window : tensor<1x16x4x4xf32>, tensor<2x2xf32>) outs(%init2 : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %z = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(%x, %w) : (tensor<1x3x19x21xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x17x19xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x8x8x9xf32>) -> tensor<1x8x8x9xf32>
  %pooled3 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%z, %window : tensor<1x8x17x19xf32>, tensor<2x2xf32>) outs(%zeros : tensor<1x8x8x9xf32>) -> tensor<1x8x8x9xf32>
  %s = call @strata_kernel_conv6x16_n1_c3_h19_w21_f8_k3x3(%x, %w) : (tensor<1x3x19x21xf32>, tensor<2x3x3x3x6xf32>) -> tensor<1x8x17x19xf32>
  %se = tensor.empty() : tensor<1x8x16x18xf32>
  %sinit = linalg.fill ins(%ninf : f32) outs(%se : tensor<1x8x16x18xf32>) -> tensor<1x8x16x18xf32>
  %pooled4 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%s, %window : tensor<1x8x17x19xf32>, tensor<2x2xf32>) outs(%sinit : tensor<1x8x16x18xf32>) -> tensor<1x8x16x18xf32>
  return %pooled, %pooled2, %pooled3, %pooled4 : tensor<1x8x8x9xf32>, tensor<1x16x2x2xf32>, tensor<1x8x8x9xf32>, tensor<1x8x16x18xf32>
}
