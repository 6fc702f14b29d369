"""The benchmark suite: which models and kernels, at which sizes and batches.

Models come from `strata.models` with configs sized for a benchmark (bigger than the test
defaults, small enough that a whole run fits in minutes on two cores); weights are random and
seeded by the runner. A case is named `<model>/b<batch>` or after its kernel and shape, which is
what `--filter` matches.
"""

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from strata.bench import kernels
from strata.errors import StrataError


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "model" or "kernel"
    batch: int
    build: Callable  # () -> (torch module in eval mode, tuple of example input tensors)
    flops: int | None = None  # floating-point operations per call, where the count is exact
    numpy_impl: Callable | None = None  # the same computation in numpy, for a BLAS baseline
    tags: frozenset = field(default_factory=frozenset)  # "raising": strata's raising applies


def _model(module_name: str, class_name: str, config_name: str, **config):
    def build():
        import importlib

        import torch

        module = importlib.import_module(f"strata.models.{module_name}")
        cfg = getattr(module, config_name)(**config)
        model = getattr(module, class_name)(cfg).eval()
        with torch.no_grad():
            return model, module.example_inputs(cfg)

    return build


def _matmul(n: int):
    def build():
        import torch

        return kernels.MatMul().eval(), (torch.randn(n, n), torch.randn(n, n))

    return build


def _softmax(shape):
    def build():
        import torch

        return kernels.Softmax().eval(), (torch.randn(*shape),)

    return build


def _layernorm(shape):
    def build():
        import torch

        return kernels.LayerNorm(shape[-1]).eval(), (torch.randn(*shape),)

    return build


def _suite() -> list[Case]:
    mlp = dict(in_features=512, hidden=2048, out_features=512, layers=3)
    cnn = dict(in_channels=3, channels=(32, 64), classes=10, image=112)
    transformer = dict(d_model=256, heads=4, feedforward=1024, tokens=128)
    gpt2 = dict(d_model=768, heads=12, tokens=128)
    llama = dict(d_model=512, heads=8, hidden=1376, tokens=128)
    cases = [
        Case("mlp/b1", "model", 1, _model("mlp", "MLP", "MLPConfig", batch=1, **mlp)),
        Case("mlp/b32", "model", 32, _model("mlp", "MLP", "MLPConfig", batch=32, **mlp)),
        Case("cnn/b1", "model", 1, _model("cnn", "SmallCNN", "CNNConfig", batch=1, **cnn)),
        Case("cnn/b8", "model", 8, _model("cnn", "SmallCNN", "CNNConfig", batch=8, **cnn)),
        # Full ResNet-18 widths at 112x112 (a quarter of ImageNet's pixels) keeps compiles short.
        Case("resnet18/b1", "model", 1, _model("resnet", "ResNet18", "ResNetConfig", batch=1, image=112)),
        Case("transformer/b1", "model", 1,
             _model("transformer", "TransformerEncoderBlock", "TransformerConfig", batch=1, **transformer)),
        Case("transformer/b8", "model", 8,
             _model("transformer", "TransformerEncoderBlock", "TransformerConfig", batch=8, **transformer)),
        Case("gpt2/b1", "model", 1, _model("gpt2", "GPT2Block", "GPT2Config", batch=1, **gpt2)),
        Case("gpt2/b4", "model", 4, _model("gpt2", "GPT2Block", "GPT2Config", batch=4, **gpt2)),
        Case("llama/b1", "model", 1, _model("llama", "LlamaBlock", "LlamaConfig", batch=1, **llama),
             tags=frozenset({"raising"})),
    ]
    for n in (1024, 2048):
        cases.append(Case(f"matmul-{n}", "kernel", 1, _matmul(n), flops=2 * n**3, numpy_impl=np.matmul))
    cases.append(Case("softmax-8x512x512", "kernel", 1, _softmax((8, 512, 512))))
    cases.append(Case("layernorm-32x512x768", "kernel", 1, _layernorm((32, 512, 768))))
    return cases


SUITE: tuple[Case, ...] = tuple(_suite())


def select(patterns: list[str] | None) -> list[Case]:
    """Cases whose name matches any of the regular expressions (searched, not anchored)."""
    if not patterns:
        return list(SUITE)
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as e:
            raise StrataError(f"invalid --filter pattern '{pattern}': {e}") from None
    chosen = [case for case in SUITE if any(p.search(case.name) for p in compiled)]
    if not chosen:
        raise StrataError(
            f"--filter {' '.join(patterns)} matches no case; cases: {', '.join(c.name for c in SUITE)}"
        )
    return chosen
