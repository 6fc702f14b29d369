"""What each strata op computes, written as linalg on tensors (MLIR text).

Each `lower_<op>(op)` returns the text of a `func.func @lowered` whose arguments are the op's
operands (present ones, in order) and whose single result replaces the op's result; the
`strata-lower-to-linalg` patterns splice its body in place of the op. Text keeps every lowering
readable as the IR it produces. Bodies use only `linalg.generic`, `linalg.fill`, `tensor.empty`,
`tensor.dim` and scalar `arith`/`math`, with every scalar constant defined inside the region that
uses it so a body can be cloned anywhere. The arithmetic follows PyTorch's definitions: softmax
subtracts the row maximum; layer norm uses the biased variance; GELU is erf-based or the tanh
approximation; attention is softmax(q k^T * scale + mask) v with key positions after the query
position masked when causal (and fully masked rows 0 when the op asks for it).
"""

import math

from torch_mlir import ir

from strata.ir_splice import DYNAMIC, tensor_type

NEG_INF = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000", "f64": "0xFFF0000000000000"}


def _dims(n: int) -> str:
    return ", ".join(f"d{i}" for i in range(n))


def _map(n: int, exprs) -> str:
    return f"affine_map<({_dims(n)}) -> ({', '.join(exprs)})>"


def _literal(value: float) -> str:
    return f"{float(value):.17e}"  # always has a mantissa point, which MLIR's float syntax needs


def _float(value: float, elt: str) -> str:
    return f"arith.constant {_literal(value)} : {elt}"


class _Func:
    """Accumulates the body of `@lowered`, naming SSA values and tracking their shapes."""

    def __init__(self, elt: str, args: list[tuple[str, list[int], str]]):
        self.elt = elt
        self.args = args  # (name, shape, element type)
        self.lines: list[str] = []
        self.shapes = {name: shape for name, shape, _ in args}
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def dim_of(self, source: str, index: int) -> str:
        c, d = self.fresh("c"), self.fresh("dim")
        self.lines.append(f"{c} = arith.constant {index} : index")
        self.lines.append(f"{d} = tensor.dim {source}, {c} : {tensor_type(self.shapes[source], self._elt_of(source))}")
        return d

    def _elt_of(self, name: str) -> str:
        for arg, _, elt in self.args:
            if arg == name:
                return elt
        return self.elt

    def empty(self, sources: list[tuple[str, int]], fill: float | str | None) -> str:
        """A new tensor whose dim i is dim sources[i][1] of value sources[i][0], maybe filled."""
        shape = [self.shapes[s][i] for s, i in sources]
        dynamic = [self.dim_of(s, i) for (s, i), d in zip(sources, shape) if d == DYNAMIC]
        name = self.fresh("empty")
        ty = tensor_type(shape, self.elt)
        self.lines.append(f"{name} = tensor.empty({', '.join(dynamic)}) : {ty}")
        self.shapes[name] = shape
        if fill is None:
            return name
        value, filled = self.fresh("init"), self.fresh("filled")
        literal = fill if isinstance(fill, str) else _literal(fill)
        self.lines.append(f"{value} = arith.constant {literal} : {self.elt}")
        self.lines.append(f"{filled} = linalg.fill ins({value} : {self.elt}) outs({name} : {ty}) -> {ty}")
        self.shapes[filled] = shape
        return filled

    def generic(self, loops: int, inputs: list[tuple[str, list[str]]], output: tuple[str, list[str]],
                iterators: list[str], body: list[str], yields: str = "%r") -> str:
        """A linalg.generic; `body` computes `yields` from block args `%a0..` and the output `%acc`."""
        maps = [_map(loops, exprs) for _, exprs in inputs] + [_map(loops, output[1])]
        ins = ", ".join(name for name, _ in inputs)
        in_types = ", ".join(self.type_of(name) for name, _ in inputs)
        out_name = output[0]
        out_type = self.type_of(out_name)
        args = ", ".join(f"%a{i}: {self._elt_of(n)}" for i, (n, _) in enumerate(inputs))
        block_args = f"{args}, %acc: {self.elt}" if args else f"%acc: {self.elt}"
        result = self.fresh("g")
        iterator_list = ", ".join(f'"{it}"' for it in iterators)
        self.lines.append(
            f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterator_list}]}}"
            + (f" ins({ins} : {in_types})" if inputs else "")
            + f" outs({out_name} : {out_type}) {{"
        )
        self.lines.append(f"^bb0({block_args}):")
        self.lines.extend("  " + line for line in body)
        self.lines.append(f"  linalg.yield {yields} : {self.elt}")
        self.lines.append(f"}} -> {out_type}")
        self.shapes[result] = self.shapes[out_name]
        return result

    def type_of(self, name: str) -> str:
        return tensor_type(self.shapes[name], self._elt_of(name))

    def text(self, result: str) -> str:
        params = ", ".join(f"{name}: {tensor_type(shape, elt)}" for name, shape, elt in self.args)
        body = "\n".join("    " + line for line in self.lines)
        return (
            f"func.func @lowered({params}) -> {self.type_of(result)} {{\n{body}\n"
            f"    return {result} : {self.type_of(result)}\n}}\n"
        )


