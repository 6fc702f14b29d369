"""Turns calls of strata's hand-written CPU kernels into IREE dispatches, just before IREE compiles.

The linalg stage is upstream MLIR, parsed and verified by Torch-MLIR's bindings, which know no
IREE dialect; so a pass that hands an op to a kernel of strata's (strata-data-tile-conv, to
`strata.direct_conv`, `strata.pixel_tile_conv` or `strata.winograd_conv`; strata-softmax-kernel,
to `strata.softmax_kernel`; strata-matmul-kernel, to `strata.matmul_kernel` and
`strata.panel_pack`; strata-attention-kernel, to `strata.attention_kernel`) leaves a call of a
private function whose name says which kernel and which shapes:
`%y = call @strata_kernel_conv6x16_n1_c32_...(%x, %w) : (...) -> ...`. Here each
such declaration becomes the kernel's `hal.executable` and each call a `flow.dispatch` of its
export, with the same operands, types and location: IREE then schedules it like any dispatch of
its own. Only the text IREE receives changes; `--compile-to linalg` shows the calls. The
executables take the target IREE gives its own dispatches (`strata.iree_compile` finds it), so
that IREE links them all into one.
"""

import re

from torch_mlir import ir

from strata.attention_kernel import Attention
from strata.direct_conv import DirectConv
from strata.errors import StrataError
from strata.layer_norm_kernel import LayerNorm
from strata.matmul_kernel import MatmulKernel
from strata.panel_pack import PanelPack
from strata.pixel_tile_conv import PixelTileConv
from strata.softmax_kernel import Softmax
from strata.winograd_conv import WinogradConv, WinogradInput

SYMBOL_PREFIX = "strata_kernel_"
KERNELS = (DirectConv, PixelTileConv, WinogradConv, WinogradInput, Softmax, MatmulKernel, PanelPack, Attention, LayerNorm)  # each with `from_symbol` and `executable(target)`
# Both patterns start with a literal, which `re` finds with a fast substring search: the text
# holds the model's weights (57 MB for the GPT-2 block), and patterns that began with `^` or `\b`
# tried every position, 2.8 s of that block's 8.9 s compile.
_DECLARATION = re.compile(r"func\.func private @(" + SYMBOL_PREFIX + r"\w+)\([^\n]*")
_CALL = re.compile(r"call @(" + SYMBOL_PREFIX + r"\w+)\(")


def kernel_of(symbol: str):
    """The kernel a `strata_kernel_...` symbol names, or None."""
    return next((k for k in (cls.from_symbol(symbol) for cls in KERNELS) if k is not None), None)


def declare_kernels(module: ir.Operation) -> None:
    """Declares every strata kernel `module` calls and does not declare yet, and drops the
    declarations of those it no longer calls (a rewrite replaced their calls)."""
    body = module.regions[0].blocks[0]
    called = {}

    def visit(op):
        if op.name == "func.call":
            kernel = kernel_of(op.attributes["callee"].value)
            if kernel is not None:
                called[kernel.symbol] = kernel
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    declared = {}
    for op in body.operations:
        op = op.operation
        if op.name == "func.func" and kernel_of(op.attributes["sym_name"].value) is not None:
            declared[op.attributes["sym_name"].value] = op
    for symbol, declaration in declared.items():
        if symbol not in called:
            declaration.erase()
    for symbol in sorted(set(called) - set(declared)):
        types = called[symbol].types()
        signature = f"({', '.join(types[:-1])}) -> {types[-1]}"
        body.append(ir.Operation.parse(f"func.func private @{symbol}{signature}", context=module.context))


def calls_kernels(text: str) -> bool:
    return _DECLARATION.search(text) is not None


def dispatch_kernels(text: str, executable_target: str) -> str:
    """`text` with every strata kernel declaration replaced by its executable (for
    `executable_target`, a `#hal.executable.target` of an x86-64 CPU with AVX2 and FMA) and every
    call of one by a dispatch."""

    def executable(match: re.Match) -> str:
        kernel = kernel_of(match.group(1))
        if kernel is None:
            raise StrataError(f"'@{match.group(1)}' names no kernel strata has (its kernels: {', '.join(k.__name__ for k in KERNELS)})")
        return kernel.executable(executable_target)

    text = _DECLARATION.sub(executable, text)
    pieces, end = [], 0
    for call in _CALL.finditer(text):
        start = call.start() - len("func.") if text.endswith("func.", 0, call.start()) else call.start()
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
            continue  # "call" ends a longer word
        pieces += [text[end:start], f"flow.dispatch @{call.group(1)}::@cpu::@{call.group(1)}("]
        end = call.end()
    return "".join(pieces) + text[end:]
