"""strata-matmul-kernel: static f32 matmuls by strata's 6 x 16 kernel (passes/matmul_kernel.td).

Each rewritten `linalg.matmul` becomes a `linalg.pack` of B into the kernel's 16-column panels and
a call of the kernel; a B that is an argument of the function is packed by strata's pack kernel
(`strata.panel_pack`) instead, once for all the matmuls that read it. What Torch-MLIR writes
after a linear layer's matmul, each op the only reader of the one before (a bias added per
column, unit dimensions reshaped, a residual added, a ReLU), goes into the kernel's epilogue
instead of a dispatch of its own that would read and write the whole result once more. The zero fill the matmul accumulated into, and a transpose it read B
through, go when nothing else reads them.
"""

from dataclasses import dataclass, field

from torch_mlir import ir

from strata.errors import StrataError
from strata.ir_splice import erase_unused, insert_lowered, tensor_type
from strata.kernel_calls import declare_kernels
from strata.linalg_match import fill_constant, is_relu, ops_named, transposed_source
from strata.matmul_kernel import COLUMNS, LANES, MatmulKernel
from strata.panel_pack import PanelPack
from strata.plain_matmul import plain_matmul

_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _is_zero_attribute(attr: ir.Attribute | None) -> bool:
    return isinstance(attr, ir.FloatAttr) and attr.value == 0.0


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


@dataclass
class _Epilogue:
    """The ops after a matmul that the kernel applies, and what they read besides it."""

    bias: ir.Value | None = None  # tensor<N>
    residual: ir.Value | None = None  # the matmul's shape, or it with leading unit dimensions
    relu: bool = False
    ops: list[ir.Operation] = field(default_factory=list)  # in order; the last one's result is the chain's

    def step(self, generic: ir.Operation, value: ir.Value, n: int) -> bool:
        """Takes `generic` into the epilogue if it applies to `value` the next step the kernel
        can apply: + bias[column], then + residual, then ReLU, each at most once."""
        if generic.name != "linalg.generic" or len(generic.results) != 1 or generic.results[0].type != value.type:
            return False
        if self.relu or any("parallel" not in str(t) for t in generic.attributes["iterator_types"]):
            return False
        inputs, outputs = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))
        maps = [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]
        rank = len(_shape(value))
        identity = ir.AffineMap.get_identity(rank)
        operands = list(generic.operands)[:inputs]
        mine = [i for i, v in enumerate(operands) if v == value]
        if outputs != 1 or maps[-1] != identity or len(mine) != 1 or maps[mine[0]] != identity:
            return False
        block = generic.regions[0].blocks[0]
        args = list(block.arguments)
        *computation, yielded = [op.operation for op in block.operations]
        if list(args[-1].uses) or not computation or computation[-1].results[0] != yielded.operands[0]:
            return False  # reads its output, or yields something else
        if inputs == 1:
            self.relu = is_relu(computation, args[0])
            return self.relu
        other = 1 - mine[0]
        if inputs != 2 or len(computation) != 1 or computation[0].name != "arith.addf":
            return False
        if {*computation[0].operands} != {args[0], args[1]} or args[0] == args[1]:
            return False
        if maps[other] == identity:  # a whole tensor: the residual
            if self.residual is not None:
                return False
            self.residual = operands[other]
            return True
        column = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)])
        if maps[other] != column or _shape(operands[other]) != [n] or self.bias is not None or self.residual is not None:
            return False
        self.bias = operands[other]
        return True


def _units_only(op: ir.Operation, m: int, n: int) -> bool:
    """Whether `op` reshapes an [..., m, n] tensor with leading unit dimensions into another."""
    return all(shape[-2:] == [m, n] and all(d == 1 for d in shape[:-2]) for shape in (_shape(op.operands[0]), _shape(op.results[0])))


def _epilogue(result: ir.Value, m: int, n: int) -> _Epilogue:
    """The longest chain of epilogue ops after the matmul `result`, each the only reader of the
    value before it (reshapes of leading unit dimensions allowed between them)."""
    epilogue = _Epilogue()
    value, reshapes = result, []
    while True:
        users = [use.owner.operation for use in value.uses]
        if len(users) != 1:
            return epilogue
        user = users[0]
        if user.name in _RESHAPES and _units_only(user, m, n):
            reshapes.append(user)
            value = user.results[0]
            continue
        if not epilogue.step(user, value, n):
            return epilogue
        epilogue.ops += reshapes + [user]
        value, reshapes = user.results[0], []


def _pack_argument(b: ir.BlockArgument, pack: PanelPack, location: ir.Location) -> ir.Value:
    """`b`'s panels, by a call of `pack` at the start of `b`'s block (before every matmul that
    reads them), at `location` (the first such matmul's)."""
    b_type, panels_type = pack.types()
    text = "\n".join([f"func.func @lowered(%b: {b_type}) -> {panels_type} {{",
                      f"  %panels = func.call @{pack.symbol}(%b) : ({b_type}) -> {panels_type}",
                      f"  return %panels : {panels_type}", "}",
                      f"func.func private @{pack.symbol}({b_type}) -> {panels_type}"])
    first = next(iter(b.owner.operations)).operation
    (panels,) = insert_lowered(text, first, [b], location)
    return panels


