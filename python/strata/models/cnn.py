"""A small NCHW convolutional network: conv/batch-norm/ReLU/pool, then a linear classifier.

NCHW is PyTorch's layout and the one IREE's CPU codegen handles worst without help, which makes
this model the test of strata's convolution defaults (targets/llvm-cpu.toml).
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class CNNConfig:
    in_channels: int = 3
    channels: tuple[int, ...] = (8, 16)
    classes: int = 10
    image: int = 32
    batch: int = 1


class SmallCNN(nn.Module):
    def __init__(self, config: CNNConfig = CNNConfig()):
        super().__init__()
        self.config = config
        layers = []
        width = config.in_channels
        for channels in config.channels:
            layers += [
                nn.Conv2d(width, channels, 3, padding=1),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
                nn.MaxPool2d(2),
            ]
            width = channels
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(width, config.classes)
        self.eval()

    def forward(self, x):
        x = self.features(x)
        return self.classifier(x.mean(dim=(2, 3)))


def example_inputs(config: CNNConfig = CNNConfig()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, config.in_channels, config.image, config.image),)
