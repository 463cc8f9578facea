"""The HTML report of a results store (``hetsched report``): one self-contained file with,
per group of comparable runs, box plots per metric, the medians and their changes against a
baseline scheduler, and the wins per metric; then the figures of one chosen run.

Runs are comparable when they share the sweep's axes (platform, workload and split, run
options): by default each combination of the axes that vary in the selection is one group.
Within a group a *case* is the runs of every scheduler on one part and seed; wins count, per
case, the schedulers with the best value (:mod:`hetsched.report.compare`). Failed runs are
counted and left out. Paired changes (:mod:`hetsched.report.paired`) compare each scheduler
with the baseline case by case.

The baseline is ``--baseline``, else :data:`DEFAULT_BASELINE` when it ran, else the first
scheduler in the store's order (alphabetical).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hetsched.errors import ConfigError, InputError, did_you_mean, option_name
from hetsched.metrics.catalogue import HIGHER, METRICS, NEUTRAL, REPORT_METRICS
from hetsched.metrics.formats import fmt_row
from hetsched.report import compare, html
from hetsched.report.paired import Paired
from hetsched.run.options import RUN_OPTIONS

#: The axes of a sweep that make runs incomparable (besides the scheduler).
AXES = ("platform", "workload", "split", *RUN_OPTIONS)
#: What identifies a case within a group: the axes, the part and the seed.
CASE = (*AXES, "part", "seed")
REPORT_FILE = "report.html"
#: The baseline when ``--baseline`` is not given and it ran.
DEFAULT_BASELINE = "fcfs"


@dataclass(frozen=True)
class ReportOptions:
    """What ``hetsched report`` was asked: ``None`` for the defaults (every default metric
    with a value, :func:`default_baseline`, the groups by varying axes, the median
    run of the baseline by the first metric)."""

    baseline: str | None = None
    metrics: Sequence[str] | None = None
    run: str | None = None
    run_figures: bool = True
    where: Sequence[str] = ()
    group_by: Sequence[str] | None = None
    fmt: str = "png"


@dataclass
class Report:
    """What was written: the page, and what it holds."""

    path: Path
    runs: int
    failed: int
    groups: int
    metrics: list[str]
    baseline: str
    run_key: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GroupSection:
    """What the page shows of a group: its box plots (a ``data:`` URI) and tables."""

    label: str
    runs: int
    cases: int
    figure: str
    medians: html.Table
    paired: html.Table
    wins: html.Table


@dataclass(frozen=True)
class RunSection:
    """What the page shows of the chosen run: what identifies it, why it was chosen, whether
    it matched the store, and its figures as ``(name, data: URI)``."""

    title: str
    why: str
    identity: html.Table
    check: str
    figures: list[tuple[str, str]]


def write_report(store: str | Path, out_dir: str | Path,
                 options: ReportOptions = ReportOptions()) -> Report:
    """Write ``<out_dir>/report.html`` for the runs of ``store`` that meet ``options.where``."""
    html.environment()  # a missing jinja2 fails before anything is drawn
    runs, failed = _select(store, options.where)
    metrics, notes = _metrics(runs, options.metrics)
    names = compare.schedulers(runs)
    baseline = options.baseline or default_baseline(names)
    if baseline not in names:
        raise ConfigError(f"{option_name('baseline')}: no run of scheduler '{baseline}' (the "
                          f"runs have {', '.join(names)}){did_you_mean(baseline, names)}")
    groups = _groups(runs, options.group_by)
    report = Report(Path(out_dir) / REPORT_FILE, len(runs), failed, len(groups), metrics,
                    baseline, notes=notes)
    # the run first: a bad --run or a changed input fails before anything is drawn
    shown = _run_section(runs, groups, report, options) if options.run_figures else None
    sections = [_group_section(label, group, metrics, baseline, options.fmt)
                for label, group in groups]
    name = Path(store).name
    page = html.render("report.html.j2", title=f"hetsched report: {name}", store=name,
                       report=report, where=list(options.where), chosen=bool(options.baseline),
                       default=DEFAULT_BASELINE, groups=sections, run=shown)
    report.path.parent.mkdir(parents=True, exist_ok=True)
    report.path.write_text(page, encoding="utf-8")
    return report


def default_baseline(names: Sequence[str]) -> str:
    """:data:`DEFAULT_BASELINE` if among ``names``, else the first of them."""
    return DEFAULT_BASELINE if DEFAULT_BASELINE in names else names[0]


def _select(store: str | Path, where: Sequence[str]) -> tuple[Any, int]:
    """The successful runs that meet ``where``, and how many failed."""
    from hetsched.sweep.results import load_results

    frame = load_results(store, *where)
    if frame.empty:
        raise InputError(store, "no run meets " + " and ".join(where) if where
                         else "holds no runs")
    ok = frame[frame["status"] == "ok"].reset_index(drop=True)
    if ok.empty:
        raise InputError(store, f"all {len(frame):,} selected runs failed (see `hetsched "
                                "results STORE --where status=error`)")
    return ok, len(frame) - len(ok)


def _metrics(runs: Any, asked: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """The metrics to report, and a note on default ones left out for having no value."""
    from hetsched.sweep.store import METRICS

    known = [*METRICS, "wall_seconds", "run_seconds"]
    for name in asked or ():
        if name not in known:
            raise ConfigError(f"{option_name('metric')}: no metric '{name}'"
                              f"{did_you_mean(name, known)} (metrics: {', '.join(known)})")
    if asked:
        return list(dict.fromkeys(asked)), []
    kept = [m for m in REPORT_METRICS if runs[m].notna().any()]
    dropped = [m for m in REPORT_METRICS if m not in kept]
    if not dropped:
        return kept, []
    return kept, [f"default metrics left out for having no value in any run: "
                  f"{', '.join(dropped)}"]


def _groups(runs: Any, group_by: Sequence[str] | None) -> list[tuple[str, Any]]:
    """``(label, runs)`` per group: by ``group_by``, or by the axes that vary."""
    if group_by is None:
        group_by = [a for a in AXES if runs[a].nunique(dropna=False) > 1]
    compare.check_columns(runs, group_by, f"{option_name('group_by')} column")
    if not group_by:
        return [("all runs", runs)]
    grouped = runs.groupby(list(group_by), sort=False, dropna=False)
    return [(" · ".join(f"{c}={_shown(v)}" for c, v in zip(group_by, values)), group)
            for values, group in grouped]


def _shown(value: Any) -> str:
    return "none" if value is None or value != value else str(value)


def _group_section(label: str, runs: Any, metrics: list[str], baseline: str,
                   fmt: str) -> GroupSection:
    from hetsched.report.box_plots import box_plots
    from hetsched.report.mpl import figure_bytes
    from hetsched.report.paired import paired

    medians = compare.medians(runs, metrics)
    cases = [c for c in CASE if c in runs.columns]
    wins = compare.wins(runs, metrics, cases)
    count = runs.groupby(cases, dropna=False, sort=False).ngroups
    figure = figure_bytes(box_plots(runs, metrics, baseline=baseline,
                                    title=f"{_subject(runs)} · {label}"), fmt)
    return GroupSection(label, len(runs), count, html.data_uri(figure, fmt),
                        _medians_table(medians, baseline, runs),
                        _paired_table(paired(runs, metrics, cases, baseline), metrics),
                        _wins_table(wins))


def _subject(runs: Any) -> str:
    """What a group's runs ran: ``example (50 jobs) on hetero8``, or how many workloads and
    platforms when there are several."""
    def named(column: str, noun: str) -> str:
        values = runs[column].dropna().astype(str).unique() if column in runs else []
        return str(values[0]) if len(values) == 1 else f"{len(values)} {noun}s"

    split = named("split", "split")
    workload = named("workload", "workload") + (
        f" ({split})" if "split" in runs and runs["split"].nunique() == 1 else "")
    return f"{workload} on {named('platform', 'platform')}"


def _medians_table(medians: Any, baseline: str, runs: Any) -> html.Table:
    """A row per metric, a column per scheduler: the median and its change."""
    from hetsched.report.box_plots import metric_label

    names = [str(n) for n in medians.index]
    counts = runs["scheduler"].astype(str).value_counts()
    header = ["metric", *(f"{n} ({counts[n]} runs)" for n in names)]
    if baseline in names:
        changes = compare.changes(medians, baseline)
    median = html.macro("median")
    rows = []
    for metric in medians.columns:
        column = medians[metric]
        best = _best(column, metric)
        cells: list[tuple[Any, str]] = [(metric_label(metric), "")]
        shown = dict(zip(names, row_cells(metric, column.tolist())))
        for name in names:
            change = (changes.loc[name, metric] if baseline in names and name != baseline
                      else None)
            text = median(shown[name], change, "" if change is None else _tone(change, metric))
            cells.append((text, "best" if column[name] == best else ""))
        rows.append(cells)
    return html.Table(header, rows)


def row_cells(metric: str, values: Sequence[float]) -> list[str]:
    """A table row's values of ``metric`` as the catalogue formats them, in one unit for the
    row."""
    return fmt_row(METRICS.find(metric).format, values)


def _paired_table(found: list[Paired], metrics: list[str]) -> html.Table:
    """A row per scheduler, a column per metric: its paired summary (:func:`paired_cell`)."""
    names = list(dict.fromkeys(p.scheduler for p in found))
    by = {(p.scheduler, p.metric): p for p in found}
    rows = [[(name, "")] + [paired_cell(by[name, metric]) for metric in metrics]
            for name in names]
    return html.Table(["scheduler", *metrics], rows)


def paired_cell(found: Paired) -> tuple[str, str]:
    """``−35.0 % [−60.0 %, −10.0 %]`` over ``p = 0.031 (6 pairs)``, or "too few pairs to
    test"; coloured by the median change's direction (the ``paired`` macro's markup)."""
    return html.macro("paired")(found, _tone(found.median, found.metric)), ""


