"""strata-fold-unpack-pack: a data-tiled matmul's result stays in tiles on its way to the next
matmul's A (passes/fold_unpack_pack.td).

An MLP's hidden activations go from one mmt4d's C tiles (`[M1][N1][tm][tn]`) to the next one's A
tiles (`[M1][K][tm][1]`) through rows: an unpack, the elementwise ops, a pack that IREE vectorizes
one element at a time. On the tiles the same ops need no unpack, and the repacking is a transpose
of each tile, written by the last elementwise op; a reshape makes that A.
"""

from dataclasses import dataclass, field

from torch_mlir import ir
from torch_mlir.dialects import linalg, tensor

from strata.ir_splice import erase_unused
from strata.linalg_match import ops_named

_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def _ints(op: ir.Operation, name: str) -> list[int] | None:
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else None


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _only_user(value: ir.Value) -> ir.Operation | None:
    """The one op that reads `value` (perhaps as several operands), or None."""
    users = [use.owner.operation for use in value.uses]
    return users[0] if users and all(user == users[0] for user in users) else None


def _drop_units(shape: list[int]) -> list[int]:
    return [d for d in shape if d != 1]


@dataclass
class _Tiles:
    """A value of logical shape [m, n] that the rewrite computes as `[M1][N1][tm][tn]` tiles."""

    op: ir.Operation  # what computes it: an unpack, or an elementwise generic
    inputs: list = field(default_factory=list)  # the generic's: (_Tiles | ("column"|"row"|"scalar", value))


class _Matcher:
    """Finds the elementwise ops and unpacks under a pack's source (a DAG: x * sigmoid(x) reads x twice)."""

    def __init__(self, m: int, n: int, tm: int):
        self.m, self.n, self.tm = m, n, tm
        self.tn: int | None = None
        self.ops: list[ir.Operation] = []  # every op the rewrite replaces
        self.memo: list[tuple[ir.Value, _Tiles | None]] = []

    def tiles(self, value: ir.Value) -> _Tiles | None:
        """`value` as tiles (once, however often the tree reads it); None where it cannot be."""
        for known, found in self.memo:
            if known == value:
                return found
        start = value
        while True:
            op = value.owner if isinstance(value, ir.OpResult) else None
            if op is None:
                return None
            op = op.operation
            if op.name not in _RESHAPES:
                break
            if _drop_units(_shape(op.operands[0])) != _drop_units(_shape(value)):
                return None
            self.ops.append(op)
            value = op.operands[0]
        if _drop_units(_shape(value)) != _drop_units([self.m, self.n]) or _shape(value)[-2:] != [self.m, self.n]:
            return None
        self.ops.append(op)
        found = self._unpack(op) if op.name == "linalg.unpack" else self._generic(op) if op.name == "linalg.generic" else None
        self.memo.append((start, found))
        return found

    def only_read_inside(self, pack: ir.Operation) -> bool:
        """Whether nothing but the matched ops and `pack` reads what the matched ops compute."""
        inside = self.ops + [pack]
        return all(use.owner.operation in inside for op in self.ops for result in op.results for use in result.uses)

    def _unpack(self, op: ir.Operation) -> _Tiles | None:
        tiles = _ints(op, "static_inner_tiles")
        if _ints(op, "inner_dims_pos") != [0, 1] or _ints(op, "outer_dims_perm") or len(tiles) != 2 or tiles[0] != self.tm:
            return None
        tn = tiles[1]
        if self.n % tn or self.tn not in (None, tn) or _shape(op.operands[0])[:2] != [-(-self.m // self.tm), self.n // tn]:
            return None
        self.tn = tn
        return _Tiles(op)

    def _generic(self, op: ir.Operation) -> _Tiles | None:
        iterators = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        rank = len(iterators)
        block = op.regions[0].blocks[0]
        if (len(op.results) != 1 or any("parallel" not in t for t in iterators) or maps[-1] != ir.AffineMap.get_identity(rank)
                or len(list(block.arguments[-1].uses))):
            return None
        if any(inner.operation.name == "linalg.index" for inner in block.operations):
            return None  # indices of rows and columns, which the tiles would renumber
        inputs = []
        for value, affine_map in zip(op.operands[:-1], maps[:-1]):
            kept = self._operand_dims(value, affine_map, rank)
            if kept is None:
                return None
            if kept == [rank - 2, rank - 1]:
                tiles = self.tiles(value)
                if tiles is None:
                    return None
                inputs.append(tiles)
            elif kept == [rank - 1]:
                inputs.append(("column", value))
            elif kept == [rank - 2] and self.m % self.tm == 0:
                inputs.append(("row", value))
            elif kept == []:
                inputs.append(("scalar", value))
            else:
                return None
        return _Tiles(op, inputs)

    @staticmethod
    def _operand_dims(value: ir.Value, affine_map: ir.AffineMap, rank: int) -> list[int] | None:
        """The loop dimensions (of the last two) that index the operand's dimensions of more than one
        element, in order; None if it is read any other way."""
        kept = []
        for size, expr in zip(_shape(value), affine_map.results):
            if isinstance(expr, ir.AffineDimExpr):
                position = expr.position
                if position >= rank - 2 and size != 1:
                    kept.append(position)
                    continue
            elif not (isinstance(expr, ir.AffineConstantExpr) and expr.value == 0):
                return None
            if size != 1:
                return None
        return kept


class _Builder:
    """Writes the matched tree on tiles, before the pack it replaces."""

    def __init__(self, matcher: _Matcher, element: ir.Type):
        self.m1, self.n1 = -(-matcher.m // matcher.tm), matcher.n // matcher.tn
        self.tm, self.tn = matcher.tm, matcher.tn
        self.element = element
        self.built: list[tuple[_Tiles, ir.Value]] = []

    def build(self, tiles: _Tiles, transposed: bool) -> ir.Value:
        for node, value in self.built:
            if node is tiles:
                return value
        value = self._build(tiles, transposed)
        self.built.append((tiles, value))
        return value

    def _build(self, tiles: _Tiles, transposed: bool) -> ir.Value:
        inputs, maps = [], []
        d = [ir.AffineDimExpr.get(i) for i in range(4)]
        if tiles.op.name == "linalg.unpack":
            if not transposed:
                return tiles.op.operands[0]
            inputs, maps = [tiles.op.operands[0]], [ir.AffineMap.get(4, 0, d)]
        else:
            for item in tiles.inputs:
                if isinstance(item, _Tiles):
                    inputs.append(self.build(item, False))
                    maps.append(ir.AffineMap.get(4, 0, d))
                    continue
                kind, value = item
                shape = {"column": [self.n1, self.tn], "row": [self.m1, self.tm], "scalar": []}[kind]
                inputs.append(self._reshaped(value, shape))
                maps.append(ir.AffineMap.get(4, 0, {"column": [d[1], d[3]], "row": [d[0], d[2]], "scalar": []}[kind]))
        out_shape = [self.m1, self.n1, self.tn, self.tm] if transposed else [self.m1, self.n1, self.tm, self.tn]
        maps.append(ir.AffineMap.get(4, 0, [d[0], d[1], d[3], d[2]] if transposed else d))
        with tiles.op.location:
            empty = tensor.EmptyOp(out_shape, self.element).result
            parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
            generic = linalg.GenericOp([empty.type], inputs, [empty], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                                       ir.ArrayAttr.get([parallel] * 4))
            block = generic.regions[0].blocks.append(*[ir.RankedTensorType(v.type).element_type for v in inputs + [empty]])
            if tiles.op.name == "linalg.unpack":
                with ir.InsertionPoint(block):
                    linalg.YieldOp([block.arguments[0]])
            else:
                old = tiles.op.regions[0].blocks[0]
                for old_argument, argument in zip(old.arguments, block.arguments):
                    old_argument.replace_all_uses_with(argument)
                with ir.InsertionPoint(block):  # an anchor to move the body before: moving keeps ownership in the IR
                    anchor = linalg.YieldOp([])
                for inner in list(old.operations):
                    inner.operation.move_before(anchor)
                anchor.erase()
        return generic.result

    def _reshaped(self, value: ir.Value, shape: list[int]) -> ir.Value:
        """`value` (its dimensions of one element dropped) as a tensor of `shape`."""
        source = _shape(value)
        element = ir.RankedTensorType(value.type).element_type
        flat = _drop_units(source)
        if len(source) != len(flat):  # to 1-D or 0-D: each kept dimension with the units before it
            groups, group = [], []
            for i, size in enumerate(source):
                group.append(i)
                if size != 1:
                    groups.append(group)
                    group = []
            if groups:
                groups[-1] += group
            value = tensor.CollapseShapeOp(ir.RankedTensorType.get(flat, element), value, _reassociation(groups)).result
        if shape and len(shape) == 2:
            value = tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, element), value, _reassociation([[0, 1]]), [], shape).result
        return value


def _reassociation(groups: list[list[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in group]) for group in groups])


