"""Compilation targets, loaded from the declarative descriptions in `targets/*.toml`.

A target file says which IREE flags select the target, which chips it knows (with aliases users
type, like `a100` or `mi300x`), which tuned defaults strata adds over plain iree-compile (each
with the benchmark figure that justifies it), and which instruction classes `--audit` counts in
the per-dispatch code. Everything here is a frozen dataclass validated on load, so a typo in a
target file is a one-line error naming the file and key, not a KeyError deep in a compile.
"""

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from strata.errors import StrataError
from strata.resources import TARGETS_DIR


@dataclass(frozen=True)
class Chip:
    name: str
    aliases: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    # A complete `#hal.executable.target<...>` for chips IREE's own table does not know.
    executable_target: str | None = None
    bits64: bool = True  # False: no f64/i64 arithmetic (IREE then demotes them to 32 bits)


# What a tuned default may be limited to (`applies_to`: one of these, or a list of which a model
# needs one): models with convolutions; models whose matmuls all compute one row (matrix-vector
# products: a batch-1 MLP); models with wider matmuls, or convolutions (which IREE computes as
# matmuls); models with a matmul op of more than one row; models that normalize by a reciprocal
# square root (layer norm, RMS norm: Torch-MLIR's FX import decomposes them, `rsqrt` remains);
# models with an exponential and a max reduction (a softmax, decomposed the same way).
MODEL_TRAITS = ("conv", "matvec", "matrix", "gemm", "norm", "softmax")


@dataclass(frozen=True)
class TunedDefault:
    """A flag set strata turns on by default, with the measurement that earned it its place."""

    name: str
    flags: tuple[str, ...]
    benchmark: str
    applies_to: tuple[str, ...] = ()  # MODEL_TRAITS (above) of which a model needs one; () for all
    # strata passes run on the model's linalg IR before IREE takes it (a pipeline's inside, as
    # strata-opt --pass-pipeline takes it within `builtin.module(...)`).
    passes: str = ""
    # Only when compiling for this machine's CPU (chip `host`) and its CPU flags (/proc/cpuinfo)
    # include these, and exclude the ones written `!flag`.
    host_cpu: tuple[str, ...] = ()
    # Only when compiling for this machine's CPU and its FMA units compute vectors of this many
    # bits at full rate (`host_fma_bits`); 0: any.
    host_fma_bits: int = 0
    # Tuned defaults this one takes the place of where it applies.
    replaces: tuple[str, ...] = ()

    def applies(self, chip: str, traits: frozenset[str]) -> bool:
        if self.applies_to and not any(trait in traits for trait in self.applies_to):
            return False
        if self.host_cpu or self.host_fma_bits:
            if chip != "host":
                return False
            if self.host_fma_bits and host_fma_bits() != self.host_fma_bits:
                return False
            flags = host_cpu_flags()
            return all((f[1:] not in flags) if f.startswith("!") else (f in flags) for f in self.host_cpu)
        return True


def _cpuinfo() -> str:
    """/proc/cpuinfo's text; empty where it is not readable."""
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


@functools.cache
def host_cpu_flags() -> frozenset[str]:
    """This machine's CPU feature flags as Linux reports them (`avx2`, `avx512f`, ...); empty
    where /proc/cpuinfo is not readable, so tuned defaults that need a feature stay off."""
    match = re.search(r"^(?:flags|Features)\s*:\s*(.*)$", _cpuinfo(), re.MULTILINE)
    return frozenset(match.group(1).split()) if match else frozenset()


@functools.cache
def host_cpu_model() -> tuple[str, int, int]:
    """This machine's CPU vendor, family and model as /proc/cpuinfo gives them (`AuthenticAMD`,
    25, 17 for a Zen 4 EPYC); ("", 0, 0) where it is not readable or says none (not x86)."""
    text = _cpuinfo()
    fields = dict(re.findall(r"^(vendor_id|cpu family|model)\s*:\s*(\S+)", text, re.MULTILINE))
    try:
        return fields.get("vendor_id", ""), int(fields.get("cpu family", 0)), int(fields.get("model", 0))
    except ValueError:
        return fields.get("vendor_id", ""), 0, 0


