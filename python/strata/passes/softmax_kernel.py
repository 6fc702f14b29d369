"""strata-softmax-kernel: softmax along the last dimension by strata's row kernel
(passes/softmax_kernel.td).

The softmax's chain of generics is found by `strata.softmax_match`; anything else computing over
the same values is left to IREE.
"""

from torch_mlir import ir

from strata.errors import StrataError
from strata.ir_splice import erase_unused, insert_lowered, tensor_type
from strata.kernel_calls import declare_kernels
from strata.linalg_match import ops_named
from strata.softmax_kernel import LANES, WIDE_LANES, Softmax
from strata.softmax_match import reader, safe_select, softmax_chain
from strata.softmax_match import shape as _shape


def _packed_reader(last: ir.Operation, rows: int, cols: int) -> ir.Operation | None:
    """The `linalg.pack` into 8-row x 1-column tiles (a matmul's A) that alone reads the softmax,
    if any, and the rows of each of its matrices are whole tiles."""
    pack = reader(last.results[0])
    if pack is None or pack.name != "linalg.pack" or len(pack.operands) != 2 or "outer_dims_perm" in pack.attributes:
        return None
    source = _shape(pack.operands[0])
    rank = len(source)
    if (list(ir.DenseI64ArrayAttr(pack.attributes["inner_dims_pos"])) != [rank - 2, rank - 1] or source[-1] != cols
            or list(ir.DenseI64ArrayAttr(pack.attributes["static_inner_tiles"])) != [LANES, 1] or source[-2] % LANES):
        return None
    return pack if rows % LANES == 0 else None


def _replace(x: ir.Value, last: ir.Operation, ops: list[ir.Operation], safe: bool, lanes: int) -> None:
    """Replaces the softmax `ops` compute from `x` (`last` its result) with a kernel call (in
    vectors of `lanes` where the rows are whole ones); where a pack into a matmul's A tiles reads
    it, the kernel writes those tiles instead."""
    shape = _shape(x)
    rows = 1
    for d in shape[:-1]:
        rows *= d
    cols = shape[-1]
    pack = _packed_reader(last, rows, cols)
    tiled = pack is not None
    kernel = Softmax(rows, cols, safe, tiled, lanes if not tiled and cols % lanes == 0 else LANES)
    replaced = pack if pack is not None else last
    matrix, (_, out_type), result = tensor_type([rows, cols], "f32"), kernel.types(), replaced.results[0].type
    lines = [f"func.func @lowered(%x: {x.type}) -> {result} {{"]
    if len(shape) == 2:
        lines.append(f"  %rows = tensor.cast %x : {x.type} to {matrix}")
    else:
        lines.append(f"  %rows = tensor.collapse_shape %x [[{', '.join(map(str, range(len(shape) - 1)))}], [{len(shape) - 1}]] : {x.type} into {matrix}")
    lines.append(f"  %y = func.call @{kernel.symbol}(%rows) : ({matrix}) -> {out_type}")
    out_shape = _shape(replaced.results[0])
    if pack is not None:  # [tiles][cols][8] as the pack's [..., R/8, cols, 8, 1]
        lead = len(out_shape) - 3
        groups = f"[[{', '.join(map(str, range(lead)))}], [{lead}], [{lead + 1}, {lead + 2}]]"
    else:
        groups = f"[[{', '.join(map(str, range(len(shape) - 1)))}], [{len(shape) - 1}]]"
    if out_shape == _shape_of(out_type):
        lines.append(f"  %out = tensor.cast %y : {out_type} to {result}")
    else:
        lines.append(f"  %out = tensor.expand_shape %y {groups} output_shape [{', '.join(map(str, out_shape))}] : {out_type} into {result}")
    lines += [f"  return %out : {result}", "}", f"func.func private @{kernel.symbol}({matrix}) -> {out_type}"]
    (value,) = insert_lowered("\n".join(lines), replaced, [x])
    replaced.results[0].replace_all_uses_with(value)
    erase_unused(([pack] if pack is not None else []) + ops)


def _shape_of(type_text: str) -> list[int]:
    return [int(d) for d in type_text[len("tensor<"):].split("x")[:-1]]


def run(op: ir.Operation, options) -> None:
    if options.lanes not in (LANES, WIDE_LANES):
        raise StrataError(f"strata-softmax-kernel: lanes must be {LANES} or {WIDE_LANES}; got {options.lanes}")
    for div in ops_named(op, "linalg.generic"):
        found = softmax_chain(div)
        if found is None:
            continue
        x, ops, folded = found
        shape = _shape(x)
        if len(shape) < 2 or str(ir.RankedTensorType(x.type).element_type) != "f32" or shape[-1] % LANES or shape != _shape(div.results[0]):
            continue
        safe = safe_select(div, x, folded)
        if folded is not None and safe is None:
            continue  # the test reads the max, which the kernel would take away
        if safe is not None:
            _replace(x, safe[0], safe + ops, True, options.lanes)
        else:
            _replace(x, div, ops, False, options.lanes)
    declare_kernels(op)
