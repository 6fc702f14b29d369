"""Splices the body of a function written as MLIR text in place of an op.

strata writes lowerings as text (`strata.linalg_lowerings`): readable, and checked by MLIR's own
parser. `splice(text, op, rewriter)` parses the text's `@lowered` function in `op`'s context,
replaces the function's arguments by `op`'s operands (or by the values given) wherever they are
used, nested regions included, moves its body before `op` and replaces `op` with the returned
value. Other functions in the text (declarations of callees) are there only so that the text
verifies. `splice_each` runs such a lowering as a rewrite pattern over every op of some names;
`insert_lowered` inserts a lowering without replacing anything, and `erase_unused` drops what a
rewrite left without readers.
"""

from torch_mlir import ir, rewrite

DYNAMIC = ir.ShapedType.get_dynamic_size()


def tensor_type(shape, elt) -> str:
    """The text of a tensor type: `tensor<4x?xf32>` for shape [4, DYNAMIC] and element `f32`."""
    dims = "x".join("?" if d == DYNAMIC else str(d) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{elt}>"


def insert_lowered(text: str, before: ir.Operation, operands, location: ir.Location | None = None) -> list[ir.Value]:
    """Parses the text's `@lowered` function in `before`'s context, replaces its arguments by
    `operands` wherever they are used, moves its body before `before` and returns the values it
    returned."""
    before = before.operation if isinstance(before, ir.OpView) else before
    # Ops parsed without a location take `location` (`before`'s), so errors point at the op they replace.
    with before.context, location or before.location:
        module = ir.Module.parse(text)
    lowered = next(f for f in module.body.operations if f.attributes["sym_name"].value == "lowered")
    block = lowered.regions[0].blocks[0]
    for argument, value in zip(block.arguments, operands):
        argument.replace_all_uses_with(value)
    *body, returned = [inner.operation for inner in block.operations]
    for inner in body:  # moved, not cloned: uses inside nested regions stay connected
        inner.move_before(before)
    return list(returned.operands)


def splice(text: str, op: ir.Operation, rewriter, operands=None) -> None:
    """`operands` (default: `op`'s) are the values the function's arguments stand for."""
    op = op.operation if isinstance(op, ir.OpView) else op
    rewriter.replace_op(op, insert_lowered(text, op, list(op.operands) if operands is None else list(operands)))


# Ops without side effects that a rewrite may leave without readers.
PURE = {"linalg.batch_matmul", "linalg.broadcast", "linalg.fill", "linalg.generic", "linalg.pack", "linalg.softmax", "linalg.transpose", "linalg.unpack", "tensor.empty",
        "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice", "arith.constant"}


def erase_unused(ops) -> None:
    """Erases the pure ops among `ops` whose results are no longer used, and then their
    producers that became unused in turn."""
    pending = [op.operation for op in ops]
    while pending:
        op = pending.pop()
        if op.name not in PURE or any(len(list(r.uses)) for r in op.results) or any(op == p for p in pending):
            continue
        producers = [v.owner for v in op.operands]
        op.erase()
        pending += [p.operation for p in producers if isinstance(p, ir.OpView)]


def splice_each(root: ir.Operation, names, lowering) -> None:
    """Splices `lowering(op)` in place of every op named in `names` under `root`, greedily: the
    lowering returns the function text and the values its arguments stand for (None: `op`'s
    operands), or None to leave the op."""

    def lower(op, rewriter):
        lowered = lowering(op.operation)
        if lowered is None:
            return True  # no match
        text, operands = lowered
        splice(text, op, rewriter, operands=operands)
        return False

    patterns = rewrite.RewritePatternSet()
    for name in names:
        patterns.add(name, lower)
    rewrite.apply_patterns_and_fold_greedily(root, patterns.freeze())
