"""strata's f32 matmul kernel (`strata.matmul_kernel`, by strata-matmul-kernel): results against
eager for a plain matmul and a linear layer whose sizes exercise every edge of the kernel (rows
past the last multiple of six, two blocks of rows, a K block cut short, several panels per
workgroup and several groups of panels), its epilogues (bias, residual, ReLU), and a matmul the
kernel cannot take left to IREE. A B the function takes as an argument is packed by strata's
pack (`strata.panel_pack`), here over every edge of its own too. The pass runs here by hand on the
linalg stage, as `strata-opt --strata-matmul-kernel` would, whatever sizes the target's default
gives it."""

import numpy as np
import torch
from torch import nn

from strata.compile_stages import StageOptions, _run_pipeline, run_stages
from strata.iree_compile import CompileOptions, compile_ir
from strata.iree_runtime import LoadedModule
from strata.matmul_kernel import MatmulKernel
from strata.panel_pack import PanelPack
from strata.torch_import import import_torch


class Matmuls(nn.Module):
    """x @ y (275 x 600 x 48: 45 full row tiles and five rows, in blocks of 43 tiles and 3, K blocks
    of 512 and 88, three panels in one group); a linear layer of 160 outputs (ten panels, two
    groups of five), its bias added in the kernel's epilogue; x @ z with 40 columns (not whole
    panels: IREE's); ReLU(linear + r * 2), r * 2 computed after the matmul, and a linear layer on
    x with a leading unit dimension plus a residual of that shape, both added in the epilogue;
    one row of x times y and through the linear layer (a matrix-vector product: K's two halves
    at once); 272 and 271 rows times 64 columns and a linear layer of 64 outputs on 272 rows
    (four panels: the last two rows take two panels at once, the last one row four); and x's
    first 596 columns times v, 596 x 1040, whose pack reads rows four at a time (596 is not a
    multiple of 8), ends K in a short workgroup (596 = 9 x 64 + 20) and splits its 65 panels in
    two groups; and x's first 40 rows times u, 600 x 384, whose 24 panels go 6 to a workgroup on
    two workers (four workgroups; 8 to a workgroup would be three, `strata.workgroup_balance`)."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(600, 160)
        self.linear2 = nn.Linear(600, 32)
        self.linear3 = nn.Linear(600, 32)
        self.linear4 = nn.Linear(600, 64)

    def forward(self, x, y, z, r, w, v, u):
        relu = torch.relu(self.linear2(x) + r * 2.0)
        tails = x[:272] @ w, x[:271] @ w, self.linear4(x[:272])
        return (x @ y, self.linear(x), x @ z, relu, self.linear3(x[None]) + r[None], x[:1] @ y, self.linear(x[:1]), *tails,
                x[:, :596] @ v, x[:40] @ u)


def _inputs():
    torch.manual_seed(0)
    return (torch.randn(275, 600), torch.randn(600, 48), torch.randn(600, 40), torch.randn(275, 32), torch.randn(600, 64),
            torch.randn(596, 1040), torch.randn(600, 384))


def _kernel_stage(pipeline: str):
    """The model, its inputs and its linalg stage through `pipeline`, without the tuned defaults
    (which would data-tile the matmuls first)."""
    model, args = Matmuls().eval(), _inputs()
    linalg = run_stages(import_torch(model, args, []), CompileOptions(tuned=False), StageOptions(stop_at="linalg"))
    return model, args, _run_pipeline(linalg, f"builtin.module({pipeline})", "linalg")


def _assert_matches_eager(text: str, model, args) -> None:
    results = LoadedModule(compile_ir(text, CompileOptions(), input_type="auto"), "local-task").function("main")(*[a.numpy() for a in args])
    with torch.no_grad():
        expected = model(*args)
    assert len(results) == len(expected)
    for result, reference in zip(results, expected):
        np.testing.assert_allclose(result, reference.numpy(), rtol=1e-4, atol=1e-4)


def test_kernel_matches_eager(avx2_host, monkeypatch):
    monkeypatch.setattr("strata.matmul_kernel.workers", lambda: 2)
    model, args, text = _kernel_stage("strata-matmul-kernel")
    assert "call @strata_kernel_matmul6x16_m275_k600_n48(" in text
    assert "call @strata_kernel_matmul6x16_m275_k600_n160_bias(" in text
    assert "call @strata_kernel_matmul6x16_m275_k600_n32_bias_residual_relu(" in text
    assert "call @strata_kernel_matmul6x16_m275_k600_n32_bias_residual(" in text
    assert "call @strata_kernel_matmul6x16_m1_k600_n48(" in text
    assert "call @strata_kernel_matmul6x16_m1_k600_n160_bias(" in text
    # One row: B read as two streams, K's halves [0, 300) and [300, 600) at once.
    assert "%k_half = arith.constant 300 : index" in MatmulKernel(1, 600, 48).executable("#target")
    assert "call @strata_kernel_matmul6x16_m272_k600_n64(" in text
    assert "call @strata_kernel_matmul6x16_m271_k600_n64(" in text
    assert "call @strata_kernel_matmul6x16_m272_k600_n64_bias(" in text
    assert (MatmulKernel(272, 600, 64).tail_panels, MatmulKernel(271, 600, 64).tail_panels) == (2, 4)
    # B given by the caller: strata's pack; the linear layers' weights: linalg.pack (folded when constant).
    assert "call @strata_kernel_panels16_k600_n48(" in text and "call @strata_kernel_panels16_k600_n64(" in text
    assert "call @strata_kernel_panels16_k596_n1040(" in text and "call @strata_kernel_matmul6x16_m275_k596_n1040(" in text
    assert PanelPack(596, 1040).block_rows == 4 and PanelPack(600, 48).block_rows == 8
    assert text.count("strata_kernel_panels16_k600_n64(%") == 1  # packed once for both matmuls
    assert text.count("linalg.pack") == 5 and text.count("inner_dims_pos = [0]") == 5
    assert text.count("linalg.matmul") == 1  # the 40 columns
    assert "call @strata_kernel_matmul6x16_m40_k600_n384(" in text and MatmulKernel(40, 600, 384).panels_per_workgroup == 6
    _assert_matches_eager(text, model, args)


def test_kernel_in_16_lanes_matches_eager(avx2_host):
    """`lanes=16` (AVX-512's vectors, Zen 4's tuned default): one vector a panel, the tails'
    panels counted for eight accumulators of one vector each; on a CPU without AVX-512 LLVM
    splits the vectors, so this runs, and must match, anywhere."""
    model, args, text = _kernel_stage("strata-matmul-kernel{lanes=16}")
    assert "call @strata_kernel_matmul6x16_m275_k600_n48_lanes16(" in text
    assert "call @strata_kernel_matmul6x16_m275_k600_n32_bias_residual_relu_lanes16(" in text
    assert "call @strata_kernel_matmul6x16_m1_k600_n160_bias_lanes16(" in text
    assert "call @strata_kernel_panels16_k596_n1040_lanes16(" in text
    pack = PanelPack(596, 1040, lanes=16)
    assert PanelPack.from_symbol(pack.symbol) == pack and "vector<8xf32>" not in pack.executable("#target")
    assert PanelPack.from_symbol(PanelPack(596, 1040).symbol + "_lanes8") is None  # 8 is written without
    assert PanelPack.from_symbol("strata_kernel_panels16_k598_n1040") is None  # K not a multiple of 4
    assert PanelPack.from_symbol("strata_kernel_panels16_k596_n1048") is None  # not whole panels
    kernel = MatmulKernel(272, 600, 64, lanes=16)
    assert MatmulKernel.from_symbol(kernel.symbol) == kernel
    assert MatmulKernel.from_symbol(MatmulKernel(272, 600, 64).symbol + "_lanes8") is None  # 8 is written without
    assert (kernel.tail_panels, MatmulKernel(271, 600, 64, lanes=16).tail_panels) == (4, 4)
    executable = kernel.executable("#target")
    assert "vector<16xf32>" in executable and "vector<8xf32>" not in executable
    _assert_matches_eager(text, model, args)


def test_llvm_cpu_default_takes_matmuls_of_32_rows(avx2_host):
    """The tuned default (matmul-kernel, min-rows=32) through `strata.compile`: an MLP on 40 rows
    runs on the kernel, the same MLP on 16 rows on IREE's data-tiled mmt4d."""
    import strata

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 48), nn.GELU(approximate="tanh"), nn.Linear(48, 32)).eval()
    for rows, kernel in ((40, True), (16, False)):
        x = torch.randn(rows, 64)
        compiled = strata.compile(model, (x,), target="llvm-cpu")
        assert (b"strata_kernel_matmul6x16_m%d_k64_n48" % rows in compiled.vmfb) == kernel
        (result,) = compiled.run_numpy(x.numpy())
        with torch.no_grad():
            np.testing.assert_allclose(result, model(x).numpy(), rtol=1e-4, atol=1e-4)
