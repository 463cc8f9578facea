"""Rich tables of the CLI: metrics of one run, a comparison of runs, the scheduler registry."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from hetsched.experiments.dssim_table import Cell
    from hetsched.schedulers.registry import Entry

Values = Mapping[str, float | int]


def new_table(first: str, others: Sequence[str], **options: Any) -> Table:
    """A table with a left-aligned ``first`` column and right-aligned ``others``. Cells wrap
    instead of being cut short ("…") on a narrow terminal, so every value stays readable."""
    table = Table(title_justify="left", caption_justify="left", **options)
    table.add_column(first, overflow="fold")
    for header in others:
        table.add_column(header, justify="right", overflow="fold")
    return table


def _missing(x: float) -> bool:
    return isinstance(x, float) and not math.isfinite(x)


def fmt_seconds(x: float) -> str:
    """A duration in the largest fitting unit: ``42.5 s``, ``20.2 min``, ``5.90 h``, ``3.10 d``."""
    if _missing(x):
        return "—"
    for limit, unit, scale in ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600)):
        if abs(x) < limit:
            return f"{x / scale:.{2 if unit != 'min' else 1}f} {unit}"
    return f"{x / 86400:,.2f} d"


def fmt_si(x: float, unit: str) -> str:
    """``16057074.9, "J"`` -> ``16.06 MJ`` (k, M, G, T, P prefixes)."""
    if _missing(x):
        return "—"
    for prefix in ("", "k", "M", "G", "T"):
        if abs(x) < 1000:
            return f"{x:.2f} {prefix}{unit}"
        x /= 1000
    return f"{x:,.2f} P{unit}"


def fmt_ratio(x: float) -> str:
    return "—" if _missing(x) else f"{x:,.2f}"


def fmt_percent(x: float, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.4162`` -> ``41.6 %``."""
    return "—" if _missing(x) else f"{100 * x:.{digits}f} %"


def fmt_sci(x: float) -> str:
    return "—" if _missing(x) else f"{x:.3e}"


def fmt_count(x: float) -> str:
    return "—" if _missing(x) else f"{int(x):,}"


@dataclass(frozen=True)
class Metric:
    """One table row: the label, the key in the run's values, how to show it, whether the
    best value is highlighted (which one: :func:`hetsched.report.compare.better`)."""

    label: str
    key: str
    fmt: Callable[[float], str]
    ranked: bool = True  # False: no winner (counts, wall time)
    optional: bool = False  # left out of a table when no run has a value

    @property
    def better(self) -> str | None:
        """``"low"``, ``"high"``, or ``None`` for a metric without winner."""
        from hetsched.report.compare import HIGHER, better

        if not self.ranked:
            return None
        return "high" if better(self.key) == HIGHER else "low"


METRICS: tuple[Metric, ...] = (
    Metric("makespan", "makespan", fmt_seconds),
    Metric("mean wait", "mean_wait", fmt_seconds),
    Metric("median wait", "median_wait", fmt_seconds),
    Metric("max wait", "max_wait", fmt_seconds),
    Metric("mean turnaround", "mean_turnaround", fmt_seconds),
    Metric("mean slowdown", "mean_slowdown", fmt_ratio),
    Metric("mean bounded slowdown", "mean_bounded_slowdown", fmt_ratio),
    Metric("max bounded slowdown", "max_bounded_slowdown", fmt_ratio),
    Metric("mean het. slowdown", "mean_het_slowdown", fmt_ratio),
    Metric("utilisation", "utilisation", fmt_percent),
    Metric("energy", "energy_j", lambda x: fmt_si(x, "J")),
    Metric("EDP (J·s)", "edp_js", fmt_sci),
    Metric("rental cost", "rental_cost", fmt_ratio),
    Metric("ds-sim turnaround", "dssim_turnaround", fmt_count, optional=True),
    Metric("ds-sim utilisation", "dssim_utilisation", lambda x: fmt_percent(x, 2),
           optional=True),
    Metric("jobs finished", "finished", fmt_count),
    Metric("jobs rejected", "rejected", fmt_count),
    Metric("jobs unfinished", "unfinished", fmt_count),
    Metric("jobs killed", "killed", fmt_count),
    Metric("records skipped", "skipped_records", fmt_count, ranked=False),
    Metric("wall time", "wall_seconds", lambda x: "—" if _missing(x) else f"{x:.3f} s",
           ranked=False),
    Metric("jobs/s", "jobs_per_second", fmt_count, ranked=False),
)