def _wins_table(wins: Any) -> html.Table:
    rows = []
    for name in wins.index:
        cells: list[tuple[Any, str]] = [(name, "")]
        for metric in wins.columns:
            top = wins[metric].max()
            cells.append((str(wins.loc[name, metric]),
                          "best" if top > 0 and wins.loc[name, metric] == top else ""))
        rows.append(cells)
    return html.Table(["scheduler", *wins.columns], rows)


def _best(column: Any, metric: str) -> float:
    """The best median of a metric's column (NaN: none, or a neutral metric)."""
    best = compare.better(metric).best(column.dropna())
    return float("nan") if best is None else best


def _tone(change: float, metric: str) -> str:
    direction = compare.better(metric)
    if change != change or change == 0 or direction is NEUTRAL:
        return ""
    improved = (change > 0) == (direction is HIGHER)
    return "better" if improved else "worse"


def _choose_run(runs: Any, groups: list[tuple[str, Any]], report: Report,
                options: ReportOptions) -> tuple[dict[str, Any], str]:
    """The run to draw (``--run``, else the baseline's median run of the first group by the
    first metric) and why it was chosen."""
    from hetsched.report.rerun import find_run

    if options.run is not None:
        return dict(find_run(runs, options.run)), "chosen with --run"
    label, first = groups[0]
    present = first["scheduler"].astype(str)
    scheduler = report.baseline if (present == report.baseline).any() else present.iloc[0]
    metric = report.metrics[0]
    row = first.loc[compare.representative(first, metric, scheduler)].to_dict()
    return row, (f"the run of {scheduler} with the median {metric} in {label}; choose "
                 "another with --run KEY")


