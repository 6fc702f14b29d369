"""`--list-passes` and the pass part of `--help`: strata's passes first, with TableGen docs."""

import textwrap

from strata import passes
from strata.opt._upstream_passes_gen import CATALOGUE


def _strata_section(with_options: bool) -> list[str]:
    lines = ["strata passes (passes/*.td):"]
    for info in sorted(passes.all_passes(), key=lambda p: p.argument):
        anchor = f" [on {info.anchor}]" if info.anchor else ""
        lines.append(f"  --{info.argument:<40} {info.summary}{anchor}")
        if not with_options:
            continue
        for paragraph in info.description.split("\n\n"):
            lines.extend(textwrap.wrap(" ".join(paragraph.split()), 96, initial_indent="      ", subsequent_indent="      "))
        for o in info.options:
            kind = f"list of {o.type}" if o.is_list else o.type
            default = f" (default: {o.default})" if o.default else ""
            lines.append(f"      {o.name}=<{kind}>{default}: {o.description}")
    return lines


def list_passes() -> str:
    lines = _strata_section(with_options=False)
    titles = {
        "torch-mlir": "torch-mlir passes:",
        "upstream": "upstream MLIR passes:",
        "pipelines": "pass pipelines:",
    }
    for group in ("torch-mlir", "upstream", "pipelines"):
        lines += ["", titles[group]]
        lines += [f"  --{name:<40} {summary}" for name, summary in CATALOGUE[group].items()]
    return "\n".join(lines)


def strata_pass_help() -> str:
    return "\n".join(_strata_section(with_options=True)) + "\n\nUpstream and torch-mlir passes: --list-passes"
