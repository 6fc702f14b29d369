"""strata's attention for CPUs: `softmax(q k^T * scale [+ causal mask]) v` in one dispatch.

Torch-MLIR's decomposition of attention is a batch matmul, a softmax and a second batch matmul,
with the heads split and merged by copies around them; through IREE's data tiling that is some
ten dispatches (packs, mmt4ds, unpacks, copies) and the scores of every query against every key,
the masked half of a causal mask's too. Here a workgroup takes 8 queries of one head, reads q, k
and v where they are (strides into the tensors that hold them: the QKV projection's output, for
one) and writes its 8 rows of the result where the merged heads go:

1. its queries' 8 x E block, transposed in registers to E vectors of 8 (one query a lane) and
   scaled, into the stack;
2. each key's score for the 8 queries, one vector: `sum_e k[j][e] * q^T[e]` (8 keys at a time,
   eight accumulators; a causal mask stops at the block's last query and masks the diagonal
   block's lanes), their max along the way;
3. `exp(score - max)` in place, and its sum;
4. `out^T[d] = sum_j v[j][d] * p[j]` for 8 columns d at a time, divided by the sum, transposed
   back to rows and stored.

Every vector holds one value per query, so the softmax's row statistics need no reduction across
lanes. Scores stay on the stack: keys are at most `MAX_KEYS`. Results match the decomposition's
to rounding (the scale is applied once to q, the sums are in another order).
"""

import re
import struct
from dataclasses import dataclass

from strata.conv_kernel import executable_text, layout

LANES = 8  # f32 per AVX2 vector: queries per workgroup, keys and columns per step
MAX_KEYS = 1024  # the scores of 8 queries on the stack: 32 KiB
SYMBOL_PREFIX = "strata_kernel_attention_"
_VIEW = r"(\d+)o(\d+)b(\d+)h(\d+)p(\d+)"
_SYMBOL = re.compile(
    SYMBOL_PREFIX + r"b(\d+)_h(\d+)_q(\d+)_k(\d+)_e(\d+)_v(\d+)_s([0-9a-f]{8})(_causal)?(_safe)?"
    + r"_Q" + _VIEW + r"_K" + _VIEW + r"_V" + _VIEW + r"_Ob(\d+)h(\d+)p(\d+)_in(\d+(?:x\d+)*)$"
)


@dataclass(frozen=True)
class Operand:
    """Element `[batch][head][position][i]` of an operand is element `offset + batch *
    batch_stride + head * head_stride + position * position_stride + i` of input `buffer` (flat)."""

    buffer: int
    offset: int
    batch_stride: int
    head_stride: int
    position_stride: int

    def text(self) -> str:
        return f"{self.buffer}o{self.offset}b{self.batch_stride}h{self.head_stride}p{self.position_stride}"


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


@dataclass(frozen=True)
class Attention:
    """Attention of `batch` x `heads` heads, `queries` x `keys` scores of q and k
    rows of `depth`, v rows of `value_depth`; the scores scaled by the f32 of bits `scale_bits`,
    with `causal` a key after its query masked out, with `safe` a query whose every score is -inf
    given zeros (scaled_dot_product_attention's). q, k and v read from flat `inputs` (their
    sizes) as `q`, `k`, `v` say; the result, flat, written as `out` says (its buffer 0)."""

    batch: int
    heads: int
    queries: int
    keys: int
    depth: int
    value_depth: int
    scale_bits: int
    causal: bool
    safe: bool
    q: Operand
    k: Operand
    v: Operand
    out: Operand
    inputs: tuple[int, ...]

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        if not match:
            return None
        g = match.groups()
        sizes = [int(x) for x in g[:6]]
        views = [Operand(*map(int, g[9 + 5 * i: 14 + 5 * i])) for i in range(3)]
        out = Operand(0, 0, *map(int, g[24:27]))
        return cls(*sizes, int(g[6], 16), bool(g[7]), bool(g[8]), *views, out, tuple(int(x) for x in g[27].split("x")))

    @property
    def symbol(self) -> str:
        flags = ("_causal" if self.causal else "") + ("_safe" if self.safe else "")
        return (f"{SYMBOL_PREFIX}b{self.batch}_h{self.heads}_q{self.queries}_k{self.keys}_e{self.depth}_v{self.value_depth}"
                f"_s{self.scale_bits:08x}{flags}_Q{self.q.text()}_K{self.k.text()}_V{self.v.text()}"
                f"_Ob{self.out.batch_stride}h{self.out.head_stride}p{self.out.position_stride}_in{'x'.join(map(str, self.inputs))}")

    def types(self) -> tuple[str, ...]:
        return (*(f"tensor<{n}xf32>" for n in self.inputs), f"tensor<{self.batch * self.heads * self.queries * self.value_depth}xf32>")

    def executable(self, target: str) -> str:
        return _Writer(self).executable(target)