def _rewrite(op: ir.Operation, min_rows: int, lanes: int, packs: dict) -> bool:
    """Replaces `op` and its epilogue with the kernel; False where the rewrite does not apply.
    `packs` holds the panels of function arguments packed so far, each packed once."""
    plain = plain_matmul(op)
    if plain is None or plain.batch or str(plain.element_type) != "f32" or plain.m < min_rows:
        return False
    if not MatmulKernel.applies(plain.m, plain.k, plain.n) or not _is_zero_attribute(fill_constant(op.operands[2])):
        return False
    m, n = plain.m, plain.n
    epilogue = _epilogue(op.results[0], m, n)
    kernel = MatmulKernel(m, plain.k, n, bias=epilogue.bias is not None, residual=epilogue.residual is not None, relu=epilogue.relu, lanes=lanes)
    a_type, panels_type, *_, c_type = kernel.types()
    last = epilogue.ops[-1] if epilogue.ops else op
    out_type = last.results[0].type
    source = transposed_source(op.operands[1])
    if source is None:  # K x N: panels along N, outer dimensions swapped to N, K
        b, layout = op.operands[1], "outer_dims_perm = [1, 0] inner_dims_pos = [1]"
    else:  # N x K (a linear layer's weight): panels along N, in B's own order
        b, layout = source, "inner_dims_pos = [0]"
    if source is None and isinstance(b, ir.BlockArgument):  # packed at every call, by strata's pack
        if b not in packs:
            packs[b] = _pack_argument(b, PanelPack(plain.k, n, lanes), op.location)
        operands, parameters, arguments = [op.operands[0], packs[b]], [f"%a: {a_type}", f"%panels: {panels_type}"], ["%a", "%panels"]
        lines = []
    else:  # IREE fuses the pack into B's producer, or packs a constant B once
        operands, parameters, arguments = [op.operands[0], b], [f"%a: {a_type}", f"%b: {b.type}"], ["%a", "%panels"]
        lines = [
            f"  %b_dest = tensor.empty() : {panels_type}",
            f"  %panels = linalg.pack %b {layout} inner_tiles = [{COLUMNS}] into %b_dest : {b.type} -> {panels_type}",
        ]
    if epilogue.bias is not None:
        operands.append(epilogue.bias)
        parameters.append(f"%bias: {epilogue.bias.type}")
        arguments.append("%bias")
    if epilogue.residual is not None:
        operands.append(epilogue.residual)
        parameters.append(f"%residual: {epilogue.residual.type}")
        arguments.append(_matrix(lines, "%residual", epilogue.residual.type, m, n))
    types = ", ".join(kernel.types()[:-1])
    lines.append(f"  %c = func.call @{kernel.symbol}({', '.join(arguments)}) : ({types}) -> {c_type}")
    rank = len(ir.RankedTensorType(out_type).shape)
    if rank == 2:
        lines.append(f"  return %c : {c_type}")
    else:
        groups = f"[[{', '.join(map(str, range(rank - 1)))}], [{rank - 1}]]"
        shape = ", ".join(map(str, ir.RankedTensorType(out_type).shape))
        lines += [f"  %out = tensor.expand_shape %c {groups} output_shape [{shape}] : {c_type} into {out_type}", f"  return %out : {out_type}"]
    text = "\n".join([f"func.func @lowered({', '.join(parameters)}) -> {out_type} {{", *lines, "}",
                      f"func.func private @{kernel.symbol}({types}) -> {c_type}"])
    # Before the chain's last op (the residual may be computed after the matmul), at the matmul's location.
    (value,) = insert_lowered(text, last, operands, op.location)
    last.results[0].replace_all_uses_with(value)
    chain = [op, *epilogue.ops]
    producers = [v.owner.operation for dead in chain for v in dead.operands if isinstance(v, ir.OpResult)]
    producers = [p for p in producers if not any(p == c for c in chain)]
    for dead in reversed(chain):  # each read only by the next, the last by nothing now
        dead.erase()
    erase_unused(producers)
    return True


def _matrix(lines: list[str], name: str, type_: ir.Type, m: int, n: int) -> str:
    """`name` (of `type_`: [m, n] behind leading unit dimensions) as a tensor<m x n>, by a line
    appended to `lines` where it needs one; returns the value's name."""
    rank = len(ir.RankedTensorType(type_).shape)
    if rank == 2:
        return name
    lines.append(f"  {name}_matrix = tensor.collapse_shape {name} [[{', '.join(map(str, range(rank - 1)))}], [{rank - 1}]]"
                 f" : {type_} into {tensor_type([m, n], 'f32')}")
    return f"{name}_matrix"


def run(op: ir.Operation, options) -> None:
    if options.min_rows < 1:
        raise StrataError(f"strata-matmul-kernel: min-rows must be at least 1; got {options.min_rows}")
    if options.lanes not in LANES:
        raise StrataError(f"strata-matmul-kernel: lanes must be {' or '.join(map(str, LANES))}; got {options.lanes}")
    packs = {}
    for matmul in ops_named(op, "linalg.matmul"):
        _rewrite(matmul, options.min_rows, options.lanes, packs)
    declare_kernels(op)
