"""Helpers for tests that compile a model through strata's llvm-cpu route and hold the result
against PyTorch eager: the linalg stage strata writes, and the compiled module's results."""

import numpy as np
import torch

from strata.compile_stages import StageOptions, run_stages
from strata.iree_compile import CompileOptions
from strata.iree_runtime import LoadedModule
from strata.torch_import import import_torch


def linalg_and_run(model, args, raise_torch: bool = False) -> tuple[str, list]:
    """strata's linalg stage for `model` on `args`, and what its compiled module returns for
    them on local-task, each compiled from a fresh import (through strata's raising, where
    `raise_torch`)."""
    linalg = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg", raise_torch=raise_torch))
    vmfb = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(raise_torch=raise_torch))
    return linalg, LoadedModule(vmfb, "local-task").function("main")(*(a.numpy() for a in args))


def assert_matches_eager(results, model, args, tolerance=1e-4) -> None:
    with torch.no_grad():
        expected = model(*args)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(results) == len(expected)
    for result, reference in zip(results, expected):
        np.testing.assert_allclose(result, reference.numpy(), rtol=tolerance, atol=tolerance)
