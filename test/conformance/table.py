"""Prints the conformance table: every case through plain IREE and strata, side by side, in markdown.

    .venv/bin/python test/conformance/table.py [-k REGEX] [-o table.md] [-v]

Runs both routes in one process (a few minutes on two cores) and writes a summary (counts per
status, the cases strata fails although plain IREE passes them, time and compiles per route)
followed by one row per case. Exit status 1 when strata fails a case plain IREE passes.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from strata.atomic_output import write_text_atomic  # noqa: E402

from conformance.cases import CASES  # noqa: E402
from conformance.compare import PASS  # noqa: E402
from conformance.harness import Suite, run_suite  # noqa: E402

STATUSES = (PASS, "mismatch", "dtype", "shape", "arity", "import", "compile", "run")


def regressions(suite: Suite) -> list[str]:
    """Cases plain IREE passes and strata does not."""
    return [
        c.name
        for c in suite.cases
        if suite.plain.outcomes[c.name].passed and not suite.strata.outcomes[c.name].passed
    ]


def cell(outcome) -> str:
    if outcome.passed:
        return "pass"
    detail = outcome.detail.replace("|", "\\|").replace("\n", " ")
    detail = detail if len(detail) <= 90 else detail[:87] + "..."
    return f"**{outcome.status}**: {detail}"


def markdown(suite: Suite) -> str:
    ops = {c.op for c in suite.cases}
    dtypes = collections.Counter(str(c.dtype).replace("torch.", "") for c in suite.cases)
    out = [
        f"{len(suite.cases)} cases, {len(ops)} distinct aten ops; cases per dtype: "
        + ", ".join(f"{d} {n}" for d, n in sorted(dtypes.items())),
        "",
        "| route | " + " | ".join(STATUSES) + " | compiles | seconds |",
        "|---" * (len(STATUSES) + 3) + "|",
    ]
    for report in (suite.plain, suite.strata):
        counts = collections.Counter(o.status for o in report.outcomes.values())
        row = " | ".join(str(counts.get(s, 0)) for s in STATUSES)
        out.append(f"| {report.route} | {row} | {report.builds} | {report.seconds:.0f} |")
    both = collections.Counter(
        (suite.plain.outcomes[c.name].passed, suite.strata.outcomes[c.name].passed) for c in suite.cases
    )
    out += [
        "",
        f"Both pass: {both[True, True]}. strata only: {both[False, True]}. "
        f"Plain IREE only: {both[True, False]}. Neither: {both[False, False]}.",
    ]
    bad = regressions(suite)
    out.append("strata fails no case that plain IREE passes." if not bad else
               "strata fails cases plain IREE passes: " + ", ".join(bad))
    out += ["", "| case | aten op | plain IREE | strata |", "|---|---|---|---|"]
    for c in suite.cases:
        out.append(f"| {c.name} | aten.{c.op} | {cell(suite.plain.outcomes[c.name])} | {cell(suite.strata.outcomes[c.name])} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", metavar="REGEX", help="only cases whose name matches REGEX")
    parser.add_argument("-o", metavar="FILE", help="write the table to FILE instead of stdout")
    parser.add_argument("-v", action="store_true", help="report each compile on stderr")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.k or re.search(args.k, c.name)]
    if not cases:
        print(f"table.py: error: no case matches '{args.k}'", file=sys.stderr)
        return 1
    log = (lambda line: print(line, file=sys.stderr, flush=True)) if args.v else None
    suite = run_suite(cases, log=log)
    text = markdown(suite)
    if args.o:
        write_text_atomic(args.o, text)
    else:
        sys.stdout.write(text)
    return 1 if regressions(suite) else 0


if __name__ == "__main__":
    sys.exit(main())
