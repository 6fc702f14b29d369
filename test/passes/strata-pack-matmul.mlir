// strata-pack-matmul: static float matmuls with enough rows read B from 16-wide panels, their rows
// cut into blocks of 6-row tiles; everything else is left alone. Structure only here; numerics:
// test/python/upstream (test_panel_matmul.py, and MLP, transformer and LLaMA blocks against
// PyTorch through the upstream route, whose linalg-to-llvm runs this pass).
// RUN: strata-opt --split-input-file --strata-pack-matmul %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-pack-matmul='panel=8 min-rows=2' %s | FileCheck %s --check-prefix=OPTS

// B [128x32] becomes two panels [1x2x128x16] (a matmul is a batch of one); the 64 rows of A and
// C are viewed as two blocks of 30 rows (6-row tiles) and a block of the last 4 rows, each
// computed in place on slices, reshaped, no copies. C is the caller's, so it is accumulated into.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128x32xf32>, %[[C:.*]]: tensor<64x32xf32>)
// CHECK-DAG:     %[[A3:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [1, 64, 128]
// CHECK-DAG:     %[[B4:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 128, 2, 16] : tensor<128x32xf32> into tensor<1x128x2x16xf32>
// CHECK-DAG:     %[[C3:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [1, 64, 32]
// CHECK:         %[[P:.*]] = linalg.transpose ins(%[[B4]] : tensor<1x128x2x16xf32>) outs(%{{.*}} : tensor<1x2x128x16xf32>) permutation = [0, 2, 1, 3] {strata.panel_pack}
// CHECK:         %[[A0:.*]] = tensor.extract_slice %[[A3]][0, 0, 0] [1, 60, 128] [1, 1, 1]
// CHECK:         %[[AB0:.*]] = tensor.expand_shape %[[A0]] {{\[\[}}0], [1, 2], [3]] output_shape [1, 2, 30, 128]
// CHECK:         %[[C0:.*]] = tensor.extract_slice %[[C3]][0, 0, 0] [1, 60, 32] [1, 1, 1]
// CHECK:         %[[CB0:.*]] = tensor.expand_shape %[[C0]] {{\[\[}}0], [1, 2], [3, 4]] output_shape [1, 2, 30, 2, 16]
// CHECK:         %[[R0:.*]] = linalg.generic {indexing_maps = [#[[MA:.*]], #[[MB:.*]], #[[MC:.*]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME:        ins(%[[AB0]], %[[P]] : tensor<1x2x30x128xf32>, tensor<1x2x128x16xf32>) outs(%[[CB0]] : tensor<1x2x30x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[O0:.*]] = tensor.collapse_shape %[[R0]] {{\[\[}}0], [1, 2], [3, 4]] : tensor<1x2x30x2x16xf32> into tensor<1x60x32xf32>
// CHECK:         %[[U0:.*]] = tensor.insert_slice %[[O0]] into %[[C3]][0, 0, 0] [1, 60, 32] [1, 1, 1]
// CHECK:         tensor.extract_slice %[[A3]][0, 60, 0] [1, 4, 128] [1, 1, 1]
// CHECK:         %[[C1:.*]] = tensor.extract_slice %[[U0]][0, 60, 0] [1, 4, 32] [1, 1, 1]
// CHECK:         %[[R1:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<1x1x4x128xf32>, tensor<1x2x128x16xf32>) outs(%{{.*}} : tensor<1x1x4x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:         %[[U1:.*]] = tensor.insert_slice %{{.*}} into %[[U0]][0, 60, 0] [1, 4, 32] [1, 1, 1]
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %[[U1]] {{\[\[}}0, 1], [2]] : tensor<1x64x32xf32> into tensor<64x32xf32>
// CHECK:         return %[[OUT]]
// CHECK-DAG:   #[[MA]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK-DAG:   #[[MB]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>
// CHECK-DAG:   #[[MC]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// OPTS-LABEL: func.func @matmul
// OPTS:         linalg.transpose {{.*}} outs(%{{.*}} : tensor<1x4x128x8xf32>)
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// C that starts as a constant: each piece fills its own rows (`strata.panel_init`, which the
// transform script tiles into the register tiles), into a new tensor; C's own fill is dropped.
// CHECK-LABEL: func.func @zero_init
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[DEST:.*]] = tensor.empty() : tensor<1x64x32xf32>
// CHECK:         %[[CB0:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 30, 2, 16]
// CHECK:         %[[F0:.*]] = linalg.fill {strata.panel_init} ins(%[[ZERO]] : f32) outs(%[[CB0]] : tensor<1x2x30x2x16xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F0]] : tensor<1x2x30x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:         linalg.fill {strata.panel_init} ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x1x4x2x16xf32>)
// CHECK-NOT:     linalg.fill ins
func.func @zero_init(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Batched: panels per batch, [2x64x32] -> [2x2x64x16]; 128 rows are two blocks of 60, a block of
// one 6-row tile and the last 2 rows.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:         %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x64x2x16xf32>) outs(%{{.*}} : tensor<2x2x64x16xf32>) permutation = [0, 2, 1, 3] {strata.panel_pack}
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<2x2x60x64xf32>, tensor<2x2x64x16xf32>) outs(%{{.*}} : tensor<2x2x60x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<2x1x6x64xf32>, tensor<2x2x64x16xf32>) outs(%{{.*}} : tensor<2x1x6x2x16xf32>) attrs = {strata.panel_matmul}
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<2x1x2x64xf32>, tensor<2x2x64x16xf32>) outs(%{{.*}} : tensor<2x1x2x2x16xf32>) attrs = {strata.panel_matmul}
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
