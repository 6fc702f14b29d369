"""strata-merge-omp-parallel: consecutive OpenMP regions become one (passes/merge_omp_parallel.td).

A packed matmul on the upstream route was two regions a call (the copy of B into panels, then
the product), and with sleeping workers each region start is a wake-up: at two threads the
1024^3 matmul used 1.87 CPUs on average where OpenBLAS used 1.98; merged, the matmul went from
0.95x to 0.99x OpenBLAS's speed. Region bodies have no block arguments when the region has no
operands (no private or reduction variables), so their ops move as they are.
"""

from torch_mlir import ir

# Ops with no effect but allocating or naming memory: they may move in front of the first region.
_MOVABLE = frozenset({
    "arith.constant", "llvm.mlir.constant", "memref.alloc", "memref.alloca", "memref.cast",
    "memref.collapse_shape", "memref.expand_shape", "memref.reinterpret_cast", "memref.subview",
    "ub.poison",
})


def _mergeable(region_op: ir.Operation) -> bool:
    return region_op.name == "omp.parallel" and len(region_op.operands) == 0


def _merge_in_block(block: ir.Block) -> None:
    target, between = None, []
    for op in list(block.operations):
        op = op.operation
        if _mergeable(op):
            if target is None:
                target = op
                continue
            for moved in between:
                moved.move_before(target)
            target_block = target.regions[0].blocks[0]
            terminator = list(target_block.operations)[-1].operation
            for inner in list(op.regions[0].blocks[0].operations)[:-1]:
                inner.operation.move_before(terminator)
            op.erase()
            between = []
        elif target is not None and op.name in _MOVABLE:
            between.append(op)
        else:
            target, between = None, []


def _blocks(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in block.operations:
                if inner.operation.name != "omp.parallel":
                    yield from _blocks(inner.operation)


def run(op: ir.Operation, options) -> None:
    for block in list(_blocks(op)):
        _merge_in_block(block)
