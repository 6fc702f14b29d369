// strata-attention-kernel: Torch-MLIR's attention (batch matmul of q and k^T, perhaps a constant
// scale and causal mask, the softmax, batch matmul with v, heads split and merged by slices,
// reshapes and transposes) becomes one call of strata's attention kernel on the tensor q, k and v
// are views of, flat, whose result is the merged heads' tensor, flat. Numerics through IREE:
// test/python/iree/test_attention_kernel.py.
// With lanes=16, attention whose queries, keys and head sizes are whole 16s takes the kernel in
// 16-float vectors (`_lanes16`), other attention the kernel in 8.
// RUN: strata-opt --split-input-file --strata-attention-kernel %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-attention-kernel=lanes=16 %s | FileCheck %s --check-prefix=LANES
// RUN: not strata-opt --split-input-file --strata-attention-kernel=lanes=4 %s 2>&1 | FileCheck %s --check-prefix=BAD-LANES

// BAD-LANES: strata-attention-kernel: lanes must be 8 or 16; got 4

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// A causal mask of 0 and -inf, a scale: q, k and v strided views of one projection.
// 8 queries of 2 heads of 8, q at column 0 of each row of 48, k at 16, v at 32; the scale is
// f32(0.35355339) (0x3EB504F3); the result's rows of 16 hold the heads side by side.
// CHECK-LABEL: func.func @causal
// CHECK-SAME:    (%[[QKV:.*]]: tensor<8x48xf32>)
// CHECK-NOT:     linalg.
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[QKV]] {{\[\[}}0, 1]] : tensor<8x48xf32> into tensor<384xf32>
// CHECK-NEXT:    %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3eb504f3_causal_Q0o0b384h8p48_K0o16b384h8p48_V0o32b384h8p48_Ob128h8p16_in384(%[[FLAT]]) : (tensor<384xf32>) -> tensor<128xf32>
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK-NEXT:    return %[[OUT]]
// CHECK:       func.func private @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3eb504f3_causal_Q0o0b384h8p48_K0o16b384h8p48_V0o32b384h8p48_Ob128h8p16_in384(tensor<384xf32>) -> tensor<128xf32>
// LANES-LABEL: func.func @causal
// LANES:         call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3eb504f3_causal_Q0o0b384h8p48_K0o16b384h8p48_V0o32b384h8p48_Ob128h8p16_in384(
func.func @causal(%qkv: tensor<8x48xf32>) -> tensor<8x16xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 8, 48] : tensor<8x48xf32> into tensor<1x8x48xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %qe = tensor.empty() : tensor<1x2x8x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x8x2x8xf32>) outs(%qe : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %ks = tensor.extract_slice %x[0, 0, 16] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ke = tensor.empty() : tensor<1x2x8x8xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x8x2x8xf32>) outs(%ke : tensor<1x2x8x8xf32>) permutation = [0, 2, 3, 1]
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %vs = tensor.extract_slice %x[0, 0, 32] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ve = tensor.empty() : tensor<1x2x8x8xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x8x2x8xf32>) outs(%ve : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %cmask = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fs : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %e4 = tensor.empty() : tensor<1x2x8x8xf32>
  %scale = arith.constant 0.3535533905932738 : f64
  %scaled = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4 : tensor<1x2x8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.truncf %scale : f64 to f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#x, #mask, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %cmask : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x8xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %ei = tensor.empty() : tensor<1x2x8xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x8xi64>) -> tensor<1x2x8xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%init, %initi : tensor<1x2x8xf32>, tensor<1x2x8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x8xf32>, tensor<1x2x8xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf32> into tensor<1x2x8x1xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max1 : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x8x1xf32>) -> tensor<1x2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf32>) outs(%zeros : tensor<1x2x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %et = tensor.empty() : tensor<1x8x2x8xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x8x8xf32>) outs(%et : tensor<1x8x2x8xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x8x2x8xf32> into tensor<8x16xf32>
  return %out : tensor<8x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// No mask; q and k each scaled by 0.5 (as scaled_dot_product_attention does): one scale of 0.25.
// CHECK-LABEL: func.func @no_mask
// CHECK-SAME:    (%[[QKV:.*]]: tensor<8x48xf32>)
// CHECK-NOT:     linalg.
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[QKV]] {{\[\[}}0, 1]] : tensor<8x48xf32> into tensor<384xf32>
// CHECK-NEXT:    %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3e800000_Q0o0b384h8p48_K0o16b384h8p48_V0o32b384h8p48_Ob128h8p16_in384(%[[FLAT]]) : (tensor<384xf32>) -> tensor<128xf32>
// CHECK-NEXT:    %[[OUT:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK-NEXT:    return %[[OUT]]
// CHECK:       func.func private @strata_kernel_attention_b1_h2_q8_k8_e8_v8_s3e800000_Q0o0b384h8p48_K0o16b384h8p48_V0o32b384h8p48_Ob128h8p16_in384(tensor<384xf32>) -> tensor<128xf32>
func.func @no_mask(%qkv: tensor<8x48xf32>) -> tensor<8x16xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 8, 48] : tensor<8x48xf32> into tensor<1x8x48xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %qe = tensor.empty() : tensor<1x2x8x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x8x2x8xf32>) outs(%qe : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %qc = arith.constant 0.5 : f32
  %qx = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qt : tensor<1x2x8x8xf32>) outs(%qe : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %qc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %q3 = tensor.collapse_shape %qx [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %ks = tensor.extract_slice %x[0, 0, 16] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ke = tensor.empty() : tensor<1x2x8x8xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x8x2x8xf32>) outs(%ke : tensor<1x2x8x8xf32>) permutation = [0, 2, 3, 1]
  %kc = arith.constant 0.5 : f32
  %kx = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %kc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %k3 = tensor.collapse_shape %kx [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %vs = tensor.extract_slice %x[0, 0, 32] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ve = tensor.empty() : tensor<1x2x8x8xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x8x2x8xf32>) outs(%ve : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fs : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x8xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %ei = tensor.empty() : tensor<1x2x8xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x8xi64>) -> tensor<1x2x8xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qk4 : tensor<1x2x8x8xf32>) outs(%init, %initi : tensor<1x2x8xf32>, tensor<1x2x8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x8xf32>, tensor<1x2x8xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf32> into tensor<1x2x8x1xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4, %max1 : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x8x1xf32>) -> tensor<1x2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf32>) outs(%zeros : tensor<1x2x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %et = tensor.empty() : tensor<1x8x2x8xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x8x8xf32>) outs(%et : tensor<1x8x2x8xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x8x2x8xf32> into tensor<8x16xf32>
  return %out : tensor<8x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// A mask that is not a constant: left to IREE.
// CHECK-LABEL: func.func @mask_argument
// CHECK-NOT:     call @strata_kernel_attention
// CHECK-COUNT-2: linalg.batch_matmul
// CHECK-NOT:     call @strata_kernel_attention
func.func @mask_argument(%qkv: tensor<8x48xf32>, %mask: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 8, 48] : tensor<8x48xf32> into tensor<1x8x48xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %qe = tensor.empty() : tensor<1x2x8x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x8x2x8xf32>) outs(%qe : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %ks = tensor.extract_slice %x[0, 0, 16] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ke = tensor.empty() : tensor<1x2x8x8xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x8x2x8xf32>) outs(%ke : tensor<1x2x8x8xf32>) permutation = [0, 2, 3, 1]
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %vs = tensor.extract_slice %x[0, 0, 32] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ve = tensor.empty() : tensor<1x2x8x8xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x8x2x8xf32>) outs(%ve : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fs : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %e4 = tensor.empty() : tensor<1x2x8x8xf32>
  %scale = arith.constant 0.3535533905932738 : f64
  %scaled = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4 : tensor<1x2x8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.truncf %scale : f64 to f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#x, #mask, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %mask : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x8xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %ei = tensor.empty() : tensor<1x2x8xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x8xi64>) -> tensor<1x2x8xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%init, %initi : tensor<1x2x8xf32>, tensor<1x2x8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x8xf32>, tensor<1x2x8xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf32> into tensor<1x2x8x1xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max1 : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x8x1xf32>) -> tensor<1x2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf32>) outs(%zeros : tensor<1x2x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %et = tensor.empty() : tensor<1x8x2x8xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x8x8xf32>) outs(%et : tensor<1x8x2x8xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x8x2x8xf32> into tensor<8x16xf32>
  return %out : tensor<8x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// A constant mask that is not causal: left to IREE.
// CHECK-LABEL: func.func @mask_not_causal
// CHECK-NOT:     call @strata_kernel_attention
// CHECK-COUNT-2: linalg.batch_matmul
// CHECK-NOT:     call @strata_kernel_attention
func.func @mask_not_causal(%qkv: tensor<8x48xf32>) -> tensor<8x16xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 8, 48] : tensor<8x48xf32> into tensor<1x8x48xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %qe = tensor.empty() : tensor<1x2x8x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x8x2x8xf32>) outs(%qe : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %ks = tensor.extract_slice %x[0, 0, 16] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ke = tensor.empty() : tensor<1x2x8x8xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x8x2x8xf32>) outs(%ke : tensor<1x2x8x8xf32>) permutation = [0, 2, 3, 1]
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %vs = tensor.extract_slice %x[0, 0, 32] [1, 8, 16] [1, 1, 1] : tensor<1x8x48xf32> to tensor<1x8x16xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 8] : tensor<1x8x16xf32> into tensor<1x8x2x8xf32>
  %ve = tensor.empty() : tensor<1x2x8x8xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x8x2x8xf32>) outs(%ve : tensor<1x2x8x8xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %cmask = arith.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0xFF800000, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fs : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %e4 = tensor.empty() : tensor<1x2x8x8xf32>
  %scale = arith.constant 0.3535533905932738 : f64
  %scaled = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4 : tensor<1x2x8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.truncf %scale : f64 to f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#x, #mask, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %cmask : tensor<1x2x8x8xf32>, tensor<8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x8xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %ei = tensor.empty() : tensor<1x2x8xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x8xi64>) -> tensor<1x2x8xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<1x2x8x8xf32>) outs(%init, %initi : tensor<1x2x8xf32>, tensor<1x2x8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x8xf32>, tensor<1x2x8xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf32> into tensor<1x2x8x1xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %max1 : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x8x1xf32>) -> tensor<1x2x8x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf32>) outs(%zeros : tensor<1x2x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%fo : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %et = tensor.empty() : tensor<1x8x2x8xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x8x8xf32>) outs(%et : tensor<1x8x2x8xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x8x2x8xf32> into tensor<8x16xf32>
  return %out : tensor<8x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// 512 keys (with heads of 8): 16 queries' scores and q^T need 32.5 KiB of stack, past IREE's 32: left to IREE.
// CHECK-LABEL: func.func @too_many_keys
// CHECK-NOT:     call @strata_kernel_attention
// CHECK-COUNT-2: linalg.batch_matmul
// CHECK-NOT:     call @strata_kernel_attention
func.func @too_many_keys(%qkv: tensor<512x48xf32>) -> tensor<512x16xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 512, 48] : tensor<512x48xf32> into tensor<1x512x48xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 512, 16] [1, 1, 1] : tensor<1x512x48xf32> to tensor<1x512x16xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 512, 2, 8] : tensor<1x512x16xf32> into tensor<1x512x2x8xf32>
  %qe = tensor.empty() : tensor<1x2x512x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x512x2x8xf32>) outs(%qe : tensor<1x2x512x8xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x2x512x8xf32> into tensor<2x512x8xf32>
  %ks = tensor.extract_slice %x[0, 0, 16] [1, 512, 16] [1, 1, 1] : tensor<1x512x48xf32> to tensor<1x512x16xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 512, 2, 8] : tensor<1x512x16xf32> into tensor<1x512x2x8xf32>
  %ke = tensor.empty() : tensor<1x2x8x512xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x512x2x8xf32>) outs(%ke : tensor<1x2x8x512xf32>) permutation = [0, 2, 3, 1]
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x8x512xf32> into tensor<2x8x512xf32>
  %vs = tensor.extract_slice %x[0, 0, 32] [1, 512, 16] [1, 1, 1] : tensor<1x512x48xf32> to tensor<1x512x16xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 512, 2, 8] : tensor<1x512x16xf32> into tensor<1x512x2x8xf32>
  %ve = tensor.empty() : tensor<1x2x512x8xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x512x2x8xf32>) outs(%ve : tensor<1x2x512x8xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x512x8xf32> into tensor<2x512x8xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x512x512xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x512x8xf32>, tensor<2x8x512xf32>) outs(%fs : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 512, 512] : tensor<2x512x512xf32> into tensor<1x2x512x512xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x512xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x512xf32>) -> tensor<1x2x512xf32>
  %ei = tensor.empty() : tensor<1x2x512xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x512xi64>) -> tensor<1x2x512xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qk4 : tensor<1x2x512x512xf32>) outs(%init, %initi : tensor<1x2x512xf32>, tensor<1x2x512xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x512xf32>, tensor<1x2x512xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 512, 1] : tensor<1x2x512xf32> into tensor<1x2x512x1xf32>
  %e = tensor.empty() : tensor<1x2x512x512xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4, %max1 : tensor<1x2x512x512xf32>, tensor<1x2x512x1xf32>) outs(%e : tensor<1x2x512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x512x512xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x512x512xf32>) outs(%e : tensor<1x2x512x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x512x512xf32>
  %e1 = tensor.empty() : tensor<1x2x512x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x512x1xf32>) -> tensor<1x2x512x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x512x512xf32>) outs(%zeros : tensor<1x2x512x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x512x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x512x512xf32>, tensor<1x2x512x1xf32>) outs(%e : tensor<1x2x512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x512x512xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x512x512xf32> into tensor<2x512x512xf32>
  %eo = tensor.empty() : tensor<2x512x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x512x8xf32>) -> tensor<2x512x8xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x512x512xf32>, tensor<2x512x8xf32>) outs(%fo : tensor<2x512x8xf32>) -> tensor<2x512x8xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 512, 8] : tensor<2x512x8xf32> into tensor<1x2x512x8xf32>
  %et = tensor.empty() : tensor<1x512x2x8xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x512x8xf32>) outs(%et : tensor<1x512x2x8xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x512x2x8xf32> into tensor<512x16xf32>
  return %out : tensor<512x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#row1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// As @no_mask with 16 tokens and 2 heads of 16 (q, k and v at columns 0, 32 and 64 of rows of 96):
// in 16-float vectors under lanes=16.
// CHECK-LABEL: func.func @heads_of_16
// CHECK:         call @strata_kernel_attention_b1_h2_q16_k16_e16_v16_s3e800000_Q0o0b1536h16p96_K0o32b1536h16p96_V0o64b1536h16p96_Ob512h16p32_in1536(
// LANES-LABEL: func.func @heads_of_16
// LANES:         %[[Y:.*]] = call @strata_kernel_attention_b1_h2_q16_k16_e16_v16_s3e800000_Q0o0b1536h16p96_K0o32b1536h16p96_V0o64b1536h16p96_Ob512h16p32_in1536_lanes16(%{{.*}}) : (tensor<1536xf32>) -> tensor<512xf32>
// LANES:         tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [16, 32] : tensor<512xf32> into tensor<16x32xf32>
func.func @heads_of_16(%qkv: tensor<16x96xf32>) -> tensor<16x32xf32> {
  %x = tensor.expand_shape %qkv [[0, 1], [2]] output_shape [1, 16, 96] : tensor<16x96xf32> into tensor<1x16x96xf32>
  %qs = tensor.extract_slice %x[0, 0, 0] [1, 16, 32] [1, 1, 1] : tensor<1x16x96xf32> to tensor<1x16x32xf32>
  %qh = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 16, 2, 16] : tensor<1x16x32xf32> into tensor<1x16x2x16xf32>
  %qe = tensor.empty() : tensor<1x2x16x16xf32>
  %qt = linalg.transpose ins(%qh : tensor<1x16x2x16xf32>) outs(%qe : tensor<1x2x16x16xf32>) permutation = [0, 2, 1, 3]
  %qc = arith.constant 0.5 : f32
  %qx = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qt : tensor<1x2x16x16xf32>) outs(%qe : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %qc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %q3 = tensor.collapse_shape %qx [[0, 1], [2], [3]] : tensor<1x2x16x16xf32> into tensor<2x16x16xf32>
  %ks = tensor.extract_slice %x[0, 0, 32] [1, 16, 32] [1, 1, 1] : tensor<1x16x96xf32> to tensor<1x16x32xf32>
  %kh = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 16, 2, 16] : tensor<1x16x32xf32> into tensor<1x16x2x16xf32>
  %ke = tensor.empty() : tensor<1x2x16x16xf32>
  %kt = linalg.transpose ins(%kh : tensor<1x16x2x16xf32>) outs(%ke : tensor<1x2x16x16xf32>) permutation = [0, 2, 3, 1]
  %kc = arith.constant 0.5 : f32
  %kx = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kt : tensor<1x2x16x16xf32>) outs(%ke : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %kc : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %k3 = tensor.collapse_shape %kx [[0, 1], [2], [3]] : tensor<1x2x16x16xf32> into tensor<2x16x16xf32>
  %vs = tensor.extract_slice %x[0, 0, 64] [1, 16, 32] [1, 1, 1] : tensor<1x16x96xf32> to tensor<1x16x32xf32>
  %vh = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 16, 2, 16] : tensor<1x16x32xf32> into tensor<1x16x2x16xf32>
  %ve = tensor.empty() : tensor<1x2x16x16xf32>
  %vt = linalg.transpose ins(%vh : tensor<1x16x2x16xf32>) outs(%ve : tensor<1x2x16x16xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x2x16x16xf32> into tensor<2x16x16xf32>
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk = linalg.batch_matmul ins(%q3, %k3 : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%fs : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %qk4 = tensor.expand_shape %qk [[0, 1], [2], [3]] output_shape [1, 2, 16, 16] : tensor<2x16x16xf32> into tensor<1x2x16x16xf32>
  %lo = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %er = tensor.empty() : tensor<1x2x16xf32>
  %init = linalg.fill ins(%lo : f32) outs(%er : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %ei = tensor.empty() : tensor<1x2x16xi64>
  %initi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<1x2x16xi64>) -> tensor<1x2x16xi64>
  %max:2 = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qk4 : tensor<1x2x16x16xf32>) outs(%init, %initi : tensor<1x2x16xf32>, tensor<1x2x16xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<1x2x16xf32>, tensor<1x2x16xi64>)
  %max1 = tensor.expand_shape %max#0 [[0], [1], [2, 3]] output_shape [1, 2, 16, 1] : tensor<1x2x16xf32> into tensor<1x2x16x1xf32>
  %e = tensor.empty() : tensor<1x2x16x16xf32>
  %d = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qk4, %max1 : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) outs(%e : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %ex = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x16x16xf32>) outs(%e : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %e1 = tensor.empty() : tensor<1x2x16x1xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x16x1xf32>) -> tensor<1x2x16x1xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x16x16xf32>) outs(%zeros : tensor<1x2x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x1xf32>
  %p = linalg.generic {indexing_maps = [#x, #row1, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) outs(%e : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x16x16xf32> into tensor<2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %pv = linalg.batch_matmul ins(%p3, %v3 : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%fo : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [1, 2, 16, 16] : tensor<2x16x16xf32> into tensor<1x2x16x16xf32>
  %et = tensor.empty() : tensor<1x16x2x16xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<1x2x16x16xf32>) outs(%et : tensor<1x16x2x16xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<1x16x2x16xf32> into tensor<16x32xf32>
  return %out : tensor<16x32xf32>
}
