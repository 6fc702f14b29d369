"""strata's f32 matmul kernel for AVX2 CPUs, written as a whole IREE dispatch.

IREE 3.13's data-tiled matmul (pack A and B into tiles, `linalg.mmt4d`, unpack C) runs 4 x 16
register tiles: eight accumulators, exactly what two FMA pipes of latency 4 need, so every late
load stalls them. On 1024^3 at two threads that was 88-118 GFLOP/s against OpenBLAS's 122-138.
This kernel keeps 6 rows x 16 columns of C in twelve AVX2 accumulators; for each k it loads 16
floats of B (two vectors), broadcasts one element of each of six rows of A and issues twelve
FMAs, four k-steps per loop iteration, prefetching B's panel ahead. A and C stay row-major: no
packing of A, no unpack of C.

Blocking, for the caches of a Zen 3 core (32 KiB L1, 512 KiB L2): B is packed into panels of 16
columns, `[N/16][K][16]` (a `linalg.pack`, so constant weights pack when the module loads; a B
the caller passes, by `strata.panel_pack` at every call). Read unpacked, each k-step of a panel
is in another 4 KiB page: at 1024^3 on Zen 4 (K blocks of 128 or 256) the kernel took twice the
time. A workgroup owns up to 8 consecutive panels (128 columns of C; fewer, down to 4, where that
divides the grid among IREE's workers more evenly) and a block of about 256 rows, and walks K in
blocks of 512: for each block, six rows of A at a time (12 KiB, in L1) meet each of its panels'
512 x 16 slices (32 KiB each, 256 KiB in all: in L2). The first K block starts from
zero, the others add to the C tile they load; blocks of 512 rather than 256 halve those passes
over C (2048^3: 110 -> 122 GFLOP/s). Splitting the rows as well as the columns among workgroups
keeps both threads busy to the end (2048^3: 130 -> 146 GFLOP/s). Packing A into 6-row tiles as
well made no difference beyond 2% either way, and its pass over A costs 4% at 2048^3. Rows past
the last multiple of six run the same loop with fewer accumulators. A matrix-vector product (one
row) reads B from memory, not from cache, and its speed is how much of B is in flight: it runs
over the two halves of K at once, two streams of each panel (`_Writer.vector_row`).

The same kernel in AVX-512's 16-float vectors (`lanes=16`) holds a panel in one vector, so a 6-row
tile is six accumulators: enough where a 512-bit FMA issues once a cycle with latency 4 (Zen 4,
which computes it as two 256-bit halves), and a k-step is half the instructions. On Zen 4 it beats
the 8-float kernel and strata's 8x16 tiles on matmuls of 128 rows or more (targets/llvm-cpu.toml).

IREE takes it as a hand-written executable (`strata.kernel_calls`): strata-matmul-kernel leaves a
call of `@strata_kernel_matmul6x16_m<M>_k<K>_n<N>` (`..._lanes16` in 16-float vectors) in the
linalg stage.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import LANES, executable_text, lanes_suffix, layout, relu, symbol_lanes
from strata.workgroup_balance import balance, workers

ROWS = 6  # rows of A and C per register tile
COLUMNS = 16  # columns of B and C per register tile (two 8-float vectors, or one of 16): a panel
K_BLOCK = 512  # k-steps per block: the workgroup's slice of B (256 KiB) stays in L2
UNROLL = 4  # k-steps per loop iteration; K must be a multiple
MAX_PANELS = 8  # panels per workgroup: 128 columns
MIN_PANELS = 4  # the fewest a workgroup takes for a more even grid (`panels_per_workgroup`)
BLOCK_TILES = 43  # 6-row tiles per workgroup (258 rows)
# k-steps ahead the B panel is prefetched (two loop iterations). Near the end of K that address
# is the next panel's or, for the last, past the buffer: x86 prefetches never fault.
PREFETCH = 8

SYMBOL_PREFIX = "strata_kernel_matmul6x16_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"m(\d+)_k(\d+)_n(\d+)(_bias)?(_residual)?(_relu)?(?:_lanes(\d+))?$")


@dataclass(frozen=True)
class MatmulKernel:
    """C[m][n] = A[m][k] x B[k][n] in f32, with B given as panels `[n/16][k][16]`; then, as the
    last K block is stored, + bias[n] (`bias`), + R[m][n] (`residual`) and max(., 0) (`relu`),
    in that order: the epilogue strata-matmul-kernel folds in. `lanes` floats a vector: 8, two
    vectors a panel (twelve accumulators in a 6-row tile), or 16, one (six: enough where a
    512-bit FMA issues once a cycle, as on Zen 4, and half the instructions)."""

    m: int
    k: int
    n: int
    bias: bool = False
    residual: bool = False
    relu: bool = False
    lanes: int = LANES[0]

    @classmethod
    def applies(cls, m: int, k: int, n: int) -> bool:
        """Whether the kernel computes these sizes: whole panels and whole unrolled k-steps (for
        one row, in each half of K: `_Writer.vector_row`)."""
        return m >= 1 and n % COLUMNS == 0 and k % (2 * UNROLL if m == 1 else UNROLL) == 0 and k > 0

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        if not match:
            return None
        m, k, n, bias, residual, relu_, lanes = match.groups()
        if symbol_lanes(lanes) is None:
            return None
        return cls(int(m), int(k), int(n), bias=bool(bias), residual=bool(residual), relu=bool(relu_), lanes=symbol_lanes(lanes))

    @property
    def symbol(self) -> str:
        epilogue = "".join(f"_{part}" for part in ("bias", "residual", "relu") if getattr(self, part))
        return f"{SYMBOL_PREFIX}m{self.m}_k{self.k}_n{self.n}{epilogue}{lanes_suffix(self.lanes)}"

    @property
    def panels(self) -> int:
        return self.n // COLUMNS

    @property
    def tiles(self) -> int:
        return -(-self.m // ROWS)

    @property
    def row_blocks(self) -> int:
        return -(-self.tiles // BLOCK_TILES)

    @property
    def panels_per_workgroup(self) -> int:
        """A divisor of the panel count, at most MAX_PANELS: the largest, unless a smaller one of
        at least MIN_PANELS divides the grid among IREE's workers more evenly
        (`strata.workgroup_balance`). GPT-2's MLP at batch 1 (192 panels) in 8 panels is 24
        workgroups, 16 and 8 for two workers; in 6, 32: 16 and 16. Its QKV projection at batch 4
        (144 panels, two row blocks): 36 workgroups, 20 and 16; in 6, 48. At two threads the
        block took 9% less time at batch 1 and 2.4% at batch 4 (30 interleaved rounds); at one
        thread, where the grid runs in order, it was level. Fewer than MIN_PANELS cost: the
        LLaMA block's 86 panels in 1 instead of 2 took 0.7% more at one thread."""
        divisors = [d for d in range(MAX_PANELS, 0, -1) if self.panels % d == 0]
        wide = [d for d in divisors if d >= min(MIN_PANELS, divisors[0])]
        shares = {d: balance(self.panels // d * self.row_blocks, workers()) for d in wide}
        best = max(shares.values())
        return next(d for d in wide if shares[d] >= best - 0.01)

    @property
    def vectors_per_panel(self) -> int:
        return COLUMNS // self.lanes

    @property
    def tail_panels(self) -> int:
        """Panels the rows past the last multiple of six take at once: enough for eight
        accumulators (with 8 lanes: 2 rows x 2 panels, 1 row x 4), so that FMAs do not wait on
        their latency, and a divisor of the workgroup's panels."""
        rows = self.m % ROWS
        wanted = -(-8 // (self.vectors_per_panel * rows)) if rows else 1
        return max(w for w in range(1, wanted + 1) if self.panels_per_workgroup % w == 0)

    def operands(self) -> list[tuple[str, str]]:
        """(binding name, tensor type) of each operand, then of the result."""
        matrix = f"tensor<{self.m}x{self.n}xf32>"
        named = [("a", f"tensor<{self.m}x{self.k}xf32>"), ("b", f"tensor<{self.panels}x{self.k}x{COLUMNS}xf32>")]
        named += [("bias", f"tensor<{self.n}xf32>")] if self.bias else []
        named += [("residual", matrix)] if self.residual else []
        return named + [("c", matrix)]

    def types(self) -> tuple[str, ...]:
        """The tensor types of A, of B's panels, of the bias and the residual where the epilogue
        reads them, and of C."""
        return tuple(t for _, t in self.operands())

    def executable(self, target: str) -> str:
        """The `hal.executable` computing this matmul for `target` (an x86-64 CPU with AVX2 and
        FMA): variant `cpu`, one export and function, both named by `symbol`."""
        return _Writer(self).executable(target)


class _Writer:
    """Writes the kernel's function body as MLIR text, one SSA name per value."""

    def __init__(self, kernel: MatmulKernel):
        self.kernel = kernel
        self.memref_types = {name: t.replace("tensor<", "memref<") for name, t in kernel.operands()}
        self.a_type, self.b_type, self.c_type = (self.memref_types[name] for name in ("a", "b", "c"))
        self.lines: list[str] = []
        self.count = 0
        self.vector = f"vector<{kernel.lanes}xf32>"

    def name(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append(" " * indent + text)

    def op(self, indent: int, text: str) -> str:
        value = self.name("v")
        self.emit(indent, f"{value} = {text}")
        return value

    def tile(self, indent: int, m0: str, rows: int, panels: int = 1) -> None:
        """C[m0 : m0 + rows][%col0 : %col0 + 16 * panels] over k in [%kb, %kend), from zero in the
        first K-block (%first) and from C's values in the others: `rows` x `panels` x
        `vectors_per_panel` accumulators."""
        vec, lanes, per_panel = self.vector, self.kernel.lanes, self.kernel.vectors_per_panel
        vectors = per_panel * panels
        count = rows * vectors
        types = ", ".join([vec] * count)
        row_index = [self.op(indent, f"arith.addi {m0}, %k{r} : index") for r in range(rows)]
        panel_index = ["%p"] + [self.op(indent, f"arith.addi %p, %k{w} : index") for w in range(1, panels)]
        offsets = [self.op(indent, f"arith.constant {lanes * v} : index") for v in range(1, vectors)]
        columns = ["%col0"] + [self.op(indent, f"arith.addi %col0, {offset} : index") for offset in offsets]
        init = self.name("init")
        self.emit(indent, f"{init}:{count} = scf.if %first -> ({types}) {{")
        self.emit(indent + 2, f"scf.yield {', '.join(['%zero'] * count)} : {types}")
        self.emit(indent, "} else {")
        loaded = [self.op(indent + 2, f"vector.load %c[{row}, {col}] : {self.c_type}, {vec}") for row in row_index for col in columns]
        self.emit(indent + 2, f"scf.yield {', '.join(loaded)} : {types}")
        self.emit(indent, "}")
        accs = [self.name("acc") for _ in range(count)]  # [row][vector]
        result = self.name("tile")
        iter_args = ", ".join(f"{acc} = {init}#{i}" for i, acc in enumerate(accs))
        self.emit(indent, f"{result}:{count} = scf.for %kk = %kb to %kend step %unroll iter_args({iter_args}) -> ({types}) {{")
        body = indent + 2
        current = list(accs)
        for u in range(UNROLL):
            k = self.op(body, f"arith.addi %kk, %k{u} : index")
            ahead = self.op(body, f"arith.addi {k}, %prefetch : index")
            b = []
            for panel in panel_index:
                self.emit(body, f"memref.prefetch %b[{panel}, {ahead}, %c0], read, locality<3>, data : {self.b_type}")
                b += [self.op(body, f"vector.load %b[{panel}, {k}, %k{lanes * j}] : {self.b_type}, {vec}") for j in range(per_panel)]
            for r in range(rows):
                a = self.op(body, f"memref.load %a[{row_index[r]}, {k}] : {self.a_type}")
                broadcast = self.op(body, f"vector.broadcast {a} : f32 to {vec}")
                for v in range(vectors):
                    i = vectors * r + v
                    current[i] = self.op(body, f"vector.fma {broadcast}, {b[v]}, {current[i]} : {vec}")
        self.emit(body, f"scf.yield {', '.join(current)} : {types}")
        self.emit(indent, "}")
        kernel = self.kernel
        if not (kernel.bias or kernel.residual or kernel.relu):
            self.store(indent, result, row_index, columns, lambda value, row, column: value)
            return
        self.emit(indent, "scf.if %last {")
        self.store(indent + 2, result, row_index, columns, lambda value, row, column: self.epilogue(indent + 2, value, row, column))
        self.emit(indent, "} else {")
        self.store(indent + 2, result, row_index, columns, lambda value, row, column: value)
        self.emit(indent, "}")

    def epilogue(self, indent: int, value: str, row: str, column: str) -> str:
        """`value`, C's vector at [`row`][`column`:+lanes], through the kernel's epilogue."""
        kernel, vec = self.kernel, self.vector
        if kernel.bias:
            bias = self.op(indent, f"vector.load %bias[{column}] : {self.memref_types['bias']}, {vec}")
            value = self.op(indent, f"arith.addf {value}, {bias} : {vec}")
        if kernel.residual:
            residual = self.op(indent, f"vector.load %residual[{row}, {column}] : {self.memref_types['residual']}, {vec}")
            value = self.op(indent, f"arith.addf {value}, {residual} : {vec}")
        if kernel.relu:
            value = relu(lambda text: self.op(indent, text), value, vec)
        return value

    def vector_row(self, indent: int) -> None:
        """C's one row, panel by panel, over K's two halves at once: two streams of B (a second
        stream keeps more of B in flight from memory; one panel at a time read it at 9 GB/s, its
        two halves together at 12.5 on this host) in one accumulator per half and vector of a
        panel, added at the end."""
        vec, lanes, parts = self.vector, self.kernel.lanes, self.kernel.vectors_per_panel
        count = 2 * parts  # [half][part]
        types = ", ".join([vec] * count)
        sums = [f"%s{i}" for i in range(count)]
        iter_args = ", ".join(f"{s_} = %zero" for s_ in sums)
        self.emit(indent, f"%row:{count} = scf.for %kk = %c0 to %k_half step %unroll iter_args({iter_args}) -> ({types}) {{")
        body = indent + 2
        current = list(sums)
        for u in range(UNROLL):
            k = self.op(body, f"arith.addi %kk, %k{u} : index")
            far = self.op(body, f"arith.addi {k}, %k_half : index")
            for half, kk in enumerate((k, far)):
                a = self.op(body, f"memref.load %a[%c0, {kk}] : {self.a_type}")
                broadcast = self.op(body, f"vector.broadcast {a} : f32 to {vec}")
                for part in range(parts):
                    b = self.op(body, f"vector.load %b[%p, {kk}, %k{lanes * part}] : {self.b_type}, {vec}")
                    i = parts * half + part
                    current[i] = self.op(body, f"vector.fma {broadcast}, {b}, {current[i]} : {vec}")
        self.emit(body, f"scf.yield {', '.join(current)} : {types}")
        self.emit(indent, "}")
        for part in range(parts):
            column = self.op(indent, f"arith.addi %col0, %k{lanes * part} : index")
            total = self.op(indent, f"arith.addf %row#{part}, %row#{part + parts} : {vec}")
            value = self.epilogue(indent, total, "%c0", column)
            self.emit(indent, f"vector.store {value}, %c[%c0, {column}] : {self.c_type}, {vec}")

    def store(self, indent: int, result: str, row_index: list[str], columns: list[str], epilogue) -> None:
        """Stores the tile's accumulators (`result`'s values, [row][vector]) to C, each through
        `epilogue(value, row, column)`."""
        vec = self.vector
        for r, row in enumerate(row_index):
            for v, column in enumerate(columns):
                value = epilogue(f"{result}#{len(columns) * r + v}", row, column)
                self.emit(indent, f"vector.store {value}, %c[{row}, {column}] : {self.c_type}, {vec}")

    def panel_loop(self, indent: int, body, step: int = 1) -> None:
        """`body(indent)` for each panel %p of the workgroup (every `step`-th), its first column
        %col0."""
        self.emit(indent, f"scf.for %pi = %c0 to %panels step %k{step} {{")
        self.emit(indent + 2, "%p = arith.addi %p0, %pi : index")
        self.emit(indent + 2, f"%col0 = arith.muli %p, %k{COLUMNS} : index")
        body(indent + 2)
        self.emit(indent, "}")

    def executable(self, target: str) -> str:
        kernel = self.kernel
        full, rest = divmod(kernel.m, ROWS)
        names = [name for name, _ in kernel.operands()]
        lay = layout(len(names))
        bindings = [
            f"%{name} = hal.interface.binding.subspan layout({lay}) binding({i}) alignment(64) offset(%c0)"
            f"{'' if name == 'c' else ' flags(ReadOnly)'} : {self.memref_types[name]}"
            for i, name in enumerate(names)
        ]
        prologue = [f"%k{i} = arith.constant {i} : index" for i in range(max(ROWS, UNROLL, COLUMNS) + 1)]
        prologue += [
            "%c0 = arith.constant 0 : index",
            "%c1 = arith.constant 1 : index",
            f"%zero = arith.constant dense<0.0> : {self.vector}",
            f"%k_total = arith.constant {kernel.k} : index",
            f"%k_block = arith.constant {K_BLOCK} : index",
            f"%unroll = arith.constant {UNROLL} : index",
            f"%prefetch = arith.constant {PREFETCH} : index",
            f"%panels = arith.constant {kernel.panels_per_workgroup} : index",
            f"%full_rows = arith.constant {full * ROWS} : index",
            f"%block_rows = arith.constant {BLOCK_TILES * ROWS} : index",
            f"%last_block = arith.constant {kernel.row_blocks - 1} : index",
            *bindings,
            "%column_group = hal.interface.workgroup.id[0] : index",
            "%row_block = hal.interface.workgroup.id[1] : index",
            "%p0 = arith.muli %column_group, %panels : index",
            "%m_begin = arith.muli %row_block, %block_rows : index",
            "%m_next = arith.addi %m_begin, %block_rows : index",
            "%m_end = arith.minui %m_next, %full_rows : index",
            "%in_last_block = arith.cmpi eq, %row_block, %last_block : index",
        ]
        for line in prologue:
            self.emit(10, line)
        if kernel.m == 1:  # over K's two halves at once
            self.emit(10, f"%k_half = arith.constant {kernel.k // 2} : index")
            self.panel_loop(10, self.vector_row)
            self.emit(10, "return")
            counts = (kernel.panels // kernel.panels_per_workgroup, 1, 1)
            return executable_text(kernel.symbol, target, len(names), counts, "\n".join(self.lines))
        self.emit(10, "scf.for %kb = %c0 to %k_total step %k_block {")
        self.emit(12, "%kb_next = arith.addi %kb, %k_block : index")
        self.emit(12, "%kend = arith.minui %kb_next, %k_total : index")
        self.emit(12, "%first = arith.cmpi eq, %kb, %c0 : index")
        self.emit(12, "%last = arith.cmpi eq, %kend, %k_total : index")
        if full:
            self.emit(12, f"scf.for %m0 = %m_begin to %m_end step %k{ROWS} {{")
            self.panel_loop(14, lambda indent: self.tile(indent, "%m0", ROWS))
            self.emit(12, "}")
        if rest:
            self.emit(12, "scf.if %in_last_block {")
            wide = self.kernel.tail_panels
            self.panel_loop(14, lambda indent: self.tile(indent, "%full_rows", rest, wide), wide)
            self.emit(12, "}")
        self.emit(10, "}")
        self.emit(10, "return")
        counts = (kernel.panels // kernel.panels_per_workgroup, kernel.row_blocks, 1)
        return executable_text(kernel.symbol, target, len(names), counts, "\n".join(self.lines))