def _elt(value: ir.Value) -> str:
    return str(value.type.element_type)


def _start(op: ir.Operation, names: list[str]) -> tuple[_Func, dict]:
    """A `_Func` whose arguments are `op`'s operands, named after `names` (present ones only)."""
    values = list(op.operands)
    elt = _elt(op.results[0])
    present = names[: len(values)] if len(values) == len(names) else None
    if present is None:
        present = _present_names(op, names)
    args = [(f"%in_{n}", list(v.type.shape), _elt(v)) for n, v in zip(present, values)]
    # "in_" keeps argument names apart from the names region bodies use.
    return _Func(elt, args), {n: f"%in_{n}" for n in present}


def _present_names(op: ir.Operation, names: list[str]) -> list[str]:
    if "operandSegmentSizes" in op.attributes:
        sizes = list(op.attributes["operandSegmentSizes"])
        return [n for n, s in zip(names, sizes) if s]
    return names[: len(list(op.operands))]


# --- elementwise ----------------------------------------------------------------------------


def _gelu_body(elt: str, tanh: bool, x: str = "%a0") -> list[str]:
    if tanh:
        return [
            f"%half = {_float(0.5, elt)}", f"%one = {_float(1.0, elt)}",
            f"%k = {_float(math.sqrt(2.0 / math.pi), elt)}", f"%c = {_float(0.044715, elt)}",
            f"%x2 = arith.mulf {x}, {x} : {elt}", f"%x3 = arith.mulf %x2, {x} : {elt}",
            f"%cx3 = arith.mulf %c, %x3 : {elt}", f"%inner = arith.addf {x}, %cx3 : {elt}",
            f"%scaled = arith.mulf %k, %inner : {elt}", f"%t = math.tanh %scaled : {elt}",
            f"%onet = arith.addf %one, %t : {elt}", f"%hx = arith.mulf %half, {x} : {elt}",
            f"%r = arith.mulf %hx, %onet : {elt}",
        ]
    return [
        f"%half = {_float(0.5, elt)}", f"%one = {_float(1.0, elt)}",
        f"%rsqrt2 = {_float(1.0 / math.sqrt(2.0), elt)}", f"%xs = arith.mulf {x}, %rsqrt2 : {elt}",
        f"%e = math.erf %xs : {elt}", f"%onee = arith.addf %one, %e : {elt}",
        f"%hx = arith.mulf %half, {x} : {elt}", f"%r = arith.mulf %hx, %onee : {elt}",
    ]


def _silu_body(elt: str, x: str = "%a0") -> list[str]:
    return [
        f"%one = {_float(1.0, elt)}", f"%neg = arith.negf {x} : {elt}", f"%e = math.exp %neg : {elt}",
        f"%den = arith.addf %one, %e : {elt}", f"%r = arith.divf {x}, %den : {elt}",
    ]


def _relu_body(elt: str, x: str = "%a0") -> list[str]:
    return [f"%zero = {_float(0.0, elt)}", f"%r = arith.maximumf {x}, %zero : {elt}"]


