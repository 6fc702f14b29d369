"""strata-lower-to-iree: strata ops -> the linalg forms IREE compiles best (declared in passes/lower_to_iree.td).

On the IREE route strata's generic-linalg lowerings cost speed (LLaMA block, 2.6x slower than
IREE's own torch input): a linear layer written as a contraction generic absorbs the neighbouring
head-split transposes, so IREE neither data-tiles it nor calls its matmul microkernels, and
attention as 5-loop contraction generics around a four-pass softmax misses the same. This pass
writes them as IREE's torch input does: a linear layer as a named `linalg.matmul`, attention as
`linalg.batch_matmul`s around `linalg.softmax`. `strata-lower-to-linalg` lowers what it leaves.
IREE's fused `iree_linalg_ext.attention` is not used: IREE 3.13's CPU codegen rejects it for the
LLaMA block's shapes ("large vector sizes").
"""

import math

from torch_mlir import ir, rewrite

from strata.ir_splice import DYNAMIC, splice, tensor_type
from strata.linalg_lowerings import ACTIVATION_BODIES, NEG_INF, causal_mask_body


class _Text:
    """The lines of `@lowered`, with helpers for dims and empty tensors."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def dim(self, value: str, value_type: str, index: int) -> str:
        c, d = self.fresh("c"), self.fresh("dim")
        self.lines += [f"{c} = arith.constant {index} : index", f"{d} = tensor.dim {value}, {c} : {value_type}"]
        return d

    def empty(self, shape, elt: str, sources) -> str:
        """A tensor.empty of `shape`; `sources[i]` = (value, its type, dim) gives dynamic dim i."""
        dynamic = [self.dim(*sources[i]) for i, d in enumerate(shape) if d == DYNAMIC]
        name = self.fresh("empty")
        self.lines.append(f"{name} = tensor.empty({', '.join(dynamic)}) : {tensor_type(shape, elt)}")
        return name


def _func(args: list[tuple[str, str]], body: _Text, result: str, result_type: str) -> str:
    params = ", ".join(f"{name}: {ty}" for name, ty in args)
    lines = "\n".join("  " + line for line in body.lines)
    return f"func.func @lowered({params}) -> {result_type} {{\n{lines}\n  return {result} : {result_type}\n}}\n"


def _map(loops: int, exprs) -> str:
    return f"affine_map<({', '.join(f'd{i}' for i in range(loops))}) -> ({', '.join(exprs)})>"


# --- attention ------------------------------------------------------------------------------


def _mask_map(mask_shape) -> list[str]:
    """Loops (b, h, i, j) of the scores that index a `[Lq, Lk]` or `[B|1, H|1, Lq, Lk]` mask."""
    if len(mask_shape) == 2:
        return ["d2", "d3"]
    return ["0" if mask_shape[i] == 1 else f"d{i}" for i in range(2)] + ["d2", "d3"]


def _zero_fully_masked_rows(text: _Text, elt: str, scores: str, scores_t: str, out: str, out_shape) -> str:
    """`out` [bh, i, e] with rows whose `scores` [bh, i, j] are all -inf set to 0."""
    rows, out_t = out_shape[:2], tensor_type(out_shape, elt)
    ninf = text.fresh("ninf")
    text.lines.append(f"{ninf} = arith.constant {NEG_INF[elt]} : {elt}")
    empty = text.empty(rows, elt, [(scores, scores_t, 0), (scores, scores_t, 1)])
    init, row_max, fixed = text.fresh("max_init"), text.fresh("row_max"), text.fresh("zeroed")
    max_t = tensor_type(rows, elt)
    text.lines += [
        f"{init} = linalg.fill ins({ninf} : {elt}) outs({empty} : {max_t}) -> {max_t}",
        f"{row_max} = linalg.generic {{indexing_maps = [{_map(3, ['d0', 'd1', 'd2'])}, {_map(3, ['d0', 'd1'])}],"
        f' iterator_types = ["parallel", "parallel", "reduction"]}} ins({scores} : {scores_t}) outs({init} : {max_t}) {{',
        f"^bb0(%a0: {elt}, %acc: {elt}):",
        f"  %r = arith.maximumf %a0, %acc : {elt}",
        f"  linalg.yield %r : {elt}",
        f"}} -> {max_t}",
    ]
    out_empty = text.empty(out_shape, elt, [(out, out_t, i) for i in range(3)])
    text.lines += [
        f"{fixed} = linalg.generic {{indexing_maps = [{_map(3, ['d0', 'd1', 'd2'])}, {_map(3, ['d0', 'd1'])}, {_map(3, ['d0', 'd1', 'd2'])}],"
        f' iterator_types = ["parallel", "parallel", "parallel"]}} ins({out}, {row_max} : {out_t}, {max_t}) outs({out_empty} : {out_t}) {{',
        f"^bb0(%a0: {elt}, %a1: {elt}, %acc: {elt}):",
        f"  %ninf = arith.constant {NEG_INF[elt]} : {elt}",
        f"  %masked = arith.cmpf oeq, %a1, %ninf : {elt}",
        f"  %zero = arith.constant 0.0 : {elt}",
        f"  %r = arith.select %masked, %zero, %a0 : {elt}",
        f"  linalg.yield %r : {elt}",
        f"}} -> {out_t}",
    ]
    return fixed


def _attention_text(op: ir.Operation) -> str | None:
    """`@lowered` computing op as IREE's torch input writes attention: batch matmuls around a
    `linalg.softmax`; with `fully_masked_rows_zero` and a mask, rows whose scores are all -inf
    (NaN out of the softmax) are set to 0 afterwards."""
    q, k, v = op.operands[0], op.operands[1], op.operands[2]
    mask = op.operands[3] if len(op.operands) > 3 else None
    zero_rows = "fully_masked_rows_zero" in op.attributes and ir.BoolAttr(op.attributes["fully_masked_rows_zero"]).value
    # Causal masking alone keeps every row's diagonal: only a mask can mask a whole row.
    zero_rows = zero_rows and mask is not None
    elt = str(q.type.element_type)
    causal = ir.BoolAttr(op.attributes["is_causal"]).value
    scale = ir.FloatAttr(op.attributes["scale"]).value
    qt, kt, vt, rt = str(q.type), str(k.type), str(v.type), str(op.results[0].type)
    (b, h, lq, e), (lk, ev) = list(q.type.shape), (k.type.shape[2], v.type.shape[3])
    bh = DYNAMIC if DYNAMIC in (b, h) else b * h
    text = _Text()
    args = [("%q", qt), ("%k", kt), ("%v", vt)] + ([("%mask", str(mask.type))] if mask is not None else [])

    def collapse(value: str, ty: str, rest) -> tuple[str, str]:
        name, collapsed = text.fresh("heads"), tensor_type([bh, *rest], elt)
        text.lines.append(f"{name} = tensor.collapse_shape {value} [[0, 1], [2], [3]] : {ty} into {collapsed}")
        return name, collapsed

    def batch_matmul(lhs, lhs_t, rhs, rhs_t, shape, sources) -> tuple[str, str]:
        ty = tensor_type(shape, elt)
        empty = text.empty(shape, elt, sources)
        zero, filled, product = text.fresh("zero"), text.fresh("init"), text.fresh("bmm")
        text.lines += [
            f"{zero} = arith.constant 0.0 : {elt}",
            f"{filled} = linalg.fill ins({zero} : {elt}) outs({empty} : {ty}) -> {ty}",
            f"{product} = linalg.batch_matmul ins({lhs}, {rhs} : {lhs_t}, {rhs_t}) outs({filled} : {ty}) -> {ty}",
        ]
        return product, ty

    q3, q3t = collapse("%q", qt, [lq, e])
    k3, k3t = collapse("%k", kt, [lk, e])
    v3, v3t = collapse("%v", vt, [lk, ev])
    kt_shape = [bh, e, lk]
    kt_empty = text.empty(kt_shape, elt, [(k3, k3t, 0), (k3, k3t, 2), (k3, k3t, 1)])
    k_t, k_tt = text.fresh("key_t"), tensor_type(kt_shape, elt)
    text.lines.append(f"{k_t} = linalg.transpose ins({k3} : {k3t}) outs({kt_empty} : {k_tt}) permutation = [0, 2, 1]")
    scores, scores_t = batch_matmul(q3, q3t, k_t, k_tt, [bh, lq, lk], [(q3, q3t, 0), (q3, q3t, 1), (k3, k3t, 1)])
    # scale, mask and causal masking on the 4-D scores [b, h, i, j]
    shape4 = [b, h, lq, lk]
    s4t = tensor_type(shape4, elt)
    sizes = [str(d) if d != DYNAMIC else text.dim("%q", qt, i) for i, d in enumerate([b, h, lq])]
    sizes.append(str(lk) if lk != DYNAMIC else text.dim("%k", kt, 2))
    scores4 = text.fresh("scores")
    text.lines.append(
        f"{scores4} = tensor.expand_shape {scores} [[0, 1], [2], [3]] output_shape [{', '.join(sizes)}] : {scores_t} into {s4t}"
    )
    identity = ["d0", "d1", "d2", "d3"]
    ins, in_types, maps = [scores4], [s4t], [_map(4, identity)]
    body = [f"%scale = arith.constant {float(scale):.17e} : {elt}", f"%s0 = arith.mulf %a0, %scale : {elt}"]
    last = "%s0"
    if mask is not None:
        ins.append("%mask")
        in_types.append(str(mask.type))
        maps.append(_map(4, _mask_map(list(mask.type.shape))))
        body.append(f"%s1 = arith.addf %s0, %a1 : {elt}")
        last = "%s1"
    if causal:
        body += causal_mask_body(last, elt)
        last = "%s2"
    masked_empty = text.empty(shape4, elt, [(scores4, s4t, i) for i in range(4)])
    masked = text.fresh("masked")
    block = ", ".join(f"%a{i}: {elt}" for i in range(len(ins)))
    text.lines += [
        f"{masked} = linalg.generic {{indexing_maps = [{', '.join(maps + [_map(4, identity)])}],"
        f' iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}'
        f" ins({', '.join(ins)} : {', '.join(in_types)}) outs({masked_empty} : {s4t}) {{",
        f"^bb0({block}, %acc: {elt}):",
        *("  " + line for line in body),
        f"  linalg.yield {last} : {elt}",
        f"}} -> {s4t}",
    ]
    masked3, masked3t = collapse(masked, s4t, [lq, lk])
    probs_empty = text.empty([bh, lq, lk], elt, [(masked3, masked3t, i) for i in range(3)])
    probs = text.fresh("probs")
    text.lines.append(
        f"{probs} = linalg.softmax dimension(2) ins({masked3} : {masked3t}) outs({probs_empty} : {masked3t}) -> {masked3t}"
    )
    out3, out3t = batch_matmul(probs, masked3t, v3, v3t, [bh, lq, ev], [(q3, q3t, 0), (q3, q3t, 1), (v3, v3t, 2)])
    if zero_rows:
        out3 = _zero_fully_masked_rows(text, elt, masked3, masked3t, out3, [bh, lq, ev])
    out_sizes = sizes[:3] + [str(ev) if ev != DYNAMIC else text.dim("%v", vt, 3)]
    result = text.fresh("attention")
    text.lines.append(
        f"{result} = tensor.expand_shape {out3} [[0, 1], [2], [3]] output_shape [{', '.join(out_sizes)}] : {out3t} into {rt}"
    )
    return _func(args, text, result, rt)


# --- linear ---------------------------------------------------------------------------------


def linear_to_matmul(op, rewriter):
    """strata.linear -> collapse, linalg.matmul with the transposed weight, bias+activation, expand."""
    op = op.operation
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) > 2 else None
    rank = x.type.rank
    if rank < 2:
        return True
    elt = str(x.type.element_type)
    xt, wt = str(x.type), str(w.type)
    x_shape, (n, k) = list(x.type.shape), list(w.type.shape)
    lead = x_shape[:-1]
    m = DYNAMIC if DYNAMIC in lead else math.prod(lead)
    text = _Text()
    args = [("%x", xt), ("%w", wt)] + ([("%bias", str(bias.type))] if bias is not None else [])
    x2, x2t = "%x", xt
    if rank > 2:
        x2, x2t = text.fresh("rows"), tensor_type([m, x_shape[-1]], elt)
        text.lines.append(f"{x2} = tensor.collapse_shape %x [{list(range(rank - 1))}, [{rank - 1}]] : {xt} into {x2t}")
    wtt = tensor_type([k, n], elt)
    wt_empty = text.empty([k, n], elt, [("%w", wt, 1), ("%w", wt, 0)])
    transposed = text.fresh("weight_t")
    text.lines.append(f"{transposed} = linalg.transpose ins(%w : {wt}) outs({wt_empty} : {wtt}) permutation = [1, 0]")
    yt = tensor_type([m, n], elt)
    y_empty = text.empty([m, n], elt, [(x2, x2t, 0), ("%w", wt, 0)])
    zero, filled, product = text.fresh("zero"), text.fresh("init"), text.fresh("matmul")
    text.lines += [
        f"{zero} = arith.constant 0.0 : {elt}",
        f"{filled} = linalg.fill ins({zero} : {elt}) outs({y_empty} : {yt}) -> {yt}",
        f"{product} = linalg.matmul ins({x2}, {transposed} : {x2t}, {wtt}) outs({filled} : {yt}) -> {yt}",
    ]
    activation = ir.IntegerAttr(op.attributes["activation"]).value
    result = product
    if bias is not None or activation:
        body = [f"%b = arith.addf %a0, %a1 : {elt}"] if bias is not None else []
        if activation:
            body += [line.replace("%a0", "%b") if bias is not None else line for line in ACTIVATION_BODIES[activation](elt)]
        last = "%r" if activation else "%b"
        ins = [product] + (["%bias"] if bias is not None else [])
        in_types = [yt] + ([str(bias.type)] if bias is not None else [])
        maps = [_map(2, ["d0", "d1"])] + ([_map(2, ["d1"])] if bias is not None else []) + [_map(2, ["d0", "d1"])]
        block = ", ".join(f"%a{i}: {elt}" for i in range(len(ins)))
        result = text.fresh("epilogue")
        text.lines += [
            f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [\"parallel\", \"parallel\"]}}"
            f" ins({', '.join(ins)} : {', '.join(in_types)}) outs({y_empty} : {yt}) {{",
            f"^bb0({block}, %acc: {elt}):",
            *("  " + line for line in body),
            f"  linalg.yield {last} : {elt}",
            f"}} -> {yt}",
        ]
    rt = str(op.results[0].type)
    if rank > 2:
        sizes = [str(d) if d != DYNAMIC else text.dim("%x", xt, i) for i, d in enumerate(lead)]
        sizes.append(str(n) if n != DYNAMIC else text.dim("%w", wt, 0))
        expanded = text.fresh("expanded")
        text.lines.append(
            f"{expanded} = tensor.expand_shape {result} [{list(range(rank - 1))}, [{rank - 1}]]"
            f" output_shape [{', '.join(sizes)}] : {yt} into {rt}"
        )
        result = expanded
    splice(_func(args, text, result, rt), op, rewriter)
    return False


def attention_to_softmax(op, rewriter):
    """strata.attention -> batch_matmul(q, k^T), scale and mask, linalg.softmax, batch_matmul(., v)."""
    text = _attention_text(op.operation)
    if text is None:
        return True
    splice(text, op, rewriter)
    return False


def run(op: ir.Operation, options) -> None:
    patterns = rewrite.RewritePatternSet()
    patterns.add("strata.attention", attention_to_softmax)
    patterns.add("strata.linear", linear_to_matmul)
    rewrite.apply_patterns_and_fold_greedily(op, patterns.freeze())
