"""A ResNet-18-shaped network: a 7x7 stem, four stages of two basic blocks, global pooling.

Same topology as torchvision's resnet18 (without depending on torchvision); `width` scales every
stage so tests can use a narrow version and benchmarks the real 64-128-256-512 one.
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class ResNetConfig:
    width: int = 64
    blocks_per_stage: tuple[int, ...] = (2, 2, 2, 2)
    classes: int = 1000
    image: int = 224
    batch: int = 1


class BasicBlock(nn.Module):
    def __init__(self, inputs: int, outputs: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.shortcut = nn.Sequential()
        if stride != 1 or inputs != outputs:
            self.shortcut = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride, bias=False), nn.BatchNorm2d(outputs)
            )

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, config: ResNetConfig = ResNetConfig()):
        super().__init__()
        self.config = config
        w = config.width
        self.stem = nn.Sequential(
            nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
        )
        stages, inputs = [], w
        for index, blocks in enumerate(config.blocks_per_stage):
            outputs = w * 2**index
            for block in range(blocks):
                stride = 2 if index > 0 and block == 0 else 1
                stages.append(BasicBlock(inputs, outputs, stride))
                inputs = outputs
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(inputs, config.classes)
        self.eval()

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def example_inputs(config: ResNetConfig = ResNetConfig()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, 3, config.image, config.image),)
