"""The node-centric study (Stafford & Bosque, J. Supercomputing 2024): HighGFlops and
LowPower against the Min-min, Max-min and Duplex batch baselines on the KIT ForHLR II trace
cut into weeks, on a 16-node heterogeneous platform (docs/experiments.md).

Besides the sweep (:mod:`hetsched.experiments.trace_studies`), the study compares its results
with the paper's (:func:`compare_with_paper`), counts wins per week (:func:`weekly_wins`),
writes ordinary run directories (jobs.csv, summary.json, timeseries.csv) of one
representative week, one per scheduler, and draws the figures (:func:`write_figures`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hetsched.errors import ConfigError
from hetsched.experiments.node_centric_platforms import Setting
from hetsched.experiments.trace_studies import TraceStudy
from hetsched.experiments.traces import TraceSettings

if TYPE_CHECKING:
    import pandas

    from hetsched.sweep.runner import Plan
    from hetsched.sweep.splits import Part

#: The jobs' batchings: one batch per submit instant (the trace's own times), or the thesis'
#: daily groups (submit times rounded down to multiples of 1e5 s, for every scheduler).
BATCHINGS: dict[str, TraceSettings] = {"instant": TraceSettings(max_procs=64),
                                       "daily": TraceSettings(max_procs=64, submit_step=1e5)}


def trace_name(batching: str) -> str:
    """The derived trace of a batching, written beside the study's results."""
    return "kit_capped64.swf" if batching == "instant" else f"kit_capped64_{batching}.swf"


#: The setting of the sensitivity sweep closest to the paper (docs/experiments.md): the
#: platform of ``data/node_centric_faithful_16.yaml`` and the jobs' batching.
FAITHFUL = Setting(clock_spread=3.0, power_exponent=2.0, idle_fraction=0.05, cores=64,
                   batching="daily")
#: The study's settings by name: ``faithful`` (:data:`FAITHFUL`) and ``legacy``, the first
#: platform (node_centric_16.yaml) with one batch per submit instant.
STUDIES: dict[str, TraceStudy] = {
    "faithful": TraceStudy("node-centric", "node_centric_faithful.yaml",
                           trace_name(FAITHFUL.batching), BATCHINGS[FAITHFUL.batching],
                           ids={"week": "part"}),
    "legacy": TraceStudy("node-centric", "node_centric.yaml", trace_name("instant"),
                         BATCHINGS["instant"], ids={"week": "part"}),
}
DEFAULT = "faithful"
STUDY = STUDIES[DEFAULT]
CANDIDATES: tuple[str, ...] = ("high_gflops", "low_power")
BASELINES: tuple[str, ...] = ("min_min", "max_min", "duplex")
#: The paper's changes (%) of each candidate's median against the baselines' medians.
PAPER: dict[str, dict[str, float]] = {
    "high_gflops": {"makespan": -11.5, "mean_wait": -80.0, "het_slowdown": -94.0,
                    "energy": -10.0, "edp": -33.0},
    "low_power": {"makespan": 11.0, "mean_wait": -75.0, "het_slowdown": -75.0,
                  "energy": -17.0, "edp": -10.0},
}
COMPARISON, WINS, FIGURES = "paper_comparison.csv", "wins.csv", "figures"
#: The platform as the figures' titles name it.
PLATFORM_TITLE = "16 heterogeneous nodes"
#: results.csv's metric columns, in the paper's order.
METRICS: tuple[str, ...] = tuple(STUDY.metrics)


def study_named(name: str) -> TraceStudy:
    """The study's setting called ``name`` (one line naming the others when unknown)."""
    if name not in STUDIES:
        raise ConfigError(f"unknown node-centric setting {name!r}; choose one of "
                          f"{', '.join(STUDIES)}")
    return STUDIES[name]


