"""Regenerates llama_block.torch.mlir, the torch-dialect input of strata-raise-torch's LLaMA test.

The block is strata.models.llama's hand-written LLaMA-style block (explicit-matmul attention with
a causal mask, RMSNorm as pow/mean/rsqrt/mul, SiLU-gated MLP) at a small config with random
weights, FX-imported by torch-mlir. Run from the repository root:

    .venv/bin/python test/passes/Inputs/make_llama_block.py > test/passes/Inputs/llama_block.torch.mlir
"""

import torch
from torch_mlir import fx

from strata.models.llama import LlamaBlock, LlamaConfig, example_inputs


def main() -> None:
    torch.manual_seed(0)
    config = LlamaConfig(d_model=32, heads=4, hidden=48, tokens=8)
    module = fx.export_and_import(LlamaBlock(config).eval(), *example_inputs(config), output_type="torch")
    # Large weight literals are elided: the test checks structure, not values.
    print(module.operation.get_asm(large_elements_limit=16, large_resource_limit=16), end="")


if __name__ == "__main__":
    main()
