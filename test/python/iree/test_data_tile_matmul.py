"""strata's own data tiling on the llvm-cpu target (`mmt4d-8x16` in targets/llvm-cpu.toml): when
it applies, what the linalg stage then holds, and that the tiled model still matches eager.

The host's CPU flags are patched, so these run the same on every x86 or Arm machine: the 8x16
tiles are a speed choice, not a correctness one, and any CPU computes them right.
"""

import platform
import re

import numpy as np
import pytest
import torch
from torch import nn

import strata.api
import strata.compile_stages
import strata.targets
from strata.compile_stages import StageOptions, compile_linalg, run_stages
from strata.errors import StrataError
from strata.iree_compile import CompileOptions, iree_flags, tuned_passes
from strata.iree_runtime import LoadedModule
from strata.targets import _parse_target
from strata.torch_import import import_torch

KERNEL_PASS = "strata-matmul-kernel{min-rows=32}"
KERNEL16_PASS = "strata-matmul-kernel{min-rows=128 lanes=16}"
TILE_PASS = "func.func(strata-data-tile-matmul{tile-m=8 tile-n=16})"
VECTOR_PASS = "func.func(strata-data-tile-matmul{tile-m=1 tile-n=32 min-rows=1})"
VECTOR_KERNEL_PASS = "strata-matmul-kernel{min-rows=1}"
FOLD_PASS = "func.func(strata-fold-unpack-pack{math-only=true})"
SAFE_SOFTMAX_PASS = "func.func(strata-fold-safe-softmax{row-multiple=8})"
CONSTANT_PASSES = ["func.func(strata-fold-constant-generic)", "func.func(strata-fold-constant-pack)"]
SOFTMAX_KERNEL_PASS = "strata-softmax-kernel"
LAYER_NORM_KERNEL_PASS = "strata-layer-norm-kernel"
ATTENTION_KERNEL_PASSES = "func.func(strata-fold-constant-generic), strata-attention-kernel"
CONV_PASSES = ["strata-data-tile-conv{tile-m=4 tile-n=16 direct-min-width=16 pixel-tiles=true winograd-min-channels=16}", "strata-fuse-conv-epilogue"]
AVX2 = frozenset({"avx", "avx2", "fma", "sse4_2"})


@pytest.fixture
def avx2_host(monkeypatch):
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2)


