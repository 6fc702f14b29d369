"""Per-case outcomes: a route's results compared with PyTorch eager.

Statuses, one per case and route:
- `pass`: every result has eager's shape and dtype and is close to it (the case's tolerance);
- `mismatch`, `dtype`, `shape`, `arity`: the module ran but a result differs from eager;
- `import`, `compile`, `run`: the stage of the route that failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .cases import Case

PASS = "pass"


@dataclass(frozen=True)
class Outcome:
    status: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASS


@dataclass
class RouteReport:
    """Outcomes of one route over a set of cases, with what they cost."""

    route: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    builds: int = 0
    seconds: float = 0.0


def compare(case: Case, expected: list[torch.Tensor], actual: list[torch.Tensor]) -> Outcome:
    if len(expected) != len(actual):
        return Outcome("arity", f"{len(actual)} results, eager has {len(expected)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        if a.dtype != e.dtype:
            return Outcome("dtype", f"result {i} is {a.dtype}, eager {e.dtype}")
        if tuple(a.shape) != tuple(e.shape):
            return Outcome("shape", f"result {i} is {tuple(a.shape)}, eager {tuple(e.shape)}")
        rtol, atol = case.tolerance(e.dtype)
        if not torch.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True):
            if e.dtype.is_floating_point:
                err = (a.double() - e.double()).abs().nan_to_num(float("inf")).max().item()
                return Outcome("mismatch", f"result {i} max abs error {err:.3g}")
            wrong = int((a != e).sum())
            return Outcome("mismatch", f"result {i}: {wrong} of {e.numel()} elements differ")
    return Outcome(PASS)
