"""strata's direct-convolution kernel for AVX2 CPUs, written as a whole IREE dispatch.

IREE 3.13 computes a convolution as a matmul of patches: strata-data-tile-conv gathers them into
the tiles IREE's mmt4d reads, and the mmt4d then runs 4 x 16 register tiles (eight accumulators,
exactly what the FMA latency needs and no slack). On the small CNN's 56 x 56 x 32 -> 64 layer
that was 0.25-0.30 ms of gather plus 1.5-1.7 ms of mmt4d per call. A stride-1 convolution needs
no patches: eight neighbouring output pixels of a row read eight neighbouring input pixels for
every tap. This kernel keeps 6 output channels x 16 pixels of one output row in twelve AVX2
accumulators, and for every input channel and tap loads 16 input pixels (two unaligned vectors),
broadcasts the 6 channels' weights and issues twelve FMAs; the row is written straight into the
NCHW output. No gather, no unpack: the same layer runs in 1.4-1.6 ms.

IREE takes it as a hand-written executable (`hal.executable` with one export, its function in
upstream `scf`/`vector`/`memref` ops, which IREE's LLVM CPU backend lowers as they are) that a
`flow.dispatch` calls. strata-data-tile-conv leaves a `func.call` of a private function named by
`DirectConv.symbol` in the linalg stage (upstream IR, so every stage stays inspectable and
parseable); `strata.kernel_calls` swaps the two for the executable and the dispatch just before
IREE compiles the module.

Layouts: the input `[N][C][HP][WP]` as the convolution reads it (padding already applied), the
weights packed to `[ceil(F/6)][C][KH][KW][6]` (six output channels' weights of one tap
contiguous; a `linalg.pack`, so constant filters pack once when the module loads), the output
`[N][F][OH][OW]`. Workgroups: groups of 6 output channels x output rows x batch. A row is covered
by 16-pixel chunks, then one chunk of the rest (8 pixels, or masked loads and stores for fewer);
output channels past F (the zero-padded weights) are not stored. The epilogue
(`strata.conv_kernel`) applies to the registers before they are stored: the channel's scale and
shift broadcast, the residual loaded like the output is stored.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import ConvKernel, relu

# Output channels and pixels of one register tile: 6 x 16 in twelve 8-float accumulators.
CHANNELS = 6
PIXELS = 16
_LANES = 8

SYMBOL_PREFIX = "strata_kernel_conv6x16_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"n(\d+)_c(\d+)_h(\d+)_w(\d+)_f(\d+)_k(\d+)x(\d+)$")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class DirectConv(ConvKernel):
    """A stride-1, undilated convolution, for the kernel along output rows."""

    SYMBOL = _SYMBOL
    TILE = CHANNELS
    POOLS = True

    @property
    def oh(self) -> int:
        return self.hp - self.kh + 1

    @property
    def ow(self) -> int:
        return self.wp - self.kw + 1

    @property
    def shapes_symbol(self) -> str:
        return f"{SYMBOL_PREFIX}n{self.n}_c{self.c}_h{self.hp}_w{self.wp}_f{self.f}_k{self.kh}x{self.kw}"

    def executable(self, target: str) -> str:
        """The `hal.executable` computing this convolution and its epilogue for `target` (a
        `#hal.executable.target` of an x86-64 CPU with AVX2 and FMA, which the tuned default
        that writes these calls requires of the host): variant `cpu`, one export and function,
        all named by `symbol`."""
        return _Writer(self).executable(target)


class _Writer:
    """Writes the kernel's function body as MLIR text, one SSA name per value."""

    def __init__(self, conv: DirectConv):
        self.conv = conv
        self.lines: list[str] = []
        self.count = 0
        types = dict(zip((name for name, _ in conv.operands()), conv.memref_types()))
        self.x_type, self.w_type, self.out_type = types["input"], types["weights"], types["output"]
        self.f_type, self.residual_type = types.get("scale"), types.get("residual")
        self.rows: list[str] = []  # the output rows a tile computes

    def name(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append(" " * indent + text)

    def chunk(self, col0: str, vectors: int, masked: bool, indent: int) -> None:
        """A tile of 6 channels x `vectors` vectors of each of the output rows `self.rows` from
        column `col0` (an index value), the last vector masked by %mask if `masked`; then the
        epilogue and the stores (of the rows' 2x2 max pool if the kernel pools)."""
        v8 = "vector<8xf32>"
        rows = len(self.rows)
        accs = [self.name("acc") for _ in range(CHANNELS * rows * vectors)]  # [channel][row][vector]
        result = self.name("tile")
        iter_args = ", ".join(f"{a} = %zero" for a in accs)
        types = ", ".join([v8] * len(accs))
        self.emit(indent, f"{result}:{len(accs)} = scf.for %ci = %c0 to %channels step %c1 iter_args({iter_args}) -> ({types}) {{")
        inner = indent + 2
        current = list(accs)
        for kh in range(self.conv.kh):
            input_rows = []
            for out_row in self.rows:
                input_rows.append(self.name("row"))
                self.emit(inner, f"{input_rows[-1]} = arith.addi {out_row}, %k{kh} : index")
            for kw in range(self.conv.kw):
                pixels = []  # [row][vector]; rows read by two taps are loaded twice and CSE'd by LLVM
                for row in input_rows:
                    pixels.append([])
                    for v in range(vectors):
                        col = self.name("col")
                        self.emit(inner, f"{col} = arith.addi {col0}, %k{kw + _LANES * v} : index")
                        x = self.name("x")
                        if masked and v == vectors - 1:
                            self.emit(inner, f"{x} = vector.maskedload %input[%n, %ci, {row}, {col}], %mask, %zero : {self.x_type}, vector<8xi1>, {v8} into {v8}")
                        else:
                            self.emit(inner, f"{x} = vector.load %input[%n, %ci, {row}, {col}] : {self.x_type}, {v8}")
                        pixels[-1].append(x)
                for channel in range(CHANNELS):
                    weight, broadcast = self.name("w"), self.name("wb")
                    self.emit(inner, f"{weight} = memref.load %weights[%tile, %ci, %k{kh}, %k{kw}, %k{channel}] : {self.w_type}")
                    self.emit(inner, f"{broadcast} = vector.broadcast {weight} : f32 to {v8}")
                    for r in range(rows):
                        for v in range(vectors):
                            i = (channel * rows + r) * vectors + v
                            acc = self.name("fma")
                            self.emit(inner, f"{acc} = vector.fma {broadcast}, {pixels[r][v]}, {current[i]} : {v8}")
                            current[i] = acc
        self.emit(inner, f"scf.yield {', '.join(current)} : {types}")
        self.emit(indent, "}")
        for channel in range(CHANNELS):
            out_channel, inside = self.name("f"), self.name("inside")
            self.emit(indent, f"{out_channel} = arith.addi %f0, %k{channel} : index")
            self.emit(indent, f"{inside} = arith.cmpi ult, {out_channel}, %out_channels : index")
            self.emit(indent, f"scf.if {inside} {{")
            body = indent + 2
            if self.conv.affine:
                scale, shift = self.channel_value("scale", out_channel, body), self.channel_value("shift", out_channel, body)
            for v in range(vectors):
                col = self.name("col")
                self.emit(body, f"{col} = arith.addi {col0}, %k{_LANES * v} : index")
                tail = masked and v == vectors - 1
                values = []
                for r, out_row in enumerate(self.rows):
                    value = f"{result}#{(channel * rows + r) * vectors + v}"
                    if self.conv.affine:
                        value = self.op(body, f"vector.fma {value}, {scale}, {shift} : {v8}")
                    if self.conv.residual:
                        at = f"%residual[%n, {out_channel}, {out_row}, {col}]"
                        if tail:
                            residual = self.op(body, f"vector.maskedload {at}, %mask, %zero : {self.residual_type}, vector<8xi1>, {v8} into {v8}")
                        else:
                            residual = self.op(body, f"vector.load {at} : {self.residual_type}, {v8}")
                        value = self.op(body, f"arith.addf {value}, {residual} : {v8}")
                    if self.conv.relu:
                        value = relu(lambda text: self.op(body, text), value, v8)
                    values.append(value)
                if self.conv.pool2:
                    self.store_pooled(values, out_channel, col, tail, body)
                elif tail:
                    self.emit(body, f"vector.maskedstore %output[%n, {out_channel}, %oh, {col}], %mask, {values[0]} : {self.out_type}, vector<8xi1>, {v8}")
                else:
                    self.emit(body, f"vector.store {values[0]}, %output[%n, {out_channel}, %oh, {col}] : {self.out_type}, {v8}")
            self.emit(indent, "}")

    def store_pooled(self, rows: list[str], channel: str, col: str, tail: bool, indent: int) -> None:
        """Stores the 2x2 max pool of two rows' 8-pixel vectors: 4 pixels of pooled row %p, from
        pooled column `col` / 2 (masked by %pool_mask if `tail`). `arith.maximumf`, as
        `linalg.pooling_nchw_max` computes it: a NaN anywhere in a window is the window's max."""
        v8, v4 = "vector<8xf32>", "vector<4xf32>"
        both = self.op(indent, f"arith.maximumf {rows[0]}, {rows[1]} : {v8}")
        even = self.op(indent, f"vector.shuffle {both}, {both} [0, 2, 4, 6] : {v8}, {v8}")
        odd = self.op(indent, f"vector.shuffle {both}, {both} [1, 3, 5, 7] : {v8}, {v8}")
        pooled = self.op(indent, f"arith.maximumf {even}, {odd} : {v4}")
        pooled_col = self.op(indent, f"arith.divui {col}, %k2 : index")
        at = f"%output[%n, {channel}, %p, {pooled_col}]"
        if tail:
            self.emit(indent, f"vector.maskedstore {at}, %pool_mask, {pooled} : {self.out_type}, vector<4xi1>, {v4}")
        else:
            self.emit(indent, f"vector.store {pooled}, {at} : {self.out_type}, {v4}")

    def op(self, indent: int, text: str) -> str:
        """Emits `text` as the definition of a new value; returns its name."""
        value = self.name("e")
        self.emit(indent, f"{value} = {text}")
        return value

    def channel_value(self, buffer: str, channel: str, indent: int) -> str:
        """`buffer`[`channel`] (the scale or the shift) broadcast to a vector."""
        scalar = self.op(indent, f"memref.load %{buffer}[{channel}] : {self.f_type}")
        return self.op(indent, f"vector.broadcast {scalar} : f32 to vector<8xf32>")

    def executable(self, target: str) -> str:
        conv = self.conv
        # Pooled: two output rows, 8-pixel chunks (4 pooled pixels), the columns a pool reads.
        chunk = _LANES if conv.pool2 else PIXELS
        width = conv.ow // 2 * 2 if conv.pool2 else conv.ow
        full, rest = divmod(width, chunk)
        constants = range(max(conv.kh, conv.kw + _LANES, CHANNELS, _LANES + 1))
        body = [f"%k{i} = arith.constant {i} : index" for i in constants]
        body += [
            "%c0 = arith.constant 0 : index",
            "%c1 = arith.constant 1 : index",
            f"%channels = arith.constant {conv.c} : index",
            f"%out_channels = arith.constant {conv.f} : index",
            f"%full_end = arith.constant {full * chunk} : index",
            f"%chunk = arith.constant {chunk} : index",
            f"%six = arith.constant {CHANNELS} : index",
            "%zero = arith.constant dense<0.0> : vector<8xf32>",
            f"%mask = vector.constant_mask [{rest % _LANES or _LANES}] : vector<8xi1>",
            *conv.bindings(),
            "%tile = hal.interface.workgroup.id[0] : index",
            "%n = hal.interface.workgroup.id[2] : index",
            "%f0 = arith.muli %tile, %six : index",
        ]
        if conv.pool2:
            body += [
                f"%pool_mask = vector.constant_mask [{rest // 2 or 4}] : vector<4xi1>",
                "%p = hal.interface.workgroup.id[1] : index",
                "%oh = arith.muli %p, %k2 : index",
                "%oh_next = arith.addi %oh, %c1 : index",
            ]
            self.rows = ["%oh", "%oh_next"]
        else:
            body.append("%oh = hal.interface.workgroup.id[1] : index")
            self.rows = ["%oh"]
        for line in body:
            self.emit(10, line)
        vectors = chunk // _LANES
        if full:
            self.emit(10, "scf.for %col0 = %c0 to %full_end step %chunk {")
            self.chunk("%col0", vectors, False, 12)
            self.emit(10, "}")
        if rest:
            self.chunk("%full_end", _ceil_div(rest, _LANES), rest % _LANES != 0, 10)
        self.emit(10, "return")
        counts = (conv.filter_tiles, conv.oh // 2 if conv.pool2 else conv.oh, conv.n)
        return conv.kernel_executable(target, counts, "\n".join(self.lines))
