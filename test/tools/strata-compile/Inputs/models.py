"""Small models for strata-compile's lit tests: deterministic, so outputs can be checked exactly."""

import torch


class Affine(torch.nn.Module):
    """y = relu(x * 2 + 1): no weights, exact in f32."""

    def forward(self, x):
        return torch.relu(x * 2 + 1)


def example_inputs():
    return (torch.ones(2, 3),)


class Spectrum(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x)  # no lowering in IREE: the error must point here


class MatmulF16(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


class MeanOfLargeLinear(torch.nn.Module):
    """A 5120x5120 f32 linear layer (105 MB of weights) that averages its input: y = mean(x) + 0."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(5120, 5120)
        with torch.no_grad():
            self.linear.weight.fill_(1 / 5120)
            self.linear.bias.zero_()

    def forward(self, x):
        return self.linear(x)


class Log10(torch.nn.Module):
    """log10f is missing from IREE's embedded linker: strata relinks with the system linker."""

    def forward(self, x):
        return torch.log10(x)
