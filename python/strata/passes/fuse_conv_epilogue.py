"""strata-fuse-conv-epilogue: the ops after a convolution kernel's call, into the kernel (passes/fuse_conv_epilogue.td).

A convolution strata hands to a kernel of its own is a dispatch IREE cannot fuse into, so the
bias, batch norm and ReLU after it (five elementwise ops as Torch-MLIR lowers a `Conv2d`,
`BatchNorm2d`, `ReLU`) became a dispatch that read and wrote the whole output once more: on the
small CNN, a quarter of the time per call went to those and the pooling. The kernels apply them
in registers instead (`strata.conv_kernel`), from one scale and one shift per output channel,
and the row and Winograd kernels pool 2x2 too, so that the CNN's convolutions write a quarter of
their output.
"""

from dataclasses import dataclass, field

from torch_mlir import ir

from strata.conv_kernel import ConvKernel
from strata.ir_splice import erase_unused, insert_lowered, tensor_type
from strata.kernel_calls import declare_kernels, kernel_of
from strata.linalg_match import is_relu, ops_named

_IDENTITY = "(d0, d1, d2, d3) -> (d0, d1, d2, d3)"
# Affine ops with the chain's value on the left, on the right (x - y: "rsub"; x / y: none).
_AFFINE = {"arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul", "arith.divf": "div"}
_AFFINE_SWAPPED = {"arith.addf": "add", "arith.subf": "rsub", "arith.mulf": "mul"}
# Ops with no effect but their results, which the rewrite may leave unused.
@dataclass
class _Chain:
    """What follows a kernel call: affine steps `(op, channel operand index)` on the scale and
    shift, a residual, a ReLU and a 2x2 max pool, and the ops they came from (the last one's
    result is the chain's)."""

    channel_values: list[tuple[ir.Value, str]] = field(default_factory=list)  # (tensor, map over [F])
    steps: list[tuple[str, int]] = field(default_factory=list)
    residual: ir.Value | None = None
    relu: bool = False
    pool2: bool = False
    ops: list[ir.Operation] = field(default_factory=list)


def _channel_value(value: ir.Value, map_text: str, f: int) -> tuple[ir.Value, str] | None:
    """`value` as a tensor over the output channels: (the tensor, its map over [F]), or None.

    Read with the identity map: the result of a `linalg.broadcast` of a tensor<F> over [0, 2, 3].
    Otherwise its map must read `d1` or nothing at each dimension, with F or 1 there. (Its
    elements are f32: the op that reads it takes the f32 chain value too.)"""
    if map_text == _IDENTITY:
        owner = value.owner
        if not isinstance(owner, ir.OpView) or owner.operation.name != "linalg.broadcast":
            return None
        broadcast = owner.operation
        source = broadcast.operands[0]
        dims = list(ir.DenseI64ArrayAttr(broadcast.attributes["dimensions"]))
        if dims != [0, 2, 3] or list(ir.RankedTensorType(source.type).shape) != [f]:
            return None
        return source, "(d0) -> (d0)"
    results = map_text.split(" -> ")[1].strip("()").split(", ") if "-> ()" not in map_text else []
    shape = list(ir.RankedTensorType(value.type).shape)
    if any(r not in ("d1", "0") for r in results) or results.count("d1") > 1 or len(shape) != len(results):
        return None
    if any(size != (f if r == "d1" else 1) for r, size in zip(results, shape)):
        return None
    if "d1" not in results:
        return value, "(d0) -> ()"
    owner = value.owner  # a tensor<F> expanded by Torch-MLIR's lowering: that tensor
    if isinstance(owner, ir.OpView) and owner.operation.name == "tensor.expand_shape":
        source = owner.operation.operands[0]
        if list(ir.RankedTensorType(source.type).shape) == [f]:
            return source, "(d0) -> (d0)"
    return value, "(d0) -> (d0)"


