"""strata-raise-torch: torch-dialect subgraphs -> strata ops (declared in passes/raise_torch.td).

Each pattern recognizes one operator in one spelling and is written as a `torch_match` tree.
Patterns run in rounds, each greedy to a fixed point, so that a pattern containing a raised op
finds it already raised: first the operators built from torch ops only (softmax, norms,
activations, sdpa); then attention (around a raised softmax) and norm weights; then linear
layers, their biases, and (option fuse-activations) the activation after them. Finally the torch
ops the raised subgraphs replaced, now unused, are erased.
"""

from torch_mlir import ir, rewrite

from strata.dialects import strata as S
from strata.dialects.verification import op_error
from strata.torch_bridge import builtin_float_type, erase_dead_values, from_builtin, shape, to_builtin
from strata.torch_match import ANY, AnyOf, Const, Op, Var, match_op


def _raise(rewriter, root: ir.Operation, build) -> bool:
    """Replaces `root` by the strata op `build(cast)` makes; False (= success) if it verified.

    `build` receives `cast(torch_value) -> builtin value` and returns the strata op. If the op
    does not verify, everything created is erased and the match fails.
    """
    root = root.operation if isinstance(root, ir.OpView) else root
    if not list(root.results[0].uses):
        return True  # dead: a larger pattern already replaced its user
    result_type = root.results[0].type
    if builtin_float_type(result_type) is None:
        return True
    loc, ip = root.location, rewriter.ip
    casts = []

    def cast(value: ir.Value) -> ir.Value:
        if isinstance(value.type, ir.RankedTensorType):
            return value  # already a builtin tensor (a raised op's operand)
        builtin, created = to_builtin(value, loc=loc, ip=ip)
        if created:
            casts.append(_defining_op(builtin))
        return builtin

    with loc, ip:
        new_op = build(cast).operation
    if op_error(new_op):
        rewriter.erase_op(new_op)
        for created in reversed(casts):
            rewriter.erase_op(created)
        return True
    rewriter.replace_op(root, [from_builtin(new_op.results[0], result_type, loc=loc, ip=ip)])
    return False


def _raised(name: str, *operands, bind: str) -> Op:
    """A torch value produced by the strata op `name` (bound to `bind`) through the casts.

    With `operands`, the op's leading operands must be casts of torch values matching them; without,
    its operands are not looked at (folds only need the op itself).
    """
    matched = [Op("torch_c.to_builtin_tensor", o) for o in operands] or [ANY]
    return Op("torch_c.from_builtin_tensor", Op(name, *matched, prefix=True, bind=bind))


def _has_one_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def _defining_op(value: ir.Value) -> ir.Operation:
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView) else owner


def _broadcast(pattern):
    """`pattern`, possibly behind an explicit broadcast_to (decompositions insert them)."""
    return AnyOf(Op("torch.aten.broadcast_to", pattern, ANY), pattern)


# --- softmax -------------------------------------------------------------------------------

SOFTMAX_ATEN = AnyOf(
    Op("torch.aten.softmax.int", Var("x"), Const(bind="dim"), Const(None)),
    Op("torch.aten._softmax", Var("x"), Const(bind="dim"), Const(False)),
)


def raise_softmax(op, rewriter):
    found = match_op(SOFTMAX_ATEN, op)
    if found is None:
        return True
    return _raise(rewriter, op, lambda cast: S.SoftmaxOp(cast(found["x"]), found["dim"]))


_ROW_MAX = AnyOf(
    Op("torch.aten.max.dim", Var("x"), Const(bind="dim"), Const(True), result=0),
    Op("torch.aten.amax", Var("x"), Const(bind="dims"), Const(True)),
)
SOFTMAX_DECOMPOSED = Op(
    "torch.aten.div.Tensor",
    Op("torch.aten.exp", Op("torch.aten.sub.Tensor", Var("x"), _ROW_MAX, Const(1.0)), bind="e"),
    Op("torch.aten.sum.dim_IntList", Var("e"), Const(bind="sum_dims"), Const(True), Const(None)),
)


