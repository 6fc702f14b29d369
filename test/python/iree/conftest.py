"""Shared, session-scoped artifacts for the IREE-route tests: each zoo model is imported once.

Compiling is the expensive part (seconds per model and target), so a model's torch IR is made
once per session and each (model, target) module once, whichever tests use it.
"""

import functools

import pytest
import torch

from strata.iree_compile import CompileOptions, annotate_signature, compile_ir
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
def torch_ir(name: str) -> str:
    model, inputs, dims = zoo_model(name)
    module = import_torch(model, inputs, dims)
    annotate_signature(module)
    return module.operation.get_asm(enable_debug_info=True)


@functools.cache
def vmfb(name: str, target: str, chip: str | None = None) -> bytes:
    return compile_ir(torch_ir(name), CompileOptions(target=target, chip=chip))


@pytest.fixture(scope="session")
def compiled():
    """`compiled(model_name, target, chip=None)` -> vmfb bytes, built at most once per session."""
    return vmfb


@pytest.fixture(scope="session")
def zoo():
    return zoo_model
