"""Turns calls of strata's hand-written CPU kernels into IREE dispatches, just before IREE compiles.

The linalg stage is upstream MLIR, parsed and verified by Torch-MLIR's bindings, which know no
IREE dialect; so a pass that hands an op to a kernel of strata's (strata-data-tile-conv, to
`strata.direct_conv`) leaves a call of a private function whose name says which kernel and
which shapes: `%y = call @strata_kernel_conv6x16_n1_c32_...(%x, %w) : (...) -> ...`. Here each
such declaration becomes the kernel's `hal.executable` and each call a `flow.dispatch` of its
export, with the same operands, types and location: IREE then schedules it like any dispatch of
its own. Only the text IREE receives changes; `--compile-to linalg` shows the calls.
"""

import re

from strata.direct_conv import SYMBOL_PREFIX, DirectConv
from strata.errors import StrataError

_DECLARATION = re.compile(r"^[ \t]*func\.func private @(" + SYMBOL_PREFIX + r"\w+)\(.*$", re.MULTILINE)
_CALL = re.compile(r"\b(?:func\.)?call @(" + SYMBOL_PREFIX + r"\w+)\(")


def dispatch_kernels(text: str) -> str:
    """`text` with every strata kernel declaration replaced by its executable and every call of
    one by a dispatch; unchanged if it calls none."""
    if SYMBOL_PREFIX not in text:
        return text

    def executable(match: re.Match) -> str:
        conv = DirectConv.from_symbol(match.group(1))
        if conv is None:
            raise StrataError(f"'@{match.group(1)}' names no kernel strata has (expected {SYMBOL_PREFIX}n<N>_c<C>_h<H>_w<W>_f<F>_k<KH>x<KW>)")
        return conv.executable()

    text = _DECLARATION.sub(executable, text)
    return _CALL.sub(lambda m: f"flow.dispatch @{m.group(1)}::@cpu::@{m.group(1)}(", text)
