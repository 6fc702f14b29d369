"""`--plot FILE.png`: a grouped bar chart of every engine's latency ratio to eager, per case.

matplotlib draws it (the optional `bench` dependency); a log scale keeps 0.5x and 2x equally far
from the 1.0 line, which marks eager.
"""

from strata.atomic_output import atomic_write
from strata.bench.report import engine_names
from strata.bench.runner import CaseResult
from strata.errors import StrataError


def write_plot(outcomes: list[CaseResult], path: str, title: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise StrataError("--plot needs matplotlib: pip install matplotlib") from None
    engines = [e for e in engine_names(outcomes) if e != "eager"]
    cases = [o.case.name for o in outcomes]
    width = 0.8 / max(1, len(engines))
    figure, axes = pyplot.subplots(figsize=(max(6.0, 1.1 * len(cases) + 2), 4.5), layout="constrained")
    for i, engine in enumerate(engines):
        xs, ratios = [], []
        for x, o in enumerate(outcomes):
            ratio = o.vs_eager(engine)
            if ratio is not None:
                xs.append(x - 0.4 + width * (i + 0.5))
                ratios.append(ratio)
        axes.bar(xs, ratios, width, label=engine)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_yscale("log")
    axes.set_xticks(range(len(cases)), cases, rotation=30, ha="right")
    axes.set_ylabel("latency / eager latency (lower is faster)")
    axes.set_title(title)
    if engines:
        axes.legend(fontsize="small", ncols=min(4, len(engines)))
    with atomic_write(path, "wb") as f:
        figure.savefig(f, format="png", dpi=110)
    pyplot.close(figure)