def _elementwise(f: _Func, x: str, body: list[str]) -> str:
    rank = len(f.shapes[x])
    out = f.empty([(x, i) for i in range(rank)], None)
    identity = [f"d{i}" for i in range(rank)]
    return f.generic(rank, [(x, identity)], (out, identity), ["parallel"] * rank, body)


def lower_gelu(op: ir.Operation) -> str:
    f, v = _start(op, ["x"])
    tanh = op.attributes["approximation"].value == 1
    return f.text(_elementwise(f, v["x"], _gelu_body(f.elt, tanh)))


def lower_silu(op: ir.Operation) -> str:
    f, v = _start(op, ["x"])
    return f.text(_elementwise(f, v["x"], _silu_body(f.elt)))


# --- softmax --------------------------------------------------------------------------------


def _softmax(f: _Func, x: str, dim: int, zero_fully_masked: bool = False) -> str:
    """softmax over `dim`; with `zero_fully_masked`, rows whose maximum is -inf become 0, not NaN."""
    rank = len(f.shapes[x])
    identity = [f"d{i}" for i in range(rank)]
    reduced = [f"d{i}" for i in range(rank) if i != dim]
    kept = [(x, i) for i in range(rank) if i != dim]
    iterators = ["reduction" if i == dim else "parallel" for i in range(rank)]
    elt = f.elt
    row_max = f.generic(
        rank, [(x, identity)], (f.empty(kept, NEG_INF[elt]), reduced), iterators,
        [f"%r = arith.maximumf %a0, %acc : {elt}"],
    )
    exps = f.generic(
        rank, [(x, identity), (row_max, reduced)], (f.empty([(x, i) for i in range(rank)], None), identity),
        ["parallel"] * rank,
        [f"%s = arith.subf %a0, %a1 : {elt}", f"%r = math.exp %s : {elt}"],
    )
    sums = f.generic(
        rank, [(exps, identity)], (f.empty(kept, 0.0), reduced), iterators, [f"%r = arith.addf %a0, %acc : {elt}"]
    )
    inputs = [(exps, identity), (sums, reduced)]
    body = [f"%r = arith.divf %a0, %a1 : {elt}"]
    if zero_fully_masked:
        inputs.append((row_max, reduced))
        body = [
            f"%quotient = arith.divf %a0, %a1 : {elt}",
            f"%ninf = arith.constant {NEG_INF[elt]} : {elt}",
            f"%masked = arith.cmpf oeq, %a2, %ninf : {elt}",
            f"%zero = {_float(0.0, elt)}",
            f"%r = arith.select %masked, %zero, %quotient : {elt}",
        ]
    return f.generic(
        rank, inputs, (f.empty([(x, i) for i in range(rank)], None), identity), ["parallel"] * rank, body
    )


def lower_softmax(op: ir.Operation) -> str:
    f, v = _start(op, ["x"])
    rank = len(f.shapes[v["x"]])
    dim = op.attributes["dim"].value % rank
    return f.text(_softmax(f, v["x"], dim))


# --- normalization --------------------------------------------------------------------------


def _mean_over_trailing(f: _Func, x: str, normalized: list[int], square: bool, center: str | None = None) -> str:
    """Mean over the trailing dims of x (sizes `normalized`, static even where x's type says ?), of
    (x - center)^2 with `center`, or x^2 with `square`."""
    rank, k = len(f.shapes[x]), len(normalized)
    identity = [f"d{i}" for i in range(rank)]
    lead = [f"d{i}" for i in range(rank - k)]
    count = math.prod(normalized)
    elt = f.elt
    inputs = [(x, identity)]
    if center is not None:
        inputs.append((center, lead))
        body = [f"%c0 = arith.subf %a0, %a1 : {elt}", f"%v = arith.mulf %c0, %c0 : {elt}"]
    elif square:
        body = [f"%v = arith.mulf %a0, %a0 : {elt}"]
    else:
        body = []
    body.append(f"%r = arith.addf {'%v' if body else '%a0'}, %acc : {elt}")
    sums = f.generic(
        rank, inputs, (f.empty([(x, i) for i in range(rank - k)], 0.0), lead),
        ["parallel"] * (rank - k) + ["reduction"] * k, body,
    )
    out = f.empty([(x, i) for i in range(rank - k)], None)
    return f.generic(
        rank - k, [(sums, lead)], (out, lead), ["parallel"] * (rank - k),
        [f"%n = {_float(float(count), elt)}", f"%r = arith.divf %a0, %n : {elt}"],
    )


