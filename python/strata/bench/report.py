"""What a run says: the terminal table, the JSON document, and the summary both share.

Ratios are latency ratios (this engine's median over the other's), so below 1.0 means faster. The
"best peer" of an engine is the fastest engine of another family on the same case. Geometric
means are over model cases (not kernels), per engine, for the cases where that engine ran.
"""

import datetime
import json
import math
import os
import platform
from importlib import metadata

from strata.bench import openblas
from strata.bench.measure import geomean
from strata.bench.runner import CaseResult
from strata.targets import host_cpu_flags, host_cpu_model

SCHEMA = "strata-bench/1"
PACKAGES = ("torch", "iree-base-compiler", "iree-base-runtime", "torch-mlir", "onnxruntime", "numpy")


# CPU flags that decide which of strata's kernels and tuned defaults a run used.
VECTOR_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "amx_tile")


def machine() -> dict:
    """The host as a reader of the results needs it: virtual machines often name every CPU
    generation alike ("AMD EPYC"), so the vendor, family and model numbers and the vector
    extensions are recorded too (Zen 3 and Zen 4 are both family 25; only Zen 4 has avx512f)."""
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    vendor, family, model = host_cpu_model()
    return {
        "cpu": cpu,
        "cpu_id": {"vendor": vendor, "family": family, "model": model},
        "vector_flags": [flag for flag in VECTOR_FLAGS if flag in host_cpu_flags()],
        "logical_cpus": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
        "packages": versions,
        "numpy_blas": openblas.describe(),
    }


def host_line(host: dict) -> str:
    """One line for the terminal table: `host: AMD EPYC (AuthenticAMD family 25 model 17; avx2 fma
    avx512f ...), 2 logical CPUs`."""
    cpu_id = host["cpu_id"]
    ident = f"{cpu_id['vendor']} family {cpu_id['family']} model {cpu_id['model']}" if cpu_id["vendor"] else ""
    details = "; ".join(part for part in (ident, " ".join(host["vector_flags"])) if part)
    return f"host: {host['cpu']}{f' ({details})' if details else ''}, {host['logical_cpus']} logical CPUs"


def engine_names(outcomes: list[CaseResult]) -> list[str]:
    names = []
    for outcome in outcomes:
        for r in outcome.results:
            if r.engine not in names:
                names.append(r.engine)
    return names


def summary(outcomes: list[CaseResult]) -> dict:
    """Per engine: geomean ratio to eager over model cases (all batches, and batch 1 only), and
    the batch-1 model cases where it is not faster than its best peer."""
    models = [o for o in outcomes if o.case.kind == "model"]
    result = {}
    for engine in engine_names(outcomes):
        all_batches = [o.vs_eager(engine) for o in models if o.vs_eager(engine) is not None]
        batch1 = [o.vs_eager(engine) for o in models if o.case.batch == 1 and o.vs_eager(engine) is not None]
        not_fastest = {
            o.case.name: round(o.vs_best_peer(engine), 3)
            for o in models
            if o.case.batch == 1 and o.vs_best_peer(engine) is not None and o.vs_best_peer(engine) >= 1.0
        }
        result[engine] = {
            "geomean_vs_eager_models": _round(geomean(all_batches)) if all_batches else None,
            "geomean_vs_eager_models_batch1": _round(geomean(batch1)) if batch1 else None,
            "batch1_models_not_faster_than_best_peer": not_fastest,
        }
    return result


def _round(x, digits=4):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(x, digits)


def _ms(x):
    return None if x is None else round(x * 1e3, 5)


