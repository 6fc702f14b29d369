"""strata's Winograd F(2x2, 3x3) convolution for AVX2 CPUs: two dispatches, 2.25x fewer FMAs.

A 3x3 stride-1 convolution computes each 2x2 block of output pixels from a 4x4 block of input
(a tile) with 36 multiplications per input and output channel; Winograd's minimal filtering
algorithm does it with 16 (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
2016): with the filter transformed once, `U = G g G^T` (4x4 per output and input channel), and
each input tile transformed, `V = B^T d B`, the 16 products `U[xi] * V[xi]` summed over input
channels are a batch of 16 matrix products (tiles x channels by channels x output channels), and
`A^T M A` turns each tile's 16 sums back into its 2x2 output pixels. The transforms are additions
only; the products are the work, 2.25x less of it than the direct kernels'.

Layouts: the filter transformed and packed to `U[16][F/16][C][16]` (a `linalg.generic` over the
constant filter, which IREE computes when the module loads), the input padded to whole tiles and
transformed by `WinogradInput` into V (tiles numbered row-major: `V[N][16][C][T]` for rows of
16 tiles or more, else `V[N][16][T/6][C][6]`; `tiles_last`), the output NCHW.
`WinogradConv` is the product, the output transform and the epilogue of `strata.conv_kernel` in
one dispatch: for 6 tiles x 16 output channels it runs the 16 products in twelve AVX2
accumulators (per input channel two vector loads of U, six broadcasts of V, twelve FMAs, as
`strata.pixel_tile_conv`), keeps the 16 x 6 x 16 sums in a 6 KiB stack buffer, and transforms them
into 2x2 output pixels, which it stores after the epilogue (or their max, if it pools 2x2).
With `lanes=16` (AVX-512; symbols `..._winograd2x2_lanes16_...`) the products take a tile's 16
output channels in one vector: six accumulators, per input channel one load of U and six FMAs,
half the instructions (on Zen 4, whose 16-float FMAs are two 8-float halves, ResNet-18 0.942x and
the CNN 0.938x the time per call, one thread); the output transform stays in 8 floats.
Rounding: the transforms add and subtract inputs of similar size; the results match the direct
convolution to about 1e-6 relative.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import LANES, ConvKernel, executable_text, layout, relu, symbol_lanes

TILES = 6  # tiles per register tile
CHANNELS = 16  # output channels per register tile
GROUPS_PER_WORKGROUP = 8  # register tiles of 6 tiles per workgroup
# Fewer tiles do not pay for a filter 16/9 the size: ResNet-18's 4x4-pixel layer (4 tiles) was
# 1.11x the direct kernel's time, its 7x7 layer (16 tiles) 0.805x.
MIN_TILES = 16
UNROLL = 4  # input channels per step of the products' loop (the kernel takes C in whole 4s)
_LANES = 8  # tiles per vector in the input transform
WIDE_ROWS = 16  # tiles per row from which V keeps the tiles last (`tiles_last`)
PREFETCH = 8  # input channels ahead the products prefetch V, tiles last

# G (4x3): U = G g G^T; B^T and A^T are written out as additions below.
G = ((1.0, 0.0, 0.0), (0.5, 0.5, 0.5), (0.5, -0.5, 0.5), (0.0, 0.0, 1.0))

_INPUT_PREFIX = "strata_kernel_winograd_in_"
_INPUT_SYMBOL = re.compile(_INPUT_PREFIX + r"n(\d+)_c(\d+)_h(\d+)_w(\d+)_t(\d+)x(\d+)$")
SYMBOL_PREFIX = "strata_kernel_winograd2x2_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"(?:lanes(\d+)_)?n(\d+)_c(\d+)_h(\d+)_w(\d+)_f(\d+)_k(\d+)x(\d+)$")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def tiles(oh: int, ow: int) -> tuple[int, int]:
    """Tile rows and columns covering an output of `oh` x `ow` pixels."""
    return _ceil_div(oh, 2), _ceil_div(ow, 2)


def tiles_last(tw: int) -> bool:
    """Whether V keeps the tiles last, [n][16][c][tiles], for rows of `tw` tiles (else it groups
    them: [n][16][register tiles][c][6]).

    Both let the products read a register tile's 6 values per input channel from consecutive
    addresses. Grouped, the input channels follow one another too, but the input transform stores
    its 8 lanes (tiles) one by one; tiles last, it stores them as one vector, and the products
    read each input channel's values from another cache line (prefetched). Measured per
    dispatch, one thread: the CNN's 28-tile rows (32 channels) transform in 75 instead of 170 us
    and multiply no slower; ResNet-18's 4-tile rows (256 channels) multiply 15-20% slower."""
    return tw >= WIDE_ROWS


