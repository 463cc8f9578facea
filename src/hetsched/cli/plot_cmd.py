"""``hetsched plot RUN_DIR``: the figures of one run directory (Gantt chart, queued and running
jobs, power and cumulative energy, utilisation over time) as PNG or SVG files."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from hetsched.cli.console import QuietOpt
from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError
from hetsched.parsing import parse_float, quote
from hetsched.report.gantt_options import COLOUR_BY, DETAILED_LIMIT, VIEWS


class FigureFormat(str, Enum):
    """The file format of figures."""

    PNG = "png"
    SVG = "svg"


#: ``--colour-by``'s and ``--gantt``'s choices.
ColourBy = Enum("ColourBy", {name.upper(): name for name in COLOUR_BY}, type=str)
GanttView = Enum("GanttView", {name.upper(): name for name in VIEWS}, type=str)

FigureFormatOpt = typer.Option("--format", "-f", help="Figure format: png or svg.",
                               case_sensitive=False)


def plot_command(
        run_dir: Annotated[Path, typer.Argument(
            help="Run directory written by `hetsched run` (jobs.csv, summary.json, "
            "timeseries.csv; or jobs.parquet and timeseries.parquet).")],
        out: Annotated[Optional[Path], typer.Option(
            help="Where to write the figures (created if needed). Default: RUN_DIR.")] = None,
        figure_format: Annotated[FigureFormat, FigureFormatOpt] = FigureFormat.PNG,
        colour_by: Annotated[ColourBy, typer.Option(
            "--colour-by", "--color-by", case_sensitive=False,
            help="Gantt chart: colour the jobs by job (a colour per job), size (the tasks "
            "requested, a colorbar), state (final_state), decision (in submission order, or "
            "ahead of an earlier job: backfilled), user or queue (a legend each).")]
        = ColourBy.JOB,
        gantt_view: Annotated[GanttView, typer.Option(
            "--gantt", case_sensitive=False,
            help="Gantt chart: detailed (a bar per job), aggregate (busy cores per node group "
            f"over time, a heat map) or auto (aggregate above {DETAILED_LIMIT:,} bars unless "
            "--gantt-window is given).")] = GanttView.AUTO,
        gantt_window: Annotated[Optional[str], typer.Option(
            "--gantt-window", metavar="START:END",
            help="Gantt chart of this time window only (seconds from the run's start, as on "
            "its time axis), the jobs overlapping it clipped to it.")] = None,
        quiet: QuietOpt = False,
) -> None:
    """Draw a run directory's figures as PNG or SVG files.

    gantt (jobs on the core ids of each node), jobs (queued and running over
    time), power_energy (power and cumulative energy), utilisation (busy
    cores / cores).
    """
    from hetsched.report.gantt_options import GanttOptions
    from hetsched.report.run_data import read_run_dir
    from hetsched.report.run_figures import write_run_figures

    with user_errors():
        window = None if gantt_window is None else parse_window(gantt_window)
        options = GanttOptions(colour_by.value, gantt_view.value, window)
        run = read_run_dir(run_dir)
        paths = write_run_figures(run, out or run_dir, figure_format.value, options)
    if not quiet:
        typer.echo(f"wrote {', '.join(str(p) for p in paths)}")


def parse_window(text: str) -> tuple[float, float]:
    """``--gantt-window START:END`` in seconds from the run's start, ``0 <= START < END``."""
    start, colon, end = text.partition(":")
    values = [parse_float(part.strip()) for part in (start, end)]
    if not colon or values[0] is None or values[1] is None:
        raise ConfigError(f"--gantt-window {quote(text)}: expected START:END in seconds from "
                          "the run's start, e.g. 3600:7200")
    first, last = float(values[0]), float(values[1])
    if not 0 <= first < last < float("inf"):
        raise ConfigError(f"--gantt-window {quote(text)}: expected 0 <= START < END")
    return first, last
