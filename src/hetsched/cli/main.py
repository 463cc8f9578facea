"""The ``hetsched`` command: run, compare, sweep, results, plot, report, schedulers, map, study,
generate, convert, dssim-table, dsclient.

User errors (bad input files, unknown schedulers, bad options, unwritable output) print one
line ``error: <message>`` on stderr and exit with code 2, never a traceback
(:mod:`hetsched.cli.errors`). Each command imports what it needs when it runs, so that
``hetsched --help`` and ``hetsched run`` start fast (``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hetsched.version import __version__
from hetsched.cli.convert_cmd import convert_command
from hetsched.cli.console import (Format, FormatOpt, QuietOpt, console, print_csv,
                                  print_json, print_jsonl)
from hetsched.cli.dag_cmd import dag_command
from hetsched.cli.errors import OneLineErrors, user_errors
from hetsched.cli.generate_cmd import generate_app
from hetsched.cli.generate_platform_cmd import generate_failures, generate_platform
from hetsched.cli.map_cmd import map_command
from hetsched.cli.plot_cmd import plot_command
from hetsched.cli.report_cmd import report_command
from hetsched.cli.run_options import with_run_options
from hetsched.cli.study_cmd import study_app
from hetsched.cli.sweep_cmd import results_command, sweep_command
from hetsched.dssim.records import JobnOrder
from hetsched.options import check_seed
from hetsched.run.options import RunOptions

app = typer.Typer(cls=OneLineErrors, no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"hetsched {__version__}")
        raise typer.Exit()


@app.callback()
def hetsched(version: Annotated[bool, typer.Option(
        "--version", callback=_show_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Simulate, compare and tune job schedulers on heterogeneous clusters."""


# ---- inputs shared by run and compare (their run options: cli/run_options.py) ----------------
PlatformOpt = Annotated[Optional[Path], typer.Option(
    "--platform", "-p", help="Platform file (native JSON/YAML, IRMaSim JSON, Batsim's "
    "heterogeneous JSON, SimGrid or Batsim platform XML, ds-sim configuration XML, or a "
    "textbook task graph JSON: its processors). Default: the bundled example platform.")]
WorkloadOpt = Annotated[Optional[Path], typer.Option(
    "--workload", "-w", help="Workload file (SWF, IRMaSim/Batsim/native JSON, ds-sim job list "
    "XML, a task graph: textbook JSON or Kasahara .stg). Default: the bundled example workload "
    "(for a ds-sim configuration: the job list it names).")]
SeedOpt = Annotated[int, typer.Option(help="Seed of the scheduler's random generator "
                                           "(a whole number >= 0).")]
SchedulerHelp = ("Scheduler: a name from `hetsched schedulers`, name:key=value,... to pass "
                 "options, or path/to/file.py:ClassName[:key=value,...] for your own class.")


# ---- commands ----------------------------------------------------------------------------------
@app.command()
@with_run_options
def run(platform: PlatformOpt = None, workload: WorkloadOpt = None,
        scheduler: Annotated[str, typer.Option("--scheduler", "-s", help=SchedulerHelp)]
        = "fcfs",
        out: Annotated[Optional[Path], typer.Option(
            help="Output directory. Default: runs/<workload>-<scheduler> (a scheduler file's "
            "by its class's name).")] = None,
        seed: SeedOpt = 0, quiet: QuietOpt = False,
        output_format: Annotated[Format, FormatOpt] = Format.TABLE, *,
        options: RunOptions) -> None:
    """Simulate one scheduler: print its metrics, write jobs.csv, jobs.swf, summary.json,
    timeseries.csv (the two tables as .parquet with --table-format parquet).

    With no options: the bundled example platform and workload, with fcfs.
    """
    from hetsched.cli import running
    from hetsched.metrics import job_records, summarize
    from hetsched.output import write_run
    from hetsched.run.inputs import load_inputs
    from hetsched.schedulers.registry import create

    with user_errors():
        check_seed(seed)
        create(scheduler)  # fail fast on a bad name, before loading inputs
        with running.kept_inputs():
            plat, work = load_inputs(platform, workload, options.swf())
        result = running.simulate_spec(scheduler, plat, work, seed, options,
                                       quiet or output_format is not Format.TABLE)
        out = out or Path("runs") / running.run_dir_name(work, scheduler)
        records = job_records(result)  # once, for the files and the table
        written = write_run(result, out, options.recorded(), records)
    running.warn_inputs(plat, work, quiet)
    values = running.run_values(summarize(result, records), result.wall_seconds)
    if output_format is Format.JSON:
        print_json(values)
    elif output_format is Format.JSONL:
        print_jsonl([values])
    elif output_format is Format.CSV:
        print_csv([{"metric": key, "value": value} for key, value in values.items()])
    elif not quiet:
        from rich.markup import escape

        from hetsched.cli.tables import metrics_table

        screen = console()
        screen.print(f"{escape(scheduler)} · {escape(running.describe(plat, work))}",
                     highlight=False)
        screen.print(metrics_table(values, cut=result.makespan_cut))
        screen.print(f"wrote {escape(str(out))}/ ({', '.join(sorted(written))})")


