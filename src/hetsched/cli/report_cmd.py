"""``hetsched report STORE``: a self-contained HTML report of a results store (box plots,
medians and changes against a baseline, paired changes, wins per metric, the figures of one run)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hetsched.cli.console import QuietOpt
from hetsched.cli.errors import user_errors, warn
from hetsched.cli.plot_cmd import FigureFormat, FigureFormatOpt
from hetsched.cli.sweep_cmd import WhereOpt
from hetsched.metrics.catalogue import REPORT_METRICS


def _names(values: Optional[list[str]]) -> Optional[list[str]]:
    """Repeated and comma-separated values as one list (``None`` when not given)."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def report_command(
        store: Annotated[Path, typer.Argument(help="Results store written by `hetsched sweep`.")],
        out: Annotated[Optional[Path], typer.Option(
            help="Directory of the report (report.html; created if needed). Default: "
            "<STORE stem>-report.")] = None,
        baseline: Annotated[Optional[str], typer.Option(
            help="Scheduler the changes are relative to (as written in the sweep file). "
            "Default: fcfs when it ran, else the first scheduler alphabetically.")] = None,
        metric: Annotated[Optional[list[str]], typer.Option(
            "--metric", "-m", help="Metric to report (repeat, or comma-separated). Default: "
            f"{', '.join(REPORT_METRICS)} (those with a value).")] = None,
        run: Annotated[Optional[str], typer.Option(
            help="Key (or its first 6+ characters) of the run whose figures to show. Default: "
            "the baseline's run with the median value of the first metric.")] = None,
        run_figures: Annotated[bool, typer.Option(
            "--run-figures/--no-run-figures", help="Draw one run's figures (it is simulated "
            "again from its inputs).")] = True,
        where: Annotated[Optional[list[str]], WhereOpt] = None,
        group_by: Annotated[Optional[str], typer.Option(
            help="Comma-separated columns whose values make separate groups. Default: the "
            "sweep's axes that vary (platform, workload, split, run options).")] = None,
        figure_format: Annotated[FigureFormat, FigureFormatOpt] = FigureFormat.PNG,
        quiet: QuietOpt = False,
) -> None:
    """Write an HTML report of a results store: one file, figures embedded.

    Per group of comparable runs: box plots per metric, medians and their
    change against a baseline, paired changes per part and seed (median, 95 %
    bootstrap interval, Wilcoxon p), wins per metric (ties count for each);
    then the figures of one run.
    """
    from hetsched.report.sweep_report import ReportOptions, write_report

    options = ReportOptions(baseline, _names(metric), run, run_figures, where or [],
                            _names([group_by]) if group_by is not None else None,
                            figure_format.value)
    with user_errors():
        report = write_report(store, out or Path(f"{store.stem}-report"), options)
    if quiet:
        return
    for note in report.notes:
        warn(note)
    run_text = f"; figures of run {report.run_key[:12]}" if report.run_key else ""
    typer.echo(f"wrote {report.path}: {report.runs:,} runs in {report.groups} group"
               f"{'s' * (report.groups != 1)}, {len(report.metrics)} metrics, baseline "
               f"{report.baseline}{run_text}")
