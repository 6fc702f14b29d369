"""Fuzz strata-opt with mutated copies of the lit suite's `.mlir` files.

Each input is a byte- or token-level mutant (see mutators.py) of a `.mlir` file under `test/`,
fed to strata-opt with one of a set of pipelines: strata's passes, common upstream passes
(canonicalize, cse, inline, symbol-dce), parse-and-print, split-input-file, verify-diagnostics,
bytecode output; and now and then a mutated pipeline string, which exercises strata's own
pipeline parser. A tenth of the runs also write `-o` to check that a failure leaves no file.

The tool's modules are imported once and each input runs in a forked child (outcome.run_forked),
which is much cheaper than a fresh Python per input; every finding is confirmed through the real
`tools/strata-opt` before it is saved as a regression under `test/fuzz/regressions/` (see
outcome.py for what counts as a defect). The run stops by itself after `--minutes` or
`--count`, whichever comes first, and prints a summary line and a JSON summary to `--out`.

Short run (part of the suite, test/python/robustness/test_fuzz_smoke.py):
    .venv/bin/python test/fuzz/fuzz_opt.py --seconds 20 --out /tmp/fuzz-opt-smoke --no-save
Long run (one process; the machine is shared):
    nohup .venv/bin/python test/fuzz/fuzz_opt.py --minutes 30 --out /tmp/fuzz-opt > /tmp/fuzz-opt.log 2>&1 &
Replay one seed's inputs exactly: add `--seed N`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mutators  # noqa: E402
import outcome  # noqa: E402

sys.path.insert(0, str(outcome.ROOT / "python"))

PIPELINES = [
    [],
    ["--canonicalize"],
    ["--cse"],
    ["--canonicalize", "--cse"],
    ["--inline", "--symbol-dce"],
    ["--split-input-file", "--canonicalize"],
    ["--split-input-file", "--verify-diagnostics"],
    ["--allow-unregistered-dialect", "--cse"],
    ["--mlir-print-op-generic"],
    ["--emit-bytecode"],
    ["--verify-each=false", "--canonicalize"],
]
STRATA_PIPELINES = [
    ["--strata-raise-torch"],
    ["--strata-raise-torch", "--canonicalize", "--cse"],
    ["--pass-pipeline=builtin.module(func.func(strata-raise-torch,canonicalize),cse)"],
    ["--split-input-file", "--strata-raise-torch"],
]


def corpus_files() -> list[Path]:
    return sorted(p for p in (outcome.ROOT / "test").rglob("*.mlir")
                  if "Output" not in p.parts and "regressions" not in p.parts)


def registered_passes() -> set[str]:
    from strata.opt.pass_listing import list_passes

    return {word[2:] for line in list_passes().splitlines() for word in line.split()[:1] if word.startswith("--")}


def pick_args(rng: random.Random, pipelines: list[list[str]]) -> list[str]:
    args = list(rng.choice(pipelines))
    if rng.random() < 0.08:  # mutate the pipeline text itself: strata parses it in Python
        text = "builtin.module(func.func(strata-raise-torch,canonicalize{max-iterations=3}),cse)"
        args = ["--pass-pipeline=" + mutators.mutate_bytes(text.encode(), rng).decode("utf-8", "replace")]
    if rng.random() < 0.1:
        args += ["-o", "{output}"]
    return args + ["{input}"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True, help="work folder and summary.json")
    parser.add_argument("--no-save", action="store_true", help="report findings, write no regression files")
    parser.add_argument("--regressions", type=Path, default=outcome.REGRESSIONS)
    args = parser.parse_args(argv)
    budget = args.seconds if args.seconds is not None else 60 * (args.minutes if args.minutes is not None else 1)
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)

    from strata.tools import opt  # imported once; each input runs in a fork
    import strata.opt.driver  # noqa: F401  (warm the imports the child would otherwise pay for)
    import strata.pass_pipeline  # noqa: F401

    pipelines = PIPELINES + (STRATA_PIPELINES if "strata-raise-torch" in registered_passes() else [])
    files = corpus_files()
    seeds = [p.read_bytes() for p in files]
    pool = mutators.TokenPool([s.decode("utf-8", "replace") for s in seeds])
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "work"

    tried, kinds, signatures, unconfirmed, saved = 0, Counter(), {}, Counter(), []
    start = time.monotonic()
    print(f"fuzz_opt: seed {seed}, {len(files)} corpus files, {len(pipelines)} pipelines, {budget:.0f} s budget",
          flush=True)
    while tried < args.count and time.monotonic() - start < budget:
        source = rng.randrange(len(seeds))
        how, data = mutators.mutate(seeds[source], pool, rng)
        tool_args = pick_args(rng, pipelines)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        input_path, output_path = work / "input.mlir", work / "out.mlir"
        input_path.write_bytes(data)
        result = outcome.run_forked(opt.main, outcome.fill(tool_args, {"input": input_path, "output": output_path}), work)
        result.output_left = result.returncode not in (0, None) and output_path.exists()
        finding = outcome.judge(result, "strata-opt")
        tried += 1
        kinds[finding.kind] += 1
        if finding.kind in ("ok", "rejected") or finding.signature in signatures or unconfirmed[finding.signature] >= 5:
            continue
        # Confirm through the real tool before believing it.
        confirm_dir = args.out / "confirm"
        shutil.rmtree(confirm_dir, ignore_errors=True)
        confirm_dir.mkdir()
        shutil.copyfile(input_path, confirm_dir / "input.mlir")
        real_args = outcome.fill(tool_args, {"input": confirm_dir / "input.mlir", "output": confirm_dir / "out.mlir"})
        confirmed, real = outcome.confirm("strata-opt", real_args, confirm_dir, confirm_dir / "out.mlir")
        if confirmed.kind in ("ok", "rejected"):
            unconfirmed[finding.signature] += 1
        else:
            signatures[finding.signature] = confirmed.kind
        print(f"fuzz_opt: #{tried} {finding.kind} ({finding.signature}); real tool: {confirmed.kind}; "
              f"from {files[source].relative_to(outcome.ROOT)} ({how}) with {' '.join(tool_args)}", flush=True)
        if confirmed.kind in ("ok", "rejected"):  # only in the fork: kept for a look, not a regression
            kept = args.out / "unconfirmed"
            kept.mkdir(exist_ok=True)
            (kept / f"{tried}.mlir").write_bytes(data)
            (kept / f"{tried}.txt").write_text(" ".join(tool_args) + "\n" + result.stderr)
        elif not args.no_save:
            path = outcome.save_regression("strata-opt", tool_args, data, ".mlir", confirmed, real,
                                           f"fuzz_opt.py seed {seed}", args.regressions)
            saved.append(str(path))
    elapsed = time.monotonic() - start
    defects = sum(n for k, n in kinds.items() if k in outcome.DEFECTS)
    summary = {"seed": seed, "tried": tried, "seconds": round(elapsed, 1), "outcomes": dict(kinds),
               "signatures": signatures, "unconfirmed": dict(unconfirmed), "saved": saved, "defects": defects}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz_opt: {tried} inputs in {elapsed:.0f} s ({tried / max(elapsed, 1e-9):.1f}/s), "
          f"outcomes {dict(kinds)}, {len(saved)} saved", flush=True)
    return 1 if any(k in outcome.DEFECTS for k in signatures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
