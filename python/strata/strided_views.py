"""Tensors that are only a reshaped, transposed or sliced view of another, as strides into it.

Torch-MLIR writes attention's head split (`view`, `transpose`, `split`) and merge as chains of
`tensor.expand_shape`, `linalg.transpose`, `tensor.extract_slice` and `tensor.collapse_shape`,
which IREE computes as copies. A kernel that reads (or writes) the tensor at the chain's far end
through strides needs none of them: element `i` of a view lies at `offset + sum(i * strides)` in
the row-major elements of its `root`. `source_view` follows a value back to the tensor it views;
`target_view` follows a value forward, through ops that alone read it, to the tensor that holds
it rearranged, and says where each element went.
"""

from dataclasses import dataclass
from typing import Callable

from torch_mlir import ir

_VIEWS = ("tensor.expand_shape", "tensor.collapse_shape", "linalg.transpose", "tensor.extract_slice")


@dataclass(frozen=True)
class StridedView:
    """Element `i` of a tensor of `shape` is element `offset + sum(i * strides)` of `root`'s
    row-major elements."""

    root: ir.Value
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0

    @classmethod
    def whole(cls, value: ir.Value) -> "StridedView":
        shape = tuple(ir.RankedTensorType(value.type).shape)
        strides, stride = [], 1
        for size in reversed(shape):
            strides.insert(0, stride)
            stride *= size
        return cls(value, shape, tuple(strides))


def _static(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and value.type.has_static_shape


def reassociation(op: ir.Operation) -> list[list[int]]:
    """The dimension groups of a `tensor.expand_shape` or `tensor.collapse_shape`."""
    return [[ir.IntegerAttr(d).value for d in ir.ArrayAttr(group)] for group in ir.ArrayAttr(op.attributes["reassociation"])]


def _merged(shape, strides) -> int | None:
    """The stride of dimensions `shape` (with `strides`) merged into one, or None where their
    elements are not evenly spaced."""
    dims = [(size, stride) for size, stride in zip(shape, strides) if size != 1]
    if not dims:
        return 1
    for (_, outer), (size, inner) in zip(dims, dims[1:]):
        if outer != inner * size:
            return None
    return dims[-1][1]


def _split(stride: int, sizes) -> list[int]:
    """The strides of a dimension of `stride` split into dimensions of `sizes`."""
    strides, step = [], stride
    for size in reversed(sizes):
        strides.insert(0, step)
        step *= size
    return strides


def _splitting(view: StridedView, groups: list[list[int]], shape: tuple[int, ...]) -> StridedView:
    """`view` with each of its dimensions split into the dimensions of `shape` its group names."""
    strides = []
    for group, stride in zip(groups, view.strides):
        strides += _split(stride, [shape[d] for d in group])
    return StridedView(view.root, shape, tuple(strides), view.offset)


def _merging(view: StridedView, groups: list[list[int]], shape: tuple[int, ...]) -> StridedView | None:
    """`view` with each group of its dimensions merged into one of `shape`, or None where a
    group's elements are not evenly spaced."""
    strides = [_merged([view.shape[d] for d in group], [view.strides[d] for d in group]) for group in groups]
    return None if None in strides else StridedView(view.root, shape, tuple(strides), view.offset)


def _forward(op: ir.Operation, view: StridedView) -> StridedView | None:
    """The view `op`'s result is of what `view` (its operand's) is a view of, or None."""
    shape = tuple(ir.RankedTensorType(op.results[0].type).shape)
    if op.name == "tensor.expand_shape":
        return _splitting(view, reassociation(op), shape)
    if op.name == "tensor.collapse_shape":
        return _merging(view, reassociation(op), shape)
    if op.name == "linalg.transpose":
        permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        return StridedView(view.root, shape, tuple(view.strides[p] for p in permutation), view.offset)
    # tensor.extract_slice with static offsets, sizes and unit strides, not rank-reducing
    if len(op.operands) != 1 or list(ir.DenseI64ArrayAttr(op.attributes["static_strides"])) != [1] * len(view.shape):
        return None
    if list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"])) != list(shape):
        return None
    offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    return StridedView(view.root, shape, view.strides, view.offset + sum(o * s for o, s in zip(offsets, view.strides)))


def source_view(value: ir.Value, through: Callable[[ir.Operation], ir.Value | None] = lambda op: None) -> tuple[StridedView, list[ir.Operation]]:
    """The view `value` is of the tensor its chain of view ops starts from, and the ops from
    there to `value` (first first). `through(op)` may let the walk pass an elementwise op that is
    not a view (a scaling the caller takes over): it returns the operand to go on from, or None
    to stop there; such ops are in the chain too."""
    chain = []
    while isinstance(value, ir.OpResult) and _static(value):
        op = value.owner.operation
        passed = op.operands[0] if op.name in _VIEWS and _static(op.operands[0]) else through(op)
        if passed is None:
            break
        chain.insert(0, op)
        value = passed
    view, used = StridedView.whole(value), []
    for op in chain:
        after = _forward(op, view) if op.name in _VIEWS else view
        if after is None:  # a collapse of unevenly spaced dimensions: IREE copies there anyway
            after, used = StridedView.whole(op.results[0]), []
        else:
            used.append(op)
        view = after
    return view, used


def _backward(op: ir.Operation, view: StridedView) -> StridedView | None:
    """Where the elements of `op`'s operand lie, given `view`, where its result's lie; None
    where they are not a strided view."""
    shape = tuple(ir.RankedTensorType(op.operands[0].type).shape)
    if op.name == "tensor.collapse_shape":
        return _splitting(view, reassociation(op), shape)
    if op.name == "tensor.expand_shape":
        return _merging(view, reassociation(op), shape)
    permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    strides = [0] * len(shape)
    for i, p in enumerate(permutation):
        strides[p] = view.strides[i]
    return StridedView(view.root, shape, tuple(strides), view.offset)


def target_view(value: ir.Value) -> tuple[StridedView, list[ir.Operation]]:
    """The tensor that holds `value`'s elements at the end of the reshapes and transposes that
    alone read it one after the other, as the view of it that `value` is, and those ops (first
    first). The longest such chain whose elements stay a strided view."""
    chain, current = [], value
    while True:
        users = [use.owner.operation for use in current.uses]
        if len(users) != 1 or users[0].name not in _VIEWS[:3] or not _static(users[0].results[0]):
            break
        chain.append(users[0])
        current = users[0].results[0]
    while chain:
        view = StridedView.whole(chain[-1].results[0])
        for op in reversed(chain):
            view = _backward(op, view)
            if view is None:
                break
        if view is not None:
            return view, chain
        chain.pop()
    return StridedView.whole(value), []