def _step(generic: ir.Operation, value: ir.Value, f: int, chain: _Chain) -> bool:
    """Adds what `generic` does to `value` (one of its inputs) to `chain`; False if it is not an
    epilogue op, or not one that may come where it does."""
    if chain.relu or any("parallel" not in str(t) for t in generic.attributes["iterator_types"]):
        return False
    inputs, outputs = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))
    maps = [str(ir.AffineMapAttr(m).value) for m in generic.attributes["indexing_maps"]]
    if outputs != 1 or len(generic.results) != 1 or generic.results[0].type != value.type or maps[-1] != _IDENTITY:
        return False
    operands = list(generic.operands)[:inputs]
    mine = [i for i, v in enumerate(operands) if v == value]
    if len(mine) != 1 or maps[mine[0]] != _IDENTITY:
        return False
    block = generic.regions[0].blocks[0]
    args = list(block.arguments)
    *computation, yielded = [op.operation for op in block.operations]
    if list(args[-1].uses) or not computation or computation[-1].results[0] != yielded.operands[0]:
        return False  # reads its output, or yields something else
    arg = args[mine[0]]
    if len(operands) == 1:
        chain.relu = is_relu(computation, arg)
        return chain.relu
    if len(operands) != 2 or len(computation) != 1:
        return False
    op = computation[0]
    other = 1 - mine[0]
    a, b = op.operands
    if op.name not in _AFFINE or {a, b} != {arg, args[other]} or a == b:
        return False
    channel = _channel_value(operands[other], maps[other], f)
    if channel is None:  # a whole tensor: added, it is the residual
        if op.name != "arith.addf" or maps[other] != _IDENTITY or chain.residual is not None:
            return False
        chain.residual = operands[other]
        return True
    kind = _AFFINE[op.name] if a == arg else _AFFINE_SWAPPED.get(op.name)
    if chain.residual is not None or kind is None:
        return False  # scaling after the residual (or x / y[f]) is not y * scale + shift
    chain.channel_values.append(channel)
    chain.steps.append((kind, len(chain.channel_values) - 1))
    return True


def _is_pool2(op: ir.Operation, value: ir.Value) -> bool:
    """Whether `op` is a 2x2 max pool of stride 2 of `value` (into a fill of -inf, so nothing but
    the window counts), as Torch-MLIR lowers `MaxPool2d(2)`."""
    if op.name != "linalg.pooling_nchw_max" or list(op.operands)[0] != value:
        return False
    steps = [[int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])] for name in ("strides", "dilations")]
    if steps != [[2, 2], [1, 1]] or list(ir.RankedTensorType(op.operands[1].type).shape) != [2, 2]:
        return False
    fill = op.operands[2].owner
    if not isinstance(fill, ir.OpView) or fill.operation.name != "linalg.fill":
        return False
    init = fill.operation.operands[0].owner
    if not isinstance(init, ir.OpView) or init.operation.name != "arith.constant":
        return False
    return ir.FloatAttr(init.operation.attributes["value"]).value == float("-inf")


def _chain(call: ir.Operation, kernel) -> _Chain:
    chain = _Chain()
    value = call.results[0]
    while True:
        uses = list(value.uses)
        if len(uses) != 1:
            break
        user = uses[0].owner.operation
        if user.name == "linalg.generic" and _step(user, value, kernel.f, chain):
            chain.ops.append(user)
            value = user.results[0]
            continue
        if kernel.POOLS and _is_pool2(user, value):
            chain.pool2 = True
            chain.ops.append(user)
        break
    return chain