def host_fma_bits() -> int:
    """How wide a vector this machine's FMA units compute at full rate, in bits: what decides
    whether strata's CPU kernels, written for 256-bit AVX2 vectors, leave FLOPs unused.

    512 on AVX-512 CPUs, except AMD's Zen 4 (family 25; Zen 3, the same family, has no AVX-512):
    its 512-bit operations run as two 256-bit halves, so 256-bit code reaches the same FLOP rate
    (measured: strata's kernels beat IREE's AVX-512 code there, test/benchmarks/README.md).
    256 with AVX2 and FMA; 128 below that."""
    flags = host_cpu_flags()
    if "avx512f" in flags:
        vendor, family, _ = host_cpu_model()
        return 256 if (vendor, family) == ("AuthenticAMD", 25) else 512
    return 256 if {"avx2", "fma"} <= flags else 128


@dataclass(frozen=True)
class AuditClass:
    """An instruction class counted by `--audit`; `matrix` marks the target's matrix instructions."""

    name: str
    pattern: re.Pattern
    matrix: bool = False


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    runtime_device: str
    flags: tuple[str, ...]
    chip_flag: str
    default_chip: str
    chips: tuple[Chip, ...]
    tuned: tuple[TunedDefault, ...]
    audit_files: tuple[str, ...]
    audit: tuple[AuditClass, ...]
    source: Path
    demote_internal_f64: bool = False  # demote f64 inside models whose boundary has none

    def tuned_for(self, chip: str, traits: frozenset[str]) -> list[TunedDefault]:
        """The tuned defaults for `chip` and a model with `traits`, less those replaced by another."""
        applying = [t for t in self.tuned if t.applies(chip, traits)]
        replaced = {name for t in applying for name in t.replaces}
        return [t for t in applying if t.name not in replaced]

    def chip(self, name: str | None) -> Chip:
        """The chip called `name` (or one of its aliases); the target's default when None."""
        wanted = (name or self.default_chip).lower()
        for chip in self.chips:
            if wanted == chip.name.lower() or wanted in (a.lower() for a in chip.aliases):
                return chip
        known = ", ".join(c.name for c in self.chips)
        raise StrataError(f"unknown chip '{name}' for target '{self.name}' (known: {known})")


def _require(table: dict, key: str, kind: type, where: str):
    if key not in table:
        raise StrataError(f"{where}: missing key '{key}'")
    value = table[key]
    if not isinstance(value, kind):
        raise StrataError(f"{where}: '{key}' must be a {kind.__name__}, not {type(value).__name__}")
    return value


def _strings(table: dict, key: str, where: str) -> tuple[str, ...]:
    values = table.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise StrataError(f"{where}: '{key}' must be a list of strings")
    return tuple(values)


def _fma_bits(table: dict, where: str) -> int:
    bits = table.get("host_fma_bits", 0)
    if bits not in (0, 128, 256, 512) or isinstance(bits, bool):
        raise StrataError(f"{where}: 'host_fma_bits' must be 128, 256 or 512")
    return bits


