"""`--verify-diagnostics`: check emitted diagnostics against `expected-*` comments, as mlir-opt.

Supported forms: `// expected-error {{text}}` (same line), `@+N`, `@-N`, `@above`, `@below`,
`@unknown`, and the severities error, warning, note and remark. The text is a substring match;
in the `-re` form (`expected-error-re {{a {{[0-9]+}} b}}`) each inner `{{...}}` is a regex.
An emitted diagnostic nobody expected, or an expectation nothing met, is reported at its own
location and fails the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from strata.diagnostics import Diagnostic

_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(?:@(above|below|unknown|[+-]\d+))?\s*\{\{(.*)\}\}\s*$"
)


@dataclass
class Expectation:
    severity: str
    line: int | None  # None: a diagnostic with an unknown location
    pattern: re.Pattern
    text: str
    comment_line: int
    comment_col: int
    matched: bool = False


def _pattern(text: str, is_regex: bool) -> re.Pattern:
    if not is_regex:
        return re.compile(re.escape(text))
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos : m.start()]))
        parts.append(m.group(1))
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))


def parse_expectations(text: str, file: str) -> tuple[list[Expectation], list[Diagnostic]]:
    """Expectations in `text`, plus errors for malformed ones (`@below` with nothing below)."""
    lines = text.split("\n")
    expectations, errors = [], []
    pending_below: list[Expectation] = []
    for number, line in enumerate(lines, start=1):
        comment = line.find("//")
        stripped = line.strip()
        if pending_below and stripped and not stripped.startswith("//"):
            for e in pending_below:
                e.line = number
            pending_below = []
        if comment < 0 or "expected-" not in line[comment:]:
            continue
        m = _EXPECTED.search(line, comment)
        if not m:
            if re.search(r"expected-(error|warning|note|remark)", line[comment:]):
                errors.append(
                    Diagnostic("error", "unexpected ending of 'expected-*' directive", file, number, comment + 1)
                )
            continue
        severity, is_regex, where, message = m.groups()
        try:
            pattern = _pattern(message, bool(is_regex))
        except re.error as err:
            errors.append(Diagnostic("error", f"invalid regex in expected-{severity}: {err}", file, number, m.start() + 1))
            continue
        target: int | None = number
        if where == "above":
            target = _previous_code_line(lines, number)
        elif where == "unknown":
            target = None
        elif where and where != "below":
            target = number + int(where)
        expectation = Expectation(severity, target, pattern, message, number, m.start() + 1)
        if where == "below":
            pending_below.append(expectation)
        expectations.append(expectation)
    for e in pending_below:
        errors.append(Diagnostic("error", "expected-* @below has no line below it", file, e.comment_line, e.comment_col))
    return expectations, errors


def _previous_code_line(lines: list[str], number: int) -> int:
    for candidate in range(number - 1, 0, -1):
        stripped = lines[candidate - 1].strip()
        if stripped and not stripped.startswith("//"):
            return candidate
    return number - 1


def _flatten(diagnostics):
    for d in diagnostics:
        yield d
        yield from _flatten(d.notes)


def verify(diagnostics: list[Diagnostic], expectations: list[Expectation], file: str) -> list[Diagnostic]:
    """The errors of verification: unexpected diagnostics and unmet expectations."""
    failures = []
    for d in _flatten(diagnostics):
        line = d.line if d.file in (None, "-", file) or d.line is None else -1
        match = next(
            (
                e
                for e in expectations
                if not e.matched and e.severity == d.severity and e.line == line and e.pattern.search(d.message)
            ),
            None,
        )
        if match:
            match.matched = True
        else:
            failures.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.file, d.line, d.col))
    for e in expectations:
        if not e.matched:
            failures.append(
                Diagnostic(
                    "error",
                    f'expected {e.severity} "{e.text}" was not produced',
                    file,
                    e.comment_line,
                    e.comment_col,
                )
            )
    return failures
