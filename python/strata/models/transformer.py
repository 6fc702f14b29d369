"""A wrapper around `nn.TransformerEncoderLayer`, the stock PyTorch transformer block.

The wrapper exists so the block takes one (batch, tokens, d_model) tensor and runs in eval mode
(dropout off), which is what an inference compiler sees.
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class TransformerConfig:
    d_model: int = 64
    heads: int = 4
    feedforward: int = 128
    batch: int = 1
    tokens: int = 16


class TransformerEncoderBlock(nn.Module):
    def __init__(self, config: TransformerConfig = TransformerConfig()):
        super().__init__()
        self.config = config
        self.layer = nn.TransformerEncoderLayer(
            config.d_model, config.heads, config.feedforward, dropout=0.0, batch_first=True
        )
        self.eval()

    def forward(self, x):
        return self.layer(x)


def example_inputs(config: TransformerConfig = TransformerConfig()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, config.tokens, config.d_model),)
