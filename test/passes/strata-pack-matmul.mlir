// strata-pack-matmul: static float matmuls with enough rows read B from 16-wide panels; everything
// else is left alone. Structure only here; numerics: test/python/upstream (MLP, transformer and
// LLaMA blocks against PyTorch through the upstream route, whose linalg-to-llvm runs this pass).
// RUN: strata-opt --split-input-file --strata-pack-matmul %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-pack-matmul='panel=8 min-rows=2' %s | FileCheck %s --check-prefix=OPTS

// B [128x32] becomes two panels [2x128x16]; C is computed through a reshape, no copy.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128x32xf32>, %[[C:.*]]: tensor<64x32xf32>)
// CHECK:         %[[B4:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 128, 2, 16] : tensor<128x32xf32> into tensor<1x128x2x16xf32>
// CHECK:         %[[P4:.*]] = linalg.transpose ins(%[[B4]] : tensor<1x128x2x16xf32>) outs(%{{.*}} : tensor<1x2x128x16xf32>) permutation = [0, 2, 1, 3] {strata.panel_pack}
// CHECK:         %[[P:.*]] = tensor.collapse_shape %[[P4]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x128x16xf32> into tensor<2x128x16xf32>
// CHECK:         %[[C3:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0], [1, 2]] output_shape [64, 2, 16] : tensor<64x32xf32> into tensor<64x2x16xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[MA:.*]], #[[MB:.*]], #[[MC:.*]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME:        ins(%[[A]], %[[P]] : tensor<64x128xf32>, tensor<2x128x16xf32>) outs(%[[C3]] : tensor<64x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<64x2x16xf32> into tensor<64x32xf32>
// CHECK:         return %[[OUT]]
// CHECK-NOT:     linalg.matmul
// OPTS-LABEL: func.func @matmul
// OPTS:         linalg.transpose {{.*}} outs(%{{.*}} : tensor<1x4x128x8xf32>)
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Batched: panels per batch, [2x64x32] -> [2x2x64x16], and a batch loop in front.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<2x64x2x16xf32>) outs(%{{.*}} : tensor<2x2x64x16xf32>) permutation = [0, 2, 1, 3] {strata.panel_pack}
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME:        outs(%{{.*}} : tensor<2x128x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<2x128x2x16xf32> into tensor<2x128x32xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @batch_matmul(%a: tensor<2x128x64xf32>, %b: tensor<2x64x32xf32>, %c: tensor<2x128x32xf32>) -> tensor<2x128x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x128x64xf32>, tensor<2x64x32xf32>) outs(%c : tensor<2x128x32xf32>) -> tensor<2x128x32xf32>
  return %r : tensor<2x128x32xf32>
}

// -----

// Fewer than 64 rows (a matrix-vector product, a small batch): B is read about once anyway.
// CHECK-LABEL: func.func @few_rows
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
// OPTS-LABEL: func.func @few_rows
// OPTS:         strata.panel_matmul
func.func @few_rows(%a: tensor<8x128xf32>, %b: tensor<128x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x128xf32>, tensor<128x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// N not a multiple of the panel width.
// CHECK-LABEL: func.func @ragged_columns
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
func.func @ragged_columns(%a: tensor<64x128xf32>, %b: tensor<128x20xf32>, %c: tensor<64x20xf32>) -> tensor<64x20xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x20xf32>) outs(%c : tensor<64x20xf32>) -> tensor<64x20xf32>
  return %r : tensor<64x20xf32>
}

// -----

// Dynamic sizes.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
func.func @dynamic_rows(%a: tensor<?x128xf32>, %b: tensor<128x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// Integers, and mixed element types (the multiply would need casts the panel body does not write).
// CHECK-LABEL: func.func @integers
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
func.func @integers(%a: tensor<64x128xi32>, %b: tensor<128x32xi32>, %c: tensor<64x32xi32>) -> tensor<64x32xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xi32>, tensor<128x32xi32>) outs(%c : tensor<64x32xi32>) -> tensor<64x32xi32>
  return %r : tensor<64x32xi32>
}

// -----

// CHECK-LABEL: func.func @mixed_types
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
func.func @mixed_types(%a: tensor<64x128xf16>, %b: tensor<128x32xf16>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x32xf16>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A matmul with explicit indexing maps (here B transposed) is not the form the panels assume.
// CHECK-LABEL: func.func @transposed_b
// CHECK:         linalg.matmul
// CHECK-NOT:     strata.panel
func.func @transposed_b(%a: tensor<64x128xf32>, %b: tensor<32x128xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x128xf32>, tensor<32x128xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @batch_transposed_b
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     strata.panel
func.func @batch_transposed_b(%a: tensor<2x64x128xf32>, %b: tensor<2x32x128xf32>, %c: tensor<2x64x32xf32>) -> tensor<2x64x32xf32> {
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x64x128xf32>, tensor<2x32x128xf32>) outs(%c : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
  return %r : tensor<2x64x32xf32>
}
