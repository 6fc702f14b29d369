"""A LLaMA-style decoder block with every piece written out by hand.

Attention is `q @ k.transpose(-2, -1) * scale`, a causal mask, softmax and `@ v`; RMSNorm is
pow/mean/rsqrt/mul; the MLP is SiLU-gated with SiLU written as `x * torch.sigmoid(x)`. Nothing
goes through `F.scaled_dot_product_attention` or fused modules, so the graph a compiler sees is
made of elementary aten ops: that is what strata's pattern raising has to recognise.
Rotary embeddings are omitted: they add elementwise ops but no new structure.
"""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class LlamaConfig:
    d_model: int = 64
    heads: int = 4
    hidden: int = 172
    eps: float = 1e-6
    batch: int = 1
    tokens: int = 16


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(variance + self.eps) * self.weight


class LlamaBlock(nn.Module):
    def __init__(self, config: LlamaConfig = LlamaConfig()):
        super().__init__()
        self.config = config
        d = config.d_model
        self.attention_norm = RMSNorm(d, config.eps)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d, config.eps)
        self.gate = nn.Linear(d, config.hidden, bias=False)
        self.up = nn.Linear(d, config.hidden, bias=False)
        self.down = nn.Linear(config.hidden, d, bias=False)

    def attention(self, x):
        batch, tokens, d = x.shape
        heads = self.config.heads
        head_dim = d // heads

        def split_heads(t):
            return t.view(batch, tokens, heads, head_dim).transpose(1, 2)

        q, k, v = split_heads(self.wq(x)), split_heads(self.wk(x)), split_heads(self.wv(x))
        scale = 1.0 / head_dim**0.5
        scores = q @ k.transpose(-2, -1) * scale
        causal = torch.triu(torch.full((tokens, tokens), float("-inf")), diagonal=1)
        probs = torch.softmax(scores + causal, dim=-1)
        out = (probs @ v).transpose(1, 2).reshape(batch, tokens, d)
        return self.wo(out)

    def mlp(self, x):
        gate = self.gate(x)
        return self.down(gate * torch.sigmoid(gate) * self.up(x))

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.mlp(self.mlp_norm(h))


def example_inputs(config: LlamaConfig = LlamaConfig()) -> tuple[torch.Tensor, ...]:
    return (torch.randn(config.batch, config.tokens, config.d_model),)
