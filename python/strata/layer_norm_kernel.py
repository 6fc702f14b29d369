"""strata's layer norm over rows for CPUs: one dispatch, each row read three times from L1.

Torch-MLIR writes `layer_norm` over the last dimension as some ten elementwise ops and
reductions: the variance in f64 (a mean of the widened input, the squared differences from it,
their mean), the mean again in f32, then `(x - mean) * rsqrt(var + eps) * weight + bias`. IREE
fuses that into three dispatches, two of them reading the whole input as f64 (half as many lanes
per vector): over 32 x 512 x 768 floats on two threads, 4.0 + 4.3 + 7.8 ms a call against ONNX
Runtime's 9.3 ms in all.

This kernel takes a row (a few KiB, in L1 after its first pass) at a time: its mean in 8-wide
vectors (four sums at once, so that no add waits for the one before), then the mean of the squared
differences from it (the variance, in two passes as Torch-MLIR's is, but in f32 as eager's), then
`(x - mean) * rstd * weight + bias` stored. The input is read from memory once and the result
written once, streamed if it is too large to stay in cache (`strata.streaming_store`). Rows of a
workgroup: `ROWS`.

Results match the decomposition's to f32 rounding: the sums add in a different order (vectorized)
and in f32 rather than f64, as PyTorch's own CPU kernel does.
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import executable_text, layout
from strata.streaming_store import store, streams

ROWS = 16  # rows per workgroup
LANES = 8  # f32 per AVX2 vector; a row is whole vectors
SYMBOL_PREFIX = "strata_kernel_layer_norm_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"r(\d+)_c(\d+)_e([0-9a-f]{8})$")


@dataclass(frozen=True)
class LayerNorm:
    """`(x - mean) / sqrt(var + eps) * weight + bias` along the rows of a `rows` x `cols` f32
    matrix, the mean and the (biased) variance each row's, `eps` given as its f32 bits
    (`strata.conv_kernel.f32_bits`)."""

    rows: int
    cols: int
    eps_bits: int

    @classmethod
    def applies(cls, cols: int) -> bool:
        return cols > 0 and cols % LANES == 0

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        return cls(int(match.group(1)), int(match.group(2)), int(match.group(3), 16)) if match else None

    @property
    def symbol(self) -> str:
        return f"{SYMBOL_PREFIX}r{self.rows}_c{self.cols}_e{self.eps_bits:08x}"

    def types(self) -> tuple[str, str, str, str]:
        """The tensor types of x, weight, bias and the result."""
        matrix, row = f"tensor<{self.rows}x{self.cols}xf32>", f"tensor<{self.cols}xf32>"
        return matrix, row, row, matrix

    @property
    def accumulators(self) -> int:
        """Vectors summed into at once (an add's latency over its throughput): 4, or fewer
        where the row is not whole 32s."""
        return next(n for n in (4, 2, 1) if self.cols % (LANES * n) == 0)

    def _sum(self, name: str, centered: bool = False) -> str:
        """Lines of a row's sum, as the f32 `%name`: of x, or of (x - %meanv)^2 with `centered`,
        over `accumulators` vectors at a time, added together at the end."""
        v8, count = f"vector<{LANES}xf32>", self.accumulators
        matrix = f"memref<{self.rows}x{self.cols}xf32>"
        types = ", ".join([v8] * count)
        lines = [f"          %{name}_v:{count} = scf.for %c = %c0 to %cols step %stride iter_args("
                 + ", ".join(f"%{name}_a{i} = %zeros" for i in range(count)) + f") -> ({types}) {{"]
        results = []
        for i in range(count):
            column = f"%{name}_c{i}" if i else "%c"
            if i:
                lines.append(f"            {column} = arith.addi %c, %k{i * LANES} : index")
            lines.append(f"            %{name}_x{i} = vector.load %x[%r, {column}] : {matrix}, {v8}")
            if centered:
                lines.append(f"            %{name}_d{i} = arith.subf %{name}_x{i}, %meanv : {v8}")
                lines.append(f"            %{name}_s{i} = vector.fma %{name}_d{i}, %{name}_d{i}, %{name}_a{i} : {v8}")
            else:
                lines.append(f"            %{name}_s{i} = arith.addf %{name}_a{i}, %{name}_x{i} : {v8}")
            results.append(f"%{name}_s{i}")
        lines.append(f"            scf.yield {', '.join(results)} : {types}")
        lines.append("          }")
        total = f"%{name}_v#0"
        for i in range(1, count):
            lines.append(f"          %{name}_t{i} = arith.addf {total}, %{name}_v#{i} : {v8}")
            total = f"%{name}_t{i}"
        lines.append(f"          %{name} = vector.reduction <add>, {total} : {v8} into f32")
        return "\n".join(lines)

    def executable(self, target: str) -> str:
        matrix, row = f"memref<{self.rows}x{self.cols}xf32>", f"memref<{self.cols}xf32>"
        v8 = f"vector<{LANES}xf32>"
        lay = layout(4)
        body = f"""        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %lanes = arith.constant {LANES} : index
        %k8 = arith.constant 8 : index
        %k16 = arith.constant 16 : index
        %k24 = arith.constant 24 : index
        %rows = arith.constant {self.rows} : index
        %cols = arith.constant {self.cols} : index
        %per_workgroup = arith.constant {ROWS} : index
        %count = arith.constant {float(self.cols):.1f} : f32
        %eps = arith.constant 0x{self.eps_bits:08X} : f32
        %zeros = arith.constant dense<0.0> : {v8}
        %stride = arith.constant {LANES * self.accumulators} : index
        %x = hal.interface.binding.subspan layout({lay}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {matrix}
        %weight = hal.interface.binding.subspan layout({lay}) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : {row}
        %bias = hal.interface.binding.subspan layout({lay}) binding(2) alignment(64) offset(%c0) flags(ReadOnly) : {row}
        %y = hal.interface.binding.subspan layout({lay}) binding(3) alignment(64) offset(%c0) : {matrix}
        %workgroup = hal.interface.workgroup.id[0] : index
        %first = arith.muli %workgroup, %per_workgroup : index
        %next = arith.addi %first, %per_workgroup : index
        %end = arith.minui %next, %rows : index
        scf.for %r = %first to %end step %c1 {{
{self._sum("sums")}
          %mean = arith.divf %sums, %count : f32
          %meanv = vector.broadcast %mean : f32 to {v8}
{self._sum("squares", centered=True)}
          %variance = arith.divf %squares, %count : f32
          %shifted = arith.addf %variance, %eps : f32
          %rstd = math.rsqrt %shifted : f32
          %rstdv = vector.broadcast %rstd : f32 to {v8}
          scf.for %c = %c0 to %cols step %lanes {{
            %v = vector.load %x[%r, %c] : {matrix}, {v8}
            %w = vector.load %weight[%c] : {row}, {v8}
            %b = vector.load %bias[%c] : {row}, {v8}
            %d = arith.subf %v, %meanv : {v8}
            %n = arith.mulf %d, %rstdv : {v8}
            %o = vector.fma %n, %w, %b : {v8}
            {store("%o", "%y", ["%r", "%c"], matrix, v8, streams(self.rows * self.cols * 4))}
          }}
        }}
        return"""
        return executable_text(self.symbol, target, 4, (-(-self.rows // ROWS), 1, 1), body)
