"""The node-centric study's sensitivity sweep (``hetsched study node-centric --sensitivity``):
the study's changes against the baselines, per setting of the platform's clock spread, power
spread, idle power and cores per node, and of the jobs' batching (docs/experiments.md).

The shipped grid (``data/node_centric_sensitivity.yaml``) is expanded into one platform file
per setting (:mod:`hetsched.experiments.node_centric_platforms`) and one sweep file per
batching (``sensitivity-<batching>.yaml``, each runnable with ``hetsched sweep``), all run
into one store, ``sensitivity.sqlite``, in the output directory.
"""

from __future__ import annotations

import itertools
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from hetsched.experiments.node_centric import (BATCHINGS, FAITHFUL, PAPER, STUDY,
                                               compare_with_paper, trace_name)
from hetsched.experiments.node_centric_platforms import Setting, platform_document
from hetsched.experiments.trace_studies import DATA, KIT_TRACE, platform_cores
from hetsched.experiments.traces import derive_trace
from hetsched.fileio import StrictModel

if TYPE_CHECKING:
    import pandas

    from hetsched.sweep.runner import Plan

GRID = DATA / "node_centric_sensitivity.yaml"
STORE, CHANGES, SUMMARY = "sensitivity.sqlite", "sensitivity.csv", "sensitivity_summary.csv"
#: The power setting the figure shows (the faithful setting's).
FIGURE_POWER: dict[str, float] = {"power_exponent": FAITHFUL.power_exponent,
                                  "idle_fraction": FAITHFUL.idle_fraction}
FIGURES = "figures"
#: A magnitude "within a factor of two" of the paper's: this ratio to it, or its inverse.
FACTOR = 2.0
Positive = Annotated[float, Field(gt=0)]


def _batching(name: str) -> str:
    if name not in BATCHINGS:
        raise ValueError(f"unknown batching {name!r}; choose one of {', '.join(BATCHINGS)}")
    return name


class Block(StrictModel):
    """One grid: the product of its lists."""

    name: str = Field(min_length=1)
    clock_spread: list[Annotated[float, Field(ge=1, le=3.5)]] = Field(min_length=1)
    power_exponent: list[Positive] = Field(min_length=1)
    idle_fraction: list[Annotated[float, Field(ge=0, le=1)]] = Field(min_length=1)
    cores: list[Annotated[int, Field(ge=STUDY.settings.max_procs, le=4096)]] = Field(
        min_length=1)
    batching: list[Annotated[str, AfterValidator(_batching)]] = Field(min_length=1)


class GridFile(StrictModel):
    weeks: Annotated[int, Field(ge=1)]
    schedulers: list[str] = Field(min_length=1)
    blocks: list[Block] = Field(min_length=1)


@dataclass(frozen=True)
class Grid:
    """The settings of every block, each once, in file order."""

    weeks: int
    schedulers: tuple[str, ...]
    settings: tuple[Setting, ...]


def load_grid(path: Path = GRID) -> Grid:
    """Read and check a sensitivity grid file (one-line errors)."""
    from hetsched.documents import read_structured, require_mapping
    from hetsched.fileio import validate

    spec = validate(GridFile, require_mapping(read_structured(path), path), path)
    names = [f.name for f in fields(Setting)]
    settings = (Setting(*values) for block in spec.blocks
                for values in itertools.product(*(getattr(block, n) for n in names)))
    return Grid(spec.weeks, tuple(spec.schedulers), tuple(dict.fromkeys(settings)))


