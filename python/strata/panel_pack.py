"""strata's pack of a matmul's B into the matmul kernel's panels, for a B that arrives with each call.

`strata.matmul_kernel` reads B as panels of 16 columns, `[N/16][K][16]`. A constant B (a
weight) is packed once, when the module loads; a B the caller passes (`a @ b` of two inputs) is
packed at every call. IREE 3.13 codegens that `linalg.pack` as a walk down a workgroup's 64 rows
for one panel after another: 64 bytes from each row, every load in another 4 KiB page, which no
prefetcher follows.

This kernel reads `BLOCK_ROWS` rows of B at once and, panel after panel, copies their 16 columns
into the panel's next `BLOCK_ROWS` k-steps: eight streams along rows of B in, one stream of
`BLOCK_ROWS` x 64 contiguous bytes out, in whole vectors (`lanes` floats: two 8-float vectors a
panel row, or one of 16). A workgroup takes `WORKGROUP_ROWS` rows of K and up to
`WORKGROUP_PANELS` panels. Per dispatch at two threads (Zen 4, best of 40 calls), on 1024^3 it
took 0.19-0.29 ms against IREE's 0.29-0.39, and the whole matmul 1.2% less time (120
interleaved rounds); on 2048^3, where B and its panels (32 MiB) no longer fit in cache, 1.15-1.25
ms against 1.52-1.82, and the matmul was level (within 0.3%).

strata-matmul-kernel calls it (`@strata_kernel_panels16_k<K>_n<N>`, `..._lanes16` in 16-float
vectors) for a B that is an argument of the function; a B computed in the function keeps its
`linalg.pack`, which IREE may fuse into the dispatch computing B, or fold when B is constant.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import LANES, executable_text, lanes_suffix, layout, symbol_lanes
from strata.matmul_kernel import COLUMNS

BLOCK_ROWS = 8  # rows of B read at once (4 where K is not a multiple of 8)
WORKGROUP_ROWS = 64  # rows of B a workgroup packs
WORKGROUP_PANELS = 64  # panels a workgroup packs (1024 columns)

SYMBOL_PREFIX = "strata_kernel_panels16_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"k(\d+)_n(\d+)(?:_lanes(\d+))?$")


@dataclass(frozen=True)
class PanelPack:
    """panels[p][k][j] = B[k][16p + j] for B [k][n] in f32, `lanes` floats a vector (8 or 16)."""

    k: int
    n: int
    lanes: int = LANES[0]

    @classmethod
    def applies(cls, k: int, n: int) -> bool:
        """Whether the kernel packs these sizes: whole panels, and K a multiple of 4 (as the
        matmul kernel needs)."""
        return k > 0 and k % 4 == 0 and n > 0 and n % COLUMNS == 0

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        if not match:
            return None
        k, n, lanes = match.groups()
        if symbol_lanes(lanes) is None or not cls.applies(int(k), int(n)):
            return None
        return cls(int(k), int(n), symbol_lanes(lanes))

    @property
    def symbol(self) -> str:
        return f"{SYMBOL_PREFIX}k{self.k}_n{self.n}{lanes_suffix(self.lanes)}"

    @property
    def panels(self) -> int:
        return self.n // COLUMNS

    @property
    def block_rows(self) -> int:
        return BLOCK_ROWS if self.k % BLOCK_ROWS == 0 else 4

    def types(self) -> tuple[str, str]:
        """The tensor types of B and of its panels."""
        return f"tensor<{self.k}x{self.n}xf32>", f"tensor<{self.panels}x{self.k}x{COLUMNS}xf32>"

    def executable(self, target: str) -> str:
        """The `hal.executable` packing B for `target` (an x86-64 CPU): variant `cpu`, one export
        and function, both named by `symbol`."""
        b_type, panels_type = (t.replace("tensor<", "memref<") for t in self.types())
        vector, lanes = f"vector<{self.lanes}xf32>", self.lanes
        rows = self.block_rows
        lines = [
            "%c0 = arith.constant 0 : index",
            "%c1 = arith.constant 1 : index",
            *(f"%k{i} = arith.constant {i} : index" for i in sorted({*range(1, rows), *([lanes] if lanes < COLUMNS else [])})),
            f"%columns = arith.constant {COLUMNS} : index",
            f"%block_rows = arith.constant {rows} : index",
            f"%k_total = arith.constant {self.k} : index",
            f"%panels_total = arith.constant {self.panels} : index",
            f"%workgroup_rows = arith.constant {WORKGROUP_ROWS} : index",
            f"%workgroup_panels = arith.constant {WORKGROUP_PANELS} : index",
            f"%b = hal.interface.binding.subspan layout({layout(2)}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {b_type}",
            f"%panels = hal.interface.binding.subspan layout({layout(2)}) binding(1) alignment(64) offset(%c0) : {panels_type}",
            "%row_group = hal.interface.workgroup.id[0] : index",
            "%panel_group = hal.interface.workgroup.id[1] : index",
            "%k_begin = arith.muli %row_group, %workgroup_rows : index",
            "%k_next = arith.addi %k_begin, %workgroup_rows : index",
            "%k_end = arith.minui %k_next, %k_total : index",
            "%p_begin = arith.muli %panel_group, %workgroup_panels : index",
            "%p_next = arith.addi %p_begin, %workgroup_panels : index",
            "%p_end = arith.minui %p_next, %panels_total : index",
            "scf.for %k0 = %k_begin to %k_end step %block_rows {",
            "  scf.for %p = %p_begin to %p_end step %c1 {",
            "    %col0 = arith.muli %p, %columns : index",
        ]
        for r in range(rows):
            row = "%k0" if r == 0 else f"%row{r}"
            if r:
                lines.append(f"    {row} = arith.addi %k0, %k{r} : index")
            for part in range(COLUMNS // lanes):
                column, offset = ("%col0", "%c0") if part == 0 else (f"%col{r}_{part}", f"%k{lanes}")
                if part:
                    lines.append(f"    {column} = arith.addi %col0, %k{lanes} : index")
                lines.append(f"    %v{r}_{part} = vector.load %b[{row}, {column}] : {b_type}, {vector}")
                lines.append(f"    vector.store %v{r}_{part}, %panels[%p, {row}, {offset}] : {panels_type}, {vector}")
        lines += ["  }", "}", "return"]
        counts = (-(-self.k // WORKGROUP_ROWS), -(-self.panels // WORKGROUP_PANELS), 1)
        return executable_text(self.symbol, target, 2, counts, "\n".join(" " * 10 + line for line in lines))
