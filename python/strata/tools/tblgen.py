"""strata-tblgen: regenerates the Python that strata derives from its `.td` files.

`strata-tblgen` writes the generated files; `strata-tblgen --check` writes nothing and fails if any
committed file differs from what the `.td` files produce now (CI runs it).
"""

import argparse
import difflib
import importlib
import sys

from strata.errors import StrataError
from strata.resources import ROOT

# Each generator module exposes `generate() -> {path: text}`.
GENERATORS = (
    "strata.tablegen.pass_registry_gen",
    "strata.tablegen.dialect_gen",
    "strata.opt.upstream_pass_catalog",
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="strata-tblgen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if generated files are stale")
    args = parser.parse_args(argv)
    try:
        outputs = {}
        for name in GENERATORS:
            outputs.update(importlib.import_module(name).generate())
    except StrataError as e:
        print(f"strata-tblgen: error: {e}", file=sys.stderr)
        return 1
    stale = []
    for path, text in sorted(outputs.items()):
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        stale.append(path)
        if args.check:
            rel = str(path.relative_to(ROOT))
            sys.stderr.writelines(
                difflib.unified_diff(current.splitlines(True), text.splitlines(True), rel, rel + " (from .td)")
            )
        else:
            path.write_text(text)
    if args.check:
        if stale:
            names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
            print(f"strata-tblgen: error: stale generated files: {names}; run strata-tblgen", file=sys.stderr)
            return 1
        print(f"strata-tblgen: {len(outputs)} generated files are current")
    else:
        print(f"strata-tblgen: wrote {len(stale)} of {len(outputs)} generated files")
    return 0
