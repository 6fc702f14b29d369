"""Fuzz strata-run with mutated inputs to a compiled module.

A small model (or `--module`/`--parameters` you give) is compiled once; each run then starts from
a valid command line for its signature and damages one thing: the bytes of an input `.npy`, the
`TYPE=VALUES` text of an input (shape, dtype, values such as nan, 1e400 or 2**40), the number of
inputs, the function or device name, the output path, the parameter archive's bytes, or the
module's own bytes. The tool's modules are imported once and every run is a forked child; any
finding is confirmed through the real `tools/strata-run` and saved as a regression (see
outcome.py) whose `{module}` and `{params}` placeholders the replay fills with a fresh build of
the same model.

Short run:  .venv/bin/python test/fuzz/fuzz_run.py --seconds 20 --out /tmp/fuzz-run-smoke --no-save
Long run (one process; the machine is shared):
    nohup .venv/bin/python test/fuzz/fuzz_run.py --minutes 30 --out /tmp/fuzz-run > /tmp/fuzz-run.log 2>&1 &
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mutators  # noqa: E402
import outcome  # noqa: E402

sys.path.insert(0, str(outcome.ROOT / "python"))

MODEL_SOURCE = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(64, 32)

    def forward(self, x, y):
        return torch.relu(self.linear(x)) + y, x.sum()


def example_inputs():
    return (torch.randn(2, 64), torch.randn(2, 32))
'''
DTYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "ui8", "c64", "q7", ""]
VALUES = ["1", "0", "nan", "inf", "-inf", "1e400", "-0", "1099511627776", "99999999999999999999", "0x10",
          "1,,2", "", "true", "[1 2]", "1e-50", "abc"]
DEVICES = ["local-task", "local-sync", "vulkan", "cuda", "hip", "bogus", "", "local-task://0", "vulkan://99"]


def build_module(out: Path) -> tuple[Path, Path]:
    """Compiles MODEL_SOURCE with strata-compile; returns (vmfb, irpa)."""
    source = out / "net.py"
    source.write_text(MODEL_SOURCE)
    vmfb, params = out / "net.vmfb", out / "net.irpa"
    result = outcome.run_subprocess("strata-compile", [f"{source}:Net", "-o", str(vmfb), "--params", str(params), "-q"],
                                    out, timeout=1200)
    if result.returncode != 0:
        raise SystemExit(f"fuzz_run: could not compile the model:\n{result.stderr}")
    return vmfb, params


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def type_text(shape, dtype: str) -> str:
    return "x".join(str(d) for d in shape) + ("x" if shape else "") + dtype


class Case:
    """One command line: args with placeholders, and the one file blob it damaged (if any)."""

    def __init__(self, args: list[str], blob: bytes | None = None, suffix: str = ".npy", what: str = ""):
        self.args, self.blob, self.suffix, self.what = args, blob, suffix, what


def make_case(rng: random.Random, signature: list[tuple[tuple[int, ...], str]], module: bytes, params: bytes) -> Case:
    base_inputs = [f"--input={type_text(shape, dtype)}=1" for shape, dtype in signature]
    fixed = ["--module={module}", "--parameters={params}"]
    choice = rng.randrange(9)
    if choice == 0:  # damaged .npy for one input
        index = rng.randrange(len(signature))
        shape, _ = signature[index]
        blob = mutators.mutate_bytes(npy_bytes(np.ones(shape, np.float32)), rng)
        inputs = list(base_inputs)
        inputs[index] = "--input=@{input}"
        return Case(fixed + inputs, blob, ".npy", f"npy bytes of input {index}")
    if choice == 1:  # a valid .npy of the wrong shape or dtype
        index = rng.randrange(len(signature))
        shape = list(signature[index][0])
        if rng.random() < 0.5 and shape:
            shape[rng.randrange(len(shape))] += rng.choice([-1, 1, 7])
        elif rng.random() < 0.5:
            shape = shape + [1] if rng.random() < 0.5 else shape[1:]
        dtype = rng.choice([np.float16, np.float64, np.int32, np.int64, np.bool_, np.complex64, np.uint16, np.float32])
        array = np.zeros([max(d, 0) for d in shape], dtype=dtype)
        inputs = list(base_inputs)
        inputs[index] = "--input=@{input}"
        return Case(fixed + inputs, npy_bytes(array), ".npy", f"npy {array.dtype}{list(array.shape)} for input {index}")
    if choice == 2:  # damaged TYPE=VALUES text
        inputs = list(base_inputs)
        index = rng.randrange(len(inputs))
        shape, dtype = signature[index]
        text = f"{type_text(shape, rng.choice(DTYPES))}={rng.choice(VALUES)}"
        if rng.random() < 0.5:
            text = mutators.mutate_tokens(text, mutators.TokenPool([text]), rng)
        inputs[index] = "--input=" + text
        return Case(fixed + inputs, what=f"value text {text!r}")
    if choice == 3:  # too few or too many inputs
        inputs = list(base_inputs)
        if rng.random() < 0.5:
            inputs.pop(rng.randrange(len(inputs)))
        else:
            inputs.append(rng.choice(inputs))
        return Case(fixed + inputs, what=f"{len(inputs)} inputs")
    if choice == 4:  # function or device
        flag = rng.choice([f"--function={rng.choice(['main', 'bogus', '', 'main$async', '__init'])}",
                           f"--device={rng.choice(DEVICES)}"])
        return Case(fixed + base_inputs + [flag], what=flag)
    if choice == 5:  # outputs
        flag = rng.choice(["--output=@{output}", "--output={output}", "--output=@/proc/strata.npy",
                           "--output=@{workdir}", "--output=@{workdir}/missing/out.npy"])
        count = rng.randint(1, 3)
        return Case(fixed + base_inputs + [flag] * count, what=f"{count} x {flag}")
    if choice == 6:  # damaged parameter archive
        blob = mutators.mutate_bytes(params, rng)
        return Case(["--module={module}", "--parameters={input}"] + base_inputs, blob, ".irpa", "irpa bytes")
    if choice == 7:  # missing or repeated parameter archive
        extra = rng.choice([[], ["--parameters={params}"], ["--parameters={workdir}/absent.irpa"]])
        return Case(["--module={module}"] + extra + base_inputs, what=f"parameters {extra}")
    blob = mutators.mutate_bytes(module, rng)  # damaged module
    return Case(["--module={input}", "--parameters={params}"] + base_inputs, blob, ".vmfb", "vmfb bytes")


def module_signature(vmfb: Path, params: Path) -> list[tuple[tuple[int, ...], str]]:
    from strata.iree_runtime import LoadedModule

    function = LoadedModule(vmfb, "local-task", [params]).function("main")
    return [(tuple(t.shape), t.dtype) for t in function.inputs]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True, help="work folder and summary.json")
    parser.add_argument("--module", type=Path, help="a compiled model to fuzz (default: build one)")
    parser.add_argument("--parameters", type=Path, help="its parameter archive")
    parser.add_argument("--no-save", action="store_true", help="report findings, write no regression files")
    parser.add_argument("--regressions", type=Path, default=outcome.REGRESSIONS)
    args = parser.parse_args(argv)
    budget = args.seconds if args.seconds is not None else 60 * (args.minutes if args.minutes is not None else 1)
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.module:
        vmfb, params = args.module, args.parameters
    else:
        vmfb, params = build_module(args.out)
    # The signature is read in a child: the parent must not hold an IREE device across forks.
    sig_file = args.out / "signature.json"

    def write_signature(_argv) -> int:
        sig_file.write_text(json.dumps(module_signature(vmfb, params)))
        return 0

    result = outcome.run_forked(write_signature, [], args.out, timeout=120)
    if result.returncode != 0:
        raise SystemExit(f"fuzz_run: cannot read the module's signature:\n{result.stderr}")
    signature = [(tuple(shape), dtype) for shape, dtype in json.loads(sig_file.read_text())]

    from strata.tools import run  # imported once; each input runs in a fork
    import strata.iree_runtime  # noqa: F401
    import iree.runtime  # noqa: F401

    module_bytes, params_bytes = vmfb.read_bytes(), params.read_bytes()
    work = args.out / "work"
    tried, kinds, signatures, unconfirmed, saved = 0, Counter(), {}, Counter(), []
    start = time.monotonic()
    print(f"fuzz_run: seed {seed}, module {vmfb} with inputs {signature}, {budget:.0f} s budget", flush=True)
    while tried < args.count and time.monotonic() - start < budget:
        case = make_case(rng, signature, module_bytes, params_bytes)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        paths = {"input": work / f"input{case.suffix}", "output": work / "out.npy", "module": vmfb,
                 "params": params, "workdir": work}
        if case.blob is not None:
            paths["input"].write_bytes(case.blob)
        result = outcome.run_forked(run.main, outcome.fill(case.args, paths), work)
        result.output_left = result.returncode not in (0, None) and paths["output"].exists()
        finding = outcome.judge(result, "strata-run")
        tried += 1
        kinds[finding.kind] += 1
        if finding.kind in ("ok", "rejected") or finding.signature in signatures or unconfirmed[finding.signature] >= 5:
            continue
        confirm = args.out / "confirm"
        shutil.rmtree(confirm, ignore_errors=True)
        confirm.mkdir()
        real_paths = dict(paths, input=confirm / f"input{case.suffix}", output=confirm / "out.npy", workdir=confirm)
        if case.blob is not None:
            real_paths["input"].write_bytes(case.blob)
        confirmed, real = outcome.confirm("strata-run", outcome.fill(case.args, real_paths), confirm,
                                          real_paths["output"])
        if confirmed.kind in ("ok", "rejected"):
            unconfirmed[finding.signature] += 1
        else:
            signatures[finding.signature] = confirmed.kind
        print(f"fuzz_run: #{tried} {finding.kind} ({finding.signature}); real tool: {confirmed.kind}; "
              f"{case.what}: {' '.join(case.args)}", flush=True)
        if confirmed.kind not in ("ok", "rejected") and not args.no_save:
            path = outcome.save_regression("strata-run", case.args, case.blob or b"", case.suffix, confirmed, real,
                                           f"fuzz_run.py seed {seed}", args.regressions)
            saved.append(str(path))
    elapsed = time.monotonic() - start
    summary = {"seed": seed, "tried": tried, "seconds": round(elapsed, 1), "outcomes": dict(kinds),
               "signatures": signatures, "unconfirmed": dict(unconfirmed), "saved": saved}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz_run: {tried} inputs in {elapsed:.0f} s ({tried / max(elapsed, 1e-9):.1f}/s), "
          f"outcomes {dict(kinds)}, {len(saved)} saved", flush=True)
    return 1 if any(k in outcome.DEFECTS for k in signatures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
