"""strata-fold-constant-generic: elementwise `linalg.generic`s of constants computed while
compiling (passes/fold_constant_generic.td).

The body is evaluated once over whole arrays: each input a numpy view broadcast to the loops
(its map a projected permutation), `linalg.index` a range along its loop, and each op the numpy
function that computes it in the same element type. Anything else leaves the generic alone.
"""

import numpy as np
from torch_mlir import ir

from strata import resource_blobs
from strata.errors import StrataError
from strata.ir_splice import erase_unused
from strata.linalg_match import ops_named

_BINARY = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
    "arith.maximumf": np.maximum, "arith.minimumf": np.minimum, "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    "arith.remf": np.fmod, "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum, "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
}
_UNARY = {
    "arith.negf": np.negative, "math.sqrt": np.sqrt, "math.exp": np.exp, "math.log": np.log, "math.tanh": np.tanh,
    "math.absf": np.abs, "math.rsqrt": lambda x: np.reciprocal(np.sqrt(x)),
}
_CASTS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi", "arith.extsi", "arith.trunci", "arith.index_cast")
# arith::CmpFPredicate: ordered comparisons are false where either side is NaN, unordered ones true.
_CMPF = {
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal, 6: np.not_equal,
    8: np.equal, 9: np.greater, 10: np.greater_equal, 11: np.less, 12: np.less_equal, 13: np.not_equal,
}
_CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal}


class _NotFoldable(Exception):
    pass


def _numpy_type(t: ir.Type):
    dtype = resource_blobs.NUMPY_TYPES.get(str(t))
    if dtype is None:
        raise _NotFoldable
    return dtype


def _cmpf(predicate: int, a, b):
    if predicate in (0, 15):  # false, true
        return np.full(np.broadcast(a, b).shape, predicate == 15)
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == 7:  # ord
        return ~unordered
    if predicate == 14:  # uno
        return unordered
    compared = _CMPF[predicate](a, b)
    return compared | unordered if predicate >= 8 else compared & ~unordered


def _divsi(a, b):
    if np.any(b == 0):
        raise _NotFoldable  # undefined: left to the target
    quotient = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -quotient, quotient)


class _Evaluator:
    """Evaluates one generic's body over its whole iteration space."""

    def __init__(self, generic: ir.Operation):
        self.generic = generic
        self.loops = list(ir.RankedTensorType(generic.results[0].type).shape)
        self.values = {}
        self.captured = []  # the scalar constants of the function the body reads

    def input_view(self, array: np.ndarray, map_: ir.AffineMap) -> np.ndarray:
        """`array` read through `map_` (a projected permutation, unit dimensions read at 0), shaped
        to broadcast over the loops."""
        dims = []
        for position, expr in enumerate(map_.results):
            if isinstance(expr, ir.AffineDimExpr):
                dims.append(ir.AffineDimExpr(expr).position)
            elif isinstance(expr, ir.AffineConstantExpr) and ir.AffineConstantExpr(expr).value == 0 and array.shape[position] == 1:
                dims.append(None)
            else:
                raise _NotFoldable
        kept = [d for d in dims if d is not None]
        if len(set(kept)) != len(kept):
            raise _NotFoldable
        array = array.reshape([s for s, d in zip(array.shape, dims) if d is not None])
        array = array.transpose(np.argsort(kept))
        return array.reshape([self.loops[d] if d in kept else 1 for d in range(len(self.loops))])

    def index(self, dim: int) -> np.ndarray:
        shape = [1] * len(self.loops)
        shape[dim] = self.loops[dim]
        return np.arange(self.loops[dim], dtype=np.int64).reshape(shape)

    def operand(self, value: ir.Value):
        if value in self.values:
            return self.values[value]
        owner = value.owner if isinstance(value, ir.OpResult) else None
        if owner is not None and owner.name == "arith.constant" and not isinstance(value.type, ir.ShapedType):
            self.captured.append(owner)
            return self.scalar(owner.attributes["value"], value.type)
        raise _NotFoldable  # a value of the enclosing function that is not a scalar constant

    def scalar(self, attr: ir.Attribute, t: ir.Type):
        dtype = _numpy_type(t)
        if isinstance(attr, ir.FloatAttr):
            return dtype(ir.FloatAttr(attr).value)
        if isinstance(attr, ir.IntegerAttr):
            return np.array(ir.IntegerAttr(attr).value).astype(dtype)[()]
        raise _NotFoldable

    def op(self, op: ir.Operation):
        name = op.name
        args = [self.operand(v) for v in op.operands]
        result_type = _numpy_type(op.results[0].type) if len(op.results) == 1 else None
        if name == "arith.constant":
            return self.scalar(op.attributes["value"], op.results[0].type)
        if name == "linalg.index":
            return self.index(ir.IntegerAttr(op.attributes["dim"]).value)
        if name in _BINARY:
            if result_type is np.bool_ and name in ("arith.addi", "arith.subi", "arith.muli"):
                raise _NotFoldable  # i1 arithmetic wraps mod 2; numpy's on booleans is logical
            return _BINARY[name](*args).astype(result_type, copy=False)
        if name in _UNARY:
            return _UNARY[name](*args).astype(result_type, copy=False)
        if name in _CASTS:
            source = np.asarray(args[0])
            if source.dtype == np.bool_ and name in ("arith.extsi", "arith.sitofp"):
                source = np.where(source, -1, 0)  # a signed i1: true is -1
            return source.astype(result_type)
        if name == "arith.divsi":
            return _divsi(*args).astype(result_type, copy=False)
        if name == "arith.remsi":
            return (args[0] - _divsi(*args) * args[1]).astype(result_type, copy=False)
        if name == "arith.cmpf":
            return _cmpf(ir.IntegerAttr(op.attributes["predicate"]).value, *args)
        if name == "arith.cmpi" and ir.IntegerAttr(op.attributes["predicate"]).value in _CMPI:
            return _CMPI[ir.IntegerAttr(op.attributes["predicate"]).value](*args)
        if name == "arith.select":
            return np.where(*args).astype(result_type, copy=False)
        raise _NotFoldable

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        block = self.generic.regions[0].blocks[0]
        maps = [ir.AffineMapAttr(m).value for m in self.generic.attributes["indexing_maps"]]
        arguments = list(block.arguments)
        for argument, array, map_ in zip(arguments, inputs, maps):
            self.values[argument] = self.input_view(array, map_)
        for argument in arguments[len(inputs):]:
            if len(list(argument.uses)):
                raise _NotFoldable  # reads an output's initial value
        *body, terminator = [op.operation for op in block.operations]
        for op in body:
            if op.name == "cf.assert":
                if not np.all(self.operand(op.operands[0])):
                    raise _NotFoldable  # fails when the module runs: left to report it then
                continue
            if len(op.results) != 1 or op.regions and any(r.blocks for r in op.regions):
                raise _NotFoldable
            self.values[op.results[0]] = self.op(op)
        results = []
        for value, result in zip(terminator.operands, self.generic.results):
            dtype = _numpy_type(ir.RankedTensorType(result.type).element_type)
            array = np.asarray(self.operand(value)).astype(dtype, copy=False)
            results.append(np.ascontiguousarray(np.broadcast_to(array, self.loops)))
        return results