def raise_softmax_decomposed(op, rewriter):
    """exp(x - max(x, d)) / sum(exp(x - max(x, d)), d) with the same d in max and sum."""
    found = match_op(SOFTMAX_DECOMPOSED, op)
    if found is None:
        return True
    dim = found.get("dim", (found.get("dims") or [None])[0])
    if found["sum_dims"] != [dim] or found.get("dims", [dim]) != [dim]:
        return True
    return _raise(rewriter, op, lambda cast: S.SoftmaxOp(cast(found["x"]), dim))


# --- RMSNorm -------------------------------------------------------------------------------

_SQUARE = AnyOf(
    Op("torch.aten.pow.Tensor_Scalar", Var("x"), Const(2)),
    Op("torch.aten.mul.Tensor", Var("x"), Var("x")),
)
_MEAN_SQUARE = AnyOf(
    Op("torch.aten.mean.dim", _SQUARE, Const(bind="dims"), Const(True), Const(None)),
    Op(
        "torch.aten.div.Scalar",
        Op("torch.aten.sum.dim_IntList", _SQUARE, Const(bind="dims"), Const(True), Const(None)),
        Const(bind="count"),
    ),
)
RMS_NORM = Op(
    "torch.aten.mul.Tensor",
    Var("x"),
    _broadcast(Op("torch.aten.rsqrt", Op("torch.aten.add.Scalar", _MEAN_SQUARE, Const(bind="eps"), Const(1)))),
    commutative=True,
)


def raise_rms_norm(op, rewriter):
    """x * rsqrt(mean(x^2, -1) + eps), the mean over the last dim (or sum / size)."""
    found = match_op(RMS_NORM, op)
    if found is None or shape(found["x"]) is None:
        return True
    x_shape = shape(found["x"])
    if found["dims"] not in ([-1], [len(x_shape) - 1]) or found.get("count", x_shape[-1]) != x_shape[-1]:
        return True
    if not isinstance(found["eps"], float) or found["eps"] <= 0:
        return True
    return _raise(rewriter, op, lambda cast: S.RmsNormOp(cast(found["x"]), [x_shape[-1]], found["eps"], results=[cast(found["x"]).type]))


RMS_NORM_TIMES_WEIGHT = Op(
    "torch.aten.mul.Tensor", _raised("strata.rms_norm", bind="norm"), Var("w"), commutative=True
)


def fold_rms_norm_weight(op, rewriter):
    """rms_norm(x) * w with w shaped like the normalized dims -> rms_norm(x, weight=w)."""
    found = match_op(RMS_NORM_TIMES_WEIGHT, op)
    if found is None:
        return True
    norm = _defining_op(found["norm"])
    if len(norm.operands) != 1 or not _has_one_use(norm.results[0]):
        return True
    x, attrs = norm.operands[0], norm.attributes
    return _raise(
        rewriter,
        op,
        lambda cast: S.RmsNormOp(x, attrs["normalized_shape"], attrs["eps"], weight=cast(found["w"]), results=[x.type]),
    )


# --- layer norm ----------------------------------------------------------------------------

LAYER_NORM_ATEN = Op(
    "torch.aten.layer_norm", Var("x"), Const(bind="shape"), Var("w"), Var("b"), Const(bind="eps"), Const(bind="cudnn")
)


def raise_layer_norm(op, rewriter):
    found = match_op(LAYER_NORM_ATEN, op)
    if found is None:
        return True
    optional = {}
    for name in ("w", "b"):
        if not _is_none(found[name]):
            optional["weight" if name == "w" else "bias"] = found[name]
    return _raise(
        rewriter,
        op,
        lambda cast: S.LayerNormOp(
            cast(found["x"]), found["shape"], found["eps"], results=[cast(found["x"]).type],
            **{k: cast(v) for k, v in optional.items()},
        ),
    )


def _mean(pattern, dims: str, count: str):
    return AnyOf(
        Op("torch.aten.mean.dim", pattern, Const(bind=dims), Const(True), Const(None)),
        Op(
            "torch.aten.div.Scalar",
            Op("torch.aten.sum.dim_IntList", pattern, Const(bind=dims), Const(True), Const(None)),
            Const(bind=count),
        ),
    )


