"""strata.tensor_literals: constant tensors imported from their bytes, into the same IR as
Torch-MLIR's own (list-based) conversion, without `Tensor.tolist` on any tensor of them."""

import torch
from torch import nn
from torch_mlir import fx

from strata.torch_import import import_torch


class Constants(nn.Module):
    """Weights used twice (tied), an int64 and a bool buffer, a one-element tensor (a splat),
    a float64 constant."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.register_buffer("index", torch.arange(8))
        self.register_buffer("keep", torch.arange(8) % 3 == 0)
        self.register_buffer("one", torch.tensor([2.5]))
        self.register_buffer("wide", torch.linspace(0, 1, 8, dtype=torch.float64))

    def forward(self, x):
        y = self.linear(x) + torch.nn.functional.linear(x, self.linear.weight)
        y = torch.where(self.keep, y, y * self.one) + self.index + self.wide.float()
        return y


def test_same_ir_as_torch_mlir_without_tolist(monkeypatch):
    torch.manual_seed(0)
    model, args = Constants().eval(), (torch.randn(2, 8),)
    reference = str(fx.export_and_import(model, *args, output_type="torch", func_name="main"))
    tolist = torch.Tensor.tolist

    def small_only(tensor):
        assert tensor.numel() <= 1, "a constant tensor went through Tensor.tolist"
        return tolist(tensor)

    monkeypatch.setattr(torch.Tensor, "tolist", small_only)
    imported = str(import_torch(model, args))
    assert imported.count("torch.vtensor.literal") == reference.count("torch.vtensor.literal") >= 5
    assert imported == reference
