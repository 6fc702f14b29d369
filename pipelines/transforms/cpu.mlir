// Transform scripts of the `linalg-to-llvm` pipeline: how contractions are tiled and vectorized
// for the host CPU. The pipeline runner inserts these sequences into the module for the stages
// that name this file, and removes them afterwards.
//
// The matmuls strata-pack-matmul rewrote have their own rules (below: 6x16 register tiles on
// panels of B). Any other contraction (a linalg op whose body multiplies and accumulates: the
// generics that strata-lower-to-linalg writes for linear layers, matmuls with transposed or
// dynamic operands) is tiled three times: blocks of 64 rows in an scf.forall (the pipeline runs them on OpenMP threads or in
// sequence), a cache tile (256 columns x 256 of the reduction) that keeps a panel of B in L2,
// then a register tile of 4 x 16 with one reduction step, whose 4x16 accumulator stays in vector
// registers while the reduction loop runs; the contraction then lowers to one broadcast-FMA
// outer product per row. Tiles whose sizes are not static (a dynamic batch, sizes that 4 or 16
// do not divide) stay scalar loops: masked vectorization of a multiply-accumulate body is
// rejected by vector.mask in this MLIR.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @strata_match_contraction_3d(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %matched = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %three = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %three : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %matched : !transform.any_op
  }

  transform.named_sequence @strata_match_contraction_4d(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %matched = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %four = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %four : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %matched : !transform.any_op
  }

  // strata-pack-matmul's form: C[b, mb, m, n1, n0] += A[b, mb, m, k] * B[b, n1, k, n0], with row
  // blocks `mb` of `m` rows (a multiple of 6, or fewer than 6 in the last block), panels `n1` of a
  // static 16 columns `n0`, B read from the panel copy (`strata.panel_pack`) and C, where it
  // starts as a constant, written by the fill `strata.panel_init`. Tiled as BLAS libraries block
  // a matmul: slabs of B's panels in sequence, 64 of them (1024 columns) or, when the reduction is
  // longer than 1024, 32, so that a slab (at most 4 MiB up to K = 2048) stays in L3 while every
  // row block passes it; row blocks x groups of 8 panels of a slab in an scf.forall (threads
  // share them out block by block, so a block of A stays in L2 while the slab passes, and a
  // piece of a single block, the last rows, still spreads over the threads); per panel and
  // 6-row tile, the whole reduction
  // in a 6 x 16 register tile: twelve 8-float accumulators, four more than the FMA latency needs
  // hidden (4 x 16 had eight and ran 20-30% slower). The fill is tiled with the slabs, the row
  // blocks and the register tiles, so each tile starts from zeros in registers instead of a pass
  // over C. Two threads against OpenBLAS in the same process, 2026-11-29: slabs of 32 panels cost
  // 1024^3 4% (one more OpenMP region to start), slabs of 64 cost 2048^3 9%.
  transform.named_sequence @strata_match_panel_contraction(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %matched = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %six = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %six : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3, 5] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4] {reduction} : !transform.any_op
      %width = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %sixteen = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %width, %sixteen : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %matched : !transform.any_op
  }

  transform.named_sequence @strata_match_long_panel_contraction(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %matched = transform.include @strata_match_panel_contraction failures(propagate) (%op)
      : (!transform.any_op) -> !transform.any_op
    transform.match.structured %matched : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %k = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %limit = transform.param.constant 1024 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %k, %limit : !transform.param<i64>
    }
    transform.yield %matched : !transform.any_op
  }

  // One slab (the fill, if any, already tiled into the slab loop): row blocks on threads, then
  // register tiles.
  transform.named_sequence @strata_tile_panel_slab(%slab: !transform.any_op {transform.consumed},
                                                   %slab_loop: !transform.any_op {transform.readonly}) {
    %slab_fill = transform.structured.match attributes{"strata.panel_init"} in %slab_loop
      : (!transform.any_op) -> !transform.any_op
    %rows, %rows_loop = transform.structured.tile_using_forall %slab tile_sizes [1, 1, 0, 8, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %block_fill, %rows_loop2 = transform.structured.fuse_into_containing_op %slab_fill into %rows_loop
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tile, %tile_loops:2 = transform.structured.fuse %rows tile_sizes [0, 0, 6, 1, 0, 0] interchange [0, 1, 3, 2, 4, 5]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %tile_fill = transform.structured.match attributes{"strata.panel_init"} in %tile_loops#0
      : (!transform.any_op) -> !transform.any_op
    transform.annotate %tile_fill "strata.register_tile" : !transform.any_op
    %reg, %reduction_loop = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, 0, 1, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %reg "strata.register_tile" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @strata_tile_panel_contraction(%op: !transform.any_op {transform.consumed}) {
    %slab, %slab_loop = transform.structured.fuse %op tile_sizes [0, 0, 0, 64, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @strata_tile_panel_slab failures(propagate) (%slab, %slab_loop)
      : (!transform.any_op, !transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @strata_tile_long_panel_contraction(%op: !transform.any_op {transform.consumed}) {
    %slab, %slab_loop = transform.structured.fuse %op tile_sizes [0, 0, 0, 32, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @strata_tile_panel_slab failures(propagate) (%slab, %slab_loop)
      : (!transform.any_op, !transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @strata_tile_contraction_3d(%op: !transform.any_op {transform.consumed}) {
    %rows, %rows_loop = transform.structured.tile_using_forall %op tile_sizes [64, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %cache, %cache_loops:2 = transform.structured.tile_using_for %rows tile_sizes [0, 256, 256]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %reg_loops:3 = transform.structured.tile_using_for %cache tile_sizes [4, 16, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %reg "strata.register_tile" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @strata_tile_contraction_4d(%op: !transform.any_op {transform.consumed}) {
    %rows, %rows_loop = transform.structured.tile_using_forall %op tile_sizes [1, 64, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %cache, %cache_loops:2 = transform.structured.tile_using_for %rows tile_sizes [0, 0, 256, 256]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %reg_loops:4 = transform.structured.tile_using_for %cache tile_sizes [1, 4, 16, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %reg "strata.register_tile" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @strata_cpu_tile_and_vectorize(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    // strata-pack-matmul's copy of B into panels, [1|batch][K][N/16][16] -> [1|batch][N/16][K][16]:
    // one panel per parallel iteration, 8 of its rows per vector step, 16 floats a row.
    %packs = transform.structured.match attributes{"strata.panel_pack"} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %packs : !transform.any_op {
    ^bb0(%pack: !transform.any_op):
      %panel, %panel_loop = transform.structured.tile_using_forall %pack tile_sizes [1, 1, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %pack_rows, %pack_rows_loop = transform.structured.tile_using_for %panel tile_sizes [0, 0, 8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.annotate %pack_rows "strata.register_tile" : !transform.any_op
    }
    %updated = transform.foreach_match in %funcs
        @strata_match_long_panel_contraction -> @strata_tile_long_panel_contraction,
        @strata_match_panel_contraction -> @strata_tile_panel_contraction,
        @strata_match_contraction_3d -> @strata_tile_contraction_3d,
        @strata_match_contraction_4d -> @strata_tile_contraction_4d
      : (!transform.any_op) -> !transform.any_op
    // Tile sizes become static once min(remaining, tile) is folded against the loop bounds.
    transform.apply_patterns to %updated {
      transform.apply_patterns.scf.for_loop_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles = transform.structured.match attributes{"strata.register_tile"} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.sequence %tile : !transform.any_op failures(suppress) {
      ^bb1(%t: !transform.any_op):
        transform.structured.vectorize %t : !transform.any_op
      }
    }
    transform.apply_patterns to %updated {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    transform.yield
  }

  // After bufferization: keep accumulators in registers across the reduction loop, then turn
  // contractions into outer products and those into FMAs.
  transform.named_sequence @strata_cpu_lower_vectors(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %funcs
      : (!transform.any_op) -> !transform.any_op
    // Separate groups: mixing transfer lowering, transposes and canonicalization in one greedy
    // rewrite can ping-pong forever on transposed or unit-sized tiles.
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_masks
    } : !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_transpose
    } : !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