def to_json(outcomes: list[CaseResult], *, command: list[str], threads: int, repeat: int, warmup: int) -> dict:
    cases = []
    for o in outcomes:
        rows = []
        for r in o.results:
            row = {"engine": r.engine, "family": r.family, "status": "ok" if r.ok else "failed"}
            if not r.ok:
                row["error"] = r.error
                row["compile_s"] = _round(r.compile_s)
            else:
                peer = o.best_peer(r.engine)
                row |= {
                    "median_ms": _ms(r.stats.median),
                    "min_ms": _ms(r.stats.min),
                    "max_ms": _ms(r.stats.max),
                    "samples_ms": [_ms(s) for s in r.stats.samples],
                    "calls_per_sample": r.calls_per_sample,
                    "vs_eager": _round(o.vs_eager(r.engine)),
                    "best_peer": peer.engine if peer else None,
                    "vs_best_peer": _round(o.vs_best_peer(r.engine)),
                    "compile_s": _round(r.compile_s),
                    "peak_rss_mib": _round(r.memory.peak_mib, 1) if r.memory else None,
                    "rss_growth_mib": _round(r.memory.growth_mib, 1) if r.memory else None,
                    "children_peak_rss_mib": _round(r.memory.children_peak_mib, 1) if r.memory else None,
                    "max_abs_error": r.max_abs_error,
                    "gflops": _round(o.gflops(r.engine), 2),
                }
            rows.append(row)
        cases.append({
            "case": o.case.name, "kind": o.case.kind, "batch": o.case.batch, "flops": o.case.flops,
            "results": rows,
        })
    return {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "machine": machine(),
        "threads": threads,
        "repeat": repeat,
        "warmup": warmup,
        "cases": cases,
        "summary": summary(outcomes),
    }


def dumps(document: dict) -> str:
    return json.dumps(document, indent=1) + "\n"


def _fmt(x, spec, missing="-"):
    return missing if x is None else format(x, spec)


HEADER = ("case", "engine", "median ms", "min ms", "max ms", "x eager", "x best peer",
          "compile s", "+MiB (child)", "max abs err", "GFLOP/s")


def _memory(memory) -> str:
    """The process's RSS growth during compile and first run, and child processes' peak RSS."""
    if memory is None:
        return "-"
    child = f" ({memory.children_peak_mib:.0f})" if memory.children_peak_mib else ""
    return f"{memory.growth_mib:.0f}{child}"


def table(outcomes: list[CaseResult]) -> str:
    """A fixed-width table, one row per case and engine, then the per-engine summary."""
    rows = []
    for o in outcomes:
        for i, r in enumerate(o.results):
            name = o.case.name if i == 0 else ""
            if not r.ok:
                rows.append((name, r.engine, f"failed: {r.error}"))
                continue
            peer = o.best_peer(r.engine)
            rows.append((
                name, r.engine, f"{r.stats.median * 1e3:.3f}", f"{r.stats.min * 1e3:.3f}",
                f"{r.stats.max * 1e3:.3f}", _fmt(o.vs_eager(r.engine), ".2f"),
                f"{o.vs_best_peer(r.engine):.2f} ({peer.engine})" if peer else "-",
                f"{r.compile_s:.2f}", _memory(r.memory),
                f"{r.max_abs_error:.1e}", _fmt(o.gflops(r.engine), ".0f"),
            ))
    full = [row for row in rows if len(row) == len(HEADER)]
    widths = [max([len(HEADER[c])] + [len(row[c]) for row in full]) for c in range(len(HEADER))]
    widths[:2] = [max([widths[c]] + [len(row[c]) for row in rows]) for c in range(2)]
    lines = [_line(HEADER, widths)]
    lines += [_line(row, widths) if len(row) == len(HEADER) else "  ".join(
        (row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2])) for row in rows]
    host = machine()
    lines += ["", host_line(host)]
    if "numpy" in engine_names(outcomes):
        lines.append(openblas.summary_line(host["numpy_blas"]))
    if not any(o.case.kind == "model" for o in outcomes):
        return "\n".join(lines) + "\n"
    lines.append("")
    lines.append("geomean latency ratio to eager over models (all batches / batch 1):")
    for engine, s in summary(outcomes).items():
        lines.append(f"  {engine:<{widths[1]}}  {_fmt(s['geomean_vs_eager_models'], '.3f')}"
                     f" / {_fmt(s['geomean_vs_eager_models_batch1'], '.3f')}")
    return "\n".join(lines) + "\n"


def _line(cells, widths):
    return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
