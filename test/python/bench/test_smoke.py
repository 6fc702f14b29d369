"""One real, tiny strata-bench run through its entry point: the JSON it writes and the table it
prints. A smoke test of the harness (one repetition), not a timed test: it asserts sanity of the
numbers, never a speed."""

import json
import math

import pytest

from strata.bench.engines import ENGINES
from strata.bench.report import VECTOR_FLAGS, host_line, machine
from strata.targets import host_cpu_flags, host_cpu_model
from strata.tools.bench import main


@pytest.fixture(scope="module")
def softmax_run(tmp_path_factory):
    engines = [name for name in ("iree", "onnxruntime") if ENGINES[name].available()]
    out = tmp_path_factory.mktemp("bench") / "softmax.json"
    code = main(["--filter", "^softmax", "--engines", ",".join(engines), "--repeat", "2",
                 "--warmup", "1", "--threads", "1", "--json", str(out)])
    return code, json.loads(out.read_text()), ["eager"] + engines


def test_exit_code_and_header(softmax_run):
    code, document, _ = softmax_run
    assert code == 0
    assert document["schema"] == "strata-bench/1"
    assert document["command"][0] == "strata-bench"
    assert document["threads"] == 1 and document["repeat"] == 2 and document["warmup"] == 1
    assert document["machine"]["packages"]["torch"]
    # Which CPU generation ran it, beyond a model name like "AMD EPYC" that VMs give several.
    vendor, family, model = host_cpu_model()
    assert document["machine"]["cpu_id"] == {"vendor": vendor, "family": family, "model": model}
    assert set(document["machine"]["vector_flags"]) <= set(VECTOR_FLAGS)
    assert ("avx512f" in document["machine"]["vector_flags"]) == ("avx512f" in host_cpu_flags())


def test_every_engine_ran_with_sane_numbers(softmax_run):
    _, document, engines = softmax_run
    [case] = document["cases"]
    assert case["case"].startswith("softmax") and case["kind"] == "kernel"
    assert [r["engine"] for r in case["results"]] == engines
    for r in case["results"]:
        assert r["status"] == "ok", r
        assert 0 < r["min_ms"] <= r["median_ms"] <= r["max_ms"] < 10_000
        assert len(r["samples_ms"]) == 2
        assert r["compile_s"] >= 0
        assert r["max_abs_error"] < 1e-5  # softmax outputs lie in [0, 1]
        assert math.isclose(r["vs_eager"], r["median_ms"] / case["results"][0]["median_ms"], rel_tol=1e-3)
        if r["peak_rss_mib"] is not None:
            assert 0 <= r["rss_growth_mib"] <= r["peak_rss_mib"]
    assert case["results"][0]["vs_eager"] == 1.0


def test_table_is_printed_and_plot_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "ratios.png"
    code = main(["--filter", "^softmax", "--engines", "eager", "--repeat", "1", "--warmup", "0",
                 "--plot", str(plot)])
    assert code == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["ratios.png"]  # no temporary file left behind
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[:3] == ["case", "engine", "median"]
    assert "softmax-8x512x512  eager" in table
    assert "geomean" not in table  # the summary is over models; a kernel-only run has none
    assert table.splitlines()[-1] == host_line(machine())


def test_host_line():
    host = {"cpu": "AMD EPYC", "cpu_id": {"vendor": "AuthenticAMD", "family": 25, "model": 1},
            "vector_flags": ["avx2", "fma"], "logical_cpus": 2}
    assert host_line(host) == "host: AMD EPYC (AuthenticAMD family 25 model 1; avx2 fma), 2 logical CPUs"
    host |= {"cpu": "unknown", "cpu_id": {"vendor": "", "family": 0, "model": 0}, "vector_flags": []}
    assert host_line(host) == "host: unknown, 2 logical CPUs"
