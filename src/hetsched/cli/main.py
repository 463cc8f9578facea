"""The ``hetsched`` command: run, compare, schedulers, map, study, dssim-table, dsclient.

User errors (bad input files, unknown schedulers, bad options, unwritable output) print one
line ``error: <message>`` on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hetsched.cli.errors import user_errors, warn
from hetsched.cli.map_cmd import map_command
from hetsched.cli.study_cmd import study_app
from hetsched.cli.tables import (comparison_table, dssim_tables, metrics_table, run_values,
                                 schedulers_table)
from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.dssim.client import run_client
from hetsched.dssim.records import JobnOrder
from hetsched.dssim.table import reference_mismatches, run_table, write_cells_csv
from hetsched.dssim.xml import workload_for_config
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.fileio import file_stem
from hetsched.metrics import summarize
from hetsched.output import write_comparison_csv, write_run
from hetsched.output.summary_json import jsonable
from hetsched.platform.load import load_platform
from hetsched.platform.model import Platform
from hetsched.schedulers.policies import JOB_SELECTION_HELP
from hetsched.schedulers.registry import create, entries
from hetsched.sim.checks import input_warnings
from hetsched.sim.engine import ProgressCallback, simulate
from hetsched.sim.result import SimResult
from hetsched.workload.load import load_workload
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions

#: Workloads with more jobs than this get a progress bar (when stderr is a terminal).
PROGRESS_MIN_JOBS = 2000

app = typer.Typer(help="Simulate, compare and tune job schedulers on heterogeneous clusters.",
                  no_args_is_help=True, add_completion=False,
                  pretty_exceptions_show_locals=False)

# ---- options shared by run and compare ---------------------------------------------------------
PlatformOpt = Annotated[Optional[Path], typer.Option(
    "--platform", "-p", help="Platform file (native JSON/YAML, IRMaSim JSON or ds-sim "
    "configuration XML). Default: the bundled example platform.")]
WorkloadOpt = Annotated[Optional[Path], typer.Option(
    "--workload", "-w", help="Workload file (SWF, IRMaSim/Batsim/native JSON, ds-sim job list "
    "XML). Default: the bundled example workload (for a ds-sim configuration: the job list it "
    "names).")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the scheduler's random generator.")]
HorizonOpt = Annotated[Optional[float], typer.Option(
    help="Stop at this simulated time (s); jobs not done are reported unfinished.")]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Fail on unusable trace records and never-fitting jobs instead of "
    "skipping/rejecting them.")]
PlacementOpt = Annotated[str, typer.Option(
    "--swf-placement", help="SWF jobs: auto (one node if it fits the largest, else spread), "
    "single or spread.")]
ReferenceOpt = Annotated[Optional[float], typer.Option(
    "--reference-speed", help="SWF: ops/s of the machine the trace's run times were measured "
    "on (default: the platform's slowest core).")]
EstimateOpt = Annotated[float, typer.Option(
    "--estimate-factor", help="SWF: requested time = run time × this when a record has none.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]


@dataclass(frozen=True)
class Inputs:
    """What a run simulates, and how (shared by run and compare)."""

    platform_path: Path
    workload_path: Path | None
    seed: int
    horizon: float | None
    strict: bool
    swf: SwfOptions

    def options(self) -> dict[str, Any]:
        """How the run was configured, as recorded in ``summary.json``."""
        return {"horizon": self.horizon, "strict": self.strict,
                "swf_placement": self.swf.placement,
                "reference_speed": self.swf.reference_speed,
                "estimate_factor": self.swf.estimate_factor}

    def load(self) -> tuple[Platform, Workload]:
        """The platform and workload; a ds-sim configuration without ``--workload`` brings the
        job list it names (or says that its jobs must be given)."""
        platform = load_platform(self.platform_path)
        if self.workload_path is None:
            return platform, workload_for_config(self.platform_path, platform)
        return platform, load_workload(self.workload_path, platform, self.swf)


def make_inputs(platform: Path | None, workload: Path | None, seed: int, horizon: float | None,
                strict: bool, placement: str, reference_speed: float | None,
                estimate_factor: float) -> Inputs:
    swf = SwfOptions(placement=placement, reference_speed=reference_speed,
                     estimate_factor=estimate_factor, strict=strict)
    if platform is not None and platform.suffix.lower() == ".xml":
        return Inputs(platform, workload, seed, horizon, strict, swf)
    return Inputs(platform or default_platform_path(), workload or default_workload_path(),
                  seed, horizon, strict, swf)


# ---- error reporting ---------------------------------------------------------------------------
# ---- running -----------------------------------------------------------------------------------
def safe_name(text: str) -> str:
    """A scheduler spec as a directory name (``easy:node_selection=x`` -> ``easy_node_...``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def split_specs(values: list[str]) -> list[str]:
    """``["fcfs,easy:a=1,b=2", "sjf"]`` -> ``["fcfs", "easy:a=1,b=2", "sjf"]``: a comma
    separates schedulers unless what follows is another ``key=value`` option."""
    specs: list[str] = []
    for part in (p.strip() for value in values for p in value.split(",")):
        if specs and ":" in specs[-1] and "=" in part and ":" not in part:
            specs[-1] += "," + part
        elif part:
            specs.append(part)
    if len(set(specs)) != len(specs):
        raise ConfigError(f"a scheduler is listed twice in '{','.join(values)}'")
    return specs


@contextmanager
def progress_bar(label: str, total: int, enabled: bool) -> Iterator[ProgressCallback | None]:
    """A transient progress bar on stderr fed by the engine's callback (every ~0.5 %)."""
    if not enabled:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(escape(label), total=total)
        step = max(1, total // 200)
        shown = [0]

        def update(done: int, _total: int) -> None:
            if done - shown[0] >= step:
                shown[0] = done
                bar.update(task, completed=done)

        yield update


def simulate_spec(spec: str, platform: Platform, workload: Workload, inputs: Inputs,
                  quiet: bool) -> SimResult:
    scheduler = create(spec)
    show = not quiet and sys.stderr.isatty() and len(workload.jobs) > PROGRESS_MIN_JOBS
    with progress_bar(spec, len(workload.jobs), show) as progress:
        return simulate(platform, workload, scheduler, seed=inputs.seed,
                        horizon=inputs.horizon, strict=inputs.strict, progress=progress)


def describe(platform: Platform, workload: Workload) -> str:
    return (f"{workload.name} ({len(workload.jobs):,} jobs) on {platform.name} "
            f"({len(platform.nodes)} nodes, {platform.total_cores:,} cores)")


# ---- commands ----------------------------------------------------------------------------------
@app.command()
def run(platform: PlatformOpt = None, workload: WorkloadOpt = None,
        scheduler: Annotated[str, typer.Option(
            "--scheduler", "-s", help="Scheduler name, or name:key=value,... "
            "(see `hetsched schedulers`).")] = "fcfs",
        out: Annotated[Optional[Path], typer.Option(
            help="Output directory. Default: runs/<workload>-<scheduler>.")] = None,
        seed: SeedOpt = 0, horizon: HorizonOpt = None, strict: StrictOpt = False,
        swf_placement: PlacementOpt = "auto", reference_speed: ReferenceOpt = None,
        estimate_factor: EstimateOpt = 1.0, quiet: QuietOpt = False) -> None:
    """Simulate one scheduler: print its metrics, write jobs.csv, summary.json, timeseries.csv.

    With no options: the bundled example platform and workload, with fcfs.
    """
    with user_errors():
        inputs = make_inputs(platform, workload, seed, horizon, strict, swf_placement,
                             reference_speed, estimate_factor)
        create(scheduler)  # fail fast on a bad name, before loading inputs
        plat, work = inputs.load()
        if not quiet:
            warn(input_warnings(plat, work))
        result = simulate_spec(scheduler, plat, work, inputs, quiet)
        out = out or Path("runs") / f"{file_stem(Path(work.source))}-{safe_name(scheduler)}"
        write_run(result, out, inputs.options())
    if not quiet:
        console = Console()
        values = run_values(summarize(result), result.wall_seconds)
        console.print(f"{escape(scheduler)} · {escape(describe(plat, work))}", highlight=False)
        console.print(metrics_table(values))
        console.print(f"wrote {escape(str(out))}/ (jobs.csv, summary.json, timeseries.csv)")


@app.command()
def compare(scheduler: Annotated[list[str], typer.Option(
                "--scheduler", "-s", help="Schedulers to compare, comma-separated "
                "(or the option repeated).")],
            platform: PlatformOpt = None, workload: WorkloadOpt = None,
            out: Annotated[Optional[Path], typer.Option(
                help="Write each run to OUT/<scheduler>/ and OUT/comparison.csv.")] = None,
            json_output: Annotated[bool, typer.Option(
                "--json", help="Print the metrics as JSON instead of a table.")] = False,
            seed: SeedOpt = 0, horizon: HorizonOpt = None, strict: StrictOpt = False,
            swf_placement: PlacementOpt = "auto", reference_speed: ReferenceOpt = None,
            estimate_factor: EstimateOpt = 1.0, quiet: QuietOpt = False) -> None:
    """Run several schedulers on the same inputs and compare their metrics side by side."""
    with user_errors():
        inputs = make_inputs(platform, workload, seed, horizon, strict, swf_placement,
                             reference_speed, estimate_factor)
        specs = split_specs(scheduler)
        for spec in specs:
            create(spec)
        plat, work = inputs.load()
        if not quiet:
            warn(input_warnings(plat, work))
        runs: dict[str, dict[str, float | int]] = {}
        for spec in specs:
            result = simulate_spec(spec, plat, work, inputs, quiet or json_output)
            runs[spec] = run_values(summarize(result), result.wall_seconds)
            if out is not None:
                write_run(result, out / safe_name(spec), inputs.options())
        if out is not None:
            write_comparison_csv(runs, out / "comparison.csv")
    if json_output:
        typer.echo(json.dumps(jsonable(runs), indent=2, allow_nan=False))
    elif not quiet:
        console = Console()
        console.print(escape(describe(plat, work)), highlight=False)
        console.print(comparison_table(runs))


@app.command("schedulers")
def list_schedulers(show_all: Annotated[bool, typer.Option(
        "--all", help="List every name of the job-node grid.")] = False) -> None:
    """List the registered schedulers."""
    Console().print(schedulers_table(entries(), JOB_SELECTION_HELP, show_all))


def _algorithm_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALGORITHMS]
    if unknown or not names:
        raise ConfigError(f"unknown ds-sim algorithm '{unknown[0] if unknown else text}' "
                          f"(choose from {', '.join(ALGORITHMS)})")
    return names


@app.command("dssim-table")
def dssim_table(
        configs: Annotated[Path, typer.Option(help="Directory of ds-sim configurations (*.xml).")],
        jobs: Annotated[Optional[Path], typer.Option(
            help="Directory of job lists <config>-jobs.xml. Default: ../jobs next to CONFIGS.")]
        = None,
        algo: Annotated[str, typer.Option(help="ds-sim algorithms, comma-separated.")]
        = ",".join(ALGORITHMS),
        reference: Annotated[Optional[Path], typer.Option(
            help="ds-sim reference results (JSON) to check every cell it covers against.")]
        = None,
        csv_out: Annotated[Optional[Path], typer.Option(
            "--csv", help="Also write every cell to this CSV file.")] = None) -> None:
    """Every configuration × ds-sim algorithm: turnaround, utilisation and cost as ds-sim reports.

    One table per metric. With --reference, every cell the file covers is checked, and any
    difference makes the exit code 1.
    """
    with user_errors():
        names = _algorithm_names(algo)
        jobs_dir = jobs or configs.parent / "jobs"
        cells = run_table(configs, jobs_dir, names)
        checked, differ = reference_mismatches(cells, reference) if reference else (0, [])
        if csv_out is not None:
            write_cells_csv(cells, csv_out)
    console = Console(width=None if sys.stdout.isatty() else 250)  # files get whole rows
    for table in dssim_tables(cells, names):
        console.print(table)
    if reference is not None:
        console.print(f"reference: {checked - len(differ)}/{checked} cells match exactly")
        for line in differ:
            console.print(f"  differs: {escape(line)}")
        if differ:
            raise typer.Exit(1)


@app.command()
def dsclient(algo: Annotated[str, typer.Option(help="ds-sim algorithm (see `hetsched "
                                                    "schedulers`, family dssim).")] = "ff",
             host: Annotated[str, typer.Option(help="ds-sim server host.")] = "127.0.0.1",
             port: Annotated[int, typer.Option(help="ds-sim server port.")] = 50000,
             jobn_order: Annotated[JobnOrder, typer.Option(
                 "--jobn-order", help="JOBN fields: current (jobID submitTime cores memory "
                 "disk estRuntime) or legacy (submitTime jobID estRuntime cores memory disk, "
                 "ds-sim before 2024).")] = JobnOrder.CURRENT,
             user: Annotated[str, typer.Option(help="Name sent with AUTH.")] = "hetsched",
             system: Annotated[Optional[Path], typer.Option(
                 help="The ds-system.xml the server wrote (boot times for lwt).")] = None,
             timeout: Annotated[float, typer.Option(
                 help="Seconds to wait for the server before giving up.")] = 60.0) -> None:
    """Act as the scheduler of a running ds-sim server (started with -n, newline mode).

    The algorithms are the same code the emulation (run, compare, dssim-table) uses.
    """
    with user_errors():
        name = _algorithm_names(algo)[0]
        dispatched = run_client(name, host, port, jobn_order, user, system, timeout)
    typer.echo(f"{name}: dispatched {dispatched} jobs; the ds-sim server ended the run")

app.command("map")(map_command)
app.add_typer(study_app, name="study")

if __name__ == "__main__":  # pragma: no cover
    app()