def _parse_target(path: Path) -> Target:
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise StrataError(f"{where}: {e}") from None
    name = _require(data, "name", str, where)
    if name != path.stem:
        raise StrataError(f"{where}: target name '{name}' differs from the file name '{path.stem}'")
    chips = []
    for chip_name, chip in _require(data, "chips", dict, where).items():
        chip_where = f"{where}: chips.{chip_name}"
        chips.append(
            Chip(
                chip_name,
                _strings(chip, "aliases", chip_where),
                _strings(chip, "flags", chip_where),
                chip.get("executable_target"),
                bool(chip.get("bits64", True)),
            )
        )
    tuned = []
    for index, entry in enumerate(data.get("tuned", [])):
        entry_where = f"{where}: tuned[{index}]"
        benchmark = _require(entry, "benchmark", str, entry_where)
        if not benchmark.strip():
            raise StrataError(f"{entry_where}: a tuned default needs the benchmark figure behind it")
        applies_to = entry.get("applies_to", "all")
        if applies_to == "all":
            applies_to = ()
        elif isinstance(applies_to, str):
            applies_to = (applies_to,)
        else:
            applies_to = _strings(entry, "applies_to", entry_where) or ("",)  # [] names no trait
        if not all(trait in MODEL_TRAITS for trait in applies_to):
            raise StrataError(f"{entry_where}: applies_to must be 'all', or one or a list of {', '.join(MODEL_TRAITS)}")
        flags, passes = _strings(entry, "flags", entry_where), entry.get("passes", "")
        if not isinstance(passes, str):
            raise StrataError(f"{entry_where}: 'passes' must be a string")
        if not flags and not passes:
            raise StrataError(f"{entry_where}: a tuned default needs 'flags' or 'passes'")
        tuned.append(
            TunedDefault(
                _require(entry, "name", str, entry_where),
                flags,
                benchmark,
                applies_to,
                passes,
                _strings(entry, "host_cpu", entry_where),
                _fma_bits(entry, entry_where),
                _strings(entry, "replaces", entry_where),
            )
        )
    names = {t.name for t in tuned}
    for t in tuned:
        unknown = [r for r in t.replaces if r not in names]
        if unknown:
            raise StrataError(f"{where}: tuned default '{t.name}' replaces unknown '{', '.join(unknown)}'")
    audit = []
    for index, entry in enumerate(data.get("audit", [])):
        entry_where = f"{where}: audit[{index}]"
        try:
            pattern = re.compile(_require(entry, "pattern", str, entry_where))
        except re.error as e:
            raise StrataError(f"{entry_where}: bad pattern: {e}") from None
        audit.append(
            AuditClass(_require(entry, "name", str, entry_where), pattern, bool(entry.get("matrix")))
        )
    target = Target(
        name=name,
        description=_require(data, "description", str, where),
        runtime_device=_require(data, "runtime_device", str, where),
        flags=_strings(data, "flags", where),
        chip_flag=_require(data, "chip_flag", str, where),
        default_chip=_require(data, "default_chip", str, where),
        chips=tuple(chips),
        tuned=tuple(tuned),
        audit_files=_strings(data, "audit_files", where),
        audit=tuple(audit),
        source=path,
        demote_internal_f64=bool(data.get("demote_internal_f64", False)),
    )
    target.chip(target.default_chip)  # the default must be one of the listed chips
    return target


@functools.cache
def all_targets() -> dict[str, Target]:
    return {t.name: t for t in map(_parse_target, sorted(TARGETS_DIR.glob("*.toml")))}


def get_target(name: str) -> Target:
    targets = all_targets()
    if name not in targets:
        raise StrataError(f"unknown target '{name}' (known: {', '.join(targets)})")
    return targets[name]


def format_target_list() -> str:
    """The text of `--list-targets`: each target with its chips and aliases, default first."""
    lines = []
    for target in all_targets().values():
        lines.append(f"{target.name}: {target.description} (runs on --device={target.runtime_device})")
        for chip in target.chips:
            default = " (default)" if chip.name == target.default_chip else ""
            aliases = f" aliases: {', '.join(chip.aliases)}" if chip.aliases else ""
            lines.append(f"  {chip.name}{default}{aliases}")
        for tuned in target.tuned:
            needs = [*tuned.host_cpu, *([f"{tuned.host_fma_bits}-bit FMA units"] if tuned.host_fma_bits else [])]
            where = f" ({', '.join(needs)} on the host)" if needs else ""
            lines.append(f"  tuned default '{tuned.name}'{where}: {tuned.benchmark}")
    return "\n".join(lines)
