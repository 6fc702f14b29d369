"""What strata's hand-written convolution kernels share: shapes, symbols, epilogues, executables.

A kernel is named in the linalg stage by the symbol of a private function it stands for (its
kind, its shapes, its epilogue), so `strata.kernel_calls` can rebuild it from a declaration
alone. The direct kernels (`strata.direct_conv`, `strata.pixel_tile_conv`) read an f32 input
[n][c][hp][wp] with its padding applied and a filter packed into tiles of `TILE` output channels
(`strata.winograd_conv` their transforms), and write [n][f][oh][ow]. IREE could not fuse what
follows a convolution into a dispatch of strata's, so the kernels take it themselves: an
epilogue of a per-output-channel scale and shift
(a bias, a batch norm in inference: `y * scale[f] + shift[f]`, one FMA per vector), the addition
of a tensor of the output's shape (a residual), and a ReLU, in that order, applied to the
registers before they are stored, and for the row and Winograd kernels a 2x2 max pool of stride 2
(the output is then the pooled one; strata-fuse-conv-epilogue finds them in the linalg stage).
"""

import dataclasses
import re
import struct
from dataclasses import dataclass, field
from typing import ClassVar

LANES = (8, 16)  # floats a vector of strata's CPU kernels: AVX2's 8 (the default) or AVX-512's 16
_EPILOGUE = re.compile(r"(_affine)?(_residual)?(_relu)?(_pool2)?$")
_PARTS = ("affine", "residual", "relu", "pool2")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def symbol_lanes(group: str | None) -> int | None:
    """The lanes a kernel symbol's `lanes<N>` part names: `LANES[0]` where it has none (8 is
    written without), None where N is not another of `LANES`."""
    if group is None:
        return LANES[0]
    return int(group) if int(group) in LANES[1:] else None


def lanes_suffix(lanes: int) -> str:
    """The `_lanes<N>` ending of a kernel symbol that `symbol_lanes` reads back: empty for
    `LANES[0]`."""
    return f"_lanes{lanes}" if lanes != LANES[0] else ""


def f32_bits(value: float) -> int:
    """The bits of `value` rounded to f32: how a kernel's symbol carries a constant exactly."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def relu(define, value: str, type_: str) -> str:
    """max(`value`, 0) as the kernels compute it, the way Torch-MLIR writes ReLU (a NaN kept):
    `arith.select` of `arith.cmpf ugt` against `%zero` (a vector of zeros of `type_`) or
    `%zero_f32`, which the kernel defines. `define(text)` emits the op `text` and returns its
    value's name."""
    vector = type_.startswith("vector")
    zero = "%zero" if vector else "%zero_f32"
    positive = define(f"arith.cmpf ugt, {value}, {zero} : {type_}")
    mask = f"{type_.replace('xf32>', 'xi1>')}, " if vector else ""
    return define(f"arith.select {positive}, {value}, {zero} : {mask}{type_}")


def layout(bindings: int) -> str:
    """The pipeline layout of a kernel reading `bindings - 1` buffers and writing the last."""
    read = "#hal.pipeline.binding<storage_buffer, ReadOnly>, " * (bindings - 1)
    return f"#hal.pipeline.layout<bindings = [{read}#hal.pipeline.binding<storage_buffer>]>"


def stack_buffer(memref_type: str) -> str:
    """The op allocating a 64-byte aligned `memref_type` on a kernel's stack (IREE allows a
    dispatch 32 KiB), in generic form: `memref.alloca`'s custom syntax cannot spell the inherent
    `alignment`."""
    return f'"memref.alloca"() <{{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}}> : () -> {memref_type}'