def _foldable_shape(generic: ir.Operation) -> bool:
    if any("parallel" not in str(t) for t in generic.attributes["iterator_types"]):
        return False
    results = [ir.RankedTensorType(r.type) for r in generic.results]
    if not results or any(not r.has_static_shape or list(r.shape) != list(results[0].shape) for r in results):
        return False
    inputs = list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))[0]
    maps = [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]
    identity = ir.AffineMap.get_identity(len(results[0].shape), context=generic.context)
    return all(m == identity for m in maps[inputs:])


def _fold(generic: ir.Operation, max_growth: int) -> bool:
    if not _foldable_shape(generic):
        return False
    inputs = list(generic.operands)[: list(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]))[0]]
    arrays = [resource_blobs.constant_elements(v, splats=True) for v in inputs]
    if any(a is None for a in arrays):
        return False
    read = sum(a.nbytes for a in arrays if a.strides != (0,) * a.ndim)
    written = sum(int(np.prod(ir.RankedTensorType(r.type).shape)) * np.dtype(_numpy_type(ir.RankedTensorType(r.type).element_type)).itemsize
                  for r in generic.results)
    if written - read > max_growth:
        return False
    evaluator = _Evaluator(generic)
    try:
        with np.errstate(all="ignore"):
            results = evaluator.run(arrays)
    except _NotFoldable:
        return False
    with ir.InsertionPoint(generic), generic.location:
        for old, array in zip(generic.results, results):
            if array.dtype == np.bool_:
                attr = ir.DenseElementsAttr.get(array, type=old.type)
            else:
                attr = resource_blobs.create(array, "folded", old.type)
            new = ir.Operation.create("arith.constant", results=[old.type], attributes={"value": attr})
            old.replace_all_uses_with(new.results[0])
    producers = [v.owner for v in generic.operands if isinstance(v, ir.OpResult)]
    generic.erase()
    erase_unused(producers + evaluator.captured)
    return True


def run(op: ir.Operation, options) -> None:
    if options.max_growth_bytes < 0:
        raise StrataError(f"strata-fold-constant-generic: max-growth-bytes must be at least 0; got {options.max_growth_bytes}")
    for generic in ops_named(op, "linalg.generic"):
        _fold(generic, options.max_growth_bytes)