def prepare(out: Path, source: Path = KIT_TRACE, weeks: int | None = None,
            grid: Path = GRID) -> list[Path]:
    """Write the derived traces, one platform file per setting (``platforms/``) and one sweep
    file per batching into ``out``; return the sweep files."""
    import yaml

    spec = load_grid(grid)
    out.mkdir(parents=True, exist_ok=True)
    folder = out / "platforms"
    folder.mkdir(exist_ok=True)
    sweeps = []
    for batching in dict.fromkeys(s.batching for s in spec.settings):
        platforms = []
        for setting in dict.fromkeys(s for s in spec.settings if s.batching == batching):
            path = folder / f"{setting.label}.yaml"
            path.write_text(yaml.safe_dump(platform_document(setting), sort_keys=False),
                            encoding="utf-8")
            platforms.append({"file": f"platforms/{path.name}", "name": setting.label})
        derive_trace(source, out / trace_name(batching), BATCHINGS[batching],
                     platform_cores(out / entry["file"] for entry in platforms))
        workload = {"file": trace_name(batching), "name": batching, "split": "week",
                    "max_parts": weeks or spec.weeks}
        document = {"platforms": platforms, "workloads": [workload],
                    "schedulers": list(spec.schedulers), "seeds": [0],
                    "options": {"swf_placement": "single"}}
        path = out / f"sensitivity-{batching}.yaml"
        path.write_text("# written by `hetsched study node-centric --sensitivity`\n"
                        + yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
        sweeps.append(path)
    return sweeps


def plan(out: Path, source: Path = KIT_TRACE, weeks: int | None = None,
         grid: Path = GRID) -> list[Plan]:
    """Prepare ``out`` and plan each batching's sweep into the one store."""
    from hetsched.sweep.runner import plan_sweep

    return [plan_sweep(path, out / STORE) for path in prepare(out, source, weeks, grid)]


def changes(out: Path, plans: list[Plan], grid: Path = GRID) -> pandas.DataFrame:
    """One row per setting × candidate × metric: the change of the candidate's median over
    the weeks against the baselines' pooled median (:func:`compare_with_paper`), the
    paper's, whether they go the same way and whether the size is within a factor of
    :data:`FACTOR`; written to ``out/sensitivity.csv``."""
    import pandas as pd

    from hetsched.sweep.results import load_results

    keys = {run.key for planned in plans for run in planned.runs}
    runs = load_results(out / STORE)
    runs = runs[runs["key"].isin(keys)].rename(
        columns={store: name for name, store in STUDY.metrics.items()})
    names, columns = [f.name for f in fields(Setting)], ["scheduler", "metric", "change_pct",
                                                          "paper_pct", "same_direction"]
    frames = []
    for setting in load_grid(grid).settings:
        mine = runs[(runs["platform"] == setting.label) & (runs["workload"] == setting.batching)]
        frame = compare_with_paper(mine)[columns].assign(**dict(zip(names, astuple(setting))))
        frames.append(frame[[*names, *columns]])
    table = pd.concat(frames, ignore_index=True)
    ratio = table["change_pct"] / table["paper_pct"]
    table["within_factor_2"] = (ratio >= 1 / FACTOR) & (ratio <= FACTOR)
    table.to_csv(out / CHANGES, index=False)
    return table


def summary(table: pandas.DataFrame, out: Path) -> pandas.DataFrame:
    """Per setting: how many of the paper's changes (``len(PAPER)`` candidates × their
    metrics) go the same way and how many are within the factor; ``out/sensitivity_summary.csv``,
    best settings first."""
    names = [f.name for f in fields(Setting)]
    grouped = table.groupby(names, sort=False)
    frame = grouped.agg(same_direction=("same_direction", "sum"),
                        within_factor_2=("within_factor_2", "sum")).reset_index()
    frame["of"] = sum(len(metrics) for metrics in PAPER.values())
    frame = frame.sort_values(["same_direction", "within_factor_2"], ascending=False,
                              kind="stable")
    frame.to_csv(out / SUMMARY, index=False)
    return frame.reset_index(drop=True)


def write_figure(table: pandas.DataFrame, out: Path, weeks: int) -> list[Path]:
    """``out/figures/sensitivity.png``: :func:`sensitivity_figure` at the faithful setting's
    power (:data:`FIGURE_POWER`), or at the grid's first power setting without it."""
    from hetsched.report.mpl import save

    names = list(FIGURE_POWER)
    present = table[names].drop_duplicates()
    matches = (present == list(FIGURE_POWER.values())).all(axis=1)
    fixed = FIGURE_POWER if matches.any() else dict(present.iloc[0])
    folder = out / FIGURES
    folder.mkdir(parents=True, exist_ok=True)
    title = (f"Change of each policy's median over the first {weeks} KIT weeks against the "
             f"baselines' pooled median; power per core ∝ clock^{fixed['power_exponent']:g}, "
             f"idle power {fixed['idle_fraction']:g} × static")
    return [save(sensitivity_figure(table, fixed, title), folder / "sensitivity.png", "png")]


def sensitivity_figure(table: pandas.DataFrame, fixed: dict[str, float], title: str) -> Any:
    """A panel per candidate × metric of the paper: the change (%) against the clock spread,
    one line per cores × batching, at the ``fixed`` power setting (``power_exponent``,
    ``idle_fraction``); the paper's change as a dashed line. The legend is below the panels;
    panels are titled with the catalogue's labels, changes in percent (``format_axis``)."""
    from hetsched.report.mpl import format_axis, pyplot

    plt = pyplot()
    rows = table[(table[list(fixed)] == list(fixed.values())).all(axis=1)]
    metrics = list(next(iter(PAPER.values())))
    fig, axes = plt.subplots(len(PAPER), len(metrics), figsize=(15, 6.8), squeeze=False,
                             sharex=True)
    for (candidate, changes), line in zip(PAPER.items(), axes):
        for ax, metric in zip(line, metrics):
            _panel(ax, rows[(rows["scheduler"] == candidate) & (rows["metric"] == metric)])
            ax.axhline(changes[metric], color="black", linestyle="--", linewidth=1)
            ax.axhline(0.0, color="grey", linewidth=0.5)
            ax.set_title(f"{candidate}: {STUDY.catalogue.find(metric).label}", fontsize=9)
            ax.tick_params(labelsize=8)
            format_axis(ax.yaxis, "percent")
        line[0].set_ylabel("change against the baselines", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("clock spread (fastest / slowest clock)", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="black", linestyle="--", linewidth=1))
    labels.append("the paper's change")
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 0.97))
    return fig


def _panel(ax: Any, rows: pandas.DataFrame) -> None:
    """One line per cores × batching: change against clock spread."""
    colours = {cores: f"C{i}" for i, cores in enumerate(sorted(set(rows["cores"])))}
    for (cores, batching), line in rows.groupby(["cores", "batching"], sort=True):
        line = line.sort_values("clock_spread")
        ax.plot(line["clock_spread"], line["change_pct"], marker="o", markersize=3,
                color=colours[cores], linestyle="-" if batching == "daily" else ":",
                label=f"{cores} cores per node, {batching} batches")
