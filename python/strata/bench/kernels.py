"""Single-operation modules for the kernel part of the suite.

A kernel case isolates one operation so its throughput can be read on its own (GFLOP/s for
matmul, compared with numpy's BLAS) instead of being diluted inside a model.
"""

import torch
from torch import nn


class MatMul(nn.Module):
    def forward(self, a, b):
        return a @ b


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class LayerNorm(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.norm(x)