class Products(nn.Module):
    """A linear layer, a matmul, a batched matmul and batches times one matrix (a batch_matmul of
    a broadcast in linalg), none of whose sizes fill whole 8x16 tiles."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(64, 40)
        self.weight = nn.Parameter(torch.randn(17, 21))

    def forward(self, x, y, p, q):
        return self.linear(x) @ y, torch.bmm(p, q), p @ self.weight


def _products():
    torch.manual_seed(0)
    args = (torch.randn(20, 64), torch.randn(40, 33), torch.randn(3, 9, 17), torch.randn(3, 17, 35))
    return Products().eval(), args


def test_only_avx2_hosts_without_avx512_get_strata_tiles(monkeypatch):
    matrix, vectors = frozenset({"matrix", "gemm"}), frozenset({"matvec"})
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2)
    assert tuned_passes(CompileOptions(), matrix) == [ATTENTION_KERNEL_PASSES, SAFE_SOFTMAX_PASS, KERNEL_PASS, TILE_PASS, FOLD_PASS, *CONSTANT_PASSES, SOFTMAX_KERNEL_PASS]
    assert tuned_passes(CompileOptions(chip="native"), matrix) == [ATTENTION_KERNEL_PASSES, SAFE_SOFTMAX_PASS, KERNEL_PASS, TILE_PASS, FOLD_PASS, *CONSTANT_PASSES, SOFTMAX_KERNEL_PASS]
    assert tuned_passes(CompileOptions(), vectors) == [VECTOR_KERNEL_PASS, VECTOR_PASS, *CONSTANT_PASSES]
    # A CNN: its convolutions are tiled by strata-data-tile-conv (test_data_tile_conv.py), what
    # follows them folded into strata's kernels by strata-fuse-conv-epilogue.
    assert tuned_passes(CompileOptions(), frozenset({"conv", "matrix"})) == [*CONV_PASSES, *CONSTANT_PASSES]
    # The constant folds only where other passes take the model to linalg: none move it there.
    assert tuned_passes(CompileOptions(), frozenset({"matrix"})) == []
    # A layer norm alone: strata's kernel for it (test_layer_norm_kernel.py).
    assert tuned_passes(CompileOptions(), frozenset({"matrix", "norm"})) == [LAYER_NORM_KERNEL_PASS]
    # A softmax alone: strata's row kernel for it (test_softmax_kernel.py).
    assert tuned_passes(CompileOptions(), frozenset({"matrix", "softmax"})) == [SOFTMAX_KERNEL_PASS]
    # The 1x32 tiles replace the ukernel (whose generic path would take them), on codegen.
    flags = iree_flags(CompileOptions(), traits=vectors)
    assert "--iree-llvmcpu-enable-ukernels=all" not in flags and "--iree-llvmcpu-enable-ukernels=none" in flags
    assert "--iree-opt-const-eval=false" in flags and "--iree-opt-const-eval=false" in iree_flags(CompileOptions(), traits=matrix)
    assert tuned_passes(CompileOptions(chip="znver4"), matrix) == []  # a named chip, not this host
    assert tuned_passes(CompileOptions(tuned=False), matrix) == []
    assert tuned_passes(CompileOptions(target="vulkan-spirv"), matrix) == []
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"sse2"}))
    assert tuned_passes(CompileOptions(), matrix) == []


def test_zen4_gets_the_kernels_and_the_16_lane_matmul_kernel(monkeypatch):
    """Zen 4's AVX-512 runs as two 256-bit halves, so strata's AVX2 kernels reach its FLOP rate and
    apply there; its matmuls of 128 rows or more take the matmul kernel in 16-float vectors, the
    rest the 8x16 tiles, which beat the 8-float kernel on it, its convolutions the pixel-tile and
    Winograd kernels in 16-float vectors, in tiles of 8 pixels, its softmaxes the row kernel and
    its attention the attention kernel in 16-float vectors (targets/llvm-cpu.toml)."""
    matrix, vectors = frozenset({"matrix", "gemm"}), frozenset({"matvec"})
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2 | {"avx512f"})
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("AuthenticAMD", 25, 17))
    softmax_pass = SOFTMAX_KERNEL_PASS + "{lanes=16}"
    attention_passes = ATTENTION_KERNEL_PASSES + "{lanes=16}"
    assert tuned_passes(CompileOptions(), matrix) == [attention_passes, SAFE_SOFTMAX_PASS, KERNEL16_PASS, TILE_PASS, FOLD_PASS, *CONSTANT_PASSES, softmax_pass]
    assert tuned_passes(CompileOptions(), vectors) == [VECTOR_PASS, *CONSTANT_PASSES]
    conv_passes = [CONV_PASSES[0].replace("pixel-tiles=true", "pixel-tiles=true tile-pixels=8 lanes=16"), *CONV_PASSES[1:]]
    assert tuned_passes(CompileOptions(), frozenset({"conv", "matrix"})) == [*conv_passes, *CONSTANT_PASSES]
    assert tuned_passes(CompileOptions(), frozenset({"matrix", "norm"})) == [LAYER_NORM_KERNEL_PASS]
    assert "--iree-llvmcpu-enable-ukernels=all" not in iree_flags(CompileOptions(), traits=vectors)


@pytest.mark.parametrize("vendor", ["GenuineIntel", "AuthenticAMD"])
def test_other_avx512_hosts_keep_irees_own_tiles(monkeypatch, vendor):
    """Full-width AVX-512 (Intel's, AMD's from family 26 on): IREE's 16-lane code, not strata's
    8-lane kernels."""
    matrix, vectors = frozenset({"matrix", "gemm"}), frozenset({"matvec"})
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: AVX2 | {"avx512f"})
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: (vendor, 6 if vendor == "GenuineIntel" else 26, 143))
    assert tuned_passes(CompileOptions(), matrix) == []
    assert tuned_passes(CompileOptions(), vectors) == []
    assert tuned_passes(CompileOptions(), frozenset({"conv", "matrix"})) == []
    assert "--iree-llvmcpu-enable-ukernels=all" in iree_flags(CompileOptions(), traits=vectors)


@pytest.mark.parametrize(
    "flags,model,bits",
    [
        (AVX2, ("AuthenticAMD", 25, 1), 256),  # Zen 3
        (AVX2 | {"avx512f"}, ("AuthenticAMD", 25, 17), 256),  # Zen 4: two 256-bit halves
        (AVX2 | {"avx512f"}, ("AuthenticAMD", 26, 2), 512),  # Zen 5
        (AVX2 | {"avx512f"}, ("GenuineIntel", 6, 143), 512),  # Sapphire Rapids
        (AVX2 | {"avx512f"}, ("", 0, 0), 512),
        (frozenset({"avx", "sse4_2"}), ("GenuineIntel", 6, 42), 128),  # Sandy Bridge: no FMA
        (frozenset(), ("", 0, 0), 128),
    ],
)
def test_host_fma_bits(monkeypatch, flags, model, bits):
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: flags)
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: model)
    assert strata.targets.host_fma_bits() == bits


def test_tiled_products_match_eager(avx2_host):
    model, args = _products()
    linalg = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg"))
    # The broadcast matrix is packed once: its product is one mmt4d over all 3 x 9 rows.
    assert linalg.count("linalg.mmt4d ins") == 3 and linalg.count("linalg.batch_mmt4d ins") == 1
    assert "linalg.matmul" not in linalg and "linalg.batch_matmul" not in linalg
    vmfb = run_stages(import_torch(model, args, []), CompileOptions())
    results = LoadedModule(vmfb, "local-task").function("main")(*[a.numpy() for a in args])
    with torch.no_grad():
        expected = model(*args)
    for result, reference in zip(results, expected):
        np.testing.assert_allclose(result, reference.numpy(), rtol=1e-5, atol=1e-5)


def test_long_reductions_read_the_weights_once(avx2_host, tmp_path):
    """`matmul-tile-bytes`: with IREE's 256 KiB a reduction of 3072 leaves room for one 8-row
    tile of A per workgroup, and the weights are read once per 8 rows; strata's default gives the
    workgroup all 24 rows (3 tiles), so they are read once per call. (From 32 rows on, such a
    matmul is strata's matmul kernel's: test_matmul_kernel.py.)"""
    torch.manual_seed(0)
    model = nn.Linear(3072, 256).eval()
    args = (torch.randn(24, 3072),)
    dump = tmp_path / "configs"
    options = CompileOptions(extra_flags=(f"--iree-hal-dump-executable-configurations-to={dump}",))
    vmfb = run_stages(import_torch(model, args, []), options)
    configs = "\n".join(path.read_text() for path in dump.glob("*.mlir"))
    (workgroup,) = re.findall(r"linalg\.mmt4d \{lowering_config = #iree_cpu\.lowering_config<distribution = \[(\d+), (\d+)", configs)
    assert int(workgroup[0]) == 3
    (result,) = LoadedModule(vmfb, "local-task").function("main")(args[0].numpy())
    with torch.no_grad():
        np.testing.assert_allclose(result, model(*args).numpy(), rtol=1e-4, atol=1e-4)


class GatedMLPs(nn.Module):
    """A GELU MLP and a SwiGLU MLP, as GPT-2 and LLaMA write them."""

    def __init__(self):
        super().__init__()
        self.up, self.down = nn.Linear(64, 48), nn.Linear(48, 32)
        self.gate, self.up2, self.down2 = (nn.Linear(64, 48, bias=False), nn.Linear(64, 48, bias=False), nn.Linear(48, 32, bias=False))

    def forward(self, x):
        gelu = self.down(nn.functional.gelu(self.up(x), approximate="tanh"))
        return gelu, self.down2(nn.functional.silu(self.gate(x)) * self.up2(x))


@pytest.mark.parametrize("rows", [20, 16])
def test_activations_between_matmuls_stay_in_tiles(avx2_host, rows):
    """strata-fold-unpack-pack (`tiles-between-matmuls`): the hidden activations go from one
    mmt4d to the next without an unpack and a pack; 20 rows leave a partial tile whose padding
    rows are computed and dropped."""
    torch.manual_seed(0)
    model, args = GatedMLPs().eval(), (torch.randn(1, rows, 64),)
    linalg = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg"))
    assert linalg.count("linalg.mmt4d ins") == 5
    assert linalg.count("linalg.unpack") == 2  # the two results only
    assert linalg.count("-> tensor<3x48x8x1xf32>" if rows == 20 else "-> tensor<2x48x8x1xf32>") == 0  # no pack into A tiles of 48
    results = LoadedModule(run_stages(import_torch(model, args, []), CompileOptions()), "local-task").function("main")(args[0].numpy())
    with torch.no_grad():
        expected = model(*args)
    for result, reference in zip(results, expected):  # IREE's tanh and exp round differently from eager's
        np.testing.assert_allclose(result, reference.numpy(), rtol=1e-4, atol=1e-4)


def test_tiled_matrix_vector_products_match_eager(avx2_host):
    """A batch-1 MLP: every product one row; 40 outputs are not whole 16-column panels of strata's
    kernel (matvec-kernel), so that product goes to 1x32 tiles (40 outputs: not whole tiles
    either), the second to the kernel."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 40), nn.ReLU(), nn.Linear(40, 96)).eval()
    args = (torch.randn(1, 64),)
    linalg = run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg"))
    assert linalg.count("linalg.mmt4d ins") == 1 and "linalg.matmul" not in linalg
    assert "tensor<2x64x32x1xf32>" in linalg  # the first weight, in two 32-wide tiles
    assert "call @strata_kernel_matmul6x16_m1_k40_n96_bias(" in linalg
    result = LoadedModule(run_stages(import_torch(model, args, []), CompileOptions()), "local-task").function("main")(args[0].numpy())
    with torch.no_grad():
        np.testing.assert_allclose(result[0], model(*args).numpy(), rtol=1e-5, atol=1e-5)


