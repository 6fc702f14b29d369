"""strata's layer-norm kernel (`strata.layer_norm_kernel`, by strata-layer-norm-kernel) under the
llvm-cpu defaults, against eager: layer norms over rows of 24 (15 rows: a workgroup of 16 not
filled; one running sum), of 64 in 2-D (three workgroups, the last one short; four sums) and with
another eps, of 48 (two sums), and over rows of 12 (not whole 8s: IREE's); and the
TransformerEncoderLayer's two, through `strata.compile`; and a result large enough to be streamed."""

import torch
from torch import nn

from compiled_vs_eager import assert_matches_eager, linalg_and_run


class LayerNorms(nn.Module):
    def __init__(self):
        super().__init__()
        self.three_d = nn.LayerNorm(24)
        self.two_d = nn.LayerNorm(64, eps=1e-6)
        self.middle = nn.LayerNorm(48)
        self.narrow = nn.LayerNorm(12)
        with torch.no_grad():
            for norm in (self.three_d, self.two_d, self.middle, self.narrow):
                norm.weight.uniform_(0.5, 1.5)
                norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x, y, w, z):
        return self.three_d(x), self.two_d(y), self.middle(w), self.narrow(z)


def _inputs():
    torch.manual_seed(0)
    return torch.randn(3, 5, 24) * 3 + 1, torch.randn(40, 64), torch.randn(6, 48), torch.randn(4, 12)


def test_kernel_matches_eager(avx2_host):
    model, args = LayerNorms().eval(), _inputs()
    linalg, results = linalg_and_run(model, args)
    assert "call @strata_kernel_layer_norm_r15_c24_e3727c5ac(" in linalg  # eps 1e-5
    assert "call @strata_kernel_layer_norm_r40_c64_e358637bd(" in linalg  # eps 1e-6
    assert "call @strata_kernel_layer_norm_r6_c48_e3727c5ac(" in linalg
    assert linalg.count("call @strata_kernel_layer_norm_") == 3  # rows of 12 stay IREE's
    assert_matches_eager(results, model, args, tolerance=1e-5)


def test_llvm_cpu_default_takes_transformer_layer_norms(avx2_host):
    import strata

    torch.manual_seed(0)
    model = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True).eval()
    args = (torch.randn(1, 16, 64),)
    compiled = strata.compile(model, args, target="llvm-cpu")
    assert compiled.vmfb.count(b"strata_kernel_layer_norm_r16_c64_e3727c5ac") >= 1
    assert_matches_eager([compiled.run_numpy(*[a.numpy() for a in args])[0]], model, args, tolerance=1e-4)


def test_streamed_result_matches_eager(avx2_host):
    """A result of 4.5 MiB, past `strata.streaming_store`'s threshold: written with non-temporal
    stores."""
    from strata.layer_norm_kernel import LayerNorm
    from strata.streaming_store import streams

    torch.manual_seed(0)
    model = nn.LayerNorm(768).eval()
    with torch.no_grad():
        model.weight.uniform_(0.5, 1.5)
        model.bias.uniform_(-0.5, 0.5)
    args = (torch.randn(3, 512, 768) * 2 - 1,)
    assert streams(3 * 512 * 768 * 4)
    assert "nontemporal = true" in LayerNorm(1536, 768, 0x3727C5AC).executable("#target")
    linalg, results = linalg_and_run(model, args)
    assert "call @strata_kernel_layer_norm_r1536_c768_e3727c5ac(" in linalg
    assert_matches_eager(results, model, args, tolerance=1e-5)
