"""Batching shared by both routes, and the strata route: `strata.compile` on a batch of cases.

Compiling hundreds of one-op modules one by one takes many minutes, so cases are packed into one
`nn.Module` (`Batch`) whose forward returns every case's results as one flat tuple. The strata
route compiles such a batch with `strata.compile(batch, example_args, target="llvm-cpu")`, exactly
as a user would; a batch that fails is halved until the failing cases stand alone.
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import torch

from .cases import Case
from .compare import Outcome, RouteReport, compare


class RouteFailure(Exception):
    """A batch could not be imported, compiled or run by a route."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"{stage}: {message}")
        self.stage = stage
        self.message = message


def first_line(error) -> str:
    """The telling line of an error: its first MLIR/linker diagnostic (`error: ...`), else the
    first line that mentions an error, else the first line; shortened by `short`."""
    text = str(error)
    match = re.search(r"error: (.+)", text)
    if match:
        return short(match.group(1))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return short(line)
    return short(lines[0] if lines else type(error).__name__)


def short(message: str) -> str:
    """A diagnostic without its leading location, an unknown op named by its torch name only."""
    message = re.sub(r'^"[^"]*":\d+:\d+: ', "", message.strip())
    message = re.sub(
        r"'torch\.operator' that was explicitly marked illegal: .*?\{name = \"([^\"]+)\"\}.*",
        r"'torch.operator' (\1)",
        message,
    )
    return message[:200]


def without_batch_location(message: str) -> str:
    """`message` less the ` at FILE:LINE (source)` strata names: in a batch that is always the
    line of `Batch.forward` that calls the cases, which says nothing about the case."""
    match = re.search(r" at \S+:\d+ \(", message)
    if not match:
        return message
    depth, end = 1, match.end()
    while end < len(message) and depth:
        depth += {"(": 1, ")": -1}.get(message[end], 0)
        end += 1
    return message[: match.start()] + message[end:]


def flatten(result) -> list:
    """Arrays of a result in order; tuples, lists and torch.return_types nest."""
    if isinstance(result, (torch.Tensor, np.ndarray)):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in flatten(item)]
    raise TypeError(f"unexpected result of type {type(result).__name__}")


class Batch(torch.nn.Module):
    """Many cases as one module: inputs are all cases' inputs, results all cases' results, in order."""

    def __init__(self, cases: list[Case]):
        super().__init__()
        self.fns = [c.fn for c in cases]
        self.arities = [len(c.args) for c in cases]

    def forward(self, *inputs):
        results, k = [], 0
        for fn, n in zip(self.fns, self.arities):
            results.extend(flatten(fn(*inputs[k : k + n])))
            k += n
        return tuple(results)


class Strata:
    name = "strata"

    def run(self, cases: list[Case], inputs: dict, expected: dict, report: RouteReport, log=None) -> None:
        """Outcomes of `cases` into `report`, halving batches that fail to compile or run."""
        import strata

        args = tuple(t for c in cases for t in inputs[c.name])
        t0 = time.perf_counter()
        report.builds += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    compiled = strata.compile(Batch(cases), args, target="llvm-cpu")
                except Exception as e:  # noqa: BLE001 - a compiler failure is this route's result
                    message = without_batch_location(first_line(e))
                    # strata's errors name their stage first: "FX import failed: ...".
                    stage = "import" if re.match(r"(FX import|torch\.export) failed", message) else "compile"
                    raise RouteFailure(stage, message) from e
            try:
                actual = [torch.as_tensor(r) for r in flatten(compiled(*args))]
            except Exception as e:  # noqa: BLE001
                raise RouteFailure("run", first_line(e)) from e
            if len(actual) != sum(len(expected[c.name]) for c in cases):
                raise RouteFailure("arity", f"{len(actual)} results for {len(cases)} cases")
        except RouteFailure as failure:
            if log:
                log(f"{self.name}: {len(cases)} cases from {cases[0].name}: {failure.stage} failed ({time.perf_counter() - t0:.1f}s)")
            if len(cases) == 1:
                report.outcomes[cases[0].name] = Outcome(failure.stage, failure.message)
                return
            half = len(cases) // 2
            self.run(cases[:half], inputs, expected, report, log)
            self.run(cases[half:], inputs, expected, report, log)
            return
        if log:
            log(f"{self.name}: {len(cases)} cases from {cases[0].name}: ok ({time.perf_counter() - t0:.1f}s)")
        k = 0
        for c in cases:
            n = len(expected[c.name])
            report.outcomes[c.name] = compare(c, expected[c.name], actual[k : k + n])
            k += n