_CENTERED = Op("torch.aten.sub.Tensor", Var("x"), _broadcast(_mean(Var("x"), "dims", "count")), Const(1), bind="centered")
_VARIANCE = _mean(Op("torch.aten.mul.Tensor", Var("centered"), Var("centered")), "var_dims", "var_count")
# torch's native_layer_norm decomposition computes the variance in f64 and casts it back.
_X_F64 = Op("torch.aten.to.dtype", Var("x"), ANY, Const(False), Const(False), Const(None))
_CENTERED_F64 = Op(
    "torch.aten.sub.Tensor", _X_F64, _broadcast(_mean(_X_F64, "dims64", "count64")), Const(1), bind="centered64"
)
_VARIANCE_F64 = Op(
    "torch.aten.to.dtype",
    _mean(Op("torch.aten.mul.Tensor", _CENTERED_F64, Var("centered64")), "var_dims", "var_count"),
    ANY, Const(False), Const(False), Const(None),
)
LAYER_NORM_DECOMPOSED = Op(
    "torch.aten.mul.Tensor",
    _CENTERED,
    _broadcast(
        Op(
            "torch.aten.rsqrt",
            Op("torch.aten.add.Scalar", AnyOf(_VARIANCE, _VARIANCE_F64), Const(bind="eps"), Const(1)),
        )
    ),
)


def raise_layer_norm_decomposed(op, rewriter):
    """(x - mean(x)) * rsqrt(mean((x - mean(x))^2) + eps) over trailing dims, no weight or bias.

    The variance may be computed in f64 and cast back, as torch's own decomposition does.
    """
    found = match_op(LAYER_NORM_DECOMPOSED, op)
    if found is None or shape(found["x"]) is None:
        return True
    x_shape = shape(found["x"])
    rank = len(x_shape)
    dims = sorted(d % rank for d in found["dims"])
    k = len(dims)
    if dims != list(range(rank - k, rank)) or sorted(d % rank for d in found["var_dims"]) != dims:
        return True
    normalized = x_shape[rank - k:]
    count = 1
    for d in normalized:
        count *= d
    if any(found.get(name, count) != count for name in ("count", "var_count", "count64")):
        return True
    if "dims64" in found and sorted(d % rank for d in found["dims64"]) != dims:
        return True
    if not isinstance(found["eps"], float) or found["eps"] <= 0:
        return True
    return _raise(
        rewriter, op,
        lambda cast: S.LayerNormOp(cast(found["x"]), normalized, found["eps"], results=[cast(found["x"]).type]),
    )


LAYER_NORM_TIMES_WEIGHT = Op(
    "torch.aten.mul.Tensor", _raised("strata.layer_norm", bind="norm"), Var("w"), commutative=True
)
LAYER_NORM_PLUS_BIAS = Op(
    "torch.aten.add.Tensor", _raised("strata.layer_norm", bind="norm"), Var("b"), Const(1)
)


def _fold_into_layer_norm(pattern, role: str):
    def fold(op, rewriter):
        found = match_op(pattern, op)
        if found is None:
            return True
        norm = _defining_op(found["norm"])
        segments = list(norm.attributes["operandSegmentSizes"])
        operands = list(norm.operands)
        if not _has_one_use(norm.results[0]) or segments[2] or (role == "weight" and segments[1]):
            return True
        weight = operands[1] if segments[1] else None
        attrs = norm.attributes
        return _raise(
            rewriter, op,
            lambda cast: S.LayerNormOp(
                operands[0], attrs["normalized_shape"], attrs["eps"], results=[operands[0].type],
                weight=cast(found["w"]) if role == "weight" else weight,
                bias=cast(found["b"]) if role == "bias" else None,
            ),
        )

    fold.__doc__ = f"layer_norm(x) {'* w' if role == 'weight' else '+ b'} -> layer_norm with that {role}."
    return fold


fold_layer_norm_weight = _fold_into_layer_norm(LAYER_NORM_TIMES_WEIGHT, "weight")
fold_layer_norm_bias = _fold_into_layer_norm(LAYER_NORM_PLUS_BIAS, "bias")


def _is_none(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.OpView) and owner.operation.name == "torch.constant.none"


# --- activations ---------------------------------------------------------------------------

SILU = AnyOf(
    Op("torch.aten.silu", Var("x")),
    Op("torch.aten.mul.Tensor", Var("x"), Op("torch.aten.sigmoid", Var("x")), commutative=True),
)