@app.command()
@with_run_options
def compare(scheduler: Annotated[list[str], typer.Option(
                "--scheduler", "-s", help="Schedulers to compare, comma-separated (or the "
                "option repeated); each as for `run`.")],
            platform: PlatformOpt = None, workload: WorkloadOpt = None,
            out: Annotated[Optional[Path], typer.Option(
                help="Write each run to OUT/<scheduler>/ (a scheduler file's by its class's "
                "name) and OUT/comparison.csv.")] = None,
            json_output: Annotated[bool, typer.Option(
                "--json", help="Same as --format json (kept from earlier versions).")] = False,
            seed: SeedOpt = 0, quiet: QuietOpt = False,
            output_format: Annotated[Format, FormatOpt] = Format.TABLE, *,
            options: RunOptions) -> None:
    """Run several schedulers on the same inputs and compare their metrics side by side."""
    from hetsched.cli import running
    from hetsched.metrics import job_records, summarize
    from hetsched.output import write_comparison_csv, write_run
    from hetsched.run.inputs import load_inputs
    from hetsched.schedulers.registry import create

    output_format = Format.JSON if json_output else output_format
    with user_errors():
        check_seed(seed)
        specs = running.split_specs(scheduler)
        for spec in specs:
            create(spec)
        with running.kept_inputs():
            plat, work = load_inputs(platform, workload, options.swf())
        labels = dict(zip(specs, running.run_labels(specs)))
        runs: dict[str, dict[str, Any]] = {}
        cut: set[str] = set()
        for spec in specs:
            result = running.simulate_spec(spec, plat, work, seed, options,
                                           quiet or output_format is not Format.TABLE)
            records = job_records(result)  # once, for the table and the files
            runs[spec] = running.run_values(summarize(result, records), result.wall_seconds)
            if result.makespan_cut:
                cut.add(spec)
            if out is not None:
                write_run(result, out / running.safe_name(labels[spec]), options.recorded(),
                          records)
        if out is not None:
            write_comparison_csv(runs, out / "comparison.csv")
    running.warn_inputs(plat, work, quiet)
    rows = [{"scheduler": name, **values} for name, values in runs.items()]
    if output_format is Format.JSON:
        print_json(runs)
    elif output_format is Format.JSONL:
        print_jsonl(rows)
    elif output_format is Format.CSV:
        print_csv(rows)
    elif not quiet:
        from rich.markup import escape

        from hetsched.cli.tables import comparison_table

        screen = console()
        screen.print(escape(running.describe(plat, work)), highlight=False)
        screen.print(comparison_table({labels[spec]: values for spec, values in runs.items()},
                                      cut={labels[spec] for spec in cut}))


@app.command("schedulers")
def list_schedulers(
        show_all: Annotated[bool, typer.Option(
            "--all", help="List every name of the job-node grid.")] = False,
        output_format: Annotated[Format, FormatOpt] = Format.TABLE) -> None:
    """List the registered schedulers (built-in, from installed plugins)."""
    from hetsched.registries import catalogue

    with user_errors():
        registered = catalogue("scheduler")
    if output_format is not Format.TABLE:
        rows = [{"name": e.name, "family": e.family, "description": e.description,
                 "defaults": dict(e.defaults)} for e in registered]
        if output_format is Format.JSON:
            print_json(rows)
        elif output_format is Format.JSONL:
            print_jsonl(rows)
        else:
            print_csv([{**row, "defaults": ",".join(f"{k}={v}" for k, v in
                                                    row["defaults"].items())} for row in rows])
        return
    from hetsched.cli.tables import schedulers_table
    from hetsched.schedulers.policies import JOB_SELECTION_HELP

    console().print(schedulers_table(registered, JOB_SELECTION_HELP, show_all))


