"""Shared, session-scoped artifacts for the IREE-route tests: each zoo model is built once.

Compiling is the expensive part (seconds per model and target), so each (model, target) module
is compiled once per session, whichever tests use it.
"""

import functools

import pytest
import torch

import strata.targets
from strata.compile_stages import run_stages
from strata.iree_compile import CompileOptions
from strata.models import cnn, gpt2, llama, mlp, transformer
from strata.torch_import import DynamicDim, import_torch


@functools.cache
def zoo_model(name: str):
    """(model, example inputs, dynamic dims) for a zoo model, with fixed random weights."""
    torch.manual_seed(0)
    if name == "mlp":
        return mlp.MLP(), mlp.example_inputs(), ()
    if name == "cnn":
        return cnn.SmallCNN(), cnn.example_inputs(), ()
    if name == "transformer":
        return transformer.TransformerEncoderBlock(), transformer.example_inputs(), ()
    if name == "gpt2":
        return gpt2.GPT2Block(), gpt2.example_inputs(), ()
    if name == "llama":
        return llama.LlamaBlock(), llama.example_inputs(), ()
    if name == "mlp-dynamic-batch":
        return mlp.MLP(), mlp.example_inputs(), (DynamicDim("batch", 0, 0),)
    raise KeyError(name)


@functools.cache
def vmfb(name: str, target: str, chip: str | None = None) -> bytes:
    """As `strata.compile` builds it: through the target's tuned strata passes where it has any."""
    model, inputs, dims = zoo_model(name)
    return run_stages(import_torch(model, inputs, dims), CompileOptions(target=target, chip=chip))


@pytest.fixture(scope="session")
def compiled():
    """`compiled(model_name, target, chip=None)` -> vmfb bytes, built at most once per session."""
    return vmfb


@pytest.fixture(scope="session")
def zoo():
    return zoo_model


@pytest.fixture
def avx2_host(monkeypatch):
    """The host as an AVX2 + FMA CPU without AVX-512 (a Zen 3), where every tuned default that
    hands convolutions, matmuls and softmaxes to strata's kernels applies, the 8-float matmul
    kernel and 6-pixel convolution tiles included (a Zen 4 gets others: test_data_tile_matmul.py);
    skipped where the CPU cannot run those kernels."""
    if not {"avx2", "fma"} <= strata.targets.host_cpu_flags():
        pytest.skip("strata's CPU kernels (convolution, matmul, softmax, attention, layer norm) need AVX2 and FMA; this CPU lacks one")
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"avx", "avx2", "fma", "sse4_2"}))
