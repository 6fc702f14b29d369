"""Target descriptions load, are consistent, and a broken one is a one-line error naming the file."""

import re

import pytest

import strata.targets
from strata.errors import StrataError
from strata.iree_compile import CompileOptions, iree_flags, model_traits
from strata.targets import _parse_target, all_targets, get_target


def test_every_target_loads_with_its_default_chip():
    assert set(all_targets()) == {"llvm-cpu", "vulkan-spirv", "cuda", "rocm"}
    for target in all_targets().values():
        assert target.chip(None).name == target.default_chip
        names = [n.lower() for c in target.chips for n in (c.name, *c.aliases)]
        assert len(names) == len(set(names)), f"{target.name}: a chip name or alias is listed twice"


def test_every_tuned_default_cites_a_measurement():
    for target in all_targets().values():
        for tuned in target.tuned:
            # A time with its unit: per call (ms, us) or, for compile-time defaults, seconds.
            assert re.search(r"\d (ms|us|s)\b", tuned.benchmark), (target.name, tuned.name)


def test_aliases_resolve_to_chips():
    assert get_target("cuda").chip("H100").name == "sm_90"
    assert get_target("rocm").chip("mi300x").name == "gfx942"


def test_flags_use_current_iree_spellings():
    flags = iree_flags(CompileOptions("rocm", "gfx942"))
    assert "--iree-hal-target-device=hip" in flags and "--iree-rocm-target=gfx942" in flags
    assert not any(f.startswith(("--iree-hal-target-backends", "--iree-hip-")) for f in flags)
    assert "--iree-input-demote-f64-to-f32=false" in flags


def test_conv_only_defaults_apply_to_conv_models_only():
    flag = "--iree-global-opt-use-im2col-for-convs=true"
    assert flag in iree_flags(CompileOptions("llvm-cpu"), traits=frozenset({"conv", "matrix"}))
    assert flag not in iree_flags(CompileOptions("llvm-cpu"), traits=frozenset({"matrix"}))
    assert flag not in iree_flags(CompileOptions("llvm-cpu", tuned=False), traits=frozenset({"conv", "matrix"}))
    # Measured slower on top of im2col (targets/llvm-cpu.toml), so not a default.
    assert not any("convert-conv-to-channels-last" in f for f in iree_flags(CompileOptions("llvm-cpu")))


def test_matvec_models_get_the_ukernel_and_the_rest_codegen(monkeypatch):
    # A host where strata's own 1x32 tiles do not replace the ukernel (test_data_tile_matmul.py).
    monkeypatch.setattr(strata.targets, "host_cpu_flags", lambda: frozenset({"avx2", "fma", "avx512f"}))
    monkeypatch.setattr(strata.targets, "host_cpu_model", lambda: ("GenuineIntel", 6, 143))
    matrix = iree_flags(CompileOptions("llvm-cpu"), traits=frozenset({"matrix"}))
    matvec = iree_flags(CompileOptions("llvm-cpu"), traits=frozenset({"matvec"}))
    assert "--iree-llvmcpu-enable-ukernels=none" in matrix and "--iree-llvmcpu-enable-ukernels=all" not in matrix
    assert "--iree-llvmcpu-enable-ukernels=all" in matvec and "--iree-llvmcpu-enable-ukernels=none" not in matvec
    assert "--iree-opt-data-tiling=true" in matrix and "--iree-opt-data-tiling=true" in matvec