def _calls_math(ops: list[ir.Operation]) -> bool:
    """Whether a generic among `ops` calls a math-dialect function in its body."""
    return any(inner.operation.name.startswith("math.") for op in ops if op.name == "linalg.generic"
               for inner in op.regions[0].blocks[0].operations)


def _fold(pack: ir.Operation, math_only: bool) -> None:
    tiles = _ints(pack, "static_inner_tiles")
    source, result = pack.operands[0], pack.results[0]
    if (_ints(pack, "inner_dims_pos") != [0, 1] or _ints(pack, "outer_dims_perm") or len(tiles) != 2 or tiles[1] != 1
            or len(_shape(source)) != 2):
        return
    reader = _only_user(result)
    if reader is None or reader.name != "linalg.mmt4d" or len(list(result.uses)) != 1 or reader.operands[0] != result:
        return
    m, n = _shape(source)
    matcher = _Matcher(m, n, tiles[0])
    tree = matcher.tiles(source)
    if tree is None or matcher.tn is None or not matcher.only_read_inside(pack):
        return
    if math_only and not _calls_math(matcher.ops):
        return
    builder = _Builder(matcher, ir.RankedTensorType(source.type).element_type)
    with ir.InsertionPoint(pack), pack.location:
        transposed = builder.build(tree, True)
        element = builder.element
        rows = tensor.CollapseShapeOp(ir.RankedTensorType.get([builder.m1, n, builder.tm], element), transposed,
                                      _reassociation([[0], [1, 2], [3]])).result
        packed = tensor.ExpandShapeOp(result.type, rows, _reassociation([[0], [1], [2, 3]]), [], _shape(result)).result
    result.replace_all_uses_with(packed)
    erase_unused([pack] + matcher.ops)


def run(op: ir.Operation, options) -> None:
    for pack in ops_named(op, "linalg.pack"):
        _fold(pack, options.math_only)
