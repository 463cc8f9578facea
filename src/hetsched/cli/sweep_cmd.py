"""``hetsched sweep`` (a grid of runs into a resumable SQLite store) and ``hetsched results``
(the runs of a store as a table, CSV or JSON)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from hetsched.cli.console import (Format, FormatOpt, QuietOpt, console, print_csv,
                                  print_json, print_jsonl)
from hetsched.cli.errors import user_errors, warn

if TYPE_CHECKING:
    from hetsched.sweep.runner import Plan, Progress, Tally

WorkersOpt = typer.Option("--workers", "-j", help="Worker processes (default: one per CPU); "
                          "with --dask local, the local cluster's workers.")
#: Run selection, shared by ``results`` and ``report``.
WhereOpt = typer.Option("--where", "-w", help="Keep the runs where COLUMN OP VALUE holds, OP one "
                        "of = != < <= > >= ~ (glob on text): scheduler=easy, seed>3, "
                        "scheduler~easy*, horizon=null. Repeat for AND.")


def sweep_command(
        spec: Annotated[Path, typer.Argument(help="Sweep file (YAML or JSON; docs/sweeps.md).")],
        workers: Annotated[Optional[int], WorkersOpt] = None,
        dask: Annotated[Optional[str], typer.Option(
            help="Run on Dask: 'local' (a LocalCluster) or a scheduler's address "
            "(tcp://host:8786). Needs pip install 'hetsched\\[sweep]'.")] = None,
        store: Annotated[Optional[Path], typer.Option(
            help="Results store (SQLite), created if needed; runs already in it are "
            "skipped. Default: <sweep file stem>.sqlite.")] = None,
        retry_failed: Annotated[bool, typer.Option(
            "--retry-failed", help="Run again the runs the store holds as failed.")] = False,
        quiet: QuietOpt = False,
) -> None:
    """Run a sweep file's grid of runs into a SQLite store, skipping the runs already there.

    The grid is platforms × workloads (or their parts) × options × schedulers × seeds. A
    sweep stopped at any point, even killed, continues where it was when run again.
    """
    from hetsched.sweep.runner import check_executor, plan_sweep, run_plan

    with user_errors():
        check_executor(workers, dask)
        plan = plan_sweep(spec, store, retry_failed)
        for message in [] if quiet else plan.warnings:
            warn(message)
        with progress_bar(not quiet) as progress:
            tally = run_plan(plan, workers, dask, progress)
    if not quiet:
        _report(spec, plan, tally)


def _report(spec: Path, plan: Plan, tally: Tally) -> None:
    done = len(plan.runs) - len(plan.pending)
    if not plan.pending:
        typer.echo(f"{spec}: all {len(plan.runs):,} runs are already in {plan.store}")
        return
    ran = tally.ok + tally.failed
    rate = ran / tally.seconds if tally.seconds > 0 else math.nan
    typer.echo(f"{spec}: {len(plan.runs):,} runs, {done:,} already in {plan.store}; ran "
               f"{ran:,} ({tally.ok:,} ok, {tally.failed:,} failed) in {tally.seconds:.1f} s "
               f"({rate:,.1f} runs/s) on {tally.workers} worker{'s' * (tally.workers != 1)}")
    if tally.failed:
        warn(f"{tally.failed:,} runs failed; see `hetsched results {plan.store} --where "
             "status=error`")


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Progress | None]:
    """A Rich progress bar on stderr (on a terminal) fed ``(done, total, failed)``."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    columns = (TextColumn("runs"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Bar(*columns, console=console(stderr=True), transient=True) as bar:
        task = bar.add_task("runs", total=None, failed=0)

        def update(done: int, total: int, failed: int) -> None:
            bar.update(task, completed=done, total=total, failed=failed)

        yield update


def results_command(
        store: Annotated[Path, typer.Argument(help="Results store written by `hetsched sweep`.")],
        where: Annotated[Optional[list[str]], WhereOpt] = None,
        columns: Annotated[Optional[str], typer.Option(
            help="Comma-separated columns to show (default: a table shows what identifies "
            "each run and headline metrics; CSV and JSON every column).")] = None,
        jobs: Annotated[bool, typer.Option(
            "--jobs", help="Show the per-job records of the selected runs instead (sweeps "
            "with job_records: true).")] = False,
        output_format: Annotated[Format, FormatOpt] = Format.TABLE) -> None:
    """List the runs of a results store (one row per run), selected with --where."""
    from hetsched.sweep.results import select_jobs, select_runs

    with user_errors():
        names, rows = (select_jobs if jobs else select_runs)(store, where or [])
        shown = _columns(columns, names, rows, output_format is Format.TABLE and not jobs)
    records = [{name: row[names.index(name)] for name in shown} for row in rows]
    if output_format is Format.JSON:
        print_json(records)
    elif output_format is Format.JSONL:
        print_jsonl(records)
    elif output_format is Format.CSV and not records:
        typer.echo(",".join(shown))
    elif output_format is Format.CSV:
        print_csv([{k: math.nan if v is None else v for k, v in r.items()} for r in records])
    else:
        console().print(_table(store, shown, records))


def _columns(text: str | None, names: list[str], rows: list[tuple[Any, ...]],
             table: bool) -> list[str]:
    """The columns to show: those asked for (checked), else every one, or for a table what
    identifies each run (split and part if any, options where they vary) and a few metrics."""
    from hetsched.errors import ConfigError, did_you_mean
    from hetsched.metrics.catalogue import RESULTS_TABLE
    from hetsched.run.options import RUN_OPTIONS

    if text is not None:
        asked = [c.strip() for c in text.split(",") if c.strip()]
        for name in asked:
            if name not in names:
                raise ConfigError(f"--columns: no column '{name}'{did_you_mean(name, names)}")
        return asked
    if not table:
        return names

    def values(name: str) -> set[Any]:
        return {row[names.index(name)] for row in rows}

    failed = "error" in values("status")
    return ["platform", "workload", *[c for c in ("split", "part") if values(c) - {None}],
            "scheduler", "seed", *[c for c in RUN_OPTIONS if len(values(c)) > 1], "status",
            *(["error"] if failed else []), *RESULTS_TABLE]


def _table(store: Path, shown: list[str], records: list[dict[str, Any]]) -> Any:
    """Text columns left-aligned, numbers right-aligned; metrics by their labels, in the
    units of ``hetsched run``."""
    from rich.markup import escape
    from rich.table import Table

    from hetsched.metrics.catalogue import METRICS
    from hetsched.metrics.formats import fmt_seconds

    formats = {m.key: m.format for m in METRICS.values()} | {"horizon": fmt_seconds,
                                                             "part_start": fmt_seconds}
    labels = {m.key: m.label for m in METRICS.values()}
    ok = sum(r.get("status") == "ok" for r in records)
    title = (f"{escape(str(store))}: {len(records):,} runs"
             + (f" ({ok:,} ok, {len(records) - ok:,} failed)" if "status" in shown else ""))
    table = Table(title=title, title_justify="left")
    for name in shown:
        numbers = any(isinstance(r[name], (int, float)) for r in records)
        table.add_column(labels.get(name, name), justify="right" if numbers else "left",
                         overflow="fold")
    for record in records:
        table.add_row(*(_cell(record[name], formats.get(name)) for name in shown))
    return table


def _cell(value: Any, fmt: Any) -> str:
    from rich.markup import escape

    if value is None:
        return "—"
    if fmt is not None and isinstance(value, (int, float)):
        return fmt(value)
    return escape(str(value))