def test_iree_takes_the_torch_ir_where_the_linalg_stage_fails(avx2_host, monkeypatch):
    """Torch-MLIR's linalg lowering covers fewer ops than IREE's torch input conversion; a model
    it rejects still compiles, as without the tuned passes."""
    seen = {}

    def failing(source, pipeline, stage, *text):
        seen["pipeline"] = pipeline
        raise StrataError("no lowering")

    def capture(text, options, *, input_type, traits):
        seen["input_type"] = input_type
        return b"vmfb"

    monkeypatch.setattr(strata.compile_stages, "_run_pipeline", failing)
    monkeypatch.setattr(strata.compile_stages, "_run_pipeline_on", failing)
    monkeypatch.setattr(strata.compile_stages, "compile_ir", capture)
    model, args = _products()
    assert run_stages(import_torch(model, args, []), CompileOptions()) == b"vmfb"
    assert TILE_PASS in seen["pipeline"] and seen["input_type"] == "torch"
    with pytest.raises(StrataError, match="no lowering"):  # asked for the stage itself: its error
        run_stages(import_torch(model, args, []), CompileOptions(), StageOptions(stop_at="linalg"))


def test_params_skip_the_tuned_passes(avx2_host, monkeypatch, tmp_path):
    seen = {}

    def capture(module, options, stage_options):
        seen["tuned_passes"] = stage_options.tuned_passes
        raise StrataError("stop here")

    monkeypatch.setattr(strata.api, "run_stages", capture)
    model, args = _products()
    with pytest.raises(StrataError, match="stop here"):
        strata.api.compile(model, args, params=tmp_path / "w.irpa")
    assert seen == {"tuned_passes": False}