def raise_silu(op, rewriter):
    """silu(x) and x * sigmoid(x)."""
    found = match_op(SILU, op)
    if found is None:
        return True
    return _raise(rewriter, op, lambda cast: S.SiluOp(cast(found["x"])))


GELU_ATEN = Op("torch.aten.gelu", Var("x"), Const(lambda v: v in ("none", "tanh"), bind="approximate"))


def raise_gelu(op, rewriter):
    found = match_op(GELU_ATEN, op)
    if found is None:
        return True
    approximation = S.GeluApproximation.Tanh if found["approximate"] == "tanh" else S.GeluApproximation.None_
    return _raise(rewriter, op, lambda cast: S.GeluOp(cast(found["x"]), approximation))


_SQRT_2_OVER_PI = 0.7978845608028654
_CUBE = AnyOf(
    Op("torch.aten.pow.Tensor_Scalar", Var("x"), Const(3)),
    Op("torch.aten.mul.Tensor", Op("torch.aten.mul.Tensor", Var("x"), Var("x")), Var("x"), commutative=True),
)
_INNER = Op(
    "torch.aten.add.Tensor",
    Var("x"),
    Op("torch.aten.mul.Scalar", _CUBE, Const(0.044715)),
    Const(1),
    commutative=True,
)
_ONE_PLUS_TANH = Op(
    "torch.aten.add.Scalar",
    Op("torch.aten.tanh", Op("torch.aten.mul.Scalar", _INNER, Const(_SQRT_2_OVER_PI))),
    Const(1.0),
    Const(1),
)
GELU_TANH_WRITTEN_OUT = AnyOf(
    Op("torch.aten.mul.Tensor", Op("torch.aten.mul.Scalar", Var("x"), Const(0.5)), _ONE_PLUS_TANH, commutative=True),
    Op("torch.aten.mul.Scalar", Op("torch.aten.mul.Tensor", Var("x"), _ONE_PLUS_TANH, commutative=True), Const(0.5)),
)


