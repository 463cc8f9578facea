"""Rich tables of the CLI: metrics of one run, a comparison of runs, the scheduler registry.
A metric's label, format and best value: :mod:`hetsched.metrics.catalogue`."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from hetsched.metrics.catalogue import METRICS, RUN_FOOTER, RUN_TABLE, Metric
from hetsched.metrics.formats import fmt_row, missing

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


def shown(runs: Sequence[Values]) -> list[Metric]:
    """The rows of a table: :data:`~hetsched.metrics.catalogue.RUN_TABLE`'s metrics, except
    optional ones no run has a value for."""
    rows = [METRICS[key] for key in RUN_TABLE]
    return [m for m in rows if not m.optional
            or any(not missing(run.get(m.key, math.nan)) for run in runs)]


def _cells(metric: Metric, values: Sequence[float], cut: Sequence[bool]) -> list[str]:
    """A row's cells: durations (energies) in one unit (prefix) for the whole row; a makespan
    the horizon cut
    (``cut``) is a lower bound, shown ``≥ 6.04 h``."""
    cells = fmt_row(metric.format, values)
    if metric.key == "makespan":
        cells = [f"≥ {cell}" if is_cut else cell for cell, is_cut in zip(cells, cut)]
    return cells


def speed_line(runs: Mapping[str, Values]) -> str | None:
    """The simulator's own speed, a footer under the table rather than metric rows:
    ``simulated in 0.006 s (33,454 jobs/s)``, per run when there are several; ``None`` when
    no run measured it."""
    if all(missing(values.get("wall_seconds", math.nan)) for values in runs.values()):
        return None
    def speed(values: Values) -> str:
        return " (".join(METRICS[key].format(values.get(key, math.nan))
                         for key in RUN_FOOTER) + " jobs/s)"
    if len(runs) == 1:
        return f"simulated in {speed(next(iter(runs.values())))}"
    return "simulated in " + ", ".join(f"{name} {speed(v)}" for name, v in runs.items())


def metrics_table(values: Values, title: str | None = None, cut: bool = False) -> Table:
    """The metrics of one run, one per row; its speed below. ``cut``: the horizon cut the
    run (its makespan is a lower bound)."""
    table = new_table("metric", ["value"], title=title, caption=speed_line({"": values}))
    for m in shown([values]):
        table.add_row(m.label, *_cells(m, [values.get(m.key, math.nan)], [cut]))
    return table


def _best(metric: Metric, values: Sequence[float]) -> set[int]:
    """Positions holding the best value of a row by the metric's direction: none for a
    neutral metric or a timing, or when all values tie."""
    finite = [v for v in values if not missing(v)]
    best = metric.direction.best(finite) if metric.reproducible and len(set(finite)) > 1 \
        else None
    return set() if best is None else {i for i, v in enumerate(values) if v == best}


def comparison_table(runs: Mapping[str, Values], title: str | None = None,
                     cut: Collection[str] = ()) -> Table:
    """Schedulers as columns, metrics as rows; each row's best value is highlighted; their
    speeds below. ``cut``: the runs the horizon cut (their makespan is a lower bound)."""
    table = new_table("metric", list(runs), title=title, caption=speed_line(runs))
    is_cut = [name in cut for name in runs]
    for m in shown(list(runs.values())):
        values = [run.get(m.key, math.nan) for run in runs.values()]
        best = _best(m, values)
        cells = [Text(text, style="bold green" if i in best else "")
                 for i, text in enumerate(_cells(m, values, is_cut))]
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