@dataclass(frozen=True)
class ConvKernel:
    """An f32 convolution of a padded input [n][c][hp][wp] by a filter [f][c][kh][kw], and its
    epilogue. `SYMBOL` matches the shapes part of a kernel's symbol (its groups the dataclass's
    positional fields, in order, unless `fields` says otherwise); the epilogue adds `_affine`,
    `_residual`, `_relu`, `_pool2`."""

    SYMBOL: ClassVar[re.Pattern]
    TILE: ClassVar[int]
    POOLS: ClassVar[bool] = False  # whether the kernel can pool its output

    n: int
    c: int
    hp: int
    wp: int
    f: int
    kh: int
    kw: int
    affine: bool = field(default=False, kw_only=True)  # operands scale[f], shift[f]
    residual: bool = field(default=False, kw_only=True)  # operand [n][f][oh][ow], added
    relu: bool = field(default=False, kw_only=True)
    pool2: bool = field(default=False, kw_only=True)  # 2x2 max pool, stride 2, rows and columns floored

    @classmethod
    def fields(cls, groups: tuple[str, ...]) -> tuple[int, ...] | None:
        """The positional fields from `SYMBOL`'s groups; None where they name no kernel."""
        return tuple(int(g) for g in groups)

    @classmethod
    def from_symbol(cls, symbol: str):
        epilogue = _EPILOGUE.search(symbol)
        match = cls.SYMBOL.match(symbol[: epilogue.start()])
        if not match or (epilogue.group(4) and not cls.POOLS):
            return None
        fields = cls.fields(match.groups())
        if fields is None:
            return None
        return cls(*fields, **{name: bool(g) for name, g in zip(_PARTS, epilogue.groups())})

    @property
    def shapes_symbol(self) -> str:
        raise NotImplementedError

    @property
    def symbol(self) -> str:
        suffix = "".join(f"_{name}" for name in _PARTS if getattr(self, name))
        return self.shapes_symbol + suffix

    @property
    def oh(self) -> int:
        raise NotImplementedError

    @property
    def ow(self) -> int:
        raise NotImplementedError

    def with_epilogue(self, affine: bool, residual: bool, relu: bool, pool2: bool = False) -> "ConvKernel":
        return dataclasses.replace(self, affine=affine, residual=residual, relu=relu, pool2=pool2)

    @property
    def filter_tiles(self) -> int:
        """Tiles of `TILE` output channels the packed filter holds (the last zero-padded)."""
        return _ceil_div(self.f, self.TILE)

    def operands(self) -> list[tuple[str, str]]:
        """(name, tensor type) of each operand of the call, then of the result: the input, the
        packed filter, the epilogue's operands, the output (pooled, if the epilogue pools)."""
        convolved = f"tensor<{self.n}x{self.f}x{self.oh}x{self.ow}xf32>"
        pooled = f"tensor<{self.n}x{self.f}x{self.oh // 2}x{self.ow // 2}xf32>"
        operands = [
            ("input", f"tensor<{self.n}x{self.c}x{self.hp}x{self.wp}xf32>"),
            ("weights", f"tensor<{self.filter_tiles}x{self.c}x{self.kh}x{self.kw}x{self.TILE}xf32>"),
        ]
        if self.affine:
            operands += [("scale", f"tensor<{self.f}xf32>"), ("shift", f"tensor<{self.f}xf32>")]
        if self.residual:
            operands.append(("residual", convolved))
        return operands + [("output", pooled if self.pool2 else convolved)]

    def types(self) -> tuple[str, ...]:
        """The tensor types of the call's operands, then of its result."""
        return tuple(t for _, t in self.operands())

    def memref_types(self) -> tuple[str, ...]:
        """The same as the memrefs the kernel's bindings are."""
        return tuple(t.replace("tensor<", "memref<") for t in self.types())

    def bindings(self) -> list[str]:
        """The ops defining `%input`, `%weights`, ..., `%output` in the kernel's function: its
        bindings, in the order of `operands`, all read-only but the output."""
        count = len(self.operands())
        return [
            f"%{name} = hal.interface.binding.subspan layout({layout(count)}) binding({i}) alignment(64)"
            f" offset(%c0){'' if name == 'output' else ' flags(ReadOnly)'} : {memref}"
            for i, ((name, _), memref) in enumerate(zip(self.operands(), self.memref_types()))
        ]

    def kernel_executable(self, target: str, counts: tuple[int, int, int], body: str) -> str:
        """The `hal.executable` of this kernel for `target`: see `executable_text`."""
        return executable_text(self.symbol, target, len(self.operands()), counts, body)


def executable_text(symbol: str, target: str, bindings: int, counts: tuple[int, int, int], body: str) -> str:
    """A `hal.executable` of one export and function named `symbol`, for `target`: `body`
    (indented MLIR text ending in `return`, defining the `bindings` of `layout(bindings)` itself)
    on a static grid of `counts` workgroups. IREE links the executables of a module into one,
    where names must differ."""
    x, y, z = counts
    return f"""hal.executable private @{symbol} {{
  hal.executable.variant public @cpu target({target}) {{
    hal.executable.export public @{symbol} ordinal(0) layout({layout(bindings)}) count(%device: !hal.device) -> (index, index, index) {{
      %x = arith.constant {x} : index
      %y = arith.constant {y} : index
      %z = arith.constant {z} : index
      hal.return %x, %y, %z : index, index, index
    }}
    builtin.module {{
      func.func @{symbol}() {{
{body}
      }}
    }}
  }}
}}"""
