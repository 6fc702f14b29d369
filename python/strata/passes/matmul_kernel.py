"""strata-matmul-kernel: static f32 matmuls by strata's 6 x 16 kernel (passes/matmul_kernel.td).

Each rewritten `linalg.matmul` becomes a `linalg.pack` of B into the kernel's 16-column panels and
a call of the kernel; the zero fill it accumulated into, and a transpose it read B through, go
when nothing else reads them.
"""

from torch_mlir import ir

from strata.errors import StrataError
from strata.ir_splice import erase_unused, insert_lowered
from strata.kernel_calls import declare_kernels
from strata.linalg_match import fill_constant, ops_named, transposed_source
from strata.matmul_kernel import COLUMNS, MatmulKernel
from strata.plain_matmul import plain_matmul


def _is_zero(attr: ir.Attribute | None) -> bool:
    return isinstance(attr, ir.FloatAttr) and attr.value == 0.0


def _lowered(op: ir.Operation, min_rows: int) -> tuple[str, list[ir.Value]] | None:
    """`@lowered` computing `op` with the kernel and the values its arguments stand for; None
    where the rewrite does not apply."""
    plain = plain_matmul(op)
    if plain is None or plain.batch or str(plain.element_type) != "f32" or plain.m < min_rows:
        return None
    if not MatmulKernel.applies(plain.m, plain.k, plain.n) or not _is_zero(fill_constant(op.operands[2])):
        return None
    kernel = MatmulKernel(plain.m, plain.k, plain.n)
    a_type, panels_type, c_type = kernel.types()
    source = transposed_source(op.operands[1])
    if source is None:  # K x N: panels along N, outer dimensions swapped to N, K
        b, b_type, layout = op.operands[1], op.operands[1].type, "outer_dims_perm = [1, 0] inner_dims_pos = [1]"
    else:  # N x K (a linear layer's weight): panels along N, in B's own order
        b, b_type, layout = source, source.type, "inner_dims_pos = [0]"
    text = "\n".join([
        f"func.func @lowered(%a: {a_type}, %b: {b_type}) -> {c_type} {{",
        f"  %b_dest = tensor.empty() : {panels_type}",
        f"  %panels = linalg.pack %b {layout} inner_tiles = [{COLUMNS}] into %b_dest : {b_type} -> {panels_type}",
        f"  %c = func.call @{kernel.symbol}(%a, %panels) : ({a_type}, {panels_type}) -> {c_type}",
        f"  return %c : {c_type}",
        "}",
        f"func.func private @{kernel.symbol}({a_type}, {panels_type}) -> {c_type}",
    ])
    return text, [op.operands[0], b]


def run(op: ir.Operation, options) -> None:
    if options.min_rows < 1:
        raise StrataError(f"strata-matmul-kernel: min-rows must be at least 1; got {options.min_rows}")
    for matmul in ops_named(op, "linalg.matmul"):
        lowered = _lowered(matmul, options.min_rows)
        if lowered is None:
            continue
        text, operands = lowered
        (value,) = insert_lowered(text, matmul, operands)
        matmul.results[0].replace_all_uses_with(value)
        inputs = [v.owner for v in matmul.operands if isinstance(v, ir.OpResult)]
        matmul.erase()
        erase_unused(inputs)
    declare_kernels(op)
