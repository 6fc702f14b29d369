"""MLIR diagnostics as a compiler engineer reads them: `file:line:col: error: message`.

The Python bindings hand diagnostics over in two ways: errors raised while parsing or running a
pass pipeline arrive inside an `MLIRError`, everything else (warnings, remarks, errors emitted
outside an error-capturing call) through a context handler. This module turns both into one plain
record type, so the tools can print them, and `--verify-diagnostics` can match them, uniformly.
"""

import contextlib
import re
import sys
from typing import NamedTuple

_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


class Diagnostic(NamedTuple):
    severity: str  # "error", "warning", "note" or "remark"
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    notes: tuple["Diagnostic", ...] = ()

    def format(self, default_file: str | None = None) -> str:
        """The diagnostic and its notes, one `file:line:col: severity: message` line each."""
        lines = [f"{self._where(default_file)}{self.severity}: {self.message}"]
        lines.extend(n.format(default_file) for n in self.notes)
        return "\n".join(lines)

    def _where(self, default_file: str | None) -> str:
        if self.line is None:
            return f"{default_file}: " if default_file else ""
        file = self.file if self.file not in (None, "-") else (default_file or "<stdin>")
        return f"{file}:{self.line}:{self.col}: "


def location_parts(location) -> tuple[str | None, int | None, int | None]:
    """The first `file:line:col` inside an MLIR location (file, name, callsite or fused)."""
    match = _FILE_LINE_COL.search(str(location))
    if not match:
        return None, None, None
    return match.group(1), int(match.group(2)), int(match.group(3))


def _severity_name(severity) -> str:
    name = str(severity).rsplit(".", 1)[-1].lower()
    return {"error": "error", "warning": "warning", "note": "note", "remark": "remark"}.get(
        name, name
    )


def from_mlir(diag, severity: str | None = None) -> Diagnostic:
    """Converts an `ir.Diagnostic` or an `MLIRError`'s `DiagnosticInfo` (same fields)."""
    file, line, col = location_parts(diag.location)
    return Diagnostic(
        severity=severity or _severity_name(diag.severity),
        message=str(diag.message),
        file=file,
        line=line,
        col=col,
        notes=tuple(from_mlir(n, "note") for n in diag.notes),
    )


def from_mlir_error(error) -> list[Diagnostic]:
    """The diagnostics carried by an `ir.MLIRError`; a bare message when it carries none."""
    diagnostics = [from_mlir(d) for d in getattr(error, "error_diagnostics", ())]
    if not diagnostics:
        diagnostics = [Diagnostic("error", str(getattr(error, "message", error)).strip())]
    return diagnostics


class DiagnosticCollector:
    """Collects every diagnostic a context emits while the `collect()` block runs."""

    def __init__(self, context):
        self.context = context
        self.diagnostics: list[Diagnostic] = []

    def _handle(self, diag) -> bool:
        self.diagnostics.append(from_mlir(diag))
        return True  # handled: keep MLIR from printing it a second time

    @contextlib.contextmanager
    def collect(self):
        handler = self.context.attach_diagnostic_handler(self._handle)
        try:
            yield self
        finally:
            handler.detach()

    def add_error(self, error) -> None:
        self.diagnostics.extend(from_mlir_error(error))

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def take(self) -> list[Diagnostic]:
        taken, self.diagnostics = self.diagnostics, []
        return taken


def print_diagnostics(diagnostics, default_file: str | None = None, stream=None) -> None:
    stream = stream or sys.stderr
    for d in diagnostics:
        print(d.format(default_file), file=stream)