@pytest.mark.parametrize(
    "entry,message",
    [
        ('passes = 3\n', "'passes' must be a string"),
        ('', "a tuned default needs 'flags' or 'passes'"),
        ('passes = "p"\nhost_cpu = "avx2"\n', "'host_cpu' must be"),
        ('passes = "p"\nhost_fma_bits = 384\n', "'host_fma_bits' must be 128, 256 or 512"),
        ('passes = "p"\nhost_fma_bits = true\n', "'host_fma_bits' must be 128, 256 or 512"),
        ('passes = "p"\nreplaces = ["nope"]\n', "tuned default 't' replaces unknown 'nope'"),
    ],
)
def test_broken_tuned_passes_are_one_line_errors(tmp_path, entry, message):
    path = tmp_path / "x.toml"
    path.write_text(
        'name = "x"\ndescription = "d"\nruntime_device = "local-task"\nchip_flag = "--f"\ndefault_chip = "a"\n'
        f'[chips.a]\n[[tuned]]\nname = "t"\nbenchmark = "1 ms"\n{entry}'
    )
    with pytest.raises(StrataError, match=message):
        _parse_target(path)


def test_linalg_input_gets_the_tuned_passes_too(avx2_host):
    """`strata-compile file.mlir` with linalg IR: tiled as a model's linalg stage would be."""
    text = """func.func @main(%a: tensor<20x64xf32>, %b: tensor<64x40xf32>) -> tensor<20x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<20x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<20x40xf32>) -> tensor<20x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<20x64xf32>, tensor<64x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %r : tensor<20x40xf32>
}
"""
    stages = []
    vmfb = compile_linalg(text, CompileOptions(), lambda name, seconds: stages.append(name))
    assert stages == ["linalg", "vmfb"]
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((20, 64), dtype=np.float32), rng.standard_normal((64, 40), dtype=np.float32)
    (result,) = LoadedModule(vmfb, "local-task").function("main")(a, b)
    np.testing.assert_allclose(result, a @ b, rtol=1e-5, atol=1e-5)