def _scale_shift(chain: _Chain, f: int) -> list[str]:
    """Lines computing `%scale` and `%shift` (tensor<F>) from the chain's channel operands
    `%v<i>` (after their reshapes to tensor<F>, or tensor<f32>)."""
    vector = tensor_type([f], "f32")
    lines = []
    names, types = [], []
    for i, (value, map_text) in enumerate(chain.channel_values):
        shape = list(ir.RankedTensorType(value.type).shape)
        target = vector if map_text == "(d0) -> (d0)" else "tensor<f32>"
        if len(shape) == (1 if target == vector else 0):
            names.append(f"%v{i}")
        else:
            groups = f"[[{', '.join(str(d) for d in range(len(shape)))}]]" if target == vector else "[]"
            lines.append(f"  %flat{i} = tensor.collapse_shape %v{i} {groups} : {value.type} into {target}")
            names.append(f"%flat{i}")
        types.append(target)
    maps = [f"affine_map<{m}>" for _, m in chain.channel_values] + ["affine_map<(d0) -> (d0)>"] * 2
    lines += [
        f"  %scale_dest = tensor.empty() : {vector}",
        f"  %shift_dest = tensor.empty() : {vector}",
        f"  %scale, %shift = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [\"parallel\"]}}"
        f" ins({', '.join(names)} : {', '.join(types)}) outs(%scale_dest, %shift_dest : {vector}, {vector}) {{",
        f"  ^bb0({', '.join(f'%c{i}: f32' for i in range(len(names)))}, %s_out: f32, %t_out: f32):",
        "    %s0 = arith.constant 1.0 : f32",
        "    %t0 = arith.constant 0.0 : f32",
    ]
    s, t = "%s0", "%t0"
    for n, (kind, i) in enumerate(chain.steps, start=1):
        v = f"%c{i}"
        if kind in ("add", "sub"):
            lines.append(f"    %t{n} = arith.{kind}f {t}, {v} : f32")
        elif kind == "rsub":  # v - (y * s + t) = y * -s + (v - t)
            lines += [f"    %s{n} = arith.negf {s} : f32", f"    %t{n} = arith.subf {v}, {t} : f32"]
            s = f"%s{n}"
        else:  # mul, div: (y * s + t) op v
            lines += [f"    %s{n} = arith.{kind}f {s}, {v} : f32", f"    %t{n} = arith.{kind}f {t}, {v} : f32"]
            s = f"%s{n}"
        t = f"%t{n}"
    lines += [f"    linalg.yield {s}, {t} : f32, f32", f"  }} -> ({vector}, {vector})"]
    return lines


def _fuse(call: ir.Operation) -> None:
    kernel = kernel_of(call.attributes["callee"].value)
    if not isinstance(kernel, ConvKernel) or kernel.affine or kernel.residual or kernel.relu or kernel.pool2:
        return
    chain = _chain(call, kernel)
    if not chain.ops:
        return
    fused = kernel.with_epilogue(affine=bool(chain.steps), residual=chain.residual is not None, relu=chain.relu, pool2=chain.pool2)
    x_type, w_type = (str(v.type) for v in call.operands)
    y_type = fused.types()[-1]
    args = [f"%x: {x_type}", f"%w: {w_type}"]
    values = list(call.operands)
    for i, (value, _) in enumerate(chain.channel_values):
        args.append(f"%v{i}: {value.type}")
        values.append(value)
    if chain.residual is not None:
        args.append(f"%residual: {chain.residual.type}")
        values.append(chain.residual)
    lines = [f"func.func @lowered({', '.join(args)}) -> {y_type} {{"]
    operands = ["%x", "%w"]
    if fused.affine:
        lines += _scale_shift(chain, kernel.f)
        operands += ["%scale", "%shift"]
    if fused.residual:
        operands.append("%residual")
    call_types = ", ".join(fused.types()[:-1])
    lines += [
        f"  %y = func.call @{fused.symbol}({', '.join(operands)}) : ({call_types}) -> {y_type}",
        f"  return %y : {y_type}",
        "}",
        f"func.func private @{fused.symbol}({call_types}) -> {y_type}",
    ]
    last = chain.ops[-1]
    (fused_result,) = insert_lowered("\n".join(lines), last, values, location=call.location)
    last.results[0].replace_all_uses_with(fused_result)
    dropped = [*reversed(chain.ops), call]
    producers = [v.owner for op in dropped for v in op.operands]
    producers = [p for p in producers if isinstance(p, ir.OpView) and not any(p.operation == op for op in dropped)]
    for op in dropped:
        op.erase()
    erase_unused(producers)


def run(op: ir.Operation, options) -> None:
    for call in ops_named(op, "func.call"):  # those of strata's convolution kernels: see _fuse
        _fuse(call)
    declare_kernels(op)
