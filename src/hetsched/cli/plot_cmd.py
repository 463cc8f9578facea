"""``hetsched plot RUN_DIR``: the figures of one run directory (Gantt chart, queued and running
jobs, power and cumulative energy, utilisation over time) as PNG or SVG files."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from hetsched.cli.console import QuietOpt
from hetsched.cli.errors import user_errors


class FigureFormat(str, Enum):
    """The file format of figures."""

    PNG = "png"
    SVG = "svg"


FigureFormatOpt = typer.Option("--format", "-f", help="Figure format: png or svg.",
                               case_sensitive=False)


def plot_command(
        run_dir: Annotated[Path, typer.Argument(
            help="Run directory written by `hetsched run` (jobs.csv, summary.json, "
            "timeseries.csv).")],
        out: Annotated[Optional[Path], typer.Option(
            help="Where to write the figures (created if needed). Default: RUN_DIR.")] = None,
        figure_format: Annotated[FigureFormat, FigureFormatOpt] = FigureFormat.PNG,
        quiet: QuietOpt = False,
) -> None:
    """Draw a run directory's figures as PNG or SVG files.

    gantt (jobs on the core ids of each node), jobs (queued and running over
    time), power_energy (power and cumulative energy), utilisation (busy
    cores / cores).
    """
    from hetsched.report.run_data import read_run_dir
    from hetsched.report.run_figures import write_run_figures

    with user_errors():
        run = read_run_dir(run_dir)
        paths = write_run_figures(run, out or run_dir, figure_format.value)
    if not quiet:
        typer.echo(f"wrote {', '.join(str(p) for p in paths)}")