def test_modules_with_parameter_globals_skip_the_linalg_stage(avx2_host, monkeypatch):
    """Weights moved to parameters: the module holds `util.global`s, which Torch-MLIR's context
    does not know. Its linalg pipeline, run on them, failed, changed the imported module although
    it ran on a copy, and now and then crashed the process; such modules go straight to IREE's
    torch input, and asking for their linalg stage is a one-line error."""
    from strata.parameters import ParameterExternalizer

    torch.manual_seed(0)
    model = nn.Linear(64, 40).eval()
    externalizer = ParameterExternalizer(named_tensors=list(model.state_dict().items()))
    module = import_torch(model, (torch.randn(8, 64),), [], hooks=externalizer)
    with pytest.raises(StrataError, match=r"stage 'linalg' cannot take ops .*\(util.global: weights externalized"):
        run_stages(module, CompileOptions(), StageOptions(stop_at="linalg"))
    seen = {}

    def capture(text, options, *, input_type, traits):
        seen["input_type"], seen["text"] = input_type, text
        return b"vmfb"

    monkeypatch.setattr(strata.compile_stages, "_run_pipeline_on", lambda *args: pytest.fail("ran the linalg stage"))
    monkeypatch.setattr(strata.compile_stages, "compile_ir", capture)
    assert run_stages(module, CompileOptions(), StageOptions(tuned_passes=True)) == b"vmfb"
    assert seen["input_type"] == "torch" and "util.global" in seen["text"]


@pytest.mark.skipif(platform.machine() != "x86_64" or platform.system() != "Linux", reason="reads an x86 Linux /proc/cpuinfo")
def test_host_cpu_flags_read_this_machines_features():
    strata.targets.host_cpu_flags.cache_clear()
    flags = strata.targets.host_cpu_flags()
    assert "sse2" in flags and "fpu" in flags  # every x86-64 CPU has them
    strata.targets.host_cpu_model.cache_clear()
    vendor, family, _ = strata.targets.host_cpu_model()
    assert vendor in ("GenuineIntel", "AuthenticAMD", "HygonGenuine") and family >= 6