@app.command("dssim-table")
def dssim_table(
        configs: Annotated[Path, typer.Option(help="Directory of ds-sim configurations (*.xml).")],
        jobs: Annotated[Optional[Path], typer.Option(
            help="Directory of job lists <config>-jobs.xml. Default: ../jobs next to CONFIGS.")]
        = None,
        algo: Annotated[Optional[str], typer.Option(
            help="ds-sim algorithms, comma-separated. Default: every one.")] = None,
        reference: Annotated[Optional[Path], typer.Option(
            help="ds-sim reference results (JSON) to check every cell it covers against.")]
        = None,
        csv_out: Annotated[Optional[Path], typer.Option(
            "--csv", help="Also write every cell to this CSV file.")] = None,
        workers: Annotated[int, typer.Option(
            "--workers", "-j", help="Worker processes running the cells.", min=1)] = 1,
        ) -> None:
    """Every configuration × ds-sim algorithm: turnaround, utilisation and cost as ds-sim reports.

    One table per metric. With --reference, only the configurations the file covers are run,
    every cell it covers is checked, and any difference makes the exit code 1. On a terminal,
    a progress bar on stderr.
    """
    from rich.markup import escape

    from hetsched.cli.sweep_cmd import progress_bar
    from hetsched.cli.tables import dssim_tables
    from hetsched.experiments.dssim_table import (read_reference, reference_mismatches,
                                                  run_table, write_cells_csv)

    with user_errors():
        names = _algorithm_names(algo)
        jobs_dir = jobs or configs.parent / "jobs"
        only = set(read_reference(reference)) if reference else None
        with progress_bar(True) as bar:
            cells = run_table(configs, jobs_dir, names, workers=workers, only=only,
                              progress=None if bar is None else lambda done, total: bar(
                                  done, total, 0))
        checked, differ = reference_mismatches(cells, reference) if reference else (0, [])
        if csv_out is not None:
            write_cells_csv(cells, csv_out)
    screen = console()
    for table in dssim_tables(cells, names):
        screen.print(table)
    if reference is not None:
        screen.print(f"reference: {checked - len(differ)}/{checked} cells match exactly")
        for line in differ:
            screen.print(f"  differs: {escape(line)}")
        if differ:
            raise typer.Exit(1)


def _algorithm_names(text: str | None) -> list[str]:
    """The ds-sim algorithms named in ``text`` (all of them for ``None``)."""
    from hetsched.dssim.algorithms import ALGORITHMS
    from hetsched.errors import ConfigError

    if text is None:
        return list(ALGORITHMS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALGORITHMS]
    if unknown or not names:
        raise ConfigError(f"unknown ds-sim algorithm '{unknown[0] if unknown else text}' "
                          f"(choose from {', '.join(ALGORITHMS)})")
    return names


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
                 help="Seconds to wait for each whole message from the server before giving "
                 "up.")] = 60.0,
             deadline: Annotated[Optional[float], typer.Option(
                 help="Seconds the whole run may take: a server that never ends the run "
                 "(NONE) is left with an error then. Default: no limit.")] = None) -> None:
    """Act as the scheduler of a running ds-sim server (started with -n, newline mode).

    The algorithms are the same code simulations (run, compare, dssim-table) use.
    """
    from hetsched.dssim.client import run_client

    with user_errors():
        name = _algorithm_names(algo)[0]
        dispatched = run_client(name, host, port, jobn_order, user, system, timeout, deadline)
    typer.echo(f"{name}: dispatched {dispatched} jobs; the ds-sim server ended the run")


app.command("sweep")(sweep_command)
app.command("results")(results_command)
app.command("map")(map_command)
app.command("dag")(dag_command)
app.add_typer(generate_app, name="generate")
app.command("plot")(plot_command)
app.command("report")(report_command)
app.command("convert")(convert_command)
app.add_typer(study_app, name="study")
generate_app.command("platform")(generate_platform)
generate_app.command("failures")(generate_failures)

if __name__ == "__main__":  # pragma: no cover
    app()