class _Writer:
    """The kernel's function body, line by line."""

    def __init__(self, kernel: Attention):
        self.kernel = kernel
        self.lines: list[str] = []
        self.constants: dict[int, str] = {}
        self.count = 0

    def emit(self, indent: int, text: str) -> None:
        self.lines.append(" " * indent + text)

    def index(self, value: int) -> str:
        """An index constant (defined at the top of the body)."""
        if value not in self.constants:
            self.constants[value] = f"%i{value}"
        return self.constants[value]

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def address(self, indent: int, base: str, *terms: tuple[str, int]) -> str:
        """`base + sum(value * stride)`, dropping zero strides; returns the value's name."""
        result = base
        for value, stride in terms:
            if stride == 0:
                continue
            scaled = value
            if stride != 1:
                scaled = self.fresh("a")
                self.emit(indent, f"{scaled} = arith.muli {value}, {self.index(stride)} : index")
            total = self.fresh("a")
            self.emit(indent, f"{total} = arith.addi {result}, {scaled} : index")
            result = total
        return result

    def transpose(self, indent: int, rows: list[str]) -> list[str]:
        """Eight vectors transposed: the returned vector `j` holds element `j` of each row."""
        v8, m8 = "vector<8xf32>", "vector<8x8xf32>"
        block = self.fresh("blk")
        self.emit(indent, f"{block}_0 = arith.constant dense<0.0> : {m8}")
        for i, row in enumerate(rows):
            self.emit(indent, f"{block}_{i + 1} = vector.insert {row}, {block}_{i} [{i}] : {v8} into {m8}")
        self.emit(indent, f"{block}_t = vector.transpose {block}_{LANES}, [1, 0] : {m8} to {m8}")
        columns = []
        for j in range(LANES):
            self.emit(indent, f"{block}_c{j} = vector.extract {block}_t[{j}] : {v8} from {m8}")
            columns.append(f"{block}_c{j}")
        return columns

    def executable(self, target: str) -> str:
        k = self.kernel
        v8 = "vector<8xf32>"
        buffers = [f"memref<{n}xf32>" for n in k.inputs]
        out_type = f"memref<{k.batch * k.heads * k.queries * k.value_depth}xf32>"
        scores_type = f"memref<{k.keys}x{LANES}xf32>"
        qt_type = f"memref<{k.depth}x{LANES}xf32>"
        bindings = len(k.inputs) + 1
        body = 8  # indentation of the function body
        self.emit(body, f"%zeros = arith.constant dense<0.0> : {v8}")
        self.emit(body, "%minus_inf = arith.constant 0xFF800000 : f32")
        self.emit(body, f"%lowest = vector.broadcast %minus_inf : f32 to {v8}")
        self.emit(body, f"%scale_f32 = arith.constant 0x{k.scale_bits:08X} : f32")
        self.emit(body, f"%scale = vector.broadcast %scale_f32 : f32 to {v8}")
        for b, memref in enumerate(buffers):
            self.emit(body, f"%in{b} = hal.interface.binding.subspan layout({layout(bindings)}) binding({b}) alignment(64) offset(%i0) flags(ReadOnly) : {memref}")
        self.emit(body, f"%out = hal.interface.binding.subspan layout({layout(bindings)}) binding({len(buffers)}) alignment(64) offset(%i0) : {out_type}")
        self.emit(body, "%block = hal.interface.workgroup.id[0] : index")
        self.emit(body, "%head = hal.interface.workgroup.id[1] : index")
        self.emit(body, "%batch = hal.interface.workgroup.id[2] : index")
        self.emit(body, f"%first = arith.muli %block, {self.index(LANES)} : index")
        for name, type_ in (("%qt", qt_type), ("%scores", scores_type)):  # alignment is a property
            self.emit(body, f'{name} = "memref.alloca"() <{{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}}> : () -> {type_}')
        self.index(0), self.index(1)

        # 1. q^T of the block's queries, scaled.
        q0 = self.address(body, self.index(k.q.offset), ("%batch", k.q.batch_stride), ("%head", k.q.head_stride), ("%first", k.q.position_stride))
        self.emit(body, f"scf.for %e = %i0 to {self.index(k.depth)} step {self.index(LANES)} {{")
        inner = body + 2
        start = self.address(inner, q0, ("%e", 1))
        rows = []
        for i in range(LANES):
            at = self.address(inner, start, (self.index(i), k.q.position_stride)) if i else start
            row = self.fresh("q")
            self.emit(inner, f"{row} = vector.load %in{k.q.buffer}[{at}] : {buffers[k.q.buffer]}, {v8}")
            rows.append(row)
        for j, column in enumerate(self.transpose(inner, rows)):
            scaled = self.fresh("qs")
            self.emit(inner, f"{scaled} = arith.mulf {column}, %scale : {v8}")
            at = self.address(inner, "%e", (self.index(j), 1)) if j else "%e"
            self.emit(inner, f"vector.store {scaled}, %qt[{at}, %i0] : {qt_type}, {v8}")
        self.emit(body, "}")

        # 2. Scores, 8 keys at a time, and their max.
        if k.causal:
            self.emit(body, f"%keys = arith.addi %first, {self.index(LANES)} : index")
        else:
            self.emit(body, f"%keys = arith.addi %i0, {self.index(k.keys)} : index")
        k0 = self.address(body, self.index(k.k.offset), ("%batch", k.k.batch_stride), ("%head", k.k.head_stride))
        accumulators = ", ".join(f"%acc{i} = %zeros" for i in range(LANES))
        eight = ", ".join([v8] * LANES)
        self.emit(body, f"%max = scf.for %j = %i0 to %keys step {self.index(LANES)} iter_args(%m = %lowest) -> ({v8}) {{")
        inner = body + 2
        row0 = self.address(inner, k0, ("%j", k.k.position_stride))
        self.emit(inner, f"%dot:{LANES} = scf.for %e = %i0 to {self.index(k.depth)} step {self.index(LANES)} iter_args({accumulators}) -> ({eight}) {{")
        deep = inner + 2
        sums = [f"%acc{i}" for i in range(LANES)]
        row = self.address(deep, row0, ("%e", 1))
        for u in range(LANES):
            at = self.address(deep, "%e", (self.index(u), 1)) if u else "%e"
            qv = self.fresh("qv")
            self.emit(deep, f"{qv} = vector.load %qt[{at}, %i0] : {qt_type}, {v8}")
            for i in range(LANES):
                where = self.address(deep, row, (self.index(u + i * k.k.position_stride), 1)) if u or i else row
                scalar, vector, summed = self.fresh("ks"), self.fresh("kb"), self.fresh("dot")
                self.emit(deep, f"{scalar} = memref.load %in{k.k.buffer}[{where}] : {buffers[k.k.buffer]}")
                self.emit(deep, f"{vector} = vector.broadcast {scalar} : f32 to {v8}")
                self.emit(deep, f"{summed} = vector.fma {vector}, {qv}, {sums[i]} : {v8}")
                sums[i] = summed
        self.emit(deep, f"scf.yield {', '.join(sums)} : {eight}")
        self.emit(inner, "}")
        scores = [f"%dot#{i}" for i in range(LANES)]
        if k.causal:  # the diagonal block: key i hides from the queries of lanes before i
            self.emit(inner, "%diagonal = arith.cmpi eq, %j, %first : index")
            self.emit(inner, "%on_diagonal = vector.broadcast %diagonal : i1 to vector<8xi1>")
            for i in range(1, LANES):
                lanes = ", ".join("true" if lane < i else "false" for lane in range(LANES))
                hide, masked = self.fresh("hide"), self.fresh("sm")
                self.emit(inner, f"{hide}_c = arith.constant dense<[{lanes}]> : vector<8xi1>")
                self.emit(inner, f"{hide} = arith.andi %on_diagonal, {hide}_c : vector<8xi1>")
                self.emit(inner, f"{masked} = arith.select {hide}, %lowest, {scores[i]} : vector<8xi1>, {v8}")
                scores[i] = masked
        maximum = "%m"
        for i, score in enumerate(scores):
            at = self.address(inner, "%j", (self.index(i), 1)) if i else "%j"
            self.emit(inner, f"vector.store {score}, %scores[{at}, %i0] : {scores_type}, {v8}")
            bigger = self.fresh("mx")
            self.emit(inner, f"{bigger} = arith.maximumf {maximum}, {score} : {v8}")
            maximum = bigger
        self.emit(inner, f"scf.yield {maximum} : {v8}")
        self.emit(body, "}")

        # 3. exp(score - max) in place, and its sum.
        self.emit(body, f"%sum = scf.for %j = %i0 to %keys step %i1 iter_args(%s = %zeros) -> ({v8}) {{")
        self.emit(inner, f"%score = vector.load %scores[%j, %i0] : {scores_type}, {v8}")
        self.emit(inner, f"%shifted = arith.subf %score, %max : {v8}")
        self.emit(inner, f"%p = math.exp %shifted : {v8}")
        self.emit(inner, f"vector.store %p, %scores[%j, %i0] : {scores_type}, {v8}")
        self.emit(inner, f"%s_next = arith.addf %s, %p : {v8}")
        self.emit(inner, f"scf.yield %s_next : {v8}")
        self.emit(body, "}")
        if k.safe:  # the max of a query whose every score is -inf (a NaN makes the max NaN)
            self.emit(body, f"%all_masked = arith.cmpf oeq, %max, %lowest : {v8}")

        # 4. out^T = v^T p, 8 columns at a time, divided by the sum and stored as rows.
        v0 = self.address(body, self.index(k.v.offset), ("%batch", k.v.batch_stride), ("%head", k.v.head_stride))
        o0 = self.address(body, self.index(k.out.offset), ("%batch", k.out.batch_stride), ("%head", k.out.head_stride), ("%first", k.out.position_stride))
        self.emit(body, f"scf.for %c = %i0 to {self.index(k.value_depth)} step {self.index(LANES)} {{")
        column0 = self.address(inner, v0, ("%c", 1))
        accumulators = ", ".join(f"%out{i} = %zeros" for i in range(LANES))
        self.emit(inner, f"%pv:{LANES} = scf.for %j = %i0 to %keys step %i1 iter_args({accumulators}) -> ({eight}) {{")
        self.emit(deep, f"%pj = vector.load %scores[%j, %i0] : {scores_type}, {v8}")
        row = self.address(deep, column0, ("%j", k.v.position_stride))
        sums = []
        for i in range(LANES):
            where = self.address(deep, row, (self.index(i), 1)) if i else row
            scalar, vector, summed = self.fresh("vs"), self.fresh("vb"), self.fresh("o")
            self.emit(deep, f"{scalar} = memref.load %in{k.v.buffer}[{where}] : {buffers[k.v.buffer]}")
            self.emit(deep, f"{vector} = vector.broadcast {scalar} : f32 to {v8}")
            self.emit(deep, f"{summed} = vector.fma {vector}, %pj, %out{i} : {v8}")
            sums.append(summed)
        self.emit(deep, f"scf.yield {', '.join(sums)} : {eight}")
        self.emit(inner, "}")
        columns = []
        for i in range(LANES):
            quotient = self.fresh("y")
            self.emit(inner, f"{quotient} = arith.divf %pv#{i}, %sum : {v8}")
            if k.safe:
                safe = self.fresh("y")
                self.emit(inner, f"{safe} = arith.select %all_masked, %zeros, {quotient} : vector<8xi1>, {v8}")
                quotient = safe
            columns.append(quotient)
        start = self.address(inner, o0, ("%c", 1))
        for i, row in enumerate(self.transpose(inner, columns)):
            at = self.address(inner, start, (self.index(i), k.out.position_stride)) if i else start
            self.emit(inner, f"vector.store {row}, %out[{at}] : {out_type}, {v8}")
        self.emit(body, "}")
        self.emit(body, "return")

        constants = [" " * body + f"{name} = arith.constant {value} : index" for value, name in sorted(self.constants.items())]
        text = "\n".join(constants + self.lines)
        counts = (k.queries // LANES, k.heads, k.batch)
        return executable_text(self.kernel.symbol, target, bindings, counts, text)
