"""strata's attention for CPUs: `softmax(q k^T * scale [+ causal mask]) v` in one dispatch.

Torch-MLIR's decomposition of attention is a batch matmul, a softmax and a second batch matmul,
with the heads split and merged by copies around them; through IREE's data tiling that is some
ten dispatches (packs, mmt4ds, unpacks, copies) and the scores of every query against every key,
the masked half of a causal mask's too. Here a workgroup takes 16 queries of one head (8 where
the queries do not come in 16s), reads q, k and v where they are (strides into the tensors that
hold them: the QKV projection's output, for one) and writes its rows of the result where the
merged heads go:

1. its queries' 16 x E block, transposed in registers to E pairs of vectors (one query a lane)
   and scaled, into the stack;
2. each key's scores for the 16 queries, two vectors: `sum_e k[j][e] * q^T[e]`, 4 keys at a time
   (eight accumulators; each broadcast element of k feeds two FMAs), stopping under a causal mask
   at the block's last query, the lanes of queries before the key set to -inf; the max along the
   way;
3. `exp(score - max)` in place, and its sum;
4. `out[q] = sum_j p[q][j] * v[j]` for 4 queries x 16 columns at a time (eight accumulators; each
   row of v loaded feeds eight FMAs), under a causal mask only up to the 4 queries' last key,
   divided by the sums and stored as rows.

The scores and their statistics hold one query a lane, so the softmax needs no reduction across
lanes. Per dispatch (GPT-2 block's attention, 12 heads x 128 tokens x 64, one thread, minimum of
~300 calls): 8 queries a workgroup with the result computed transposed, one broadcast per FMA,
483 us; as above 411 us.

With `lanes=16` (AVX-512; symbols `..._lanes16`), where queries, keys and both head sizes are
whole 16s, the same in 16-float vectors: a workgroup's 16 queries are one vector, so a key's
scores are one accumulator (8 keys a step) and a row of v feeds 16 columns of a query at once;
half the instructions, which Zen 4 computes as two 8-float halves at the 8-float rate.

q^T and the scores stay on the stack, within `STACK_BYTES` (`Attention.applies`). Results match
the decomposition's to rounding (the scale is applied once to q, the sums are in another order).
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import LANES, executable_text, lanes_suffix, layout, stack_buffer, symbol_lanes

GROUP = 4  # queries whose rows of the result a step of p v accumulates
STACK_BYTES = 32768  # q^T and the scores of a workgroup's queries: IREE's limit for a dispatch
SYMBOL_PREFIX = "strata_kernel_attention_"
_VIEW = r"(\d+)o(\d+)b(\d+)h(\d+)p(\d+)"
_SYMBOL = re.compile(
    SYMBOL_PREFIX + r"b(\d+)_h(\d+)_q(\d+)_k(\d+)_e(\d+)_v(\d+)_s([0-9a-f]{8})(_causal)?(_safe)?"
    + r"_Q" + _VIEW + r"_K" + _VIEW + r"_V" + _VIEW + r"_Ob(\d+)h(\d+)p(\d+)_in(\d+(?:x\d+)*)(?:_lanes(\d+))?$"
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


def _query_vectors(queries: int, lanes: int) -> int:
    """Vectors of `lanes` queries a workgroup takes: 16 queries where they come in 16s (two vectors
    of 8, or one of 16), else one vector of 8."""
    return 16 // lanes if queries % 16 == 0 else 1


@dataclass(frozen=True)
class Attention:
    """Attention of `batch` x `heads` heads: `queries` x `keys` scores of q and k rows of
    `depth`, v rows of `value_depth`; the scores scaled by the f32 of bits `scale_bits`,
    with `causal` a key after its query masked out, with `safe` a query whose every score is -inf
    given zeros (scaled_dot_product_attention's). q, k and v read from flat `inputs` (their
    sizes) as `q`, `k`, `v` say; the result, flat, written as `out` says (its buffer 0).
    `lanes` floats a vector: 8, or 16 (AVX-512) where queries, keys and both depths are whole 16s
    (`applies`)."""

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
    lanes: int = LANES[0]

    @classmethod
    def applies(cls, queries: int, keys: int, depth: int, value_depth: int, lanes: int) -> bool:
        """Whether queries, keys and both depths come in whole vectors of `lanes` and a
        workgroup's q^T and scores fit in `STACK_BYTES`."""
        whole = all(n % lanes == 0 for n in (queries, keys, depth, value_depth))
        return whole and (keys + depth) * 4 * _query_vectors(queries, lanes) * lanes <= STACK_BYTES

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        if not match:
            return None
        g = match.groups()
        sizes = [int(x) for x in g[:6]]
        views = [Operand(*map(int, g[9 + 5 * i: 14 + 5 * i])) for i in range(3)]
        out = Operand(0, 0, *map(int, g[24:27]))
        lanes = symbol_lanes(g[28])
        if lanes is None or not cls.applies(sizes[2], sizes[3], sizes[4], sizes[5], lanes):
            return None
        return cls(*sizes, int(g[6], 16), bool(g[7]), bool(g[8]), *views, out, tuple(int(x) for x in g[27].split("x")), lanes)

    @property
    def symbol(self) -> str:
        flags = ("_causal" if self.causal else "") + ("_safe" if self.safe else "")
        return (f"{SYMBOL_PREFIX}b{self.batch}_h{self.heads}_q{self.queries}_k{self.keys}_e{self.depth}_v{self.value_depth}"
                f"_s{self.scale_bits:08x}{flags}_Q{self.q.text()}_K{self.k.text()}_V{self.v.text()}"
                f"_Ob{self.out.batch_stride}h{self.out.head_stride}p{self.out.position_stride}_in{'x'.join(map(str, self.inputs))}"
                + lanes_suffix(self.lanes))

    @property
    def query_vectors(self) -> int:
        return _query_vectors(self.queries, self.lanes)

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
        self.lanes = kernel.lanes
        self.vector = f"vector<{kernel.lanes}xf32>"

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

    def broadcast_fmas(self, indent: int, load: str, vectors: list[str], sums: list[str]) -> list[str]:
        """`sums[i] + broadcast(scalar) * vectors[i]` for each i, the scalar `load`ed (an op's
        text); returns the new sums' names."""
        scalar, broadcast = self.fresh("scalar"), self.fresh("splat")
        self.emit(indent, f"{scalar} = {load}")
        self.emit(indent, f"{broadcast} = vector.broadcast {scalar} : f32 to {self.vector}")
        summed = []
        for vector, total in zip(vectors, sums):
            summed.append(self.fresh("fma"))
            self.emit(indent, f"{summed[-1]} = vector.fma {broadcast}, {vector}, {total} : {self.vector}")
        return summed

    def transpose(self, indent: int, rows: list[str]) -> list[str]:
        """`lanes` vectors transposed: the returned vector `j` holds element `j` of each row."""
        v8, m8 = self.vector, f"vector<{self.lanes}x{self.lanes}xf32>"
        block = self.fresh("blk")
        self.emit(indent, f"{block}_0 = arith.constant dense<0.0> : {m8}")
        for i, row in enumerate(rows):
            self.emit(indent, f"{block}_{i + 1} = vector.insert {row}, {block}_{i} [{i}] : {v8} into {m8}")
        self.emit(indent, f"{block}_t = vector.transpose {block}_{self.lanes}, [1, 0] : {m8} to {m8}")
        columns = []
        for j in range(self.lanes):
            self.emit(indent, f"{block}_c{j} = vector.extract {block}_t[{j}] : {v8} from {m8}")
            columns.append(f"{block}_c{j}")
        return columns

    def executable(self, target: str) -> str:
        k = self.kernel
        lanes, v8 = self.lanes, self.vector
        vi, vb = f"vector<{lanes}xi32>", f"vector<{lanes}xi1>"
        vectors = k.query_vectors
        queries = vectors * lanes
        buffers = [f"memref<{n}xf32>" for n in k.inputs]
        out_type = f"memref<{k.batch * k.heads * k.queries * k.value_depth}xf32>"
        scores_type = f"memref<{k.keys}x{queries}xf32>"
        qt_type = f"memref<{k.depth}x{queries}xf32>"
        bindings = len(k.inputs) + 1
        body = 8  # indentation of the function body
        inner, deep = body + 2, body + 4
        self.emit(body, f"%zeros = arith.constant dense<0.0> : {v8}")
        self.emit(body, "%minus_inf = arith.constant 0xFF800000 : f32")
        self.emit(body, f"%lowest = vector.broadcast %minus_inf : f32 to {v8}")
        self.emit(body, f"%scale_f32 = arith.constant 0x{k.scale_bits:08X} : f32")
        self.emit(body, f"%scale = vector.broadcast %scale_f32 : f32 to {v8}")
        self.emit(body, f"%lane_ids = arith.constant dense<[{', '.join(map(str, range(lanes)))}]> : {vi}")
        for b, memref in enumerate(buffers):
            self.emit(body, f"%in{b} = hal.interface.binding.subspan layout({layout(bindings)}) binding({b}) alignment(64) offset(%i0) flags(ReadOnly) : {memref}")
        self.emit(body, f"%out = hal.interface.binding.subspan layout({layout(bindings)}) binding({len(buffers)}) alignment(64) offset(%i0) : {out_type}")
        self.emit(body, "%block = hal.interface.workgroup.id[0] : index")
        self.emit(body, "%head = hal.interface.workgroup.id[1] : index")
        self.emit(body, "%batch = hal.interface.workgroup.id[2] : index")
        self.emit(body, f"%first = arith.muli %block, {self.index(queries)} : index")
        for name, type_ in (("%qt", qt_type), ("%scores", scores_type)):  # alignment is a property
            self.emit(body, f"{name} = {stack_buffer(type_)}")
        self.index(0), self.index(1)

        # 1. q^T of the block's queries, scaled: row e holds element e of each query.
        q0 = self.address(body, self.index(k.q.offset), ("%batch", k.q.batch_stride), ("%head", k.q.head_stride), ("%first", k.q.position_stride))
        self.emit(body, f"scf.for %e = %i0 to {self.index(k.depth)} step {self.index(lanes)} {{")
        start = self.address(inner, q0, ("%e", 1))
        for r in range(vectors):
            rows = []
            for i in range(lanes):
                at = self.address(inner, start, (self.index(r * lanes + i), k.q.position_stride)) if r or i else start
                row = self.fresh("q")
                self.emit(inner, f"{row} = vector.load %in{k.q.buffer}[{at}] : {buffers[k.q.buffer]}, {v8}")
                rows.append(row)
            for j, column in enumerate(self.transpose(inner, rows)):
                scaled = self.fresh("qs")
                self.emit(inner, f"{scaled} = arith.mulf {column}, %scale : {v8}")
                at = self.address(inner, "%e", (self.index(j), 1)) if j else "%e"
                self.emit(inner, f"vector.store {scaled}, %qt[{at}, {self.index(r * lanes)}] : {qt_type}, {v8}")
        self.emit(body, "}")

        # 2. Scores, KEYS_PER_STEP keys at a time (one accumulator per key and query vector),
        # masked where the key follows the query, and their max per query.
        step = 8 // vectors
        if k.causal:
            self.emit(body, f"%keys = arith.addi %first, {self.index(queries)} : index")
        else:
            self.emit(body, f"%keys = arith.addi %i0, {self.index(k.keys)} : index")
        k0 = self.address(body, self.index(k.k.offset), ("%batch", k.k.batch_stride), ("%head", k.k.head_stride))
        names = [f"%acc{key}_{r}" for key in range(step) for r in range(vectors)]
        accumulators = ", ".join(f"{n} = %zeros" for n in names)
        vector_types = ", ".join([v8] * len(names))
        maxima = ", ".join(f"%m{r} = %lowest" for r in range(vectors))
        max_types = ", ".join([v8] * vectors)
        self.emit(body, f"%max:{vectors} = scf.for %j = %i0 to %keys step {self.index(step)} iter_args({maxima}) -> ({max_types}) {{")
        row0 = self.address(inner, k0, ("%j", k.k.position_stride))
        self.emit(inner, f"%dot:{len(names)} = scf.for %e = %i0 to {self.index(k.depth)} step {self.index(lanes)} iter_args({accumulators}) -> ({vector_types}) {{")
        sums = dict(zip(((key, r) for key in range(step) for r in range(vectors)), names))
        row = self.address(deep, row0, ("%e", 1))
        for u in range(lanes):
            at = self.address(deep, "%e", (self.index(u), 1)) if u else "%e"
            qv = []
            for r in range(vectors):
                qv.append(self.fresh("qv"))
                self.emit(deep, f"{qv[r]} = vector.load %qt[{at}, {self.index(r * lanes)}] : {qt_type}, {v8}")
            for key in range(step):
                where = self.address(deep, row, (self.index(u + key * k.k.position_stride), 1)) if u or key else row
                load = f"memref.load %in{k.k.buffer}[{where}] : {buffers[k.k.buffer]}"
                summed = self.broadcast_fmas(deep, load, qv, [sums[key, r] for r in range(vectors)])
                for r in range(vectors):
                    sums[key, r] = summed[r]
        self.emit(deep, f"scf.yield {', '.join(sums[key, r] for key in range(step) for r in range(vectors))} : {vector_types}")
        self.emit(inner, "}")
        maxima = [f"%m{r}" for r in range(vectors)]
        if k.causal:  # key j hides from the queries before it: lanes l with first + 8r + l < j
            self.emit(inner, "%ahead = arith.subi %j, %first : index")
            self.emit(inner, "%ahead_i32 = arith.index_cast %ahead : index to i32")
        for key in range(step):
            for r in range(vectors):
                score = f"%dot#{key * vectors + r}"
                if k.causal:
                    shift, bound, hide, masked = self.fresh("sh"), self.fresh("bd"), self.fresh("hide"), self.fresh("sm")
                    self.emit(inner, f"{shift} = arith.constant {key - r * lanes} : i32")
                    self.emit(inner, f"{bound}_s = arith.addi %ahead_i32, {shift} : i32")
                    self.emit(inner, f"{bound} = vector.broadcast {bound}_s : i32 to {vi}")
                    self.emit(inner, f"{hide} = arith.cmpi slt, %lane_ids, {bound} : {vi}")
                    self.emit(inner, f"{masked} = arith.select {hide}, %lowest, {score} : {vb}, {v8}")
                    score = masked
                at = self.address(inner, "%j", (self.index(key), 1)) if key else "%j"
                self.emit(inner, f"vector.store {score}, %scores[{at}, {self.index(r * lanes)}] : {scores_type}, {v8}")
                bigger = self.fresh("mx")
                self.emit(inner, f"{bigger} = arith.maximumf {maxima[r]}, {score} : {v8}")
                maxima[r] = bigger
        self.emit(inner, f"scf.yield {', '.join(maxima)} : {max_types}")
        self.emit(body, "}")

        # 3. exp(score - max) in place, and its sum per query.
        sums_init = ", ".join(f"%s{r} = %zeros" for r in range(vectors))
        self.emit(body, f"%sum:{vectors} = scf.for %j = %i0 to %keys step %i1 iter_args({sums_init}) -> ({max_types}) {{")
        nexts = []
        for r in range(vectors):
            column = self.index(r * lanes)
            self.emit(inner, f"%score{r} = vector.load %scores[%j, {column}] : {scores_type}, {v8}")
            self.emit(inner, f"%shifted{r} = arith.subf %score{r}, %max#{r} : {v8}")
            self.emit(inner, f"%p{r} = math.exp %shifted{r} : {v8}")
            self.emit(inner, f"vector.store %p{r}, %scores[%j, {column}] : {scores_type}, {v8}")
            self.emit(inner, f"%s_next{r} = arith.addf %s{r}, %p{r} : {v8}")
            nexts.append(f"%s_next{r}")
        self.emit(inner, f"scf.yield {', '.join(nexts)} : {max_types}")
        self.emit(body, "}")
        if k.safe:  # the max of a query whose every score is -inf (a NaN makes the max NaN)
            for r in range(vectors):
                self.emit(body, f"%all_masked{r} = arith.cmpf oeq, %max#{r}, %lowest : {v8}")

        # 4. out = p v / sum, GROUP queries x COLUMNS columns of the result at a time, each
        # stored where its row goes; a causal group stops at its last query's key.
        columns = 2 if k.value_depth % (2 * lanes) == 0 else 1
        v0 = self.address(body, self.index(k.v.offset), ("%batch", k.v.batch_stride), ("%head", k.v.head_stride))
        o0 = self.address(body, self.index(k.out.offset), ("%batch", k.out.batch_stride), ("%head", k.out.head_stride), ("%first", k.out.position_stride))
        self.emit(body, f"scf.for %c = %i0 to {self.index(k.value_depth)} step {self.index(columns * lanes)} {{")
        column0 = self.address(inner, v0, ("%c", 1))
        out_column = self.address(inner, o0, ("%c", 1))
        for group in range(queries // GROUP):
            names = [f"%o{group}_{q}_{r}" for q in range(GROUP) for r in range(columns)]
            accumulators = ", ".join(f"{n} = %zeros" for n in names)
            types = ", ".join([v8] * len(names))
            bound = self.address(inner, "%first", (self.index(group * GROUP + GROUP), 1)) if k.causal else "%keys"
            self.emit(inner, f"%pv{group}:{len(names)} = scf.for %j = %i0 to {bound} step %i1 iter_args({accumulators}) -> ({types}) {{")
            row = self.address(deep, column0, ("%j", k.v.position_stride))
            values = []
            for r in range(columns):
                at = self.address(deep, row, (self.index(r * lanes), 1)) if r else row
                values.append(self.fresh("v"))
                self.emit(deep, f"{values[r]} = vector.load %in{k.v.buffer}[{at}] : {buffers[k.v.buffer]}, {v8}")
            sums = []
            for q in range(GROUP):
                load = f"memref.load %scores[%j, {self.index(group * GROUP + q)}] : {scores_type}"
                sums += self.broadcast_fmas(deep, load, values, [f"%o{group}_{q}_{r}" for r in range(columns)])
            self.emit(deep, f"scf.yield {', '.join(sums)} : {types}")
            self.emit(inner, "}")
            for q in range(GROUP):
                query = group * GROUP + q
                total, lane = f"%sum#{query // lanes}", query % lanes
                denominator = self.fresh("den")
                self.emit(inner, f"{denominator}_s = vector.extract {total}[{lane}] : f32 from {v8}")
                self.emit(inner, f"{denominator} = vector.broadcast {denominator}_s : f32 to {v8}")
                if k.safe:
                    self.emit(inner, f"{denominator}_m = vector.extract %all_masked{query // lanes}[{lane}] : i1 from {vb}")
                row_at = self.address(inner, out_column, (self.index(query), k.out.position_stride)) if query else out_column
                for r in range(columns):
                    quotient = self.fresh("y")
                    self.emit(inner, f"{quotient} = arith.divf %pv{group}#{q * columns + r}, {denominator} : {v8}")
                    if k.safe:
                        safe = self.fresh("y")
                        self.emit(inner, f"{safe} = arith.select {denominator}_m, %zeros, {quotient} : {v8}")
                        quotient = safe
                    at = self.address(inner, row_at, (self.index(r * lanes), 1)) if r else row_at
                    self.emit(inner, f"vector.store {quotient}, %out[{at}] : {out_type}, {v8}")
        self.emit(body, "}")
        self.emit(body, "return")

        constants = [" " * body + f"{name} = arith.constant {value} : index" for value, name in sorted(self.constants.items())]
        text = "\n".join(constants + self.lines)
        counts = (k.queries // queries, k.heads, k.batch)
        return executable_text(self.kernel.symbol, target, bindings, counts, text)