def raise_gelu_tanh_written_out(op, rewriter):
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))."""
    found = match_op(GELU_TANH_WRITTEN_OUT, op)
    if found is None:
        return True
    return _raise(rewriter, op, lambda cast: S.GeluOp(cast(found["x"]), S.GeluApproximation.Tanh))


# --- linear layers -------------------------------------------------------------------------

_WEIGHT_T = AnyOf(
    Op("torch.aten.permute", Var("w"), Const([1, 0])),
    Op("torch.aten.t", Var("w")),
    Op("torch.aten.transpose.int", Var("w"), Const(lambda v: v in (0, -2)), Const(lambda v: v in (1, -1))),
)
LINEAR = AnyOf(
    Op("torch.aten.linear", Var("x"), Var("w"), Var("b")),
    Op("torch.aten.view", Op("torch.aten.mm", Op("torch.aten.view", Var("x"), ANY), _WEIGHT_T), ANY),
    Op(
        "torch.aten.view",
        Op("torch.aten.addmm", Var("b"), Op("torch.aten.view", Var("x"), ANY), _WEIGHT_T, Const(1), Const(1)),
        ANY,
    ),
    Op("torch.aten.mm", Var("x"), _WEIGHT_T),
    Op("torch.aten.addmm", Var("b"), Var("x"), _WEIGHT_T, Const(1), Const(1)),
)


def raise_linear(op, rewriter):
    """x @ w^T (+ b) as aten.linear, or mm/addmm with a transposed weight, flattened by views."""
    found = match_op(LINEAR, op)
    if found is None:
        return True
    x_shape, out_shape = shape(found["x"]), shape(op.results[0])
    if x_shape is None or out_shape is None or x_shape[:-1] != out_shape[:-1]:
        return True  # the views must only flatten and restore the leading dims
    bias = found.get("b")
    bias = None if bias is None or _is_none(bias) else bias
    out_type = builtin_float_type(op.results[0].type)
    return _raise(
        rewriter,
        op,
        lambda cast: S.LinearOp(
            out_type, cast(found["x"]), cast(found["w"]), S.Activation.None_,
            bias=cast(bias) if bias is not None else None,
        ),
    )


def _times_one(pattern):
    """`pattern`, possibly multiplied by 1 (torch's addmm decomposition scales by beta and alpha)."""
    return AnyOf(Op("torch.aten.mul.Scalar", pattern, Const(1)), pattern)


LINEAR_PLUS_BIAS = Op(
    "torch.aten.add.Tensor", _times_one(_raised("strata.linear", bind="linear")), _times_one(Var("b")), Const(1)
)


def fold_linear_bias(op, rewriter):
    """linear(x, w) + b with b of shape [N] -> linear(x, w, b)."""
    found = match_op(LINEAR_PLUS_BIAS, op)
    if found is None:
        return True
    linear = _defining_op(found["linear"])
    operands = list(linear.operands)
    if len(operands) != 2 or not _has_one_use(linear.results[0]):
        return True
    return _raise(
        rewriter, op,
        lambda cast: S.LinearOp(
            linear.results[0].type, operands[0], operands[1], linear.attributes["activation"], bias=cast(found["b"])
        ),
    )


_LINEAR = Op("strata.linear", ANY, prefix=True, bind="linear")
_LINEAR_BUILTIN = AnyOf(
    _LINEAR, Op("torch_c.to_builtin_tensor", Op("torch_c.from_builtin_tensor", _LINEAR))
)
LINEAR_THEN_ACTIVATION = AnyOf(
    Op("torch_c.from_builtin_tensor", Op("strata.silu", _LINEAR_BUILTIN, bind="act")),
    Op("torch_c.from_builtin_tensor", Op("strata.gelu", _LINEAR_BUILTIN, bind="act")),
    Op("torch.aten.relu", Op("torch_c.from_builtin_tensor", _LINEAR)),
)


def fuse_linear_activation(op, rewriter):
    """activation(linear(x)) -> linear(x) with the activation fused (option fuse-activations)."""
    found = match_op(LINEAR_THEN_ACTIVATION, op)
    if found is None:
        return True
    linear = _defining_op(found["linear"])
    if linear.attributes["activation"].value != int(S.Activation.None_) or not _has_one_use(linear.results[0]):
        return True
    if "act" in found:
        act = _defining_op(found["act"])
        if act.name == "strata.silu":
            activation = S.Activation.Silu
        elif act.attributes["approximation"].value == int(S.GeluApproximation.Tanh):
            activation = S.Activation.GeluTanh
        else:
            activation = S.Activation.Gelu
    else:
        activation = S.Activation.Relu
    operands = list(linear.operands)
    out_type = linear.results[0].type
    return _raise(
        rewriter,
        op,
        lambda cast: S.LinearOp(out_type, operands[0], operands[1], activation, bias=operands[2] if len(operands) > 2 else None),
    )


# --- attention -----------------------------------------------------------------------------

_KEY_T = AnyOf(
    Op("torch.aten.permute", Var("k"), Const([0, 1, 3, 2])),
    Op("torch.aten.transpose.int", Var("k"), Const(lambda v: v in (-2, 2)), Const(lambda v: v in (-1, 3))),
    Op("torch.aten.transpose.int", Var("k"), Const(lambda v: v in (-1, 3)), Const(lambda v: v in (-2, 2))),
)
_SCORES = AnyOf(
    Op("torch.aten.matmul", Var("q"), _KEY_T),
    Op("torch.aten.view", Op("torch.aten.bmm", Op("torch.aten.view", Var("q"), ANY), Op("torch.aten.view", _KEY_T, ANY)), ANY),
)
_SCALED = AnyOf(
    Op("torch.aten.mul.Scalar", _SCORES, Const(lambda v: isinstance(v, (int, float)), bind="scale")),
    Op("torch.aten.div.Scalar", _SCORES, Const(lambda v: isinstance(v, (int, float)) and v != 0, bind="divisor")),
    _SCORES,
)
_MASKED = AnyOf(Op("torch.aten.add.Tensor", _SCALED, Var("mask"), Const(1)), _SCALED)
_PROBS = _raised("strata.softmax", _MASKED, bind="softmax")
ATTENTION = AnyOf(
    Op("torch.aten.matmul", _PROBS, Var("v")),
    Op("torch.aten.view", Op("torch.aten.bmm", Op("torch.aten.view", _PROBS, ANY), Op("torch.aten.view", Var("v"), ANY)), ANY),
)


def raise_attention(op, rewriter):
    """softmax(q @ k^T * scale + mask, dim=-1) @ v on [batch, heads, seq, head_dim] tensors."""
    found = match_op(ATTENTION, op)
    if found is None:
        return True
    if not _has_one_use(found["softmax"]):
        return True
    scale = float(found.get("scale", 1.0 / found.get("divisor", 1.0)))
    return _raise_attention(rewriter, op, found["q"], found["k"], found["v"], found["softmax"], scale, found.get("mask"))


def _raise_attention(rewriter, op, q, k, v, softmax_result, scale, mask, fully_masked_rows_zero=False):
    """Replaces `op` by one strata.attention if q, k, v are 4-d and the softmax runs over keys."""
    softmax = _defining_op(softmax_result)
    if any(s is None or len(s) != 4 for s in map(shape, (q, k, v))) or softmax.attributes["dim"].value not in (-1, 3):
        return True
    if not isinstance(scale, float) or scale <= 0:
        return True
    out_type = builtin_float_type(op.results[0].type)
    return _raise(
        rewriter,
        op,
        lambda cast: S.AttentionOp(
            out_type, cast(q), cast(k), cast(v),
            ir.FloatAttr.get(ir.F64Type.get(), scale), ir.BoolAttr.get(False),
            mask=cast(mask) if mask is not None else None,
            fully_masked_rows_zero=ir.BoolAttr.get(True) if fully_masked_rows_zero else None,
        ),
    )


SDPA = Op(
    "torch.aten.scaled_dot_product_attention",
    Var("q"), Var("k"), Var("v"), Var("mask"), Const(0.0), Const(bind="is_causal"), Const(bind="scale"),
    prefix=True,
)


def raise_sdpa(op, rewriter):
    """aten.scaled_dot_product_attention without dropout (scale defaults to 1/sqrt(E))."""
    found = match_op(SDPA, op)
    if found is None or len(list(op.operands)) > 8:
        return True
    if len(list(op.operands)) == 8 and match_op(Const(False), op.operands[7].owner) is None:
        return True  # enable_gqa: key/value heads shared across query heads, which strata.attention does not do
    q = shape(found["q"])
    if q is None or len(q) != 4:
        return True
    scale = found["scale"] if found["scale"] is not None else q[3] ** -0.5
    mask = None if _is_none(found["mask"]) else found["mask"]
    out_type = builtin_float_type(op.results[0].type)
    return _raise(
        rewriter,
        op,
        lambda cast: S.AttentionOp(
            out_type, cast(found["q"]), cast(found["k"]), cast(found["v"]),
            ir.FloatAttr.get(ir.F64Type.get(), float(scale)), ir.BoolAttr.get(bool(found["is_causal"])),
            mask=cast(mask) if mask is not None else None,
            # scaled_dot_product_attention gives 0, not NaN, for a query whose keys are all masked.
            fully_masked_rows_zero=ir.BoolAttr.get(True),
        ),
    )


# torch.export's decomposition of scaled_dot_product_attention: q and k^T each scaled by
# sqrt(scale), scores (plus the mask, causal masks materialized as one), softmax, and a guard that
# zeroes the rows whose scores are all -inf, then the product with v.
_GUARDED_PROBS = Op(
    "torch.aten.where.self",
    Op(
        "torch.aten.all.dim",
        Op("torch.aten.eq.Scalar", Var("scores"), Const(float("-inf"))),
        Const(lambda v: v in (-1, 3)),
        Const(True),
    ),
    Var("zeros"),
    _raised("strata.softmax", Var("scores"), bind="softmax"),
)
SDPA_DECOMPOSED = AnyOf(
    Op("torch.aten.matmul", _GUARDED_PROBS, Var("v")),
    Op(
        "torch.aten.view",
        Op("torch.aten.bmm", Op("torch.aten.view", _GUARDED_PROBS, ANY), Op("torch.aten.view", Var("v"), ANY)),
        ANY,
    ),
)
_SCALED_Q_KT = AnyOf(
    Op("torch.aten.matmul", Op("torch.aten.mul.Scalar", Var("q"), Const(bind="q_scale")),
       Op("torch.aten.mul.Scalar", _KEY_T, Const(bind="k_scale"))),
    Op(
        "torch.aten.view",
        Op(
            "torch.aten.bmm",
            Op("torch.aten.view", Op("torch.aten.mul.Scalar", Var("q"), Const(bind="q_scale")), ANY),
            Op("torch.aten.view", Op("torch.aten.mul.Scalar", _KEY_T, Const(bind="k_scale")), ANY),
        ),
        ANY,
    ),
)
SDPA_SCORES = AnyOf(Op("torch.aten.add.Tensor", _SCALED_Q_KT, Var("mask"), Const(1)), _SCALED_Q_KT)


def _is_zero_literal(value: ir.Value) -> bool:
    owner = _defining_op(value)
    if owner is None or owner.name != "torch.vtensor.literal":
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.DenseElementsAttr) and attr.is_splat and attr.get_splat_value().value == 0.0