def transformed_type(n: int, c: int, th: int, tw: int) -> str:
    """The type of V for `th` x `tw` tiles (`tiles_last`). Values of the last register tile's
    tiles past the last tile are never written, and the products computed from them never
    stored."""
    count = th * tw
    if tiles_last(tw):  # every tile the register tiles read, in whole vectors of 8
        return f"tensor<{n}x16x{c}x{_LANES * _ceil_div(TILES * _ceil_div(count, TILES), _LANES)}xf32>"
    return f"tensor<{n}x16x{_ceil_div(count, TILES)}x{c}x{TILES}xf32>"


def padded_input(th: int, tw: int) -> tuple[int, int]:
    """Rows and columns of the input the transform reads for `th` x `tw` tiles: whole tiles, and
    whole groups of 8 tiles along a row (loads of 18 columns per group)."""
    return 2 * th + 2, 16 * _ceil_div(tw, _LANES) + 2


class _Text:
    """MLIR text of a kernel's function body, one SSA name per value."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def emit(self, indent: int, text: str) -> None:
        self.lines.append(" " * indent + text)

    def op(self, indent: int, text: str) -> str:
        self.count += 1
        value = f"%v{self.count}"
        self.emit(indent, f"{value} = {text}")
        return value


@dataclass(frozen=True)
class WinogradInput:
    """The input transform of `th` x `tw` tiles of an input [n][c][hp][wp] (padded to
    `padded_input`): V[n][16][c][th * tw]."""

    n: int
    c: int
    hp: int
    wp: int
    th: int
    tw: int

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _INPUT_SYMBOL.match(symbol)
        return cls(*(int(g) for g in match.groups())) if match else None

    @property
    def symbol(self) -> str:
        return f"{_INPUT_PREFIX}n{self.n}_c{self.c}_h{self.hp}_w{self.wp}_t{self.th}x{self.tw}"

    def types(self) -> tuple[str, str]:
        return (f"tensor<{self.n}x{self.c}x{self.hp}x{self.wp}xf32>", transformed_type(self.n, self.c, self.th, self.tw))

    def executable(self, target: str) -> str:
        """Workgroups: blocks of input channels x tile rows x batch; each transforms its tile rows in groups
        of 8 tiles (the last masked in grouped V), one vector lane per tile: four rows of 18 input columns
        loaded as two pairs of vectors, split into even and odd columns (the tiles' columns 0-3),
        `B^T d B` in 32 additions, 16 vector stores (`tiles_last`; rows of 16 tiles or more, whose
        last 8 tiles repeat some of the group before) or 128 scalar stores (grouped)."""
        x_type, v_type = (t.replace("tensor<", "memref<") for t in self.types())
        text = _Text()
        groups, rest = divmod(self.tw, _LANES)
        wide = tiles_last(self.tw)
        head = [
            *(f"%k{i} = arith.constant {i} : index" for i in (*range(13), 16)),
            "%c0 = arith.constant 0 : index",
            f"%tw = arith.constant {self.tw} : index",
            f"%full_end = arith.constant {groups * _LANES} : index",
            f"%input = hal.interface.binding.subspan layout({layout(2)}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {x_type}",
            f"%output = hal.interface.binding.subspan layout({layout(2)}) binding(1) alignment(64) offset(%c0) : {v_type}",
            "%cg = hal.interface.workgroup.id[0] : index",
            "%th = hal.interface.workgroup.id[1] : index",
            "%n = hal.interface.workgroup.id[2] : index",
            "%row0 = arith.muli %th, %k2 : index",
            "%row_tiles = arith.muli %th, %tw : index",
        ]
        for line in head:
            text.emit(10, line)
        per_workgroup = self.channels_per_workgroup
        text.emit(10, f"%per_workgroup = arith.constant {per_workgroup} : index")
        text.emit(10, "%c_first = arith.muli %cg, %per_workgroup : index")
        text.emit(10, "%c_end = arith.addi %c_first, %per_workgroup : index")

        def group(tw0: str, masked: bool, indent: int) -> None:
            v8 = "vector<8xf32>"
            col0 = text.op(indent, f"arith.muli {tw0}, %k2 : index")
            t0 = text.op(indent, f"arith.addi %row_tiles, {tw0} : index")
            lanes = [] if wide else grouped_lanes(t0, rest if masked else _LANES, indent)
            text.emit(indent, "scf.for %ci = %c_first to %c_end step %k1 {")
            indent += 2
            d = []
            for a in range(4):
                row = text.op(indent, f"arith.addi %row0, %k{a} : index")
                loads = []
                for offset in (0, 8, 2, 10):
                    col = text.op(indent, f"arith.addi {col0}, %k{offset} : index")
                    loads.append(text.op(indent, f"vector.load %input[%n, %ci, {row}, {col}] : {x_type}, {v8}"))
                evens, odds = "0, 2, 4, 6, 8, 10, 12, 14", "1, 3, 5, 7, 9, 11, 13, 15"
                d.append([
                    text.op(indent, f"vector.shuffle {loads[0]}, {loads[1]} [{evens}] : {v8}, {v8}"),
                    text.op(indent, f"vector.shuffle {loads[0]}, {loads[1]} [{odds}] : {v8}, {v8}"),
                    text.op(indent, f"vector.shuffle {loads[2]}, {loads[3]} [{evens}] : {v8}, {v8}"),
                    text.op(indent, f"vector.shuffle {loads[2]}, {loads[3]} [{odds}] : {v8}, {v8}"),
                ])

            def bt(v):  # B^T applied to four values: (v0 - v2, v1 + v2, v2 - v1, v1 - v3)
                return [
                    text.op(indent, f"arith.subf {v[0]}, {v[2]} : {v8}"),
                    text.op(indent, f"arith.addf {v[1]}, {v[2]} : {v8}"),
                    text.op(indent, f"arith.subf {v[2]}, {v[1]} : {v8}"),
                    text.op(indent, f"arith.subf {v[1]}, {v[3]} : {v8}"),
                ]

            rows = [bt([d[a][j] for a in range(4)]) for j in range(4)]  # rows[j][i] = (B^T d)[i][j]
            for i in range(4):
                transformed = bt([rows[j][i] for j in range(4)])  # (B^T d B)[i][0..3]
                for j in range(4):
                    xi = text.op(indent, f"arith.constant {4 * i + j} : index")
                    if wide:
                        text.emit(indent, f"vector.store {transformed[j]}, %output[%n, {xi}, %ci, {t0}] : {v_type}, {v8}")
                        continue
                    for lane, (group, in_group) in enumerate(lanes):
                        value = text.op(indent, f"vector.extract {transformed[j]}[{lane}] : f32 from {v8}")
                        text.emit(indent, f"memref.store {value}, %output[%n, {xi}, {group}, %ci, {in_group}] : {v_type}")
            text.emit(indent - 2, "}")

        def grouped_lanes(t0: str, count: int, indent: int) -> list[tuple[str, str]]:
            """Per lane of the first `count`, (register tile, tile in it) of tile `t0` + lane, in
            grouped V."""
            # Each lane's register tile and place in it, outside the loop over channels and
            # from one division: as a quotient and remainder per lane, inside that loop, they
            # cost LLVM's loop strength reduction 0.8 s per kernel (the CNN of strata-bench
            # compiled in 1.4x plain IREE's time); now 0.2 s, and the kernel is no slower.
            group0 = text.op(indent, f"arith.divui {t0}, %k6 : index")
            in_group0 = text.op(indent, f"arith.remui {t0}, %k6 : index")
            lanes = []  # per lane: (register tile, tile in it) of tile t0 + lane
            for lane in range(count):
                position = text.op(indent, f"arith.addi {in_group0}, %k{lane} : index") if lane else in_group0
                group, in_group = group0, position
                for bound in (TILES, 2 * TILES):  # the lane is past the end of t0's register tile, or the next's
                    if lane + TILES - 1 < bound:
                        continue
                    passes = text.op(indent, f"arith.cmpi uge, {position}, %k{bound} : index")
                    group = text.op(indent, f"arith.select {passes}, {text.op(indent, f'arith.addi {group}, %k1 : index')}, {group} : index")
                    in_group = text.op(indent, f"arith.select {passes}, {text.op(indent, f'arith.subi {in_group}, %k{TILES} : index')}, {in_group} : index")
                lanes.append((group, in_group))
            return lanes

        if groups:
            text.emit(10, "scf.for %tw0 = %k0 to %full_end step %k8 {")
            group("%tw0", False, 12)
            text.emit(10, "}")
        if rest and wide:  # the row's last 8 tiles, some again: the vector stores stay in the row
            text.emit(10, f"%last_group = arith.constant {self.tw - _LANES} : index")
            group("%last_group", False, 10)
        elif rest:
            group("%full_end", True, 10)
        text.emit(10, "return")
        counts = (self.c // per_workgroup, self.th, self.n)
        return executable_text(self.symbol, target, 2, counts, "\n".join(text.lines))

    @property
    def channels_per_workgroup(self) -> int:
        """Input channels a workgroup transforms: up to 16 (one channel's tile row is too little
        work for a workgroup of its own)."""
        return next(k for k in (16, 8, 4, 2, 1) if self.c % k == 0)


@dataclass(frozen=True)
class WinogradConv(ConvKernel):
    """The products, output transform and epilogue of a 3x3 stride-1 convolution of a padded input
    [n][c][hp][wp] by [f][c][3][3] (f a multiple of 16), from V and U."""

    SYMBOL = _SYMBOL
    TILE = CHANNELS
    POOLS = True

    lanes: int = LANES[0]  # floats a vector of the products (the output transform takes 8)

    @classmethod
    def fields(cls, groups: tuple[str, ...]) -> tuple[int, ...] | None:
        """The symbol names the lanes first (`winograd2x2_lanes16_`; none for 8), the dataclass
        last."""
        lanes, *shapes = groups
        if symbol_lanes(lanes) is None:
            return None
        return (*(int(g) for g in shapes), symbol_lanes(lanes))

    @property
    def oh(self) -> int:
        return self.hp - 2

    @property
    def ow(self) -> int:
        return self.wp - 2

    @property
    def shapes_symbol(self) -> str:
        lanes = f"lanes{self.lanes}_" if self.lanes != LANES[0] else ""
        return f"{SYMBOL_PREFIX}{lanes}n{self.n}_c{self.c}_h{self.hp}_w{self.wp}_f{self.f}_k{self.kh}x{self.kw}"

    @property
    def tiles(self) -> tuple[int, int]:
        return tiles(self.oh, self.ow)

    def operands(self) -> list[tuple[str, str]]:
        th, tw = self.tiles
        operands = super().operands()
        operands[0] = ("input", transformed_type(self.n, self.c, th, tw))
        operands[1] = ("weights", f"tensor<16x{self.f // CHANNELS}x{self.c}x{CHANNELS}xf32>")
        return operands

    def executable(self, target: str) -> str:
        """Workgroups: groups of 16 output channels x blocks of 8 register tiles x batch."""
        memrefs = dict(zip((name for name, _ in self.operands()), self.memref_types()))
        th, tw = self.tiles
        count = th * tw
        groups = _ceil_div(count, TILES)
        v8 = "vector<8xf32>"
        buffer = f"memref<16x{TILES}x{CHANNELS}xf32>"
        text = _Text()
        constants = sorted({0, 1, 2, 3, 4, 8, 12, 16, TILES, CHANNELS, GROUPS_PER_WORKGROUP, tw, count - 1, count, groups, *range(16)})
        for value in constants:
            text.emit(10, f"%c{value} = arith.constant {value} : index")
        text.emit(10, f"%channels = arith.constant {self.c} : index")
        text.emit(10, "%zero = arith.constant dense<0.0> : vector<8xf32>")
        lanes, vectors = self.lanes, CHANNELS // self.lanes  # the products': vectors a tile, and of U
        vec = f"vector<{lanes}xf32>"
        zero = "%zero" if lanes == 8 else f"%zero{lanes}"
        if lanes != 8:
            text.emit(10, f"{zero} = arith.constant dense<0.0> : {vec}")
        text.emit(10, "%zero_f32 = arith.constant 0.0 : f32")
        for name, value in (("out_rows", self.oh), ("out_cols", self.ow), ("pooled_rows", self.oh // 2), ("pooled_cols", self.ow // 2)):
            text.emit(10, f"%{name} = arith.constant {value} : index")
        for line in self.bindings():
            text.emit(10, line)
        text.emit(10, "%fg = hal.interface.workgroup.id[0] : index")
        text.emit(10, "%block = hal.interface.workgroup.id[1] : index")
        text.emit(10, "%n = hal.interface.workgroup.id[2] : index")
        text.emit(10, f"%f0 = arith.muli %fg, %c{CHANNELS} : index")
        text.emit(10, f"%first_group = arith.muli %block, %c{GROUPS_PER_WORKGROUP} : index")
        text.emit(10, f"%sums = memref.alloca() : {buffer}")
        text.emit(10, f"scf.for %gi = %c0 to %c{GROUPS_PER_WORKGROUP} step %c1 {{")
        text.emit(12, "%group = arith.addi %first_group, %gi : index")
        text.emit(12, f"%live = arith.cmpi ult, %group, %c{groups} : index")
        text.emit(12, "scf.if %live {")
        indent = 14
        t0 = text.op(indent, f"arith.muli %group, %c{TILES} : index")
        wide = tiles_last(tw)
        tiles = [t0] + [text.op(indent, f"arith.addi {t0}, %c{i} : index") for i in range(1, TILES)] if wide else []
        # The 16 products, each into the buffer.
        accs = [f"%acc{i}" for i in range(vectors * TILES)]
        types = ", ".join([vec] * len(accs))
        text.emit(indent, "scf.for %xi = %c0 to %c16 step %c1 {")
        inner = indent + 2
        iter_args = ", ".join(f"{a} = {zero}" for a in accs)
        text.emit(inner, f"%products:{len(accs)} = scf.for %cu = %c0 to %channels step %c{UNROLL} iter_args({iter_args}) -> ({types}) {{")
        current = list(accs)
        for u in range(UNROLL):
            ci = text.op(inner + 2, f"arith.addi %cu, %c{u} : index")
            if wide:
                ahead = text.op(inner + 2, f"arith.addi {ci}, %c{PREFETCH} : index")
                text.emit(inner + 2, f"memref.prefetch %input[%n, %xi, {ahead}, {t0}], read, locality<3>, data : {memrefs['input']}")
            w = [text.op(inner + 2, f"vector.load %weights[%xi, %fg, {ci}, %c{lanes * v}] : {memrefs['weights']}, {vec}") for v in range(vectors)]
            for i in range(TILES):
                at = f"{ci}, {tiles[i]}" if wide else f"%group, {ci}, %c{i}"
                x = text.op(inner + 2, f"memref.load %input[%n, %xi, {at}] : {memrefs['input']}")
                xb = text.op(inner + 2, f"vector.broadcast {x} : f32 to {vec}")
                for v in range(vectors):
                    current[vectors * i + v] = text.op(inner + 2, f"vector.fma {xb}, {w[v]}, {current[vectors * i + v]} : {vec}")
        text.emit(inner + 2, f"scf.yield {', '.join(current)} : {types}")
        text.emit(inner, "}")
        for i in range(TILES):
            for v in range(vectors):
                text.emit(inner, f"vector.store %products#{vectors * i + v}, %sums[%xi, %c{i}, %c{lanes * v}] : {buffer}, {vec}")
        text.emit(indent, "}")
        # The output transform, the epilogue and the stores, per tile and 8 output channels: loops,
        # not unrolled (unrolled, they were most of the kernel's code and of its compile time).
        text.emit(indent, f"scf.for %i = %c0 to %c{TILES} step %c1 {{")
        body = indent + 2
        tile = text.op(body, f"arith.addi {t0}, %i : index")
        inside = text.op(body, f"arith.cmpi ult, {tile}, %c{count} : index")
        text.emit(body, f"scf.if {inside} {{")
        body += 2
        tile_row = text.op(body, f"arith.divui {tile}, %c{tw} : index")
        tile_col = text.op(body, f"arith.remui {tile}, %c{tw} : index")
        row0 = text.op(body, f"arith.muli {tile_row}, %c2 : index")
        col0 = text.op(body, f"arith.muli {tile_col}, %c2 : index")
        rows = [row0, text.op(body, f"arith.addi {row0}, %c1 : index")]
        cols = [col0, text.op(body, f"arith.addi {col0}, %c1 : index")]
        text.emit(body, "scf.for %half = %c0 to %c2 step %c1 {")
        body += 2
        first = text.op(body, "arith.muli %half, %c8 : index")
        f_first = text.op(body, f"arith.addi %f0, {first} : index")
        m = [text.op(body, f"vector.load %sums[%c{xi}, %i, {first}] : {buffer}, {v8}") for xi in range(16)]
        s = []  # A^T M: s[j] = (row 0, row 1)
        for j in range(4):
            top = text.op(body, f"arith.addf {m[j]}, {m[4 + j]} : {v8}")
            top = text.op(body, f"arith.addf {top}, {m[8 + j]} : {v8}")
            bottom = text.op(body, f"arith.subf {m[4 + j]}, {m[8 + j]} : {v8}")
            bottom = text.op(body, f"arith.subf {bottom}, {m[12 + j]} : {v8}")
            s.append((top, bottom))
        pixels = {}  # (r, q) -> vector of 8 output channels
        for r in range(2):
            left = text.op(body, f"arith.addf {s[0][r]}, {s[1][r]} : {v8}")
            pixels[r, 0] = text.op(body, f"arith.addf {left}, {s[2][r]} : {v8}")
            right = text.op(body, f"arith.subf {s[1][r]}, {s[2][r]} : {v8}")
            pixels[r, 1] = text.op(body, f"arith.subf {right}, {s[3][r]} : {v8}")
        if self.affine:
            scale = text.op(body, f"vector.load %scale[{f_first}] : {memrefs['scale']}, {v8}")
            shift = text.op(body, f"vector.load %shift[{f_first}] : {memrefs['shift']}, {v8}")
        channels = [text.op(body, f"arith.addi {f_first}, %c{lane} : index") for lane in range(8)]
        finished = {}
        for (r, q), value in pixels.items():
            if self.affine:
                value = text.op(body, f"vector.fma {value}, {scale}, {shift} : {v8}")
            if self.relu and not self.residual:
                value = relu(lambda op: text.op(body, op), value, v8)
            finished[r, q] = value
        if self.pool2:
            self._store_pooled(text, finished, channels, tile_row, tile_col, rows, cols, memrefs, body)
        else:
            for (r, q), value in finished.items():
                self._store_pixel(text, value, channels, rows[r], cols[q], memrefs, body)
        text.emit(body - 2, "}")
        text.emit(body - 4, "}")
        text.emit(indent, "}")
        text.emit(12, "}")
        text.emit(10, "}")
        text.emit(10, "return")
        blocks = _ceil_div(groups, GROUPS_PER_WORKGROUP)
        return self.kernel_executable(target, (self.f // CHANNELS, blocks, self.n), "\n".join(text.lines))

    def _lanes(self, text: _Text, value: str, channels: list[str], row: str, col: str, memrefs, indent: int) -> list[str]:
        """The 8 lanes of `value` (output channels `channels` of pixel (row, col)) with the
        residual added and the ReLU applied, where the epilogue has them (value by value)."""
        lanes = []
        for lane, channel in enumerate(channels):
            scalar = text.op(indent, f"vector.extract {value}[{lane}] : f32 from vector<8xf32>")
            if self.residual:
                residual = text.op(indent, f"memref.load %residual[%n, {channel}, {row}, {col}] : {memrefs['residual']}")
                scalar = text.op(indent, f"arith.addf {scalar}, {residual} : f32")
                if self.relu:
                    scalar = relu(lambda op: text.op(indent, op), scalar, "f32")
            lanes.append(scalar)
        return lanes

    def _guard(self, text: _Text, row: str, row_limit: str, col: str, col_limit: str, indent: int) -> int:
        """Opens an `scf.if` of `row` < `row_limit` and `col` < `col_limit`, each only where the
        output rows (columns) are odd, so that the last tile row (column) is half outside;
        returns the indentation inside (`indent` if nothing was opened)."""
        checks = []
        if self.oh % 2:
            checks.append(text.op(indent, f"arith.cmpi ult, {row}, {row_limit} : index"))
        if self.ow % 2:
            checks.append(text.op(indent, f"arith.cmpi ult, {col}, {col_limit} : index"))
        if not checks:
            return indent
        inside = checks[0] if len(checks) == 1 else text.op(indent, f"arith.andi {checks[0]}, {checks[1]} : i1")
        text.emit(indent, f"scf.if {inside} {{")
        return indent + 2

    def _store_pixel(self, text: _Text, value: str, channels, row: str, col: str, memrefs, indent: int) -> None:
        inner = self._guard(text, row, "%out_rows", col, "%out_cols", indent)
        for channel, scalar in zip(channels, self._lanes(text, value, channels, row, col, memrefs, inner)):
            text.emit(inner, f"memref.store {scalar}, %output[%n, {channel}, {row}, {col}] : {memrefs['output']}")
        if inner != indent:
            text.emit(indent, "}")

    def _store_pooled(self, text: _Text, pixels, channels, tile_row: str, tile_col: str, rows, cols, memrefs, indent: int) -> None:
        """Stores the max of the tile's four pixels (after the epilogue): one pixel of the pooled
        output, if the tile is a whole pool window (with odd rows or columns, the last is not)."""
        inner = self._guard(text, tile_row, "%pooled_rows", tile_col, "%pooled_cols", indent)
        if self.residual:  # added lane by lane (NCHW: a channel's pixel is a scalar), so pooled so
            lanes = {key: self._lanes(text, value, channels, rows[key[0]], cols[key[1]], memrefs, inner) for key, value in pixels.items()}
            pooled = []
            for lane in range(len(channels)):
                top = text.op(inner, f"arith.maximumf {lanes[0, 0][lane]}, {lanes[0, 1][lane]} : f32")
                bottom = text.op(inner, f"arith.maximumf {lanes[1, 0][lane]}, {lanes[1, 1][lane]} : f32")
                pooled.append(text.op(inner, f"arith.maximumf {top}, {bottom} : f32"))
        else:  # the max of the four pixels' vectors, then its 8 lanes
            v8 = "vector<8xf32>"
            top = text.op(inner, f"arith.maximumf {pixels[0, 0]}, {pixels[0, 1]} : {v8}")
            bottom = text.op(inner, f"arith.maximumf {pixels[1, 0]}, {pixels[1, 1]} : {v8}")
            window = text.op(inner, f"arith.maximumf {top}, {bottom} : {v8}")
            pooled = [text.op(inner, f"vector.extract {window}[{lane}] : f32 from {v8}") for lane in range(len(channels))]
        for channel, value in zip(channels, pooled):
            text.emit(inner, f"memref.store {value}, %output[%n, {channel}, {tile_row}, {tile_col}] : {memrefs['output']}")
        if inner != indent:
            text.emit(indent, "}")
