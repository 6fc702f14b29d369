"""strata-pack-matmul: static matmuls computed on B packed into column panels (passes/pack_matmul.td).

The CPU register tile reads one panel-wide row of B per reduction step; in a row-major B with a
power-of-two width those rows share one L1 cache set. Copying B once into `[N/panel][K][panel]`
makes the reads contiguous: f32 matmul on the upstream route, copy included, 1024^3 went from 44
to 66 GFLOP/s on one thread and from 86 to 130 on two, 2048^3 from 84 to 141 on two (OpenBLAS: 88,
170, 175), medians of 7 calls, 2026-11-29. C is computed in place through a reshape.
"""

from torch_mlir import ir, rewrite

from strata.ir_splice import splice

# (loop names, A, B panels, C panels) per op; `n1` counts panels, `n0` is the column in a panel.
_FORMS = {
    "linalg.matmul": (["m", "n1", "k", "n0"], "m, k", "n1, k, n0", "m, n1, n0"),
    "linalg.batch_matmul": (["b", "m", "n1", "k", "n0"], "b, m, k", "b, n1, k, n0", "b, m, n1, n0"),
}
# The ops' default indexing maps; explicit other ones (a transposed or broadcast operand) are left.
_DEFAULT_MAPS = {
    "linalg.matmul": "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]",
    "linalg.batch_matmul": "[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]",
}


def _tensor(shape, elt) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{elt}>"


def _panel_text(op: ir.Operation, panel: int, min_rows: int) -> str | None:
    """`@lowered` computing `op` on panels of B, or None where the rewrite does not apply."""
    a, b, c = (v.type for v in op.operands)
    types = (a, b, c)
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    elt = a.element_type
    if not isinstance(elt, ir.FloatType) or any(t.element_type != elt for t in types):
        return None
    if "indexing_maps" in op.attributes and str(op.attributes["indexing_maps"]) != _DEFAULT_MAPS[op.name]:
        return None
    *batch, m, k = a.shape
    n = b.shape[-1]
    if n % panel or m < min_rows:
        return None
    loops, a_map, b_map, c_map = _FORMS[op.name]
    nb = len(batch)
    lead = batch or [1]  # the copy always has a leading (batch) dim, so one transform rule tiles it
    n1 = n // panel
    b4, packed4 = _tensor([*lead, k, n1, panel], elt), _tensor([*lead, n1, k, panel], elt)
    packed = _tensor([*batch, n1, k, panel], elt)
    c3 = _tensor([*batch, m, n1, panel], elt)
    b_expand = [[0], [1], [2, 3]] if batch else [[0, 1], [2, 3]]
    packed_collapse = "" if batch else (
        f"\n  %panels = tensor.collapse_shape %panels4 [[0, 1], [2], [3]] : {packed4} into {packed}"
    )
    panels = "%panels4" if batch else "%panels"
    c_groups = [[i] for i in range(nb)] + [[nb], [nb + 1, nb + 2]]
    iterators = ", ".join('"reduction"' if name == "k" else '"parallel"' for name in loops)
    dims = ", ".join(loops)
    return f"""
func.func @lowered(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %b4 = tensor.expand_shape %b {b_expand} output_shape [{', '.join(map(str, [*lead, k, n1, panel]))}] : {b} into {b4}
  %empty = tensor.empty() : {packed4}
  %panels4 = linalg.transpose ins(%b4 : {b4}) outs(%empty : {packed4}) permutation = [0, 2, 1, 3] {{strata.panel_pack}}{packed_collapse}
  %c3 = tensor.expand_shape %c {c_groups} output_shape [{', '.join(map(str, [*batch, m, n1, panel]))}] : {c} into {c3}
  %r = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({a_map})>, affine_map<({dims}) -> ({b_map})>,
                                         affine_map<({dims}) -> ({c_map})>],
                        iterator_types = [{iterators}]}}
      ins(%a, {panels} : {a}, {packed}) outs(%c3 : {c3}) attrs = {{strata.panel_matmul}} {{
  ^bb0(%x: {elt}, %y: {elt}, %acc: {elt}):
    %p = arith.mulf %x, %y : {elt}
    %s = arith.addf %acc, %p : {elt}
    linalg.yield %s : {elt}
  }} -> {c3}
  %out = tensor.collapse_shape %r {c_groups} : {c3} into {c}
  return %out : {c}
}}
"""


def run(op: ir.Operation, options) -> None:
    def pack(matmul, rewriter):
        text = _panel_text(matmul.operation, options.panel, options.min_rows)
        if text is None:
            return True
        splice(text, matmul, rewriter)
        return False

    patterns = rewrite.RewritePatternSet()
    for name in _FORMS:
        patterns.add(name, pack)
    rewrite.apply_patterns_and_fold_greedily(op, patterns.freeze())
