"""Runs the catalogue through plain IREE and strata in one run and compares both with eager.

Plain IREE goes first, in batches of one dtype. strata then compiles the cases plain IREE passed
in batches of the same kind (they should all pass: one compile per batch), and the cases plain
IREE failed in batches of their own, so that a case both routes fail costs strata one small
compile instead of poisoning, and re-splitting, a large batch. The grouping only orders the work:
every case is compiled and run by both routes and compared with eager.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import torch

from .cases import CASES, Case
from .compare import RouteReport
from .plain_iree import PlainIree
from .routes import Strata, flatten

BATCH = 64


@dataclass
class Suite:
    cases: list[Case]
    plain: RouteReport
    strata: RouteReport


def by_dtype(cases: list[Case], size: int) -> list[list[Case]]:
    """Cases grouped by dtype (one dtype's trouble stays in its batches), at most `size` each."""
    groups: dict[torch.dtype, list[Case]] = {}
    for c in cases:
        groups.setdefault(c.dtype, []).append(c)
    return [g[i : i + size] for g in groups.values() for i in range(0, len(g), size)]


def strata_batches(cases: list[Case], plain: RouteReport, size: int) -> list[list[Case]]:
    """Batches for strata: plain IREE's passes together; cases it could not build, one each;
    cases it built but got wrong (f64 demotion, for one) together again."""
    passed = [c for c in cases if plain.outcomes[c.name].passed]
    unbuilt = [c for c in cases if plain.outcomes[c.name].status in ("import", "compile")]
    wrong = [c for c in cases if c not in passed and c not in unbuilt]
    return by_dtype(passed, size) + by_dtype(wrong, size) + [[c] for c in unbuilt]


def run_suite(cases: list[Case] = CASES, batch: int = BATCH, log=None) -> Suite:
    """Both routes over `cases`; `log(str)` hears about every compile."""
    inputs = {c.name: c.inputs() for c in cases}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = {c.name: flatten(c.fn(*inputs[c.name])) for c in cases}
    plain = run_route(PlainIree(), by_dtype(cases, batch), inputs, expected, log)
    strata = run_route(Strata(), strata_batches(cases, plain, batch), inputs, expected, log)
    return Suite(cases, plain, strata)


def run_route(route, batches: list[list[Case]], inputs: dict, expected: dict, log=None) -> RouteReport:
    report = RouteReport(route.name)
    start = time.perf_counter()
    for group in batches:
        route.run(group, inputs, expected, report, log)
    report.seconds = time.perf_counter() - start
    return report