def shown(runs: Sequence[Values]) -> list[Metric]:
    """The rows of a table: every metric, except optional ones no run has a value for."""
    return [m for m in METRICS if not m.optional
            or any(not _missing(run.get(m.key, math.nan)) for run in runs)]


def metrics_table(values: Values, title: str | None = None) -> Table:
    """The metrics of one run, one per row."""
    table = new_table("metric", ["value"], title=title)
    for m in shown([values]):
        table.add_row(m.label, m.fmt(values.get(m.key, math.nan)))
    return table


def _best(metric: Metric, values: Sequence[float]) -> set[int]:
    """Positions holding the best value of a row (none if there is no winner or all tie)."""
    finite = [v for v in values if not _missing(v)]
    if metric.better is None or len(set(finite)) < 2:
        return set()
    target = min(finite) if metric.better == "low" else max(finite)
    return {i for i, v in enumerate(values) if v == target}


def comparison_table(runs: Mapping[str, Values], title: str | None = None) -> Table:
    """Schedulers as columns, metrics as rows; each row's best value is highlighted."""
    table = new_table("metric", list(runs), title=title)
    for m in shown(list(runs.values())):
        values = [run.get(m.key, math.nan) for run in runs.values()]
        best = _best(m, values)
        cells = [Text(m.fmt(v), style="bold green" if i in best else "")
                 for i, v in enumerate(values)]
        table.add_row(m.label, *cells)
    return table


def _grid_rows(grid: Sequence[Entry],
               job_help: Mapping[str, str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """One row per job selection of the ``job-node`` grid, and every node selection."""
    jobs = dict.fromkeys(str(e.defaults["job_selection"]) for e in grid)
    nodes = list(dict.fromkeys(str(e.defaults["node_selection"]) for e in grid))
    rows = [(f"{job}-<node>", "grid", f"jobs: {job_help.get(job, job)}") for job in jobs]
    return rows, nodes


def schedulers_table(entries: Sequence[Entry], job_help: Mapping[str, str],
                     show_all: bool = False) -> Table:
    """The registry; unless ``show_all``, the grid's entries are grouped by job selection."""
    grid = [] if show_all else [e for e in entries if e.family == "grid"]
    rows = [(e.name, e.family, e.description) for e in entries
            if show_all or e.family != "grid"]
    grid_rows, nodes = _grid_rows(grid, job_help)
    caption = (f"grid: {len(grid)} names <job>-<node>, <node> ∈ {{{', '.join(nodes)}}} "
               "(e.g. shortest-high_gflops), placed as each job's nodes say, memory checked "
               "(IRMaSim's own Heuristic is irmasim_heuristic); `hetsched schedulers --all` "
               "lists each"
               if grid else None)
    table = Table(caption=caption, caption_justify="left")
    for column in ("name", "family", "description"):
        table.add_column(column, overflow="fold")
    for row in rows + grid_rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def dssim_tables(cells: Sequence[Cell], algos: Sequence[str]) -> list[Table]:
    """Configurations as rows, algorithms as columns: one table per ds-sim metric."""
    configs = list(dict.fromkeys(c.config for c in cells))
    by_key = {(c.config, c.algo): c for c in cells}
    tables = []
    for title, fmt in (("avg turnaround (s)", lambda c: str(c.tt)),
                       ("avg utilisation (%)", lambda c: f"{c.util:.2f}"),
                       ("total rental cost ($)", lambda c: f"{c.cost:.2f}")):
        table = new_table("config", algos, title=f"ds-sim {title}")
        for config in configs:
            table.add_row(config, *(fmt(by_key[config, a]) for a in algos))
        tables.append(table)
    return tables
