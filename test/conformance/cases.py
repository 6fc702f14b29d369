"""The op catalogue: one small tensor function per aten op (and per dtype where dtypes matter).

Each case names the aten op its function calls at the top of the dispatcher (what `torch.jit.trace`
records, checked by a test), so the catalogue's op count is honest. Shapes are deliberately awkward:
size-1 dims, odd sizes and sizes that are not multiples of 8, so that tiling and vectorization
remainders are exercised. Inputs come from a generator seeded by the case name, so a case's inputs
are the same in every run and in every route. Tolerances are per result dtype (exact for integers
and bools); a case may loosen them where the op is ill-conditioned.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

f16, f32, f64, i64, i32, b8 = (
    torch.float16,
    torch.float32,
    torch.float64,
    torch.int64,
    torch.int32,
    torch.bool,
)

DTYPE_TAGS = {f16: "f16", f32: "f32", f64: "f64", i64: "i64", i32: "i32", b8: "bool"}

# (rtol, atol) per result dtype; integers and bools compare exactly.
TOLERANCES = {f16: (1e-2, 1e-2), f32: (1e-4, 1e-5), f64: (1e-10, 1e-12)}


@dataclass(frozen=True)
class Arg:
    """One input tensor: shape, dtype and the range its values are drawn from.

    Floats are uniform in [low, high); integers uniform in [low, high); bools are fair coins.
    `perm` draws a permutation of range(numel) instead (distinct values, for sorts and indices).
    """

    shape: tuple[int, ...]
    dtype: torch.dtype = f32
    low: float = -2.0
    high: float = 2.0
    perm: bool = False

    def make(self, gen: torch.Generator) -> torch.Tensor:
        if self.perm:
            n = 1
            for d in self.shape:
                n *= d
            return torch.randperm(n, generator=gen).reshape(self.shape).to(self.dtype)
        if self.dtype == b8:
            return torch.rand(self.shape, generator=gen) < 0.5
        if self.dtype.is_floating_point:
            x = torch.rand(self.shape, generator=gen, dtype=f64)
            return (self.low + (self.high - self.low) * x).to(self.dtype)
        return torch.randint(int(self.low), int(self.high), self.shape, generator=gen, dtype=self.dtype)


@dataclass(frozen=True)
class Case:
    """A conformance case: `fn(*inputs)` returns a tensor or a tuple of tensors."""

    name: str
    op: str
    fn: Callable = field(compare=False)
    args: tuple[Arg, ...]
    rtol: float | None = None
    atol: float | None = None

    @property
    def dtype(self) -> torch.dtype:
        """The dtype that groups this case: its first floating input, else its first input."""
        for a in self.args:
            if a.dtype.is_floating_point:
                return a.dtype
        return self.args[0].dtype

    def inputs(self) -> tuple[torch.Tensor, ...]:
        gen = torch.Generator().manual_seed(zlib.crc32(self.name.encode()))
        return tuple(a.make(gen) for a in self.args)

    def tolerance(self, dtype: torch.dtype) -> tuple[float, float]:
        rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
        if dtype.is_floating_point:
            rtol = self.rtol if self.rtol is not None else rtol
            atol = self.atol if self.atol is not None else atol
        return rtol, atol


CASES: list[Case] = []


def case(op: str, fn: Callable, *args: Arg, variant: str = "", rtol=None, atol=None) -> None:
    """Add a case for aten op `op`; its name is `op[.variant].dtype`."""
    tag = DTYPE_TAGS[next((a.dtype for a in args if a.dtype.is_floating_point), args[0].dtype)]
    name = ".".join(p for p in (op, variant, tag) if p)
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate conformance case {name}")
    CASES.append(Case(name, op, fn, tuple(args), rtol, atol))


def T(*shape, dtype=f32, low=-2.0, high=2.0) -> Arg:
    return Arg(tuple(shape), dtype, low, high)


def P(*shape, dtype=f32, low=0.1, high=3.0) -> Arg:
    """Strictly positive floats (log, sqrt, pow bases)."""
    return Arg(tuple(shape), dtype, low, high)


def U(*shape, dtype=f32) -> Arg:
    """Floats inside (-1, 1) (asin, atanh, erfinv)."""
    return Arg(tuple(shape), dtype, -0.9, 0.9)


def I(*shape, low=-7, high=8, dtype=i64) -> Arg:
    return Arg(tuple(shape), dtype, low, high)


def B(*shape) -> Arg:
    return Arg(tuple(shape), b8)


def perm(*shape, dtype=f32) -> Arg:
    return Arg(tuple(shape), dtype, perm=True)


# --------------------------------------------------------------------------------------------
# Elementwise unary ops, f32, on a 3x1x7 tensor (a size-1 dim and an odd inner size).
S = (3, 1, 7)
for name, fn, *args in [
    ("abs", torch.abs, T(*S)),
    ("neg", torch.neg, T(*S)),
    ("sin", torch.sin, T(*S)),
    ("cos", torch.cos, T(*S)),
    ("tan", torch.tan, U(*S)),
    ("asin", torch.asin, U(*S)),
    ("acos", torch.acos, U(*S)),
    ("atan", torch.atan, T(*S)),
    ("sinh", torch.sinh, T(*S)),
    ("cosh", torch.cosh, T(*S)),
    ("tanh", torch.tanh, T(*S)),
    ("asinh", torch.asinh, T(*S)),
    ("acosh", torch.acosh, P(*S, low=1.1, high=4.0)),
    ("atanh", torch.atanh, U(*S)),
    ("exp", torch.exp, T(*S)),
    ("exp2", torch.exp2, T(*S)),
    ("expm1", torch.expm1, T(*S)),
    ("log", torch.log, P(*S)),
    ("log2", torch.log2, P(*S)),
    ("log10", torch.log10, P(*S)),
    ("log1p", torch.log1p, P(*S)),
    ("sqrt", torch.sqrt, P(*S)),
    ("rsqrt", torch.rsqrt, P(*S)),
    ("reciprocal", torch.reciprocal, P(*S)),
    ("sigmoid", torch.sigmoid, T(*S)),
    ("relu", torch.relu, T(*S)),
    ("relu6", F.relu6, T(*S, low=-3, high=9)),
    ("gelu", F.gelu, T(*S)),
    ("silu", F.silu, T(*S)),
    ("mish", F.mish, T(*S)),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 1.5), T(*S)),
    ("hardsigmoid", F.hardsigmoid, T(*S, low=-4, high=4)),
    ("hardswish", F.hardswish, T(*S, low=-4, high=4)),
    ("elu", F.elu, T(*S)),
    ("selu", F.selu, T(*S)),
    ("celu", lambda x: F.celu(x, alpha=0.7), T(*S)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), T(*S)),
    ("softplus", F.softplus, T(*S)),
    ("log_sigmoid", F.logsigmoid, T(*S)),
    ("erf", torch.erf, T(*S)),
    ("erfc", torch.erfc, T(*S)),
    ("erfinv", torch.erfinv, U(*S)),
    ("floor", torch.floor, T(*S, low=-5, high=5)),
    ("ceil", torch.ceil, T(*S, low=-5, high=5)),
    ("round", torch.round, T(*S, low=-5, high=5)),
    ("trunc", torch.trunc, T(*S, low=-5, high=5)),
    ("frac", torch.frac, T(*S, low=-5, high=5)),
    ("sign", torch.sign, T(*S)),
    ("sgn", torch.sgn, T(*S)),
    ("square", torch.square, T(*S)),
    ("isnan", lambda x: torch.isnan(torch.log(x)), T(*S)),
    ("isinf", lambda x: torch.isinf(1.0 / torch.round(x)), T(*S)),
    ("isfinite", lambda x: torch.isfinite(1.0 / torch.round(x)), T(*S)),
    ("isneginf", lambda x: torch.isneginf(1.0 / torch.round(x)), T(*S)),
    ("isposinf", lambda x: torch.isposinf(1.0 / torch.round(x)), T(*S)),
    ("nan_to_num", lambda x: torch.nan_to_num(torch.log(x), nan=0.5), T(*S)),
    ("clamp", lambda x: torch.clamp(x, -0.5, 0.75), T(*S)),
    ("clamp_min", lambda x: torch.clamp_min(x, -0.25), T(*S)),
    ("clamp_max", lambda x: torch.clamp_max(x, 0.25), T(*S)),
    ("logit", torch.logit, P(*S, low=0.05, high=0.95)),
    ("lgamma", torch.lgamma, P(*S)),
    ("digamma", torch.digamma, P(*S, low=0.5, high=4.0)),
    ("softshrink", lambda x: F.softshrink(x, 0.5), T(*S)),
    ("hardshrink", lambda x: F.hardshrink(x, 0.5), T(*S)),
    ("threshold", lambda x: F.threshold(x, 0.1, -3.0), T(*S)),
    ("sinc", torch.sinc, T(*S)),
    ("deg2rad", torch.deg2rad, T(*S, low=-360, high=360)),
    ("rad2deg", torch.rad2deg, T(*S)),
    ("signbit", torch.signbit, T(*S)),
    ("i0", torch.i0, T(*S)),
    ("fill", lambda x: x.clone().fill_(2.5), T(*S)),
    ("zero", lambda x: x.clone().zero_(), T(*S)),
    ("glu", lambda x: F.glu(x, dim=-1), T(3, 1, 10)),
    ("prelu", F.prelu, T(2, 5, 7), T(5)),
    ("special_entr", torch.special.entr, P(*S)),
    ("softmax", lambda x: torch.softmax(x, dim=-1), T(3, 5, 13)),
    ("log_softmax", lambda x: torch.log_softmax(x, dim=1), T(3, 5, 13)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# Elementwise binary and ternary ops, f32, with broadcasting between (5,1,7) and (3,7).
A, Bs = (5, 1, 7), (3, 7)
for name, fn, args in [
    ("add", lambda x, y: torch.add(x, y, alpha=0.5), (T(*A), T(*Bs))),
    ("sub", torch.sub, (T(*A), T(*Bs))),
    ("mul", torch.mul, (T(*A), T(*Bs))),
    ("div", torch.div, (T(*A), P(*Bs))),
    ("remainder", torch.remainder, (T(*A, low=-9, high=9), P(*Bs, low=0.5))),
    ("fmod", torch.fmod, (T(*A, low=-9, high=9), P(*Bs, low=0.5))),
    ("pow", torch.pow, (P(*A), T(*Bs))),
    ("atan2", torch.atan2, (T(*A), T(*Bs))),
    ("maximum", torch.maximum, (T(*A), T(*Bs))),
    ("minimum", torch.minimum, (T(*A), T(*Bs))),
    ("fmax", torch.fmax, (T(*A), T(*Bs))),
    ("fmin", torch.fmin, (T(*A), T(*Bs))),
    ("eq", lambda x, y: torch.eq(torch.round(x), torch.round(y)), (T(*A), T(*Bs))),
    ("ne", lambda x, y: torch.ne(torch.round(x), torch.round(y)), (T(*A), T(*Bs))),
    ("lt", torch.lt, (T(*A), T(*Bs))),
    ("le", torch.le, (T(*A), T(*Bs))),
    ("gt", torch.gt, (T(*A), T(*Bs))),
    ("ge", torch.ge, (T(*A), T(*Bs))),
    ("floor_divide", torch.floor_divide, (T(*A, low=-9, high=9), P(*Bs, low=0.5))),
    ("rsub", lambda x: 1.5 - x, (T(*A),)),
    ("hypot", torch.hypot, (T(*A), T(*Bs))),
    ("copysign", torch.copysign, (T(*A), T(*Bs))),
    ("lerp", torch.lerp, (T(*A), T(*Bs), U(*Bs))),
    ("addcmul", lambda x, y, z: torch.addcmul(x, y, z, value=0.5), (T(*A), T(*Bs), T(*Bs))),
    ("addcdiv", lambda x, y, z: torch.addcdiv(x, y, z, value=0.5), (T(*A), T(*Bs), P(*Bs))),
    ("where", lambda c, x, y: torch.where(c > 0, x, y), (T(*A), T(*A), T(*Bs))),
    ("masked_fill", lambda x, m: x.masked_fill(m > 0.5, -1.5), (T(*A), T(*Bs))),
    ("xlogy", torch.xlogy, (T(*A), P(*Bs))),
    ("logaddexp", torch.logaddexp, (T(*A), T(*Bs))),
    ("logaddexp2", torch.logaddexp2, (T(*A), T(*Bs))),
    ("heaviside", lambda x, y: torch.heaviside(torch.round(x), y), (T(*A), T(*Bs))),
    ("isclose", lambda x, y: torch.isclose(x, torch.round(y), atol=0.3), (T(*A), T(*Bs))),
    ("nextafter", torch.nextafter, (T(*A), T(*Bs))),
    ("dist", torch.dist, (T(*A), T(*Bs))),
    ("float_power", torch.float_power, (P(*A), T(*Bs))),
]:
    case(name, fn, *args)
case("div", lambda x, y: torch.div(x, y, rounding_mode="floor"), T(*A, low=-9, high=9), P(*Bs), variant="floor")
case("div", lambda x, y: torch.div(x, y, rounding_mode="trunc"), T(*A, low=-9, high=9), P(*Bs), variant="trunc")
case("pow", lambda x: torch.pow(x, 3), T(*A), variant="int_exponent")
case("clamp", lambda x, lo, hi: torch.clamp(x, lo, lo + hi.abs()), T(*A), T(*Bs), T(*Bs), variant="tensor")

# --------------------------------------------------------------------------------------------
# Reductions and scans, f32, over a 3x5x13 tensor (odd sizes on every axis).
R = (3, 5, 13)
for name, fn, arg in [
    ("sum", lambda x: torch.sum(x, dim=(0, 2)), T(*R)),
    ("mean", lambda x: torch.mean(x, dim=-1, keepdim=True), T(*R)),
    ("prod", lambda x: torch.prod(x, dim=1), P(*R, low=0.5, high=1.5)),
    ("amax", lambda x: torch.amax(x, dim=(1, 2)), T(*R)),
    ("amin", lambda x: torch.amin(x, dim=0), T(*R)),
    ("max", lambda x: torch.max(x), T(*R)),
    ("min", lambda x: torch.min(x), T(*R)),
    ("argmax", lambda x: torch.argmax(x, dim=2), T(*R)),
    ("argmin", lambda x: torch.argmin(x, dim=1, keepdim=True), T(*R)),
    ("var", lambda x: torch.var(x, dim=2), T(*R)),
    ("std", lambda x: torch.std(x, dim=1, unbiased=False), T(*R)),
    ("var_mean", lambda x: torch.var_mean(x, dim=-1), T(*R)),
    ("std_mean", lambda x: torch.std_mean(x, dim=0), T(*R)),
    ("norm", lambda x: torch.ops.aten.norm.ScalarOpt_dim(x, 2, [-1]), T(*R)),
    ("linalg_vector_norm", lambda x: torch.linalg.vector_norm(x, ord=3, dim=1), T(*R)),
    ("logsumexp", lambda x: torch.logsumexp(x, dim=2), T(*R)),
    ("cumsum", lambda x: torch.cumsum(x, dim=2), T(*R)),
    ("cumprod", lambda x: torch.cumprod(x, dim=1), P(*R, low=0.5, high=1.5)),
    ("count_nonzero", lambda x: torch.count_nonzero(torch.round(x), dim=2), T(*R)),
    ("aminmax", lambda x: torch.aminmax(x, dim=1), T(*R)),
    ("nansum", lambda x: torch.nansum(torch.log(x), dim=2), T(*R)),
    ("nanmean", lambda x: torch.nanmean(x, dim=2), T(*R)),
    ("median", lambda x: torch.median(x, dim=2), T(*R)),
    ("sort", lambda x: torch.sort(x, dim=-1, descending=True), T(*R)),
    ("argsort", lambda x: torch.argsort(x, dim=1), T(*R)),
    ("topk", lambda x: torch.topk(x, 3, dim=-1), T(*R)),
    ("kthvalue", lambda x: torch.kthvalue(x, 4, dim=2), T(*R)),
    ("cummax", lambda x: torch.cummax(x, dim=2), T(*R)),
    ("cummin", lambda x: torch.cummin(x, dim=1), T(*R)),
    ("logcumsumexp", lambda x: torch.logcumsumexp(x, dim=2), T(*R)),
    ("mode", lambda x: torch.mode(torch.round(x), dim=2)[0], T(*R)),
]:
    case(name, fn, arg)
case("max", lambda x: torch.max(x, dim=2), T(*R), variant="dim")
case("min", lambda x: torch.min(x, dim=0, keepdim=True), T(*R), variant="dim")
case("sum", lambda x: torch.sum(x), T(*R), variant="all")

# --------------------------------------------------------------------------------------------
# Linear algebra, f32, with odd sizes (5x13 @ 13x11 and friends).
for name, fn, args in [
    ("mm", torch.mm, (T(5, 13), T(13, 11))),
    ("bmm", torch.bmm, (T(3, 5, 13), T(3, 13, 9))),
    ("matmul", torch.matmul, (T(2, 3, 5, 13), T(13, 1))),
    ("addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), (T(1, 11), T(5, 13), T(13, 11))),
    ("baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, alpha=0.5), (T(3, 5, 9), T(3, 5, 13), T(3, 13, 9))),
    ("addbmm", torch.addbmm, (T(5, 9), T(3, 5, 13), T(3, 13, 9))),
    ("addmv", torch.addmv, (T(5), T(5, 13), T(13))),
    ("addr", torch.addr, (T(5, 7), T(5), T(7))),
    ("mv", torch.mv, (T(5, 13), T(13))),
    ("dot", torch.dot, (T(13), T(13))),
    ("vdot", torch.vdot, (T(13), T(13))),
    ("inner", torch.inner, (T(3, 13), T(5, 13))),
    ("outer", torch.outer, (T(5), T(7))),
    ("linear", F.linear, (T(3, 1, 13), T(11, 13), T(11))),
    ("bilinear", F.bilinear, (T(3, 5), T(3, 7), T(4, 5, 7), T(4))),
    ("einsum", lambda a, b: torch.einsum("bij,bjk->bik", a, b), (T(3, 5, 13), T(3, 13, 9))),
    ("tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), (T(3, 5, 7), T(5, 7, 4))),
    ("kron", torch.kron, (T(2, 3), T(3, 5))),
    ("linalg_cross", lambda a, b: torch.linalg.cross(a, b, dim=-1), (T(5, 3), T(5, 3))),
    ("cross", lambda a, b: torch.cross(a, b, dim=0), (T(3, 5), T(3, 5))),
    ("tril", lambda x: torch.tril(x, diagonal=-1), (T(5, 7),)),
    ("triu", lambda x: torch.triu(x, diagonal=1), (T(3, 5, 7),)),
    ("diag", torch.diag, (T(5, 7),)),
    ("diagonal", lambda x: torch.diagonal(x, offset=1, dim1=1, dim2=2).clone(), (T(3, 5, 7),)),
    ("trace", torch.trace, (T(5, 7),)),
    ("diag_embed", torch.diag_embed, (T(3, 5),)),
    ("cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=-1), (T(3, 5, 13), T(3, 5, 13))),
    ("pairwise_distance", F.pairwise_distance, (T(5, 13), T(5, 13))),
    ("cdist", torch.cdist, (T(5, 13), T(7, 13))),
    ("linalg_det", torch.linalg.det, (T(3, 3, 3),)),
    ("linalg_inv", torch.linalg.inv, (T(3, 3),)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# Neural-network ops, f32: convolutions, pooling, normalization, losses, resampling, padding.
for name, fn, args in [
    ("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (T(2, 3, 13), T(5, 3, 3), T(5))),
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1), (T(1, 3, 9, 11), T(5, 3, 3, 3), T(5))),
    ("conv3d", lambda x, w: F.conv3d(x, w, stride=(1, 2, 1)), (T(1, 2, 5, 7, 6), T(3, 2, 3, 3, 3))),
    ("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, stride=2), (T(2, 3, 7), T(3, 5, 3))),
    (
        "conv_transpose2d",
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1),
        (T(1, 3, 5, 7), T(3, 4, 3, 3), T(4)),
    ),
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2), (T(2, 3, 13),)),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, stride=2, padding=1), (T(1, 3, 9, 11),)),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2), (T(1, 2, 5, 7, 6),)),
    (
        "max_pool2d_with_indices",
        lambda x: F.max_pool2d(x, 2, return_indices=True),
        (T(1, 3, 9, 11),),
    ),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, stride=2), (T(2, 3, 13),)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), (T(1, 3, 9, 11),)),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2), (T(1, 2, 5, 7, 6),)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 5), (T(2, 3, 15),)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (1, 1)), (T(1, 3, 9, 11),)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 5)), (T(1, 3, 9, 10),)),
    (
        "batch_norm",
        lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False),
        (T(2, 5, 3, 7), T(5), P(5), T(5), T(5)),
    ),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (13,), w, b), (T(3, 5, 13), T(13), T(13))),
    ("group_norm", lambda x, w, b: F.group_norm(x, 3, w, b), (T(2, 6, 5, 7), T(6), T(6))),
    ("instance_norm", F.instance_norm, (T(2, 3, 5, 7),)),
    ("rms_norm", lambda x, w: F.rms_norm(x, (13,), w), (T(3, 5, 13), T(13))),
    ("embedding", F.embedding, (I(3, 5, low=0, high=11), T(11, 7))),
    (
        "embedding_bag",
        lambda i, w: F.embedding_bag(i, w, mode="sum"),
        (I(3, 5, low=0, high=11), T(11, 7)),
    ),
    ("nll_loss_nd", F.nll_loss, (T(5, 7), I(5, low=0, high=7))),
    ("cross_entropy_loss", F.cross_entropy, (T(5, 7), I(5, low=0, high=7))),
    ("mse_loss", F.mse_loss, (T(3, 5, 7), T(3, 5, 7))),
    ("l1_loss", F.l1_loss, (T(3, 5, 7), T(3, 5, 7))),
    ("smooth_l1_loss", F.smooth_l1_loss, (T(3, 5, 7), T(3, 5, 7))),
    ("huber_loss", lambda a, b: F.huber_loss(a, b, delta=0.5), (T(3, 5, 7), T(3, 5, 7))),
    ("binary_cross_entropy", F.binary_cross_entropy, (P(3, 7, low=0.05, high=0.95), P(3, 7, low=0, high=1))),
    (
        "binary_cross_entropy_with_logits",
        F.binary_cross_entropy_with_logits,
        (T(3, 7), P(3, 7, low=0, high=1)),
    ),
    ("kl_div", lambda a, b: F.kl_div(a, b, reduction="batchmean"), (T(3, 7), P(3, 7, low=0.05, high=1))),
    ("soft_margin_loss", F.soft_margin_loss, (T(3, 7), T(3, 7))),
    ("margin_ranking_loss", F.margin_ranking_loss, (T(7), T(7), T(7))),
    ("hinge_embedding_loss", F.hinge_embedding_loss, (T(3, 7), T(3, 7))),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), (T(1, 12, 3, 5),)),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), (T(1, 3, 6, 10),)),
    ("channel_shuffle", lambda x: F.channel_shuffle(x, 3), (T(1, 6, 3, 5),)),
    ("upsample_nearest1d", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (T(2, 3, 7),)),
    ("upsample_nearest2d", lambda x: F.interpolate(x, size=(7, 9), mode="nearest"), (T(1, 3, 5, 6),)),
    (
        "upsample_bilinear2d",
        lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False),
        (T(1, 3, 5, 6),),
    ),
    ("pad", lambda x: F.pad(x, (1, 2, 0, 3), value=0.5), (T(2, 3, 5),)),
    ("constant_pad_nd", lambda x: torch.constant_pad_nd(x, (2, 0, 1, 1), -1.0), (T(2, 3, 5),)),
    ("reflection_pad1d", lambda x: torch.ops.aten.reflection_pad1d(x, [2, 1]), (T(2, 3, 5),)),
    ("reflection_pad2d", lambda x: torch.ops.aten.reflection_pad2d(x, [2, 1, 1, 2]), (T(1, 3, 5, 7),)),
    ("replication_pad2d", lambda x: torch.ops.aten.replication_pad2d(x, [2, 1, 1, 2]), (T(1, 3, 5, 7),)),
    (
        "scaled_dot_product_attention",
        F.scaled_dot_product_attention,
        (T(1, 3, 5, 16), T(1, 3, 7, 16), T(1, 3, 7, 16)),
    ),
    ("im2col", lambda x: F.unfold(x, kernel_size=(2, 3), stride=1), (T(1, 2, 5, 7),)),
    ("col2im", lambda x: F.fold(x, output_size=(4, 5), kernel_size=2), (T(1, 8, 12),)),
    ("one_hot", lambda i: F.one_hot(i, 7), (I(3, 5, low=0, high=7),)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# Shape, indexing and data-movement ops, f32 data (int64 indices where the op takes them).
X = (3, 5, 7)
for name, fn, args in [
    ("view", lambda x: x.view(5, 21), (T(*X),)),
    ("reshape", lambda x: x.transpose(0, 1).reshape(15, 7), (T(*X),)),
    ("permute", lambda x: x.permute(2, 0, 1), (T(*X),)),
    ("transpose", lambda x: x.transpose(0, 2), (T(*X),)),
    ("t", lambda x: x.t(), (T(5, 7),)),
    ("squeeze", lambda x: x.squeeze(1), (T(3, 1, 7),)),
    ("unsqueeze", lambda x: x.unsqueeze(-1), (T(*X),)),
    ("flatten", lambda x: x.flatten(1), (T(*X),)),
    ("unflatten", lambda x: x.unflatten(1, (1, 5)), (T(*X),)),
    ("expand", lambda x: x.expand(3, 4, 7), (T(3, 1, 7),)),
    ("expand_as", lambda x, y: x.expand_as(y), (T(3, 1, 7), T(*X))),
    ("broadcast_to", lambda x: torch.broadcast_to(x, (2, 3, 5, 7)), (T(5, 1),)),
    ("view_as", lambda x, y: x.view_as(y), (T(15, 7), T(*X))),
    ("repeat", lambda x: x.repeat(2, 1, 3), (T(3, 1, 7),)),
    ("tile", lambda x: torch.tile(x, (2, 1)), (T(3, 5),)),
    ("cat", lambda x, y: torch.cat([x, y], dim=1), (T(3, 5, 7), T(3, 2, 7))),
    ("stack", lambda x, y: torch.stack([x, y], dim=1), (T(*X), T(*X))),
    ("hstack", lambda x, y: torch.hstack([x, y]), (T(3, 5), T(3, 2))),
    ("vstack", lambda x, y: torch.vstack([x, y]), (T(3, 5), T(1, 5))),
    ("dstack", lambda x, y: torch.dstack([x, y]), (T(3, 5), T(3, 5))),
    ("column_stack", lambda x, y: torch.column_stack([x, y]), (T(5), T(5, 2))),
    ("atleast_2d", torch.atleast_2d, (T(7),)),
    ("split", lambda x: torch.split(x, 2, dim=1), (T(*X),)),
    ("split_with_sizes", lambda x: torch.split(x, [1, 4, 2], dim=2), (T(*X),)),
    ("chunk", lambda x: torch.chunk(x, 3, dim=2), (T(*X),)),
    ("unbind", lambda x: torch.unbind(x, dim=0), (T(*X),)),
    ("narrow", lambda x: torch.narrow(x, 2, 1, 5), (T(*X),)),
    ("slice", lambda x: x[:, 1:5:2, -3:], (T(*X),)),
    ("select", lambda x: x[:, 2], (T(*X),)),
    ("index_select", lambda x, i: torch.index_select(x, 1, i), (T(*X), I(4, low=0, high=5))),
    ("gather", lambda x, i: torch.gather(x, 2, i), (T(*X), I(3, 5, 4, low=0, high=7))),
    ("take_along_dim", lambda x, i: torch.take_along_dim(x, i, dim=1), (T(*X), I(3, 2, 7, low=0, high=5))),
    ("scatter", lambda x, r, s: torch.scatter(x, 1, torch.argsort(r, dim=1), s), (T(*X), T(*X), T(*X))),
    ("scatter_add", lambda x, i, s: torch.scatter_add(x, 2, i, s), (T(*X), I(3, 5, 4, low=0, high=7), T(3, 5, 4))),
    (
        "scatter_reduce",
        lambda x, i, s: torch.scatter_reduce(x, 2, i, s, reduce="amax"),
        (T(*X), I(3, 5, 4, low=0, high=7), T(3, 5, 4)),
    ),
    ("index", lambda x, i: x[i], (T(*X), I(4, low=0, high=3))),
    ("index_put", lambda x, i, v: torch.index_put(x, (i,), v), (T(5, 7), perm(3, dtype=i64), T(3, 7))),
    ("index_add", lambda x, i, s: torch.index_add(x, 1, i, s), (T(*X), I(4, low=0, high=5), T(3, 4, 7))),
    ("index_fill", lambda x, i: torch.index_fill(x, 2, i, -1.0), (T(*X), I(3, low=0, high=7))),
    ("index_copy", lambda x, i, s: torch.index_copy(x, 1, i, s), (T(*X), perm(5, dtype=i64), T(*X))),
    ("masked_scatter", lambda x, m, s: torch.masked_scatter(x, m, s), (T(3, 5), B(3, 5), T(3, 5))),
    ("select_scatter", lambda x, s: torch.select_scatter(x, s, 1, 2), (T(*X), T(3, 7))),
    ("slice_scatter", lambda x, s: torch.slice_scatter(x, s, 2, 1, 7, 2), (T(*X), T(3, 5, 3))),
    ("diagonal_scatter", lambda x, s: torch.diagonal_scatter(x, s, 1), (T(5, 7), T(5))),
    ("flip", lambda x: torch.flip(x, dims=(0, 2)), (T(*X),)),
    ("fliplr", torch.fliplr, (T(5, 7),)),
    ("flipud", torch.flipud, (T(5, 7),)),
    ("roll", lambda x: torch.roll(x, shifts=(2, -1), dims=(1, 2)), (T(*X),)),
    ("rot90", lambda x: torch.rot90(x, 1, (1, 2)), (T(*X),)),
    ("movedim", lambda x: torch.movedim(x, 0, -1), (T(*X),)),
    ("unfold", lambda x: x.unfold(2, 3, 2), (T(*X),)),
    ("as_strided", lambda x: torch.as_strided(x.contiguous(), (3, 4), (5, 2)), (T(5, 7),)),
    ("clone", lambda x: torch.clone(x) * 1.5, (T(*X),)),
    ("contiguous", lambda x: x.transpose(0, 2).contiguous(), (T(*X),)),
    ("type_as", lambda x, y: x.type_as(y), (T(*X, low=-9, high=9), I(1))),
    ("zeros_like", lambda x: torch.zeros_like(x) + x, (T(*X),)),
    ("ones_like", lambda x: torch.ones_like(x) - x, (T(*X),)),
    ("full_like", lambda x: torch.full_like(x, 3.5) * x, (T(*X),)),
    ("new_zeros", lambda x: x.new_zeros(5, 3) + 1, (T(*X),)),
    ("new_ones", lambda x: x.new_ones(5, 3) * 2, (T(*X),)),
    ("new_full", lambda x: x.new_full((5, 3), -2.5), (T(*X),)),
    ("arange", lambda x: x + torch.arange(7, dtype=torch.float32), (T(*X),)),
    ("linspace", lambda x: x * torch.linspace(-1.0, 2.0, 7), (T(*X),)),
    ("zeros", lambda x: torch.cat([x, torch.zeros(3, 5, 2)], dim=2), (T(*X),)),
    ("ones", lambda x: x - torch.ones(5, 7), (T(*X),)),
    ("full", lambda x: x * torch.full((5, 1), 0.25), (T(*X),)),
    ("eye", lambda x: x @ torch.eye(7), (T(*X),)),
    ("tril_indices", lambda x: x[tuple(torch.tril_indices(5, 7, offset=-1))], (T(5, 7),)),
    ("triu_indices", lambda x: x[tuple(torch.triu_indices(5, 7))], (T(5, 7),)),
    ("meshgrid", lambda a, b: torch.meshgrid(a, b, indexing="ij"), (T(5), T(7))),
    ("cartesian_prod", torch.cartesian_prod, (T(3), T(5))),
    ("block_diag", torch.block_diag, (T(2, 3), T(3, 1))),
    ("repeat_interleave", lambda x: torch.repeat_interleave(x, 3, dim=1), (T(*X),)),
    ("diff", lambda x: torch.diff(x, dim=-1), (T(*X),)),
    ("bucketize", lambda x, b: torch.bucketize(x, b.sort().values), (T(*X), T(6))),
    ("searchsorted", lambda s, x: torch.searchsorted(s.sort().values, x), (T(9), T(3, 5))),
    ("trapezoid", lambda y: torch.trapezoid(y, dim=-1), (T(*X),)),
    ("cumulative_trapezoid", lambda y: torch.cumulative_trapezoid(y, dim=-1), (T(*X),)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# f64: strata must keep double precision end to end (IREE demotes it to f32 by default).
for name, fn, args in [
    ("add", torch.add, (T(5, 1, 7, dtype=f64), T(3, 7, dtype=f64))),
    ("mul", torch.mul, (T(5, 1, 7, dtype=f64), T(3, 7, dtype=f64))),
    ("div", torch.div, (T(5, 7, dtype=f64), P(5, 7, dtype=f64))),
    ("exp", torch.exp, (T(3, 1, 7, dtype=f64),)),
    ("log", torch.log, (P(3, 1, 7, dtype=f64),)),
    ("sqrt", torch.sqrt, (P(3, 1, 7, dtype=f64),)),
    ("tanh", torch.tanh, (T(3, 1, 7, dtype=f64),)),
    ("sin", torch.sin, (T(3, 1, 7, dtype=f64),)),
    ("sigmoid", torch.sigmoid, (T(3, 1, 7, dtype=f64),)),
    ("pow", torch.pow, (P(5, 7, dtype=f64), T(5, 7, dtype=f64))),
    ("sum", lambda x: torch.sum(x, dim=1), (T(3, 5, 13, dtype=f64),)),
    ("mean", lambda x: torch.mean(x, dim=(0, 2)), (T(3, 5, 13, dtype=f64),)),
    ("amax", lambda x: torch.amax(x, dim=-1), (T(3, 5, 13, dtype=f64),)),
    ("var", lambda x: torch.var(x, dim=2), (T(3, 5, 13, dtype=f64),)),
    ("cumsum", lambda x: torch.cumsum(x, dim=1), (T(3, 5, 13, dtype=f64),)),
    ("mm", torch.mm, (T(5, 13, dtype=f64), T(13, 11, dtype=f64))),
    ("bmm", torch.bmm, (T(3, 5, 13, dtype=f64), T(3, 13, 9, dtype=f64))),
    ("linear", F.linear, (T(3, 13, dtype=f64), T(11, 13, dtype=f64), T(11, dtype=f64))),
    ("softmax", lambda x: torch.softmax(x, dim=-1), (T(3, 5, 13, dtype=f64),)),
    ("layer_norm", lambda x: F.layer_norm(x, (13,)), (T(3, 5, 13, dtype=f64),)),
    ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), (T(1, 3, 9, 11, dtype=f64), T(5, 3, 3, 3, dtype=f64))),
    ("where", lambda c, x, y: torch.where(c, x, y), (B(5, 7), T(5, 7, dtype=f64), T(5, 7, dtype=f64))),
    ("lt", torch.lt, (T(5, 7, dtype=f64), T(5, 7, dtype=f64))),
    ("arange", lambda x: x + torch.arange(7, dtype=torch.float64), (T(3, 7, dtype=f64),)),
    ("cat", lambda x, y: torch.cat([x, y], dim=0), (T(3, 7, dtype=f64), T(2, 7, dtype=f64))),
    ("permute", lambda x: x.permute(2, 0, 1) * 2, (T(3, 5, 7, dtype=f64),)),
    ("gather", lambda x, i: torch.gather(x, 1, i), (T(3, 7, dtype=f64), I(3, 4, low=0, high=7))),
    ("atan2", torch.atan2, (T(5, 7, dtype=f64), T(5, 7, dtype=f64))),
    ("sort", lambda x: torch.sort(x, dim=-1), (T(3, 13, dtype=f64),)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# int64: arithmetic, comparisons, bitwise ops, reductions and integer indexing results.
for name, fn, args in [
    ("add", torch.add, (I(5, 1, 7), I(3, 7))),
    ("sub", torch.sub, (I(5, 1, 7), I(3, 7))),
    ("mul", torch.mul, (I(5, 1, 7), I(3, 7))),
    ("neg", torch.neg, (I(5, 7),)),
    ("abs", torch.abs, (I(5, 7),)),
    ("div", lambda x, y: torch.div(x, y, rounding_mode="floor"), (I(5, 7), I(5, 7, low=1, high=5))),
    ("floor_divide", torch.floor_divide, (I(5, 7), I(5, 7, low=1, high=5))),
    ("remainder", torch.remainder, (I(5, 7), I(5, 7, low=1, high=5))),
    ("fmod", torch.fmod, (I(5, 7), I(5, 7, low=1, high=5))),
    ("maximum", torch.maximum, (I(5, 7), I(5, 7))),
    ("minimum", torch.minimum, (I(5, 7), I(5, 7))),
    ("clamp", lambda x: torch.clamp(x, -3, 4), (I(5, 7),)),
    ("pow", lambda x: torch.pow(x, 3), (I(5, 7),)),
    ("eq", torch.eq, (I(5, 7, low=0, high=3), I(5, 7, low=0, high=3))),
    ("ne", torch.ne, (I(5, 7, low=0, high=3), I(5, 7, low=0, high=3))),
    ("gt", torch.gt, (I(5, 7), I(5, 7))),
    ("le", torch.le, (I(5, 7), I(5, 7))),
    ("bitwise_and", torch.bitwise_and, (I(5, 7, low=0, high=64), I(5, 7, low=0, high=64))),
    ("bitwise_or", torch.bitwise_or, (I(5, 7, low=0, high=64), I(5, 7, low=0, high=64))),
    ("bitwise_xor", torch.bitwise_xor, (I(5, 7), I(5, 7))),
    ("bitwise_not", torch.bitwise_not, (I(5, 7),)),
    ("bitwise_left_shift", torch.bitwise_left_shift, (I(5, 7), I(5, 7, low=0, high=9))),
    ("bitwise_right_shift", torch.bitwise_right_shift, (I(5, 7, low=-99, high=99), I(5, 7, low=0, high=5))),
    ("gcd", torch.gcd, (I(5, 7, low=0, high=60), I(5, 7, low=0, high=60))),
    ("lcm", torch.lcm, (I(5, 7, low=1, high=20), I(5, 7, low=1, high=20))),
    ("sum", lambda x: torch.sum(x, dim=1), (I(3, 5, 13),)),
    ("prod", lambda x: torch.prod(x, dim=2), (I(3, 5, 4, low=-3, high=4),)),
    ("amax", lambda x: torch.amax(x, dim=0), (I(3, 5, 13),)),
    ("cumsum", lambda x: torch.cumsum(x, dim=2), (I(3, 5, 13),)),
    ("argmax", lambda x: torch.argmax(x, dim=1), (perm(3, 13, dtype=i64),)),
    ("sort", lambda x: torch.sort(x, dim=-1), (perm(3, 13, dtype=i64),)),
    ("topk", lambda x: torch.topk(x, 4), (perm(3, 13, dtype=i64),)),
    ("mm", torch.mm, (I(5, 13), I(13, 11))),
    ("to", lambda x: x.to(torch.float32), (I(5, 7),)),
    ("arange", lambda x: x * torch.arange(3, 17, 2), (I(3, 7),)),
    ("sign", torch.sign, (I(5, 7),)),
    ("square", torch.square, (I(5, 7),)),
    ("index_select", lambda x, i: torch.index_select(x, 0, i), (I(5, 7), I(3, low=0, high=5))),
    ("flip", lambda x: torch.flip(x, dims=(1,)), (I(5, 7),)),
    ("cat", lambda x, y: torch.cat([x, y], dim=1), (I(5, 7), I(5, 2))),
    ("count_nonzero", lambda x: torch.count_nonzero(x, dim=0), (I(5, 7, low=-1, high=2),)),
    ("bincount", lambda x: torch.bincount(x, minlength=9), (I(13, low=0, high=9),)),
    ("trace", torch.trace, (I(5, 7),)),
    ("tril", torch.tril, (I(5, 7),)),
]:
    case(name, fn, *args)
case("to", lambda x: x.to(torch.int64), T(*X, low=-9, high=9), variant="to_i64")
case("to", lambda x: x.to(torch.float64), T(3, 5, 7), variant="to_f64")
case("to", lambda x: x.to(torch.float16), T(3, 5, 7), variant="to_f16")
case("where", lambda c, x: torch.where(c, x, -x), B(5, 7), I(5, 7), variant="i64")
case("add", lambda x, y: x + y, I(5, 7, dtype=i32), I(5, 7, dtype=i32), variant="i32")
case("mul", lambda x, y: x * y, I(5, 7, dtype=i32), I(5, 7, dtype=i32), variant="i32")

# --------------------------------------------------------------------------------------------
# bool: logical ops, masks, reductions over bools, and bool <-> number conversions.
for name, fn, args in [
    ("logical_not", torch.logical_not, (B(5, 1, 7),)),
    ("logical_and", torch.logical_and, (B(5, 1, 7), B(3, 7))),
    ("logical_or", torch.logical_or, (B(5, 1, 7), B(3, 7))),
    ("logical_xor", torch.logical_xor, (B(5, 1, 7), B(3, 7))),
    ("bitwise_and", torch.bitwise_and, (B(5, 7), B(5, 7))),
    ("bitwise_or", torch.bitwise_or, (B(5, 7), B(5, 7))),
    ("bitwise_xor", torch.bitwise_xor, (B(5, 7), B(5, 7))),
    ("bitwise_not", torch.bitwise_not, (B(5, 7),)),
    ("all", lambda x: torch.all(x, dim=1), (B(5, 7),)),
    ("any", lambda x: torch.any(x, dim=0), (B(5, 7),)),
    ("eq", torch.eq, (B(5, 7), B(5, 7))),
    ("ne", torch.ne, (B(5, 7), B(5, 7))),
    ("sum", lambda x: torch.sum(x, dim=1), (B(5, 13),)),
    ("to", lambda x: x.to(torch.float32), (B(5, 7),)),
    ("where", lambda c: torch.where(c, 1.5, -0.5), (B(5, 7),)),
    ("cat", lambda x, y: torch.cat([x, y], dim=0), (B(3, 7), B(2, 7))),
    ("permute", lambda x: x.permute(1, 0).contiguous(), (B(5, 7),)),
    ("flip", lambda x: torch.flip(x, dims=(0,)), (B(5, 7),)),
    ("masked_fill", lambda m: torch.zeros(5, 7).masked_fill(m, 2.0), (B(5, 7),)),
    ("cumsum", lambda x: torch.cumsum(x, dim=1), (B(5, 7),)),
]:
    case(name, fn, *args)

# --------------------------------------------------------------------------------------------
# f16: elementwise, matmul, normalization, convolution and reductions at half precision.
for name, fn, args in [
    ("add", torch.add, (T(5, 1, 7, dtype=f16), T(3, 7, dtype=f16))),
    ("mul", torch.mul, (T(5, 1, 7, dtype=f16), T(3, 7, dtype=f16))),
    ("div", torch.div, (T(5, 7, dtype=f16), P(5, 7, dtype=f16))),
    ("relu", torch.relu, (T(3, 1, 7, dtype=f16),)),
    ("gelu", F.gelu, (T(3, 1, 7, dtype=f16),)),
    ("silu", F.silu, (T(3, 1, 7, dtype=f16),)),
    ("exp", torch.exp, (T(3, 1, 7, dtype=f16),)),
    ("tanh", torch.tanh, (T(3, 1, 7, dtype=f16),)),
    ("sigmoid", torch.sigmoid, (T(3, 1, 7, dtype=f16),)),
    ("rsqrt", torch.rsqrt, (P(3, 1, 7, dtype=f16),)),
    ("sum", lambda x: torch.sum(x, dim=-1), (T(3, 5, 13, dtype=f16),)),
    ("mean", lambda x: torch.mean(x, dim=1), (T(3, 5, 13, dtype=f16),)),
    ("amax", lambda x: torch.amax(x, dim=-1), (T(3, 5, 13, dtype=f16),)),
    ("mm", torch.mm, (T(5, 13, dtype=f16), T(13, 11, dtype=f16))),
    ("bmm", torch.bmm, (T(3, 5, 13, dtype=f16), T(3, 13, 9, dtype=f16))),
    ("linear", F.linear, (T(3, 13, dtype=f16), T(11, 13, dtype=f16), T(11, dtype=f16))),
    ("softmax", lambda x: torch.softmax(x, dim=-1), (T(3, 5, 13, dtype=f16),)),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (13,), w, b), (T(3, 5, 13, dtype=f16), T(13, dtype=f16), T(13, dtype=f16))),
    ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), (T(1, 3, 9, 11, dtype=f16), T(5, 3, 3, 3, dtype=f16))),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2), (T(1, 3, 9, 11, dtype=f16),)),
    ("where", lambda c, x, y: torch.where(c, x, y), (B(5, 7), T(5, 7, dtype=f16), T(5, 7, dtype=f16))),
    ("cat", lambda x, y: torch.cat([x, y], dim=1), (T(3, 5, dtype=f16), T(3, 2, dtype=f16))),
    ("scaled_dot_product_attention", F.scaled_dot_product_attention,
     (T(1, 2, 5, 16, dtype=f16), T(1, 2, 7, 16, dtype=f16), T(1, 2, 7, 16, dtype=f16))),
    ("maximum", torch.maximum, (T(5, 7, dtype=f16), T(5, 7, dtype=f16))),
]:
    case(name, fn, *args)
