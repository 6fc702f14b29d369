// The done-when check of strata-raise-torch: a LLaMA-style block written out by hand
// (strata.models.llama: explicit-matmul attention with a causal mask, RMSNorm as
// pow/mean/rsqrt/mul, SiLU-gated MLP), FX-imported to the torch dialect with torch-mlir's default
// decompositions, raises to exactly one attention, two RMSNorms and one SiLU.
// The input is regenerated with:
//   .venv/bin/python test/passes/Inputs/make_llama_block.py > test/passes/Inputs/llama_block.torch.mlir
// RUN: strata-opt --strata-raise-torch %S/Inputs/llama_block.torch.mlir | FileCheck %s
// RUN: strata-opt --strata-raise-torch %S/Inputs/llama_block.torch.mlir | grep -o '"strata\.[a-z_]*"' | sort | uniq -c | FileCheck %s --check-prefix=COUNT

// CHECK-LABEL: func.func @main
// CHECK:         %[[NORM1:.*]] = "strata.rms_norm"(%{{.*}}, %{{.*}}) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 32>} : (tensor<1x8x32xf32>, tensor<32xf32>)
// CHECK-COUNT-3: "strata.linear"(%[[NORM1]], %{{.*}}) {activation = 0 : i32} : (tensor<1x8x32xf32>, tensor<32x32xf32>)
// CHECK:         "strata.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {is_causal = false, scale = 0.35355339059327373 : f64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK:         "strata.linear"
// CHECK:         %[[NORM2:.*]] = "strata.rms_norm"
// CHECK:         %[[GATE:.*]] = "strata.linear"(%[[NORM2]], %{{.*}}) {{.*}} -> tensor<1x8x48xf32>
// CHECK:         "strata.silu"
// CHECK:         "strata.linear"(%[[NORM2]], %{{.*}}) {{.*}} -> tensor<1x8x48xf32>
// CHECK:         torch.aten.mul.Tensor
// CHECK:         "strata.linear"{{.*}}(tensor<1x8x48xf32>, tensor<32x48xf32>) -> tensor<1x8x32xf32>

// Exactly one attention, two RMSNorms and one SiLU (and the block's seven linear layers).
// COUNT:      1 "strata.attention"
// COUNT-NEXT: 7 "strata.linear"
// COUNT-NEXT: 2 "strata.rms_norm"
// COUNT-NEXT: 1 "strata.silu"
// COUNT-EMPTY:

// RUN: strata-opt --strata-raise-torch %S/Inputs/llama_block.torch.mlir | FileCheck %s --check-prefix=GONE
// The decomposed pieces are gone.
// GONE-NOT: torch.aten.rsqrt
// GONE-NOT: torch.aten.exp
// GONE-NOT: torch.aten.sigmoid
// GONE-NOT: torch.aten.bmm
// GONE-NOT: torch.aten.mm
// GONE: return

// The raised block lowers completely: strata ops to linalg, then torch-mlir's backend pipeline
// for the rest, in one mixed pipeline (numerics: test/python/dialects/test_raise_numerics.py).
// RUN: strata-opt --pass-pipeline='builtin.module(func.func(strata-raise-torch,strata-lower-to-linalg),torch-backend-to-linalg-on-tensors-backend-pipeline)' %S/Inputs/llama_block.torch.mlir > %t
// RUN: FileCheck %s --check-prefix=LINALG < %t
// RUN: FileCheck %s --check-prefix=CLEAN < %t
// LINALG-LABEL: func.func @main(%{{.*}}: tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
// LINALG:       linalg.generic
// LINALG:       return
// CLEAN-NOT:    strata.
// CLEAN-NOT:    torch.aten
// CLEAN-NOT:    torch_c.
