"""The per-op verifiers that strata's ODS announces with `hasVerifier = 1`.

They check what types cannot say (shape relations between operands); each op's description in
`dialects/*.td` states its rule. A verifier returns the error message (without the
`'op.name' op ` prefix) or None, and runs only after the op's ODS constraints passed, as in MLIR.
Dynamic dimensions are compatible with any size.
"""

from typing import Callable

from torch_mlir._mlir_libs._mlir import ir  # native: `torch_mlir.ir` imports numpy (~0.1 s per tool start)

DYNAMIC = ir.ShapedType.get_dynamic_size()


def _same(a: int, b: int) -> bool:
    return a == DYNAMIC or b == DYNAMIC or a == b


def _same_shape(a: list[int], b: list[int]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


def _fmt(shape) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC else str(d) for d in shape) + "]"


def _int(attr) -> int:
    return attr.value


def verify_softmax(op: ir.Operation, values: dict) -> str | None:
    rank = values["input"].type.rank
    dim = _int(op.attributes["dim"])
    if not -rank <= dim < rank:
        return f"dim {dim} is out of range for a rank-{rank} input (expected [{-rank}, {rank}))"
    return None


def _verify_normalization(op: ir.Operation, values: dict, affine_names: tuple[str, ...]) -> str | None:
    input_type = values["input"].type
    normalized = list(op.attributes["normalized_shape"])
    trailing = input_type.shape[input_type.rank - len(normalized):] if len(normalized) <= input_type.rank else None
    if trailing is None or not _same_shape(trailing, normalized):
        return (
            f"normalized_shape {_fmt(normalized)} must equal the trailing dimensions of the input "
            f"{_fmt(input_type.shape)}"
        )
    for name in affine_names:
        value = values.get(name)
        if value is None:
            continue
        if not _same_shape(value.type.shape, normalized):
            return f"{name} shape {_fmt(value.type.shape)} must equal normalized_shape {_fmt(normalized)}"
        if value.type.element_type != input_type.element_type:
            return f"{name} element type {value.type.element_type} must match the input's {input_type.element_type}"
    return None


def verify_layer_norm(op: ir.Operation, values: dict) -> str | None:
    return _verify_normalization(op, values, ("weight", "bias"))


def verify_rms_norm(op: ir.Operation, values: dict) -> str | None:
    return _verify_normalization(op, values, ("weight",))


def verify_attention(op: ir.Operation, values: dict) -> str | None:
    q, k, v, out = (values[n].type.shape for n in ("query", "key", "value", "result"))
    for name, shape in (("key", k), ("value", v), ("result", out)):
        if not _same_shape(shape[:2], q[:2]):
            return f"{name} batch and head dims {_fmt(shape[:2])} must match the query's {_fmt(q[:2])}"
    if not _same(q[3], k[3]):
        return f"query head dim {q[3]} must match the key head dim {k[3]}"
    if not _same(k[2], v[2]):
        return f"key sequence length {k[2]} must match the value sequence length {v[2]}"
    expected = [q[0], q[1], q[2], v[3]]
    if not _same_shape(out, expected):
        return f"result shape {_fmt(out)} must be [batch, heads, Lq, Ev] = {_fmt(expected)}"
    mask = values.get("mask")
    if mask is not None:
        if op.attributes["is_causal"].value:
            return "takes either a mask or is_causal, not both"
        shape = mask.type.shape
        scores = [q[0], q[1], q[2], k[2]]
        broadcastable = (len(shape) == 2 and _same_shape(shape, scores[2:])) or (
            len(shape) == 4
            and all(d == 1 or _same(d, s) for d, s in zip(shape[:2], scores[:2]))
            and _same_shape(shape[2:], scores[2:])
        )
        if not broadcastable:
            return f"mask shape {_fmt(shape)} does not broadcast to the scores {_fmt(scores)}"
        if mask.type.element_type != values["query"].type.element_type:
            return f"mask element type {mask.type.element_type} must match the query's"
    return None


def verify_linear(op: ir.Operation, values: dict) -> str | None:
    input_shape = values["input"].type.shape
    weight_shape = values["weight"].type.shape
    if len(weight_shape) != 2:
        return f"weight must be 2-D [N, K], got {_fmt(weight_shape)}"
    if not input_shape:
        return "input must have at least one dimension"
    n, k = weight_shape
    if not _same(input_shape[-1], k):
        return f"weight K {k} must match the input's last dimension {input_shape[-1]}"
    bias = values.get("bias")
    if bias is not None:
        if not _same_shape(bias.type.shape, [n]):
            return f"bias shape {_fmt(bias.type.shape)} must be [N] = [{n}]"
        if bias.type.element_type != values["input"].type.element_type:
            return "bias element type must match the input's"
    expected = input_shape[:-1] + [n]
    result_shape = values["result"].type.shape
    if not _same_shape(result_shape, expected):
        return f"result shape {_fmt(result_shape)} must be {_fmt(expected)}"
    return None


VERIFIERS: dict[str, Callable[[ir.Operation, dict], str | None]] = {
    "strata.softmax": verify_softmax,
    "strata.layer_norm": verify_layer_norm,
    "strata.rms_norm": verify_rms_norm,
    "strata.attention": verify_attention,
    "strata.linear": verify_linear,
}
