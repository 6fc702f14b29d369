"""strata's row softmax for CPUs: one dispatch, one exponential per element.

Torch-MLIR writes `softmax(x, dim=-1)` as a max, an exponential of the difference, a sum and a
division; IREE raises that to its softmax op and computes it in one dispatch that evaluates each
exponential twice (once for the sum, once for the quotient), and the "safe" softmax of
`scaled_dot_product_attention` (rows of only -inf give zeros, not NaN) costs it one more dispatch
over the whole input. This kernel reads each row three times: its max in `MAX_CHAINS` running
maxima of 8-wide vectors (one chain waited on the previous max: 4 instructions of latency a
vector), then `exp(x - max)` (`strata.vector_exp`) stored while summing, then the quotient, as a
product with the sum's reciprocal (one division a row). Rows of a workgroup: `ROWS`. With
`lanes=16` (AVX-512; symbols `..._lanes16`) the same in 16-float vectors, for rows of whole 16s:
half the instructions, the exponential's included (Zen 4 computes them as two 8-float halves at
the 8-float rate): 8 x 512 x 512 in 0.74x the time per call there.

A result too large to stay in cache is streamed to memory (`strata.streaming_store`); the
exponentials then wait in a row on the stack (rows of up to `SCRATCH_COLS`). Softmax over 8 x
512 x 512 on two threads, per call (iree-benchmark-module): 2.7-3.2 ms before the maxima chains,
vector_exp and streaming, 1.0-1.9 ms after; an 8 MiB copy takes 0.4-0.6 ms.

With `tiled`, the kernel writes its result as the next matmul's packed A (`[rows/8][cols][8]`:
tiles of 8 rows x 1 column, each column of a tile contiguous), so that no pack follows. A
workgroup then takes one tile of 8 rows, loads 8 x 8 blocks, transposes them in registers and
computes column by column, one row per vector lane: the max, sum and quotient of each row are a
lane of a vector, and every store is a whole vector.

Results match the decomposition's to rounding: each exponential is within 1 ulp, the quotient a
product with the reciprocal (within an ulp of the division), and the sum's additions are in
another order, as in any vectorized sum (IREE reassociates its own too).
"""

import re
from dataclasses import dataclass

from strata import vector_exp
from strata.conv_kernel import executable_text, layout, stack_buffer
from strata.streaming_store import store as store_text
from strata.streaming_store import streams

ROWS = 8  # rows per workgroup
LANES = 8  # f32 per AVX2 vector; a row is whole vectors (and the tiles' rows)
WIDE_LANES = 16  # f32 per AVX-512 vector: `lanes` may be this, for rows of whole such vectors
MAX_CHAINS = 4  # independent running maxima along a row
SCRATCH_COLS = 4096  # the longest row whose exponentials the stack holds (16 KiB)
SYMBOL_PREFIX = "strata_kernel_softmax_"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"r(\d+)_c(\d+)(_safe)?(_t8)?(_lanes16)?$")