def compare_with_paper(results: pandas.DataFrame,
                       paper: Mapping[str, Mapping[str, float]] = PAPER,
                       baselines: Sequence[str] = BASELINES) -> pandas.DataFrame:
    """One row per candidate × metric: the candidate's median over weeks, the baselines'
    pooled median (the median of every baseline run, all weeks of all baselines together),
    ``change_pct`` = 100 · (median / baseline median − 1), the paper's change, whether both
    go the same way, and the change against each baseline's own median (``vs_<baseline>``)."""
    import pandas as pd

    pooled = results[results["scheduler"].isin(baselines)]
    rows = []
    for scheduler, changes in paper.items():
        runs = results[results["scheduler"] == scheduler]
        for metric, reported in changes.items():
            median, base = runs[metric].median(), pooled[metric].median()
            change = 100.0 * (median / base - 1.0)
            row = {"scheduler": scheduler, "metric": metric, "median": median,
                   "baseline_median": base, "change_pct": change, "paper_pct": reported,
                   "same_direction": bool((change < 0) == (reported < 0))}
            for name in baselines:
                own = results.loc[results["scheduler"] == name, metric].median()
                row[f"vs_{name}_pct"] = 100.0 * (median / own - 1.0)
            rows.append(row)
    return pd.DataFrame(rows)


def representative_week(parts: Sequence[Part]) -> Part:
    """The week of median work (Σ tasks × operations; the lower median of an even count):
    chosen from the trace alone, before any run, so that it favours no scheduler."""
    ranked = sorted(parts, key=lambda part: (_work(part), part.index))
    return ranked[(len(ranked) - 1) // 2]


def _work(part: Part) -> float:
    return sum(job.ntasks * job.req_ops for job in part.workload.jobs)


def write_representative(plan: Plan, out: Path) -> tuple[int, list[Path]]:
    """Simulate the representative week under each of the sweep's schedulers (with the
    sweep's seed and options) and write each run to ``out/week-<k>/<scheduler>/``."""
    from hetsched.output import write_run
    from hetsched.run.execute import run_simulation
    from hetsched.sweep.inputs import parts_of, platform_of

    sweep = plan.sweep  # its plan gave the input warnings, once
    platform, workload, options = sweep.platforms[0], sweep.workloads[0], sweep.options[0]
    part = representative_week(list(parts_of(platform, workload, options.swf()).values()))
    dirs = []
    for scheduler in sweep.schedulers:
        result = run_simulation(platform_of(platform), part.workload, scheduler.spec,
                                sweep.seeds[0], options)
        target = out / f"week-{part.index}" / scheduler.label
        write_run(result, target, options.recorded())
        dirs.append(target)
    return int(part.index or 0), dirs


def weekly_wins(results: pandas.DataFrame) -> pandas.DataFrame:
    """Per scheduler and metric, the weeks it has the best value in (ties count for each)."""
    from hetsched.report.compare import wins

    return wins(results, METRICS, ["week"], catalogue=STUDY.catalogue)


def write_figures(results: pandas.DataFrame, week: int, dirs: Sequence[Path],
                  out: Path) -> list[Path]:
    """``out/figures/``: box plots of each metric over the weeks (``boxplots.png``) and the
    representative week's cumulative energy, running and queued jobs under each scheduler
    (``week-<k>.png``, from its run directories ``dirs``)."""
    from hetsched.report.mpl import save
    from hetsched.report.overlay import overlay
    from hetsched.report.run_data import read_run_dir

    folder = out / FIGURES
    folder.mkdir(parents=True, exist_ok=True)
    runs = {path.name: read_run_dir(path) for path in dirs}
    lines = overlay(runs, title=f"week {week} of the KIT ForHLR II trace, {PLATFORM_TITLE}: "
                                "every scheduler on the same jobs")
    return [save(boxes_figure(results), folder / "boxplots.png", "png"),
            save(lines, folder / f"week-{week}.png", "png")]


def boxes_figure(results: pandas.DataFrame) -> Any:
    """The box plots of each metric over the weeks of ``results`` (a study's ``results.csv``:
    ``week``, ``scheduler`` and the metric columns), Min-min's box shaded as the baseline."""
    from hetsched.report.box_plots import box_plots

    return box_plots(results, METRICS, baseline=BASELINES[0],
                     title=f"{len(set(results['week']))} weeks of the KIT ForHLR II trace, "
                           f"{PLATFORM_TITLE}", catalogue=STUDY.catalogue)