def _normalize(f: _Func, x: str, k: int, eps: float, mean: str | None, mean_square: str,
               weight: str | None, bias: str | None) -> str:
    rank = len(f.shapes[x])
    identity = [f"d{i}" for i in range(rank)]
    lead = [f"d{i}" for i in range(rank - k)]
    trailing = [f"d{i}" for i in range(rank - k, rank)]
    elt = f.elt
    inputs = [(x, identity)]
    body = []
    centered = "%a0"
    if mean is not None:
        inputs.append((mean, lead))
        body.append(f"%centered = arith.subf %a0, %a{len(inputs) - 1} : {elt}")
        centered = "%centered"
    inputs.append((mean_square, lead))
    body += [
        f"%eps = {_float(eps, elt)}",
        f"%ve = arith.addf %a{len(inputs) - 1}, %eps : {elt}",
        f"%inv = math.rsqrt %ve : {elt}",
        f"%r0 = arith.mulf {centered}, %inv : {elt}",
    ]
    last = "%r0"
    if weight is not None:
        inputs.append((weight, trailing))
        body.append(f"%r1 = arith.mulf {last}, %a{len(inputs) - 1} : {elt}")
        last = "%r1"
    if bias is not None:
        inputs.append((bias, trailing))
        body.append(f"%r2 = arith.addf {last}, %a{len(inputs) - 1} : {elt}")
        last = "%r2"
    out = f.empty([(x, i) for i in range(rank)], None)
    return f.generic(rank, inputs, (out, identity), ["parallel"] * rank, body, yields=last)


def lower_layer_norm(op: ir.Operation) -> str:
    f, v = _start(op, ["x", "weight", "bias"])
    x = v["x"]
    normalized = list(op.attributes["normalized_shape"])
    k = len(normalized)
    mean = _mean_over_trailing(f, x, normalized, square=False)
    variance = _mean_over_trailing(f, x, normalized, square=True, center=mean)
    eps = op.attributes["eps"].value
    return f.text(_normalize(f, x, k, eps, mean, variance, v.get("weight"), v.get("bias")))


def lower_rms_norm(op: ir.Operation) -> str:
    f, v = _start(op, ["x", "weight"])
    x = v["x"]
    normalized = list(op.attributes["normalized_shape"])
    k = len(normalized)
    mean_square = _mean_over_trailing(f, x, normalized, square=True)
    eps = op.attributes["eps"].value
    return f.text(_normalize(f, x, k, eps, None, mean_square, v.get("weight"), None))


# --- attention and linear layers ------------------------------------------------------------


def causal_mask_body(score: str, elt: str) -> list[str]:
    """Lines of a 4-d generic's body setting `score` to -inf above the diagonal, as `%s2`."""
    return [
        "%i = linalg.index 2 : index", "%j = linalg.index 3 : index",
        "%above = arith.cmpi ugt, %j, %i : index",
        f"%ninf = arith.constant {NEG_INF[elt]} : {elt}",
        f"%s2 = arith.select %above, %ninf, {score} : {elt}",
    ]


