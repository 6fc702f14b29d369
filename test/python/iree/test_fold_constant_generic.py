"""strata-fold-constant-generic under the llvm-cpu defaults (`constant-expressions`): a batch
norm's scale and shift and a causal mask computed while compiling, and the compiled models still
matching eager."""

import torch
from torch import nn

from compiled_vs_eager import assert_matches_eager, linalg_and_run
from strata.models.gpt2 import GPT2Block, GPT2Config, example_inputs


class ConvBatchNorm(nn.Module):
    """A convolution (strata's direct kernel) with a batch norm in inference, whose running
    statistics are not the defaults, and a ReLU: the norm's scale and shift come from constants."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.norm = nn.BatchNorm2d(16)
        with torch.no_grad():
            self.norm.running_mean.uniform_(-1, 1)
            self.norm.running_var.uniform_(0.5, 2)
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def test_batch_norm_scale_and_shift_fold(avx2_host):
    torch.manual_seed(0)
    model, args = ConvBatchNorm().eval(), (torch.randn(1, 3, 16, 16),)
    linalg, results = linalg_and_run(model, args)
    assert "math.sqrt" not in linalg and "dense_resource<folded" in linalg
    assert_matches_eager(results, model, args)


def test_causal_mask_folds(avx2_host):
    torch.manual_seed(0)
    # Heads of 12, which strata's attention kernel (whose causal variant needs no mask at all)
    # leaves to IREE: the mask stays, folded.
    config = GPT2Config(d_model=48, heads=4, tokens=16)
    model, args = GPT2Block(config).eval(), example_inputs(config)
    linalg, results = linalg_and_run(model, args)
    # The mask of a 16-token causal attention: 16 x 16 elements, the positions' differences gone.
    assert "call @strata_kernel_attention" not in linalg
    assert "dense_resource<folded" in linalg and "tensor<16x16xi64>" not in linalg
    assert_matches_eager(results, model, args)
