"""strata-lower-to-linalg: each strata op -> linalg on tensors (declared in passes/lower_to_linalg.td).

One pattern per op; each splices the op's linalg lowering from `strata.linalg_lowerings`.
"""

from torch_mlir import ir, rewrite

from strata.ir_splice import splice
from strata.linalg_lowerings import LOWERINGS


def _pattern(lower):
    def lower_op(op, rewriter):
        splice(lower(op.operation), op, rewriter)
        return False

    return lower_op


def run(op: ir.Operation, options) -> None:
    patterns = rewrite.RewritePatternSet()
    for name, lower in LOWERINGS.items():
        patterns.add(name, _pattern(lower))
    rewrite.apply_patterns_and_fold_greedily(op, patterns.freeze())