@dataclass(frozen=True)
class Softmax:
    """Softmax along the rows of an `rows` x `cols` f32 matrix; with `safe`, a row of only -inf
    gives zeros (PyTorch's `_safe_softmax`); with `tiled`, the result in 8-row tiles (above).
    `lanes` floats a vector of the rows kernel: `LANES`, or `WIDE_LANES` (not tiled)."""

    rows: int
    cols: int
    safe: bool = False
    tiled: bool = False
    lanes: int = LANES

    @classmethod
    def from_symbol(cls, symbol: str):
        match = _SYMBOL.match(symbol)
        if not match or (match.group(4) and match.group(5)):
            return None
        lanes = WIDE_LANES if match.group(5) else LANES
        return cls(int(match.group(1)), int(match.group(2)), bool(match.group(3)), bool(match.group(4)), lanes)

    @property
    def symbol(self) -> str:
        wide = "_lanes16" if self.lanes == WIDE_LANES else ""
        return f"{SYMBOL_PREFIX}r{self.rows}_c{self.cols}{'_safe' if self.safe else ''}{'_t8' if self.tiled else ''}{wide}"

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
                *(inner + line for line in vector_exp.exp(f"%d{j}", f"%e{j}", str(j))),
                f"{inner}%cj{j} = arith.addi %c, %k{j} : index",
                f"{inner}vector.store %e{j}, %output[%tile, %cj{j}, %c0] : {y_type}, {v8}",
                f"{inner}%s{j + 1} = arith.addf %s{j}, %e{j} : {v8}",
            ]
        quotient = [f"{inner}%e = vector.load %output[%tile, %c, %c0] : {y_type}, {v8}", f"{inner}%y = arith.mulf %e, %inverse : {v8}"]
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
            f"%ones = arith.constant dense<1.0> : {v8}",
            *vector_exp.constants(),
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
            f"{outer}%inverse = arith.divf %ones, %sum : {v8}",
            f"{outer}scf.for %c = %c0 to %cols step %c1 {{",
            *quotient,
            f"{inner}vector.store %y{'_safe' if self.safe else ''}, %output[%tile, %c, %c0] : {y_type}, {v8}",
            f"{outer}}}",
            f"{outer}return",
        ]
        return executable_text(self.symbol, target, 2, (self.rows // LANES, 1, 1), "\n".join(text))

    @property
    def streaming(self) -> bool:
        """Whether the result goes to memory with non-temporal stores (see the module docstring)."""
        return streams(self.rows * self.cols * 4) and self.cols <= SCRATCH_COLS

    def _rows(self, target: str) -> str:
        memref = f"memref<{self.rows}x{self.cols}xf32>"
        lanes = self.lanes
        vec = f"vector<{lanes}xf32>"
        wide = lanes * MAX_CHAINS
        wide_end = self.cols - self.cols % wide
        # exp(x - max) in a row on the stack when the result is streamed out, else in the
        # result's row, the quotient then computed in place.
        exps, exps_type, at = ("%scratch", f"memref<{self.cols}xf32>", "[%c]") if self.streaming else ("%output", memref, "[%r, %c]")

        def store(value: str) -> str:
            return store_text(value, "%output", ["%r", "%c"], memref, vec, self.streaming)

        chains = ", ".join(f"%m{i} = %lowest" for i in range(MAX_CHAINS))
        chain_types = ", ".join([vec] * MAX_CHAINS)
        loads = "\n".join(
            f"""            %at{i} = arith.addi %c, %k{i * lanes} : index
            %v{i} = vector.load %input[%r, %at{i}] : {memref}, {vec}
            %n{i} = arith.maximumf %m{i}, %v{i} : {vec}"""
            for i in range(MAX_CHAINS)
        )
        maxima = f"""          %maxes:{MAX_CHAINS} = scf.for %c = %c0 to %wide_end step %wide iter_args({chains}) -> ({chain_types}) {{
{loads}
            scf.yield {", ".join(f"%n{i}" for i in range(MAX_CHAINS))} : {chain_types}
          }}"""
        first = "%maxes#0"
        if wide_end < self.cols:  # the columns after the last whole step, into the first chain
            maxima += f"""
          %tail = scf.for %c = %wide_end to %cols step %lanes iter_args(%m = %maxes#0) -> ({vec}) {{
            %v = vector.load %input[%r, %c] : {memref}, {vec}
            %n = arith.maximumf %m, %v : {vec}
            scf.yield %n : {vec}
          }}"""
            first = "%tail"
        for i in range(1, MAX_CHAINS):
            maxima += f"\n          %max_of{i} = arith.maximumf {first}, %maxes#{i} : {vec}"
            first = f"%max_of{i}"
        maxima += f"\n          %max = vector.reduction <maximumf>, {first} : {vec} into f32"
        exponential = "\n".join("              " + line for line in vector_exp.exp("%d", "%e", "", lanes))
        softmax = f"""            %maxv = vector.broadcast %max : f32 to {vec}
            %sums = scf.for %c = %c0 to %cols step %lanes iter_args(%acc = %zeros) -> ({vec}) {{
              %v = vector.load %input[%r, %c] : {memref}, {vec}
              %d = arith.subf %v, %maxv : {vec}
{exponential}
              vector.store %e, {exps}{at} : {exps_type}, {vec}
              %a = arith.addf %acc, %e : {vec}
              scf.yield %a : {vec}
            }}
            %sum = vector.reduction <add>, %sums : {vec} into f32
            %inverse = arith.divf %one, %sum : f32
            %inversev = vector.broadcast %inverse : f32 to {vec}
            scf.for %c = %c0 to %cols step %lanes {{
              %e = vector.load {exps}{at} : {exps_type}, {vec}
              %y = arith.mulf %e, %inversev : {vec}
              {store("%y")}
            }}"""
        if self.safe:  # max == -inf: the row is all -inf (a NaN would make the max NaN)
            indented = "\n".join("  " + line for line in softmax.splitlines())
            softmax = f"""            %all_masked = arith.cmpf oeq, %max, %minus_inf : f32
            scf.if %all_masked {{
              scf.for %c = %c0 to %cols step %lanes {{
                {store("%zeros")}
              }}
            }} else {{
{indented}
            }}"""
        scratch = f"        %scratch = {stack_buffer(f'memref<{self.cols}xf32>')}\n" if self.streaming else ""
        offsets = "\n".join(f"        %k{i * lanes} = arith.constant {i * lanes} : index" for i in range(1, MAX_CHAINS))
        exp_constants = "\n".join("        " + line for line in vector_exp.constants(lanes))
        body = f"""        %c0 = arith.constant 0 : index
        %k0 = arith.constant 0 : index
{offsets}
        %c1 = arith.constant 1 : index
        %lanes = arith.constant {lanes} : index
        %wide = arith.constant {wide} : index
        %wide_end = arith.constant {wide_end} : index
        %rows = arith.constant {self.rows} : index
        %cols = arith.constant {self.cols} : index
        %per_workgroup = arith.constant {ROWS} : index
        %one = arith.constant 1.0 : f32
        %minus_inf = arith.constant 0xFF800000 : f32
        %lowest = vector.broadcast %minus_inf : f32 to {vec}
        %zeros = arith.constant dense<0.0> : {vec}
{exp_constants}
        %input = hal.interface.binding.subspan layout({layout(2)}) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : {memref}
        %output = hal.interface.binding.subspan layout({layout(2)}) binding(1) alignment(64) offset(%c0) : {memref}
{scratch}        %workgroup = hal.interface.workgroup.id[0] : index
        %first = arith.muli %workgroup, %per_workgroup : index
        %next = arith.addi %first, %per_workgroup : index
        %end = arith.minui %next, %rows : index
        scf.for %r = %first to %end step %c1 {{
{maxima}
{softmax}
        }}
        return"""
        return executable_text(self.symbol, target, 2, (-(-self.rows // ROWS), 1, 1), body)
