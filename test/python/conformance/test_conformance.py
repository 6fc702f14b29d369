"""Op-level conformance: strata against PyTorch eager, with plain IREE as the bar to meet.

One session-scoped run compiles the whole catalogue (test/conformance/cases.py) through plain IREE
(Torch-MLIR FX import + iree-compile defaults) and through `strata.compile` on llvm-cpu; each case
then checks that strata passes it whenever plain IREE does. A case both routes fail is an expected
failure that names both errors; f64 cases must keep their dtype and values in strata, which plain
IREE does not (it demotes f64 to f32 by default).
"""

import collections
import warnings

import pytest
import torch

from conformance.cases import CASES, TOLERANCES

NAMES = [c.name for c in CASES]
F64 = [c.name for c in CASES if c.dtype == torch.float64]
# The JIT tracer records these convolutions as the `_convolution` they call.
TRACED_AS = {op: "_convolution" for op in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d")}


def test_catalogue_covers_at_least_200_aten_ops_in_every_required_dtype():
    ops = {c.op for c in CASES}
    assert len(ops) >= 200, f"only {len(ops)} distinct aten ops"
    dtypes = {a.dtype for c in CASES for a in c.args}
    assert {torch.float32, torch.float64, torch.int64, torch.bool, torch.float16} <= dtypes
    dims = [d for c in CASES for a in c.args for d in a.shape]
    assert 1 in dims and any(d % 8 for d in dims if d > 1)
    assert set(TOLERANCES) == {torch.float16, torch.float32, torch.float64}


def test_every_case_calls_the_aten_op_it_is_named_after():
    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in CASES:
            graph = torch.jit.trace(c.fn, c.inputs(), check_trace=False).graph
            kinds = {n.kind() for n in graph.nodes()}
            op = TRACED_AS.get(c.op, c.op)
            if f"aten::{op}" not in kinds and f"aten::{op}_" not in kinds:
                wrong.append(f"{c.name}: {sorted(k for k in kinds if k.startswith('aten::'))}")
    assert not wrong, "cases that do not call their op:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", NAMES)
def test_strata_passes_what_plain_iree_passes(suite, name):
    plain, strata = suite.plain.outcomes[name], suite.strata.outcomes[name]
    if plain.passed:
        assert strata.passed, f"plain IREE passes {name}; strata: {strata.status}: {strata.detail}"
    elif not strata.passed:
        pytest.xfail(f"both routes fail: plain IREE {plain.status} ({plain.detail}); strata {strata.status} ({strata.detail})")


@pytest.mark.parametrize("name", F64)
def test_strata_keeps_f64_exact(suite, name):
    strata = suite.strata.outcomes[name]
    assert strata.status not in ("dtype", "mismatch"), f"{name}: {strata.detail}"


def test_plain_iree_is_the_unmodified_baseline(suite):
    """The baseline really is IREE's defaults: its f64 demotion breaks the f64 cases."""
    statuses = collections.Counter(suite.plain.outcomes[n].status for n in F64)
    assert statuses["pass"] < len(F64) / 2, statuses
