"""`--audit`: which instruction classes each dispatch's generated code uses.

IREE writes per-dispatch intermediates (`.s` for CPUs, `.ptx` for CUDA, `.rocmasm` for ROCm) when
asked to; the target description lists which files to read and which instruction classes to count
(x86 FMA/AVX-512/AMX, NVIDIA mma/wgmma, AMD v_mfma/v_wmma). The answer to "did my kernel hit the
matrix instructions?" is one table: a row per dispatch, a count per class, and a final column
saying whether any of the target's matrix instruction classes appeared.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from strata.errors import StrataError
from strata.targets import Target


@dataclass(frozen=True)
class DispatchAudit:
    dispatch: str
    counts: dict[str, int]  # instruction class name -> occurrences

    def uses_matrix(self, target: Target) -> bool:
        return any(self.counts.get(c.name, 0) for c in target.audit if c.matrix)


def _dispatch_name(path: Path) -> str:
    match = re.search(r"_dispatch_(\d+)", path.name)
    return f"dispatch_{match.group(1)}" if match else path.name.split(".")[0]


def audit_dispatches(dump_dir: Path, target: Target) -> list[DispatchAudit]:
    """One row per dispatch found in `dump_dir` (the `--iree-hal-dump-executable-*` directory)."""
    if not target.audit_files or not target.audit:
        raise StrataError(f"target '{target.name}' has no instruction classes to audit")
    files = sorted(p for p in Path(dump_dir).rglob("*") if p.is_file() and p.suffix in target.audit_files)
    if not files:
        raise StrataError(f"no {'/'.join(target.audit_files)} files in '{dump_dir}' to audit")
    rows: dict[str, dict[str, int]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        counts = rows.setdefault(_dispatch_name(path), {c.name: 0 for c in target.audit})
        for audit_class in target.audit:
            counts[audit_class.name] += len(audit_class.pattern.findall(text))
    return [DispatchAudit(name, counts) for name, counts in sorted(rows.items(), key=lambda r: _natural(r[0]))]


def _natural(name: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def format_audit(rows: list[DispatchAudit], target: Target, chip: str) -> str:
    classes = [c.name for c in target.audit]
    header = ["dispatch", *classes, "matrix"]
    body = [[r.dispatch, *(str(r.counts[c]) for c in classes), "yes" if r.uses_matrix(target) else "no"] for r in rows]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    lines = [f"audit: {target.name} {chip}, {len(rows)} dispatch(es); matrix classes: "
             + ", ".join(c.name for c in target.audit if c.matrix)]
    for row in [header, *body]:
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    return "\n".join(lines)
