"""strata's row softmax for CPUs: one dispatch, one exponential per element.

Torch-MLIR writes `softmax(x, dim=-1)` as a max, an exponential of the difference, a sum and a
division; IREE raises that to its softmax op and computes it in one dispatch that evaluates each
exponential twice (once for the sum, once for the quotient), and the "safe" softmax of
`scaled_dot_product_attention` (rows of only -inf give zeros, not NaN) costs it one more dispatch
over the whole input. This kernel reads each row three times from L1: its max in 8-wide vectors,
then `exp(x - max)` stored to the output while summing, then the quotient in place. Rows of a
workgroup: `ROWS`.

With `tiled`, the kernel writes its result as the next matmul's packed A (`[rows/8][cols][8]`:
tiles of 8 rows x 1 column, each column of a tile contiguous), so that no pack follows. A
workgroup then takes one tile of 8 rows, loads 8 x 8 blocks, transposes them in registers and
computes column by column, one row per vector lane: the max, sum and quotient of each row are a
lane of a vector, and every store is a whole vector.

Results match the decomposition's to rounding: the same operations per element; only the order
of the sum's additions differs, as in any vectorized sum (IREE reassociates its own too).
"""

import re
from dataclasses import dataclass

from strata.conv_kernel import executable_text, layout

ROWS = 8  # rows per workgroup
LANES = 8  # f32 per AVX2 vector; a row is whole vectors
SYMBOL_PREFIX = "strata_kernel_softmax_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"r(\d+)_c(\d+)(_safe)?(_t8)?$")


