"""Models compiled once per session through the upstream route (each compile takes seconds).

The zoo models go through strata's own raising (`linalg_route="strata"`); the default tosa
route is covered by the dynamic-batch MLP fixture and by test_other_routes_to_linalg_match_eager.
"""

import pytest
import torch

from strata import upstream
from strata.models import cnn, llama, mlp, transformer


def _compiled(model, args, **options):
    return model.eval(), args, upstream.compile(model.eval(), args, **options)


@pytest.fixture(scope="session")
def compiled_mlp():
    torch.manual_seed(0)
    return _compiled(mlp.MLP(), mlp.example_inputs(), linalg_route="strata")


@pytest.fixture(scope="session")
def compiled_mlp_dynamic_batch():
    torch.manual_seed(0)
    return _compiled(mlp.MLP(), mlp.example_inputs(), dynamic_dims=["batch=0:0:1:64"])


@pytest.fixture(scope="session")
def compiled_cnn():
    torch.manual_seed(0)
    return _compiled(cnn.SmallCNN(), cnn.example_inputs(), linalg_route="strata")


@pytest.fixture(scope="session")
def compiled_transformer():
    torch.manual_seed(0)
    return _compiled(transformer.TransformerEncoderBlock(), transformer.example_inputs(), linalg_route="strata")


@pytest.fixture(scope="session")
def compiled_llama():
    torch.manual_seed(0)
    return _compiled(llama.LlamaBlock(), llama.example_inputs(), linalg_route="strata")
