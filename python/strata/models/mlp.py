"""A multi-layer perceptron: the smallest model that still has matmuls, bias adds and activations."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class MLPConfig:
    in_features: int = 64
    hidden: int = 128
    out_features: int = 32
    layers: int = 2
    batch: int = 4


class MLP(nn.Module):
    def __init__(self, config: MLPConfig = MLPConfig()):
        super().__init__()
        self.config = config
        widths = [config.in_features] + [config.hidden] * (config.layers - 1)
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        self.out = nn.Linear(widths[-1], config.out_features)

    def forward(self, x):
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.out(x)


def example_inputs(config: MLPConfig = MLPConfig()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, config.in_features),)
