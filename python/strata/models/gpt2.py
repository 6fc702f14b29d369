"""A GPT-2-style decoder block: pre-LayerNorm, causal multi-head attention, GELU MLP.

Built from a config with random weights, in the shape of Hugging Face's GPT-2 block (fused QKV
projection, tanh-approximated GELU) without depending on `transformers`.
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class GPT2Config:
    d_model: int = 64
    heads: int = 4
    layer_norm_eps: float = 1e-5
    batch: int = 1
    tokens: int = 16


class GPT2Block(nn.Module):
    def __init__(self, config: GPT2Config = GPT2Config()):
        super().__init__()
        self.config = config
        d = config.d_model
        self.ln_1 = nn.LayerNorm(d, eps=config.layer_norm_eps)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=config.layer_norm_eps)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)
        self.eval()

    def attention(self, x):
        batch, tokens, d = x.shape
        heads = self.config.heads
        q, k, v = self.c_attn(x).split(d, dim=-1)
        q, k, v = (t.view(batch, tokens, heads, d // heads).transpose(1, 2) for t in (q, k, v))
        out = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(out.transpose(1, 2).reshape(batch, tokens, d))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        mlp = self.mlp_proj(nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x + mlp


def example_inputs(config: GPT2Config = GPT2Config()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, config.tokens, config.d_model),)
