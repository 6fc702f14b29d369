"""`exp(x)` of f32 vectors with `x <= 0`, as MLIR text: what strata's softmax kernels exponentiate.

Why not `math.exp`: IREE expands it into a polynomial that also serves large positive `x`, with
some fourteen vector constants; in the softmax kernel's loop LLVM then ran out of registers and
shuffled them, some 60 instructions a vector of 8. This is 19 operations and eleven constants.

The method is Cephes' `expf`:
- `n = round(x log2(e))`, by adding and subtracting 1.5 * 2^23: the sum's low mantissa bits are
  then `n`, so that sum's bits shifted into the exponent field, plus the exponent bias, are the
  bits of `2^n`;
- `r = x - n ln(2)` in two steps (ln(2) split so that `n * hi` is exact), `|r| <= ln(2) / 2`;
- `exp(r) = 1 + r + r^2 q(r)` with Cephes' degree-5 `q`, and `exp(x) = 2^n exp(r)`.

`x` is first clamped below at -88, so `n >= -127`; `n = -127` makes `2^n`'s bits 0, so
`exp(-inf)` and anything under -88 is 0 (where the true value is a denormal under 6e-39). A NaN
passes the clamp and gives NaN. `x > 0` is not served: a softmax exponentiates `x - max(x)`.
Accuracy over [-87.3, 0]: within 1 ulp of the correctly rounded value (test_vector_exp).
"""

# name -> value; emitted once per kernel as `%exp_<name>` vector constants.
_F32 = {
    "lo": "-88.0",
    "log2e": "1.44269504088896341",
    "shift": "12582912.0",  # 1.5 * 2^23
    "ln2_hi": "-0.693359375",
    "ln2_lo": "2.12194440e-4",  # -(ln 2 - 0.693359375)
    "q0": "1.9875691500e-4",
    "q1": "1.3981999507e-3",
    "q2": "8.3334519073e-3",
    "q3": "4.1665795894e-2",
    "q4": "1.6666665459e-1",
    "q5": "5.0000001201e-1",
    "one": "1.0",
}
_I32 = {"bias": 127 << 23, "exponent_shift": 23}


def constants(lanes: int = 8) -> list[str]:
    """The lines defining the constants `exp` reads, vectors of `lanes`, for the top of the
    function."""
    vf, vi = f"vector<{lanes}xf32>", f"vector<{lanes}xi32>"
    return [f"%exp_{name} = arith.constant dense<{value}> : {vf}" for name, value in _F32.items()] + [
        f"%exp_{name} = arith.constant dense<{value}> : {vi}" for name, value in _I32.items()
    ]


def exp(x: str, result: str, tag: str, lanes: int = 8) -> list[str]:
    """Lines computing `result = exp(x)` (SSA names with `%`, vectors of `lanes`); `tag` keeps their
    temporaries apart from another expansion's in the same block."""
    vf, vi = f"vector<{lanes}xf32>", f"vector<{lanes}xi32>"
    t = f"%expv{tag}_"
    return [
        f"{t}below = arith.cmpf ogt, %exp_lo, {x} : {vf}",
        f"{t}x = arith.select {t}below, %exp_lo, {x} : vector<{lanes}xi1>, {vf}",
        f"{t}scaled = arith.mulf {t}x, %exp_log2e : {vf}",
        f"{t}shifted = arith.addf {t}scaled, %exp_shift : {vf}",
        f"{t}n = arith.subf {t}shifted, %exp_shift : {vf}",
        f"{t}r_hi = math.fma {t}n, %exp_ln2_hi, {t}x : {vf}",
        f"{t}r = math.fma {t}n, %exp_ln2_lo, {t}r_hi : {vf}",
        f"{t}q1 = math.fma %exp_q0, {t}r, %exp_q1 : {vf}",
        f"{t}q2 = math.fma {t}q1, {t}r, %exp_q2 : {vf}",
        f"{t}q3 = math.fma {t}q2, {t}r, %exp_q3 : {vf}",
        f"{t}q4 = math.fma {t}q3, {t}r, %exp_q4 : {vf}",
        f"{t}q = math.fma {t}q4, {t}r, %exp_q5 : {vf}",
        f"{t}r2 = arith.mulf {t}r, {t}r : {vf}",
        f"{t}p_minus_1 = math.fma {t}q, {t}r2, {t}r : {vf}",
        f"{t}p = arith.addf {t}p_minus_1, %exp_one : {vf}",
        f"{t}n_bits = arith.bitcast {t}shifted : {vf} to {vi}",
        f"{t}n_exponent = arith.shli {t}n_bits, %exp_exponent_shift : {vi}",
        f"{t}scale_bits = arith.addi {t}n_exponent, %exp_bias : {vi}",
        f"{t}scale = arith.bitcast {t}scale_bits : {vi} to {vf}",
        f"{result} = arith.mulf {t}p, {t}scale : {vf}",
    ]