def raise_sdpa_decomposed(op, rewriter):
    """torch.export's guarded scaled_dot_product_attention (see SDPA_DECOMPOSED)."""
    found = match_op(SDPA_DECOMPOSED, op)
    if found is None or not _is_zero_literal(found["zeros"]):
        return True
    scores = match_op(SDPA_SCORES, _defining_op(found["scores"]))
    if scores is None:
        return True
    scale = scores["q_scale"] * scores["k_scale"]
    return _raise_attention(
        rewriter, op, scores["q"], scores["k"], found["v"], found["softmax"], scale, scores.get("mask"),
        fully_masked_rows_zero=True,
    )


# --- the pass ------------------------------------------------------------------------------

FIRST_ROUND = [
    ("torch.aten.softmax.int", raise_softmax),
    ("torch.aten._softmax", raise_softmax),
    ("torch.aten.div.Tensor", raise_softmax_decomposed),
    ("torch.aten.mul.Tensor", raise_rms_norm),
    ("torch.aten.layer_norm", raise_layer_norm),
    # Outranks RMSNorm, which also matches a layer norm's centered half (its normalization of x - mean).
    ("torch.aten.mul.Tensor", raise_layer_norm_decomposed, 2),
    ("torch.aten.silu", raise_silu),
    ("torch.aten.mul.Tensor", raise_silu),
    ("torch.aten.gelu", raise_gelu),
    ("torch.aten.mul.Tensor", raise_gelu_tanh_written_out),
    ("torch.aten.mul.Scalar", raise_gelu_tanh_written_out),
    ("torch.aten.scaled_dot_product_attention", raise_sdpa),
]
SECOND_ROUND = [
    ("torch.aten.mul.Tensor", fold_rms_norm_weight),
    ("torch.aten.mul.Tensor", fold_layer_norm_weight),
    ("torch.aten.matmul", raise_attention),
    ("torch.aten.view", raise_attention),
    ("torch.aten.matmul", raise_sdpa_decomposed),
    ("torch.aten.view", raise_sdpa_decomposed),
]
LINEAR_ROUND = [
    ("torch.aten.linear", raise_linear),
    ("torch.aten.view", raise_linear),
    ("torch.aten.mm", raise_linear),
    ("torch.aten.addmm", raise_linear),
]
BIAS_ROUND = [
    ("torch.aten.add.Tensor", fold_layer_norm_bias),
    ("torch.aten.add.Tensor", fold_linear_bias),
]
FUSION_ROUND = [
    ("torch_c.from_builtin_tensor", fuse_linear_activation),
    ("torch.aten.relu", fuse_linear_activation),
]


def _apply(op: ir.Operation, patterns) -> None:
    """Applies `patterns` ((root op name, pattern[, benefit]) entries) greedily under `op`."""
    patterns_set = rewrite.RewritePatternSet()
    for root, fn, *benefit in patterns:
        patterns_set.add(root, fn, *benefit)
    rewrite.apply_patterns_and_fold_greedily(op, patterns_set.freeze())


def run(op: ir.Operation, options) -> None:
    _apply(op, FIRST_ROUND)
    _apply(op, SECOND_ROUND)
    _apply(op, LINEAR_ROUND)
    _apply(op, BIAS_ROUND)
    if options.fuse_activations:
        _apply(op, FUSION_ROUND)
    erase_dead_values(op)
