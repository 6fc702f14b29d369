"""The zoo models compiled for llvm-cpu and vulkan-spirv (lavapipe) match PyTorch eager.

Tolerance: rtol=1e-4, atol=1e-4 on both (f32 throughout, outputs of magnitude ~1; the
differences come from reassociated reductions and exp/tanh approximations).
"""

import numpy as np
import pytest
import torch

from strata.iree_runtime import LoadedModule

MODELS = ["mlp", "cnn", "transformer", "gpt2", "llama"]
TOLERANCE = {"llvm-cpu": dict(rtol=1e-4, atol=1e-4), "vulkan-spirv": dict(rtol=1e-4, atol=1e-4)}
DEVICE = {"llvm-cpu": "local-task", "vulkan-spirv": "vulkan"}


def _eager(model, inputs):
    with torch.no_grad():
        return model(*inputs).numpy()


@pytest.mark.parametrize("target", ["llvm-cpu", "vulkan-spirv"])
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_eager(name, target, compiled, zoo):
    model, inputs, _ = zoo(name)
    module = LoadedModule(compiled(name, target), DEVICE[target])
    (result,) = module.function("main")(*[x.numpy() for x in inputs])
    np.testing.assert_allclose(result, _eager(model, inputs), **TOLERANCE[target])


@pytest.mark.parametrize("target", ["llvm-cpu", "vulkan-spirv"])
def test_dynamic_batch_runs_at_two_batch_sizes(target, compiled, zoo):
    model, _, _ = zoo("mlp-dynamic-batch")
    function = LoadedModule(compiled("mlp-dynamic-batch", target), DEVICE[target]).function("main")
    assert str(function.inputs[0]) == "?x64xf32"
    for batch in (1, 9):
        x = torch.randn(batch, 64)
        (result,) = function(x.numpy())
        np.testing.assert_allclose(result, _eager(model, (x,)), **TOLERANCE[target])
