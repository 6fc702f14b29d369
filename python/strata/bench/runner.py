"""Runs the suite: compile every case with every engine, then time the engines interleaved.

Per case, in one process:
1. build the model with seed 0 and run it once under `torch.no_grad()`: the reference outputs;
2. per engine, in turn: prepare it and make the first call; the wall time of both is the compile
   time (inductor compiles inside its first call), the peak RSS over both is its memory, and the
   first call's outputs give its max abs error against eager. An engine that fails is reported
   with its error and left out of timing;
3. `warmup` rounds of one call per engine; the fastest of them sizes a block of calls per engine
   so one block lasts about `block_seconds` (timer noise and per-call jitter average out inside);
4. `repeat` rounds; each round times one block of every engine, in an order of its own (a
   permutation seeded by the round's number), so no engine always runs right after the same
   neighbour (a rotation, as before, kept each engine behind the same one in all rounds but one).
A sample is a block's time divided by its calls; median, min and max are over the rounds.
"""

import gc
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from strata.bench.engines import Engine, iree_config, to_numpy_list
from strata.bench.measure import Memory, PeakMemory, Stats, calls_per_block, time_block
from strata.bench.suite import Case


@dataclass
class EngineResult:
    engine: str
    family: str
    error: str | None = None  # why the engine could not run the case; None when it ran
    stats: Stats | None = None
    calls_per_sample: int = 0
    compile_s: float | None = None
    memory: Memory | None = None
    max_abs_error: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.stats is not None


@dataclass
class CaseResult:
    case: Case
    results: list[EngineResult] = field(default_factory=list)

    def get(self, engine: str) -> EngineResult | None:
        return next((r for r in self.results if r.engine == engine and r.ok), None)

    def vs_eager(self, engine: str) -> float | None:
        """Latency ratio to eager (median over median): below 1 is faster than eager."""
        this, eager = self.get(engine), self.get("eager")
        if this is None or eager is None:
            return None
        return this.stats.median / eager.stats.median

    def best_peer(self, engine: str) -> EngineResult | None:
        """The fastest engine of another family."""
        this = self.get(engine)
        peers = [r for r in self.results if r.ok and this is not None and r.family != this.family]
        return min(peers, key=lambda r: r.stats.median, default=None)

    def vs_best_peer(self, engine: str) -> float | None:
        this, peer = self.get(engine), self.best_peer(engine)
        if this is None or peer is None:
            return None
        return this.stats.median / peer.stats.median

    def gflops(self, engine: str) -> float | None:
        this = self.get(engine)
        if this is None or self.case.flops is None:
            return None
        return self.case.flops / this.stats.median / 1e9


def configure_threads(threads: int) -> None:
    """Gives every engine the same number of compute threads (ORT gets it per session)."""
    import torch

    torch.set_num_threads(threads)
    iree_config(threads)


def prime(engines: list[Engine], threads: int) -> None:
    """Compiles and runs a tiny model once per engine, untimed, so one-time start-up costs (imports,
    JIT and thread-pool creation) do not land in the compile time of whichever case comes first."""
    import torch

    model = torch.nn.Linear(8, 8).eval()
    args = (torch.randn(2, 8),)
    tiny = Case("prime", "model", 2, lambda: (model, args))
    for engine in engines:
        if engine.applies(tiny):
            try:
                engine.prepare(tiny, model, args, threads)()
            except Exception:
                pass  # the engine's real cases report the error
    torch._dynamo.reset()


def _one_line(error: BaseException) -> str:
    """The error's type and its first line that says "error:" (a compiler's diagnostic under a
    generic heading), else its first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    detail = next((line for line in lines if "error:" in line), lines[0] if lines else "")
    message = f"{type(error).__name__}: {detail}".rstrip(": ")
    return message if len(message) <= 240 else message[:237] + "..."


def _max_abs_error(outputs, reference) -> float:
    """Largest |output - eager| over the elements where eager is finite; an engine that is not
    finite exactly where eager is finite gets an error instead of a number."""
    if len(outputs) != len(reference):
        raise ValueError(f"{len(outputs)} outputs, eager has {len(reference)}")
    error = 0.0
    for got, want in zip(outputs, reference):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        if got.shape != want.shape:
            raise ValueError(f"output shape {got.shape}, eager has {want.shape}")
        finite = np.isfinite(want)
        if not np.array_equal(np.isfinite(got), finite):
            raise ValueError("outputs are not finite where eager's are (or the reverse)")
        if finite.any():
            error = max(error, float(np.max(np.abs(got[finite] - want[finite]))))
    return error


def run_case(
    case: Case,
    engines: list[Engine],
    *,
    threads: int,
    repeat: int,
    warmup: int,
    block_seconds: float = 0.02,
    progress: Callable[[str], None] = lambda message: None,
) -> CaseResult:
    import torch

    torch.manual_seed(0)
    model, args = case.build()
    outcome = CaseResult(case)
    with torch.no_grad():
        reference = to_numpy_list(model(*args))
    calls = {}
    for engine in engines:
        if not engine.applies(case):
            continue
        progress(f"compiling {engine.name}")
        result = EngineResult(engine.name, engine.family)
        outcome.results.append(result)
        try:
            with PeakMemory() as memory:
                start = time.perf_counter()
                call = engine.prepare(case, model, args, threads)
                outputs = call()
                result.compile_s = time.perf_counter() - start
            result.memory = memory.result
            result.max_abs_error = _max_abs_error(outputs, reference)
            calls[engine.name] = call
        except Exception as error:  # one engine failing must not end the run for the others
            result.error = _one_line(error)
    running = [r for r in outcome.results if r.engine in calls]
    per_call = {}
    for round_ in range(warmup):
        progress(f"warm-up {round_ + 1}/{warmup}")
        for r in running:
            seconds = time_block(calls[r.engine], 1)
            per_call[r.engine] = min(seconds, per_call.get(r.engine, seconds))
    for r in running:
        r.calls_per_sample = calls_per_block(per_call[r.engine], block_seconds) if warmup else 1
    samples = {r.engine: [] for r in running}
    for round_ in range(repeat):
        progress(f"repetition {round_ + 1}/{repeat}")
        for index in np.random.default_rng(round_).permutation(len(running)):
            r = running[index]
            samples[r.engine].append(time_block(calls[r.engine], r.calls_per_sample))
    for r in running:
        r.stats = Stats.of(samples[r.engine])
    del calls, model, args
    torch._dynamo.reset()
    gc.collect()
    return outcome
