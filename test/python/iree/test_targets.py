"""Target descriptions load, are consistent, and a broken one is a one-line error naming the file."""

import pytest

from strata.errors import StrataError
from strata.iree_compile import CompileOptions, iree_flags
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
            assert " ms" in tuned.benchmark or " us" in tuned.benchmark, (target.name, tuned.name)


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
    assert flag in iree_flags(CompileOptions("llvm-cpu"), has_conv=True)
    assert flag not in iree_flags(CompileOptions("llvm-cpu"), has_conv=False)
    assert flag not in iree_flags(CompileOptions("llvm-cpu", tuned=False), has_conv=True)
    # Measured slower on top of im2col (targets/llvm-cpu.toml), so not a default.
    assert not any("convert-conv-to-channels-last" in f for f in iree_flags(CompileOptions("llvm-cpu"), has_conv=True))


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
    ],
)
def test_broken_target_file_is_a_one_line_error(tmp_path, text, message):
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(StrataError, match=message.replace("[", r"\[").replace("(", r"\(")):
        _parse_target(path)