@pytest.mark.parametrize(
    "text,traits",
    [
        # A batch-1 MLP as the FX importer writes it: every product has one row.
        ("%8 = torch.aten.mm %arg0, %7 : !torch.vtensor<[1,512],f32>, !torch.vtensor<[512,2048],f32> -> !torch.vtensor<[1,2048],f32>\n"
         "%9 = torch.aten.addmm %b, %8, %w : !torch.vtensor<[512],f32>, !torch.vtensor<[1,2048],f32>, !torch.vtensor<[2048,512],f32> -> !torch.vtensor<[1,512],f32>",
         {"matvec"}),
        ("%19 = torch.aten.mm %16, %18 : !torch.vtensor<[128,256],f32>, !torch.vtensor<[256,768],f32> -> !torch.vtensor<[128,768],f32>", {"matrix", "gemm"}),
        ("%1 = torch.aten.linear %x, %w, %b : !torch.vtensor<[1,4,64],f32>, !torch.vtensor<[8,64],f32>, !torch.none -> !torch.vtensor<[1,4,8],f32>", {"matrix", "gemm"}),
        ("%1 = torch.aten.linear %x, %w, %b : !torch.vtensor<[1,1,64],f32>, !torch.vtensor<[8,64],f32>, !torch.none -> !torch.vtensor<[1,1,8],f32>", {"matvec"}),
        ("%3 = torch.aten.bmm %1, %2 : !torch.vtensor<[4,1,64],f32>, !torch.vtensor<[4,64,8],f32> -> !torch.vtensor<[4,1,8],f32>", {"matvec"}),
        ("%3 = torch.aten.mm %1, %2 : !torch.vtensor<[?,64],f32>, !torch.vtensor<[64,8],f32> -> !torch.vtensor<[?,8],f32>", {"matrix"}),
        ("%1 = torch.aten.convolution %x, %w, ... -> !torch.vtensor<[1,8,30,30],f32>", {"conv", "matrix"}),
        # A CNN's classifier has one row at batch 1; its convolutions (im2col matmuls) do not, but
        # only matmul ops make a "gemm" model.
        ("%1 = torch.aten.convolution %x, %w, ... -> !torch.vtensor<[1,8,30,30],f32>\n"
         "%2 = torch.aten.mm %f, %w2 : !torch.vtensor<[1,7200],f32>, !torch.vtensor<[7200,10],f32> -> !torch.vtensor<[1,10],f32>",
         {"conv", "matrix"}),
        ("%r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x8xf32>) outs(%c : tensor<1x8xf32>) -> tensor<1x8xf32>", {"matvec"}),
        ("%r = linalg.batch_matmul ins(%a, %b : tensor<2x16x64xf32>, tensor<2x64x8xf32>) outs(%c : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>", {"matrix", "gemm"}),
        ("%r = arith.addf %a, %b : f32", {"matrix"}),  # no matmul at all: nothing says it is a matrix-vector model
        # A layer norm as the FX importer decomposes it: its reciprocal square root remains.
        ("%5 = torch.aten.rsqrt %4 : !torch.vtensor<[2,4,1],f32> -> !torch.vtensor<[2,4,1],f32>", {"matrix", "norm"}),
        ("%r = math.rsqrt %a : f32", {"matrix", "norm"}),
        # A softmax as the FX importer decomposes it: an exponential and a max reduction.
        ("%2 = torch.aten.max.dim %x, %int-1, %true : !torch.vtensor<[8,16],f32>, !torch.int, !torch.bool -> !torch.vtensor<[8,1],f32>, !torch.vtensor<[8,1],si64>\n"
         "%4 = torch.aten.exp %3 : !torch.vtensor<[8,16],f32> -> !torch.vtensor<[8,16],f32>", {"matrix", "softmax"}),
        ("%e = math.exp %a : f32\n%m = arith.maximumf %e, %b : f32", {"matrix", "softmax"}),
        # torch.aten.expand is not an exponential, nor math.exp2 the one a softmax computes.
        ("%2 = torch.aten.max.dim %x\n%3 = torch.aten.expand %y", {"matrix"}),
        ("%e = math.exp2 %a : f32\n%m = arith.maximumf %e, %b : f32", {"matrix"}),
        # Only ops count, not the weights' resource section after them.
        ("%8 = torch.aten.mm %a, %w : !torch.vtensor<[1,64],f32>, !torch.vtensor<[64,8],f32> -> !torch.vtensor<[1,8],f32>\n"
         '{-#\n  dialect_resources: { builtin: { w: "0x04000000 convolution torch.aten.mm -> !torch.vtensor<[128,8],f32>" } }\n#-}',
         {"matvec"}),
    ],
)
def test_model_traits(text, traits):
    assert model_traits(text) == frozenset(traits)


@pytest.mark.parametrize(
    "text,message",
    [
        ('name = "x"\n', "x.toml: missing key 'chips'"),
        ('name = "other"\n', "target name 'other' differs from the file name 'x'"),
        ("name = [\n", "x.toml: "),
        (
            'name = "x"\ndescription = "d"\nruntime_device = "local-task"\nchip_flag = "--f"\ndefault_chip = "a"\n'
            '[chips.a]\n[[tuned]]\nname = "t"\nflags = []\nbenchmark = ""\n',
            "a tuned default needs the benchmark figure behind it",
        ),
        (
            'name = "x"\ndescription = "d"\nruntime_device = "local-task"\nchip_flag = "--f"\ndefault_chip = "b"\n[chips.a]\n',
            "unknown chip 'b' for target 'x'",
        ),
        (
            'name = "x"\ndescription = "d"\nruntime_device = "local-task"\nchip_flag = "--f"\ndefault_chip = "a"\n'
            '[chips.a]\n[[tuned]]\nname = "t"\nflags = ["--g"]\nbenchmark = "1 ms"\napplies_to = ["gemm", "gemv"]\n',
            "applies_to must be 'all', or one or a list of conv, matvec, matrix, gemm",
        ),
        (
            'name = "x"\ndescription = "d"\nruntime_device = "local-task"\nchip_flag = "--f"\ndefault_chip = "a"\n'
            '[chips.a]\n[[tuned]]\nname = "t"\nflags = ["--g"]\nbenchmark = "1 ms"\napplies_to = []\n',
            "applies_to must be 'all', or one or a list of",
        ),
    ],
)
def test_broken_target_file_is_a_one_line_error(tmp_path, text, message):
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(StrataError, match=message.replace("[", r"\[").replace("(", r"\(")):
        _parse_target(path)