@dataclass(frozen=True)
class Softmax:
    """Softmax along the rows of an `rows` x `cols` f32 matrix; with `safe`, a row of only -inf
    gives zeros (PyTorch's `_safe_softmax`); with `tiled`, the result in 8-row tiles (above)."""

    rows: int
    cols: int
    safe: bool = False
    tiled: bool = False

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        return cls(int(match.group(1)), int(match.group(2)), bool(match.group(3)), bool(match.group(4))) if match else None

    @property
    def symbol(self) -> str:
        return f"{SYMBOL_PREFIX}r{self.rows}_c{self.cols}{'_safe' if self.safe else ''}{'_t8' if self.tiled else ''}"

    def types(self) -> tuple[str, str]:
        matrix = f"tensor<{self.rows}x{self.cols}xf32>"
        return matrix, f"tensor<{self.rows // LANES}x{self.cols}x{LANES}xf32>" if self.tiled else matrix

    def executable(self, target: str) -> str:
        return self._tiled(target) if self.tiled else self._rows(target)

    def _tiled(self, target: str) -> str:
        x_type, y_type = (t.replace("tensor<", "memref<") for t in self.types())
        v8, m8 = f"vector<{LANES}xf32>", f"vector<{LANES}x{LANES}xf32>"

        def transposed_block(indent: str) -> list[str]:
            """Lines loading the 8 x 8 block at rows %r0.., columns %c.. as %col0..%col7 (one
            column of the block each)."""
            lines = [f"{indent}%b0 = arith.constant dense<0.0> : {m8}"]
            for i in range(LANES):
                lines += [
                    f"{indent}%row{i} = vector.load %input[%r{i}, %c] : {x_type}, {v8}",
                    f"{indent}%b{i + 1} = vector.insert %row{i}, %b{i} [{i}] : {v8} into {m8}",
                ]
            lines.append(f"{indent}%t = vector.transpose %b{LANES}, [1, 0] : {m8} to {m8}")
            lines += [f"{indent}%col{j} = vector.extract %t[{j}] : {v8} from {m8}" for j in range(LANES)]
            return lines

        outer, inner = " " * 8, " " * 12  # the loops over columns, their bodies
        maxes = "\n".join(transposed_block(inner))
        sums = "\n".join(transposed_block(inner))
        step_max = "\n".join(f"{inner}%m{j + 1} = arith.maximumf %m{j}, %col{j} : {v8}" for j in range(LANES))
        step_sum = []
        for j in range(LANES):
            step_sum += [
                f"{inner}%d{j} = arith.subf %col{j}, %max : {v8}",
                f"{inner}%e{j} = math.exp %d{j} : {v8}",
                f"{inner}%cj{j} = arith.addi %c, %k{j} : index",
                f"{inner}vector.store %e{j}, %output[%tile, %cj{j}, %c0] : {y_type}, {v8}",
                f"{inner}%s{j + 1} = arith.addf %s{j}, %e{j} : {v8}",
            ]
        quotient = [f"{inner}%e = vector.load %output[%tile, %c, %c0] : {y_type}, {v8}", f"{inner}%y = arith.divf %e, %sum : {v8}"]
        if self.safe:  # lanes whose max is -inf: rows of only -inf (a NaN makes the max NaN)
            quotient += [f"{inner}%y_safe = arith.select %all_masked, %zeros, %y : vector<{LANES}xi1>, {v8}"]
        body = [
            "%c0 = arith.constant 0 : index",
            "%c1 = arith.constant 1 : index",
            *(f"%k{j} = arith.constant {j} : index" for j in range(LANES)),
            f"%lanes = arith.constant {LANES} : index",
            f"%cols = arith.constant {self.cols} : index",
            "%minus_inf = arith.constant 0xFF800000 : f32",
            f"%lowest = vector.broadcast %minus_inf : f32 to {v8}",
            f"%zeros = arith.constant dense<0.0> : {v8}",
            f"%input = hal.interface.binding.subspan layout({layout(2)}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {x_type}",
            f"%output = hal.interface.binding.subspan layout({layout(2)}) binding(1) alignment(64) offset(%c0) : {y_type}",
            "%tile = hal.interface.workgroup.id[0] : index",
            "%first = arith.muli %tile, %lanes : index",
            *(f"%r{i} = arith.addi %first, %k{i} : index" for i in range(LANES)),
        ]
        text = [outer + line for line in body]
        text += [
            f"{outer}%max = scf.for %c = %c0 to %cols step %lanes iter_args(%m0 = %lowest) -> ({v8}) {{",
            maxes,
            step_max,
            f"{inner}scf.yield %m{LANES} : {v8}",
            f"{outer}}}",
        ]
        if self.safe:
            text.append(f"{outer}%all_masked = arith.cmpf oeq, %max, %lowest : {v8}")
        text += [
            f"{outer}%sum = scf.for %c = %c0 to %cols step %lanes iter_args(%s0 = %zeros) -> ({v8}) {{",
            sums,
            *step_sum,
            f"{inner}scf.yield %s{LANES} : {v8}",
            f"{outer}}}",
            f"{outer}scf.for %c = %c0 to %cols step %c1 {{",
            *quotient,
            f"{inner}vector.store %y{'_safe' if self.safe else ''}, %output[%tile, %c, %c0] : {y_type}, {v8}",
            f"{outer}}}",
            f"{outer}return",
        ]
        return executable_text(self.symbol, target, 2, (self.rows // LANES, 1, 1), "\n".join(text))

    def _rows(self, target: str) -> str:
        memref = f"memref<{self.rows}x{self.cols}xf32>"
        v8 = f"vector<{LANES}xf32>"
        softmax = f"""            %maxv = vector.broadcast %max : f32 to {v8}
            %sums = scf.for %c = %c0 to %cols step %lanes iter_args(%acc = %zeros) -> ({v8}) {{
              %v = vector.load %input[%r, %c] : {memref}, {v8}
              %d = arith.subf %v, %maxv : {v8}
              %e = math.exp %d : {v8}
              vector.store %e, %output[%r, %c] : {memref}, {v8}
              %a = arith.addf %acc, %e : {v8}
              scf.yield %a : {v8}
            }}
            %sum = vector.reduction <add>, %sums : {v8} into f32
            %sumv = vector.broadcast %sum : f32 to {v8}
            scf.for %c = %c0 to %cols step %lanes {{
              %e = vector.load %output[%r, %c] : {memref}, {v8}
              %y = arith.divf %e, %sumv : {v8}
              vector.store %y, %output[%r, %c] : {memref}, {v8}
            }}"""
        if self.safe:  # max == -inf: the row is all -inf (a NaN would make the max NaN)
            indented = "\n".join("  " + line for line in softmax.splitlines())
            softmax = f"""            %all_masked = arith.cmpf oeq, %max, %minus_inf : f32
            scf.if %all_masked {{
              scf.for %c = %c0 to %cols step %lanes {{
                vector.store %zeros, %output[%r, %c] : {memref}, {v8}
              }}
            }} else {{
{indented}
            }}"""
        body = f"""        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %lanes = arith.constant {LANES} : index
        %rows = arith.constant {self.rows} : index
        %cols = arith.constant {self.cols} : index
        %per_workgroup = arith.constant {ROWS} : index
        %minus_inf = arith.constant 0xFF800000 : f32
        %lowest = vector.broadcast %minus_inf : f32 to {v8}
        %zeros = arith.constant dense<0.0> : {v8}
        %input = hal.interface.binding.subspan layout({layout(2)}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {memref}
        %output = hal.interface.binding.subspan layout({layout(2)}) binding(1) alignment(64) offset(%c0) : {memref}
        %workgroup = hal.interface.workgroup.id[0] : index
        %first = arith.muli %workgroup, %per_workgroup : index
        %next = arith.addi %first, %per_workgroup : index
        %end = arith.minui %next, %rows : index
        scf.for %r = %first to %end step %c1 {{
          %maxes = scf.for %c = %c0 to %cols step %lanes iter_args(%acc = %lowest) -> ({v8}) {{
            %v = vector.load %input[%r, %c] : {memref}, {v8}
            %m = arith.maximumf %acc, %v : {v8}
            scf.yield %m : {v8}
          }}
          %max = vector.reduction <maximumf>, %maxes : {v8} into f32
{softmax}
        }}
        return"""
        return executable_text(self.symbol, target, 2, (-(-self.rows // ROWS), 1, 1), body)
