"""strata-lower-probes: probe ops -> run-time tracing and checks (declared in passes/lower_probes.td)."""

from torch_mlir import ir, rewrite

from strata.errors import StrataError
from strata.ir_splice import splice

ROUTES = ("iree", "cpu")
PROBE_NAMES_ATTR = "strata.probe_names"

_INF = {"f16": "0x7C00", "bf16": "0x7F80", "f32": "0x7F800000", "f64": "0x7FF0000000000000"}


def _tensor_dims(x: ir.Value, ip) -> list[ir.Value]:
    """`tensor.dim` values of x's dynamic dimensions (IREE's trace takes them as operands)."""
    dims = []
    for index, size in enumerate(x.type.shape):
        if size == ir.ShapedType.get_dynamic_size():
            c = ir.Operation.create(
                "arith.constant", results=[ir.IndexType.get()],
                attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), index)}, ip=ip,
            ).results[0]
            dims.append(ir.Operation.create("tensor.dim", results=[ir.IndexType.get()], operands=[x, c], ip=ip).results[0])
    return dims


def tap_to_iree_trace(op, rewriter):
    """probe.tap "name" (x) -> flow.tensor.trace "name" = [x]."""
    x = op.operands[0]
    with op.location:
        dims = _tensor_dims(x, rewriter.ip)
        ir.Operation.create(
            "flow.tensor.trace",
            operands=[x, *dims],
            attributes={
                "key": op.attributes["name"],
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, len(dims)]),
            },
            ip=rewriter.ip,
        )
    rewriter.replace_op(op, [x])
    return False


def _tap_callee(elt: str) -> str:
    return f"strata_probe_tap_{elt}"


def _tap_to_callback(names: list[str]):
    def tap_to_callback(op, rewriter):
        """probe.tap "name" (x) -> call @strata_probe_tap_<elt>(id of name, x as memref<*x<elt>>)."""
        x = op.operands[0]
        elt = str(x.type.element_type)
        shape = "x".join("?" if d == ir.ShapedType.get_dynamic_size() else str(d) for d in x.type.shape)
        # A fully dynamic layout takes any buffer bufferization picks for x, so no copy is needed.
        strides = ", ".join("?" for _ in x.type.shape)
        memref = f"memref<{shape + 'x' if shape else ''}{elt}, strided<[{strides}], offset: ?>>"
        names.append(op.attributes["name"].value)
        text = (
            f"func.func @lowered(%x: {x.type}) -> {x.type} {{\n"
            f"  %m = bufferization.to_buffer %x read_only : {x.type} to {memref}\n"
            f"  %u = memref.cast %m : {memref} to memref<*x{elt}>\n"
            f"  %id = arith.constant {len(names) - 1} : i64\n"
            f"  func.call @{_tap_callee(elt)}(%id, %u) : (i64, memref<*x{elt}>) -> ()\n"
            f"  return %x : {x.type}\n}}\n"
            f"func.func private @{_tap_callee(elt)}(i64, memref<*x{elt}>)\n"
        )
        splice(text, op, rewriter)
        return False

    return tap_to_callback


def check_finite_to_assert(op, rewriter):
    """probe.check_finite "name" (x) -> all(|x| < inf) reduction + cf.assert naming the probe."""
    x = op.operands[0]
    elt = str(x.type.element_type)
    rank = x.type.rank
    dims = ", ".join(f"d{i}" for i in range(rank))
    name = op.attributes["name"].value.replace("\\", "\\\\").replace('"', '\\"')
    iterators = ", ".join(['"reduction"'] * rank)
    text = (
        f"func.func @lowered(%x: {x.type}) -> {x.type} {{\n"
        f"  %init = tensor.empty() : tensor<i1>\n"
        f"  %true = arith.constant true\n"
        f"  %filled = linalg.fill ins(%true : i1) outs(%init : tensor<i1>) -> tensor<i1>\n"
        f"  %all = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> ()>],"
        f" iterator_types = [{iterators}]}} ins(%x : {x.type}) outs(%filled : tensor<i1>) {{\n"
        f"  ^bb0(%a: {elt}, %acc: i1):\n"
        f"    %abs = math.absf %a : {elt}\n"
        f"    %inf = arith.constant {_INF[elt]} : {elt}\n"
        f"    %finite = arith.cmpf olt, %abs, %inf : {elt}\n"
        f"    %r = arith.andi %finite, %acc : i1\n"
        f"    linalg.yield %r : i1\n"
        f"  }} -> tensor<i1>\n"
        f"  %ok = tensor.extract %all[] : tensor<i1>\n"
        f'  cf.assert %ok, "probe.check_finite \'{name}\': tensor holds NaN or infinity"\n'
        f"  return %x : {x.type}\n}}\n"
    )
    splice(text, op, rewriter)
    return False


def _declare_tap_callbacks(module: ir.Operation, names: list[str]) -> None:
    """Declares the host callbacks the CPU route calls and records the probe names."""
    body = module.regions[0].blocks[0]
    called = set()

    def visit(op):
        if op.name == "func.call" and op.attributes["callee"].value.startswith("strata_probe_tap_"):
            called.add(op.attributes["callee"].value)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    existing = {op.attributes["sym_name"].value for op in body.operations if op.name == "func.func"}
    for callee in sorted(called - existing):
        elt = callee.rsplit("_", 1)[1]
        body.append(
            ir.Operation.parse(
                f"func.func private @{callee}(i64, memref<*x{elt}>) attributes {{llvm.emit_c_interface}}",
                context=module.context,
            )
        )
    module.attributes[PROBE_NAMES_ATTR] = ir.ArrayAttr.get([ir.StringAttr.get(n) for n in names])


def run(op: ir.Operation, options) -> None:
    if options.route not in ROUTES:
        raise StrataError(f"strata-lower-probes: route must be one of {', '.join(ROUTES)}; got '{options.route}'")
    patterns = rewrite.RewritePatternSet()
    patterns.add("probe.check_finite", check_finite_to_assert)
    names: list[str] = []
    if options.route == "iree":
        # flow.tensor.trace belongs to IREE's dialect, which torch-mlir's context does not know:
        # it is created unregistered and reaches iree-compile as text.
        op.context.allow_unregistered_dialects = True
        patterns.add("probe.tap", tap_to_iree_trace)
    else:
        patterns.add("probe.tap", _tap_to_callback(names))
    rewrite.walk_and_apply_patterns(op, patterns.freeze())
    if names:
        _declare_tap_callbacks(op, names)