def _run_section(runs: Any, groups: list[tuple[str, Any]], report: Report,
                 options: ReportOptions) -> RunSection:
    """The chosen run, simulated again: what identifies it, then its figures."""
    from hetsched.report.mpl import figure_bytes
    from hetsched.report.rerun import plain, rerun
    from hetsched.report.run_data import from_result
    from hetsched.report.run_figures import FIGURES

    row, why = _choose_run(runs, groups, report, options)
    report.run_key = str(row["key"])
    again = rerun(row)
    if again.differences:
        report.notes.append(f"run {report.run_key[:12]}, simulated again, differs from the "
                            f"stored one: {'; '.join(again.differences)}")
    part = plain(row.get("part"))
    title = f"{row['scheduler']} · seed {row['seed']}" + (
        "" if part is None else f" · part {int(part)}")
    data = from_result(again.result, title)
    figures = [(name, html.data_uri(figure_bytes(draw(data), options.fmt), options.fmt))
               for name, draw in FIGURES.items()]
    identity = [[(c, ""), (_shown(row[c]), "")] for c in (*CASE, "scheduler", "key") if c in row]
    check = ("its metrics match the stored ones" if not again.differences
             else "differences: " + "; ".join(again.differences))
    return RunSection(title, why, html.Table(["", "value"], identity), check, figures)
