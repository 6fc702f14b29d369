"""The runner's bookkeeping: errors per engine, ratios, best peer, and interleaved timing.

These use a tiny case and hand-made engines, so they check the harness itself, not any compiler.
"""

import numpy as np
import torch

from strata.bench import report
from strata.bench.engines import ENGINES, Engine
from strata.bench.measure import Stats
from strata.bench.runner import CaseResult, EngineResult, run_case
from strata.bench.suite import Case


def _tiny_case() -> Case:
    def build():
        model = torch.nn.Linear(16, 4).eval()
        return model, (torch.randn(3, 16),)

    return Case("tiny/b3", "model", 3, build)


def _engine(name, family, make_outputs):
    def prepare(case, model, args, threads):
        return lambda: make_outputs(model, args)

    return Engine(name, family, prepare)


def _run(*extra, repeat=3):
    return run_case(_tiny_case(), [ENGINES["eager"], *extra], threads=1, repeat=repeat, warmup=1)


def test_engine_errors_are_reported_and_do_not_stop_the_others():
    def raises(model, args):
        raise RuntimeError("backend exploded\nsecond line")

    def wrong_shape(model, args):
        return [np.zeros((1, 1), np.float32)]

    def non_finite(model, args):
        out = model(*args).detach().numpy().copy()
        out[0, 0] = np.nan
        return [out]

    def close(model, args):
        return [model(*args).detach().numpy() + 1e-3]

    outcome = _run(
        _engine("raises", "a", raises),
        _engine("wrong-shape", "b", wrong_shape),
        _engine("nan", "c", non_finite),
        _engine("close", "d", close),
    )
    by_name = {r.engine: r for r in outcome.results}
    assert by_name["raises"].error == "RuntimeError: backend exploded"
    assert "output shape (1, 1), eager has (3, 4)" in by_name["wrong-shape"].error
    assert "not finite" in by_name["nan"].error
    assert by_name["close"].ok and by_name["eager"].ok
    assert abs(by_name["close"].max_abs_error - 1e-3) < 1e-5
    assert by_name["eager"].max_abs_error == 0.0
    for failed in ("raises", "wrong-shape", "nan"):
        assert by_name[failed].stats is None


def test_every_engine_gets_every_repetition():
    slow = _engine("slow", "x", lambda model, args: [model(*args).detach().numpy()])
    outcome = _run(slow, repeat=4)
    for r in outcome.results:
        assert len(r.stats.samples) == 4
        assert r.stats.min <= r.stats.median <= r.stats.max
        assert r.calls_per_sample >= 1
        assert r.compile_s >= 0


def test_rounds_vary_the_order():
    order = []

    def recording(name):
        return _engine(name, name, lambda model, args: order.append(name) or [model(*args).detach().numpy()])

    engines = [recording(name) for name in "abcd"]
    run_case(_tiny_case(), engines, threads=1, repeat=6, warmup=0)
    timed = order[4:]  # after the four first calls
    rounds = [timed[i:i + 4] for i in range(0, len(timed), 4)]
    assert all(sorted(r) == list("abcd") for r in rounds) and len(rounds) == 6
    before_b = {r[r.index("b") - 1] for r in rounds if r.index("b")}
    assert len(before_b) > 1  # within a round, "b" does not always follow the same engine


def _result(engine, family, median):
    return EngineResult(engine, family, stats=Stats.of([median]), calls_per_sample=1, compile_s=0.0,
                        max_abs_error=0.0)


def test_ratios_pick_the_fastest_engine_of_another_family():
    outcome = CaseResult(_tiny_case(), [
        _result("eager", "torch", 4.0),
        _result("iree", "iree", 2.0),
        _result("strata", "strata", 1.0),
        _result("strata-noraise", "strata", 0.5),
        EngineResult("onnxruntime", "onnxruntime", error="RuntimeError: no"),
    ])
    assert outcome.vs_eager("strata") == 0.25
    # strata-noraise is the same family: strata's best peer is iree, and failures never count.
    assert outcome.best_peer("strata").engine == "iree"
    assert outcome.vs_best_peer("strata") == 0.5
    assert outcome.best_peer("iree").engine == "strata-noraise"
    assert outcome.vs_eager("onnxruntime") is None


def test_summary_geomean_is_over_models_and_batch1_separately():
    def case(name, kind, batch):
        return Case(name, kind, batch, lambda: None)

    outcomes = [
        CaseResult(case("a/b1", "model", 1), [_result("eager", "torch", 1.0), _result("s", "s", 0.5)]),
        CaseResult(case("b/b1", "model", 1), [_result("eager", "torch", 1.0), _result("s", "s", 2.0)]),
        CaseResult(case("b/b8", "model", 8), [_result("eager", "torch", 1.0), _result("s", "s", 8.0)]),
        CaseResult(case("k", "kernel", 1), [_result("eager", "torch", 1.0), _result("s", "s", 100.0)]),
    ]
    s = report.summary(outcomes)["s"]
    assert s["geomean_vs_eager_models_batch1"] == 1.0
    assert s["geomean_vs_eager_models"] == 2.0
    assert s["batch1_models_not_faster_than_best_peer"] == {"b/b1": 2.0}