def lower_attention(op: ir.Operation) -> str:
    f, v = _start(op, ["q", "k", "v", "mask"])
    q, k, val = v["q"], v["k"], v["v"]
    elt = f.elt
    scale = op.attributes["scale"].value
    causal = bool(op.attributes["is_causal"].value)
    # scores[b, h, i, j] = sum_e q[b, h, i, e] * k[b, h, j, e]   (loops b, h, i, j, e)
    scores = f.generic(
        5, [(q, ["d0", "d1", "d2", "d4"]), (k, ["d0", "d1", "d3", "d4"])],
        (f.empty([(q, 0), (q, 1), (q, 2), (k, 2)], 0.0), ["d0", "d1", "d2", "d3"]),
        ["parallel"] * 4 + ["reduction"],
        [f"%p = arith.mulf %a0, %a1 : {elt}", f"%r = arith.addf %p, %acc : {elt}"],
    )
    identity = ["d0", "d1", "d2", "d3"]
    inputs = [(scores, identity)]
    body = [f"%scale = {_float(scale, elt)}", f"%s0 = arith.mulf %a0, %scale : {elt}"]
    last = "%s0"
    if "mask" in v:
        mask_shape = f.shapes[v["mask"]]
        if len(mask_shape) == 2:
            mask_map = ["d2", "d3"]
        else:
            mask_map = ["0" if mask_shape[i] == 1 else f"d{i}" for i in range(2)] + ["d2", "d3"]
        inputs.append((v["mask"], mask_map))
        body.append(f"%s1 = arith.addf {last}, %a1 : {elt}")
        last = "%s1"
    if causal:
        body += causal_mask_body(last, elt)
        last = "%s2"
    masked = f.generic(
        4, inputs, (f.empty([(scores, i) for i in range(4)], None), identity), ["parallel"] * 4, body, yields=last
    )
    zero_fully_masked = "fully_masked_rows_zero" in op.attributes and op.attributes["fully_masked_rows_zero"].value
    probs = _softmax(f, masked, 3, zero_fully_masked)
    # out[b, h, i, d] = sum_j probs[b, h, i, j] * v[b, h, j, d]   (loops b, h, i, d, j)
    out = f.generic(
        5, [(probs, ["d0", "d1", "d2", "d4"]), (val, ["d0", "d1", "d4", "d3"])],
        (f.empty([(q, 0), (q, 1), (q, 2), (val, 3)], 0.0), ["d0", "d1", "d2", "d3"]),
        ["parallel"] * 4 + ["reduction"],
        [f"%p = arith.mulf %a0, %a1 : {elt}", f"%r = arith.addf %p, %acc : {elt}"],
    )
    return f.text(out)


ACTIVATION_BODIES = {
    1: lambda elt: _relu_body(elt),
    2: lambda elt: _gelu_body(elt, tanh=False),
    3: lambda elt: _gelu_body(elt, tanh=True),
    4: lambda elt: _silu_body(elt),
}


def lower_linear(op: ir.Operation) -> str:
    f, v = _start(op, ["x", "w", "bias"])
    x, w = v["x"], v["w"]
    rank = len(f.shapes[x])
    elt = f.elt
    # out[..., n] = sum_k x[..., k] * w[n, k] (+ bias[n])   (loops: leading..., n, k)
    loops = rank + 1
    lead = [f"d{i}" for i in range(rank - 1)]
    n, kk = f"d{rank - 1}", f"d{rank}"
    out_dims = [(x, i) for i in range(rank - 1)] + [(w, 0)]
    if "bias" in v:
        init = f.generic(
            rank, [(v["bias"], [f"d{rank - 1}"])], (f.empty(out_dims, None), [f"d{i}" for i in range(rank)]),
            ["parallel"] * rank, [], yields="%a0",
        )
    else:
        init = f.empty(out_dims, 0.0)
    result = f.generic(
        loops, [(x, lead + [kk]), (w, [n, kk])], (init, lead + [n]),
        ["parallel"] * rank + ["reduction"],
        [f"%p = arith.mulf %a0, %a1 : {elt}", f"%r = arith.addf %p, %acc : {elt}"],
    )
    activation = op.attributes["activation"].value
    if activation:
        result = _elementwise(f, result, ACTIVATION_BODIES[activation](elt))
    return f.text(result)


LOWERINGS = {
    "strata.softmax": lower_softmax,
    "strata.gelu": lower_gelu,
    "strata.silu": lower_silu,
    "strata.layer_norm": lower_layer_norm,
    "strata.rms_norm": lower_rms_norm,
    "strata.attention": lower_attention,
    "strata.linear": lower_linear,
}
