"""strata's convolution kernel for any stride and row width: 6 output pixels x 16 output channels.

`strata.direct_conv` vectorizes along an output row, which needs stride 1 and rows of 16 pixels
or more. The rest (ResNet-18's rows of 14, 7 and 4 pixels, its strided stem and downsampling)
IREE computed as an mmt4d of patches that strata-data-tile-conv gathers, in 4 x 16 register
tiles. This kernel computes the same product without the patches: a register tile holds 16
output channels (two 8-float vectors of weights, packed `[F/16][C][KH][KW][16]`) for 6 output
pixels taken in row-major order across row ends; for every input channel and tap it loads the
two weight vectors, broadcasts the 6 pixels' input values (each at its own address, computed
once per tile, so any stride, dilation and row width works) and issues twelve FMAs. The 6 x 16
results are stored into the NCHW output one value at a time (96 stores per tile, against
C x KH x KW x 12 FMAs). Pixels of the last tile past the end recompute the last pixel and are
not stored. Output channels must be a multiple of 16. Where there are 32 vector registers
(AVX-512), a tile can be 8 pixels (`pixels=8`, symbols `..._conv8p16c_...`): sixteen
accumulators, and fewer pixels computed for nothing on small outputs (ResNet-18's last stage, 4 x
4 pixels: two tiles of 8, not three of 6). In AVX-512's 16-float vectors (`lanes=16`, symbols
`..._conv8p16c_lanes16_...`) a pixel's 16 channels are one vector: per input channel and tap one
weight load and one FMA a pixel: half the instructions for the same FLOPs (Zen 4 computes a
16-float FMA as two 8-float halves, at the FLOP rate of 8-float ones). ResNet-18 took 0.941-0.952x
the time per call with it (one thread). Zen 4's tuned default is 8 pixels in 16 floats.

Workgroups: groups of 16 output channels x blocks of pixel tiles x batch. IREE gets it the way
it gets `strata.direct_conv`'s kernel: a call of `PixelTileConv.symbol` in the linalg stage
becomes an executable and a `flow.dispatch` in what IREE compiles (`strata.kernel_calls`).
On ResNet-18 (112x112, batch 1) it took the convolutions the row kernel leaves (the stem, rows
of 14, 7 and 4 pixels, the downsampling): 0.785 and 0.792x the time per call.

A workgroup's first tile reads its group's weights from memory (ResNet-18's last stage: 295 KB a
group, 9.4 MB a convolution, more than the L3 holds across a call), at the speed of one stream's
misses in flight. Where a group's weights are `TWO_STREAMS_BYTES` or more, the loop walks the two
halves of the input channels at once, into the same accumulators: two streams, more of the
weights in flight. Per dispatch on ResNet-18, one thread (minimum of ~300 calls): the 512-channel
3x3 convolutions 1654-1658 -> 1360-1394 us, the 256-channel one 880-897 -> 732-763 us; those
with 64 and 128 channels (72 KiB and less a group) gained nothing. Four streams were slower.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import LANES, ConvKernel, relu, symbol_lanes

PIXELS = (6, 8)  # output pixels a register tile: 6 (twelve accumulators of 8 floats, the
# default), or 8 (sixteen: more than AVX2's 16 registers hold with the weights, for AVX-512's 32)
CHANNELS = 16
# Pixel tiles per workgroup: a group's weights stay in cache while 8 tiles (48 pixels) pass.
TILES_PER_WORKGROUP = 8
# A group's weights from this size on are read as two streams (the module docstring).
TWO_STREAMS_BYTES = 128 << 10

SYMBOL_PREFIX = "strata_kernel_conv"  # then <pixels>p16c_
_SYMBOL = re.compile(SYMBOL_PREFIX + r"(\d+)p16c_(?:lanes(\d+)_)?n(\d+)_c(\d+)_h(\d+)_w(\d+)_f(\d+)_k(\d+)x(\d+)_s(\d+)x(\d+)_d(\d+)x(\d+)$")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class PixelTileConv(ConvKernel):
    """A convolution with f a multiple of 16, strides (sh, sw) and dilations (dh, dw), in register
    tiles of `pixels` output pixels (`PIXELS`)."""

    SYMBOL = _SYMBOL
    TILE = CHANNELS

    sh: int = 1
    sw: int = 1
    dh: int = 1
    dw: int = 1
    pixels: int = PIXELS[0]
    lanes: int = LANES[0]

    @classmethod
    def fields(cls, groups: tuple[str, ...]) -> tuple[int, ...] | None:
        """The symbol names the pixels a tile and the lanes first (`conv8p16c_lanes16_`; no lanes
        for 8), the dataclass last."""
        pixels, lanes, *shapes = groups
        if int(pixels) not in PIXELS or symbol_lanes(lanes) is None:
            return None
        return (*(int(g) for g in shapes), int(pixels), symbol_lanes(lanes))

    @property
    def oh(self) -> int:
        return (self.hp - self.dh * (self.kh - 1) - 1) // self.sh + 1

    @property
    def ow(self) -> int:
        return (self.wp - self.dw * (self.kw - 1) - 1) // self.sw + 1

    @property
    def shapes_symbol(self) -> str:
        lanes = f"lanes{self.lanes}_" if self.lanes != LANES[0] else ""
        return (f"{SYMBOL_PREFIX}{self.pixels}p16c_{lanes}n{self.n}_c{self.c}_h{self.hp}_w{self.wp}_f{self.f}_k{self.kh}x{self.kw}"
                f"_s{self.sh}x{self.sw}_d{self.dh}x{self.dw}")

    @property
    def weight_streams(self) -> int:
        """Parts of the input channels a tile's loop walks at once (see the module docstring)."""
        group_bytes = self.c * self.kh * self.kw * CHANNELS * 4
        return 2 if group_bytes >= TWO_STREAMS_BYTES and self.c % 2 == 0 else 1

    def executable(self, target: str) -> str:
        """The `hal.executable` computing this convolution and its epilogue for `target` (AVX2
        and FMA; AVX-512 for 16 lanes, which LLVM splits in two elsewhere)."""
        memrefs = dict(zip((name for name, _ in self.operands()), self.memref_types()))
        x_type, w_type, out_type = memrefs["input"], memrefs["weights"], memrefs["output"]
        pixels = self.oh * self.ow
        tiles = _ceil_div(pixels, self.pixels)
        blocks = _ceil_div(tiles, TILES_PER_WORKGROUP)
        lines: list[str] = []
        count = [0]

        def name(stem: str) -> str:
            count[0] += 1
            return f"%{stem}{count[0]}"

        def emit(indent: int, text: str) -> None:
            lines.append(" " * indent + text)

        def define(text: str) -> str:  # for conv_kernel.relu, inside the pixel loop
            value = name("e")
            emit(16, f"{value} = {text}")
            return value

        lanes, vectors = self.lanes, CHANNELS // self.lanes  # vectors: per pixel, and of weights
        vec = f"vector<{lanes}xf32>"
        constants = sorted({0, 1, self.pixels, *(lanes * v for v in range(vectors)), CHANNELS, self.ow, pixels - 1, pixels, tiles, self.sh, self.sw,
                            TILES_PER_WORKGROUP, *range(CHANNELS), *(kh * self.dh for kh in range(self.kh)),
                            *(kw * self.dw for kw in range(self.kw))})
        for value in constants:
            emit(10, f"%c{value} = arith.constant {value} : index")
        emit(10, f"%zero = arith.constant dense<0.0> : {vec}")
        emit(10, "%zero_f32 = arith.constant 0.0 : f32")
        for line in self.bindings():
            emit(10, line)
        emit(10, "%group = hal.interface.workgroup.id[0] : index")
        emit(10, "%block = hal.interface.workgroup.id[1] : index")
        emit(10, "%n = hal.interface.workgroup.id[2] : index")
        emit(10, f"%f0 = arith.muli %group, %c{CHANNELS} : index")
        emit(10, f"%first_tile = arith.muli %block, %c{TILES_PER_WORKGROUP} : index")
        emit(10, f"scf.for %t = %c0 to %c{TILES_PER_WORKGROUP} step %c1 {{")
        emit(12, "%tile = arith.addi %first_tile, %t : index")
        emit(12, f"%live = arith.cmpi ult, %tile, %c{tiles} : index")
        emit(12, "scf.if %live {")
        emit(14, f"%p0 = arith.muli %tile, %c{self.pixels} : index")
        at = []  # per pixel: (pixel, output row, output column, input row, input column)
        for i in range(self.pixels):
            p, clamped, oh, ow, ih, iw = (name(s) for s in ("p", "pc", "oh", "ow", "ih", "iw"))
            emit(14, f"{p} = arith.addi %p0, %c{i} : index")
            emit(14, f"{clamped} = arith.minui {p}, %c{pixels - 1} : index")
            emit(14, f"{oh} = arith.divui {clamped}, %c{self.ow} : index")
            emit(14, f"{ow} = arith.remui {clamped}, %c{self.ow} : index")
            emit(14, f"{ih} = arith.muli {oh}, %c{self.sh} : index")
            emit(14, f"{iw} = arith.muli {ow}, %c{self.sw} : index")
            at.append((p, oh, ow, ih, iw))
        accs = [name("acc") for _ in range(vectors * self.pixels)]
        result = name("tile")
        types = ", ".join([vec] * len(accs))
        iter_args = ", ".join(f"{a} = %zero" for a in accs)
        streams = self.weight_streams
        emit(14, f"%stream_channels = arith.constant {self.c // streams} : index")
        emit(14, f"{result}:{len(accs)} = scf.for %c_first = %c0 to %stream_channels step %c1 iter_args({iter_args}) -> ({types}) {{")
        current = accs
        for stream in range(streams):  # channel c_first of each stream, into the same accumulators
            ci = "%c_first"
            if stream:
                offset, ci = name("offset"), name("ci")
                emit(16, f"{offset} = arith.constant {stream * self.c // streams} : index")
                emit(16, f"{ci} = arith.addi %c_first, {offset} : index")
            for kh in range(self.kh):
                rows = []
                for _, _, _, ih, _ in at:
                    row = name("row")
                    emit(16, f"{row} = arith.addi {ih}, %c{kh * self.dh} : index")
                    rows.append(row)
                for kw in range(self.kw):
                    weights = []
                    for v in range(vectors):
                        weights.append(name("w"))
                        emit(16, f"{weights[-1]} = vector.load %weights[%group, {ci}, %c{kh}, %c{kw}, %c{lanes * v}] : {w_type}, {vec}")
                    following = []
                    for i, (_, _, _, _, iw) in enumerate(at):
                        col, x, xb = name("col"), name("x"), name("xb")
                        emit(16, f"{col} = arith.addi {iw}, %c{kw * self.dw} : index")
                        emit(16, f"{x} = memref.load %input[%n, {ci}, {rows[i]}, {col}] : {x_type}")
                        emit(16, f"{xb} = vector.broadcast {x} : f32 to {vec}")
                        for v, w in enumerate(weights):
                            acc = name("fma")
                            emit(16, f"{acc} = vector.fma {xb}, {w}, {current[vectors * i + v]} : {vec}")
                            following.append(acc)
                    current = following
        emit(16, f"scf.yield {', '.join(current)} : {types}")
        emit(14, "}")
        if self.affine:  # 16 channels' scale and shift, a vector or two each
            scales, shifts = [], []
            for v in range(vectors):
                channel = name("fc")
                emit(14, f"{channel} = arith.addi %f0, %c{lanes * v} : index")
                for buffer, values in (("scale", scales), ("shift", shifts)):
                    values.append(name(buffer))
                    emit(14, f"{values[-1]} = vector.load %{buffer}[{channel}] : {memrefs['scale']}, {vec}")
        for i, (p, oh, ow, _, _) in enumerate(at):
            inside = name("inside")
            emit(14, f"{inside} = arith.cmpi ult, {p}, %c{pixels} : index")
            emit(14, f"scf.if {inside} {{")
            for v in range(vectors):
                vector = f"{result}#{vectors * i + v}"
                if self.affine:
                    scaled = name("e")
                    emit(16, f"{scaled} = vector.fma {vector}, {scales[v]}, {shifts[v]} : {vec}")
                    vector = scaled
                if self.relu and not self.residual:
                    vector = relu(define, vector, vec)
                for lane in range(lanes):
                    value, channel = name("v"), name("fc")
                    emit(16, f"{value} = vector.extract {vector}[{lane}] : f32 from {vec}")
                    emit(16, f"{channel} = arith.addi %f0, %c{lanes * v + lane} : index")
                    if self.residual:  # added value by value, as the outputs are stored
                        residual, total = name("r"), name("e")
                        emit(16, f"{residual} = memref.load %residual[%n, {channel}, {oh}, {ow}] : {out_type}")
                        emit(16, f"{total} = arith.addf {value}, {residual} : f32")
                        value = relu(define, total, "f32") if self.relu else total
                    emit(16, f"memref.store {value}, %output[%n, {channel}, {oh}, {ow}] : {out_type}")
            emit(14, "}")
        emit(12, "}")
        emit(10, "}")
        emit(10, "return")
        return self.kernel_executable(target, (self.filter_tiles, blocks, self.n), "\n".join(lines))
