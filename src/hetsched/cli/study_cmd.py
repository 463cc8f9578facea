"""``hetsched study …``: reproducible studies (tables, CSV files and bar charts)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from hetsched.cli.console import console
from hetsched.cli.errors import user_errors
from hetsched.cli.sweep_cmd import WorkersOpt, progress_bar
from hetsched.errors import ConfigError
from hetsched.experiments.trace_studies import KIT_TRACE

if TYPE_CHECKING:
    from hetsched.metrics.catalogue import Catalogue

study_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Reproducible studies from the literature.")


def _labels() -> dict[str, str]:
    """The batch-mapping study's metrics' labels, with the unit of those that have one (the
    study shows plain numbers): ``makespan (s)``, ``mean slowdown``."""
    from hetsched.experiments.batch_mapping import METRICS as STUDIED
    from hetsched.report.mpl import axis_label

    return {key: axis_label(key) for key in STUDIED}


def _table(level: str, rows: list[dict[str, Any]]) -> Any:
    from hetsched.cli.tables import new_table
    from hetsched.experiments.batch_mapping import METRICS as STUDIED
    from hetsched.metrics.catalogue import METRICS

    table = new_table("scheduler", list(_labels().values()),
                      title=f"{level} heterogeneity · mean ± std over {rows[0]['seeds']} seeds")
    best = {m: METRICS[m].direction.best(float(row[m]) for row in rows) for m in STUDIED}
    for row in rows:
        cells = []
        for m in STUDIED:
            text = f"{float(row[m]):,.1f} ± {float(row[m + '_std']):,.1f}"
            cells.append(f"[bold green]{text}[/]" if float(row[m]) == best[m] else text)
        table.add_row(str(row["scheduler"]), *cells)
    return table


@study_app.command("batch-mapping")
def batch_mapping(
        seeds: Annotated[int, typer.Option(help="Seeds 0..N-1 (platform, jobs, schedulers).")] = 5,
        schedulers: Annotated[Optional[str], typer.Option(
            "--scheduler", "-s", help="Comma-separated schedulers. Default: the thesis' nine "
            "(docs/experiments.md).")] = None,
        reference_ghz: Annotated[Optional[float], typer.Option(
            help="Clock (GHz) the requested times refer to; default: each platform's "
            "slowest node.")] = None,
        out: Annotated[Optional[Path], typer.Option(
            help="Write runs.csv, summary.csv and bars.png (needs matplotlib) here.")] = None,
) -> None:
    """512 single-task jobs at time 0 on 16 single-core nodes, low and high heterogeneity
    (the IRMaSim batch-mapping thesis study)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from hetsched.experiments.batch_mapping import (CLOCK_BANDS, SCHEDULERS, StudySettings,
                                                    aggregate, run_study)
    from hetsched.limits import MAX_CLOCK_GHZ, MIN_CLOCK_GHZ
    from hetsched.options import check_number
    from hetsched.schedulers.registry import create
    from hetsched.sweep.spec import MAX_RUNS

    with user_errors():
        if seeds < 1:
            raise ConfigError(f"--seeds must be at least 1, got {seeds}")
        if reference_ghz is not None:
            check_number("--reference-ghz", reference_ghz, minimum=MIN_CLOCK_GHZ,
                         maximum=MAX_CLOCK_GHZ)
        names = ([s.strip() for s in schedulers.split(",") if s.strip()]
                 if schedulers is not None else list(SCHEDULERS))
        if not names:
            raise ConfigError(f"--scheduler names no scheduler: {schedulers!r}")
        for name in names:
            create(name)
        settings = StudySettings(reference_ghz=reference_ghz)
        total = seeds * len(CLOCK_BANDS) * len(names)
        if total > MAX_RUNS:
            raise ConfigError(f"--seeds {seeds}: {total:,} runs, more than {MAX_RUNS:,}")
        with Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(),
                      console=console(stderr=True), transient=True) as bar:
            task = bar.add_task("runs", total=total)
            rows = run_study(range(seeds), CLOCK_BANDS, names, settings,
                             progress=lambda: bar.advance(task))
        summary = aggregate(rows)
        screen = console()
        for level in CLOCK_BANDS:
            screen.print(_table(level, [r for r in summary if r["level"] == level]))
        if out is not None:
            _write(out, rows, summary)
            screen.print(f"wrote {out}/ (runs.csv, summary.csv, bars.png)")


def _write(out: Path, rows: list[dict[str, Any]], summary: list[dict[str, Any]]) -> None:
    from hetsched.experiments.batch_mapping import CLOCK_BANDS, METRICS
    from hetsched.output import write_rows_csv
    from hetsched.report.bars import metric_bars

    out.mkdir(parents=True, exist_ok=True)
    write_rows_csv(rows, out / "runs.csv")
    write_rows_csv(summary, out / "summary.csv")
    metric_bars(summary, list(CLOCK_BANDS), METRICS, _labels(), out / "bars.png")


@study_app.command("deside")
def deside(
        out: Annotated[Path, typer.Option(help="Output directory: runs.csv, summary.csv and "
                                          "makespan.png (needs matplotlib).")],
        servers: Annotated[str, typer.Option(help="Server counts, comma-separated.")]
        = "2,3,4,5",
        seeds: Annotated[int, typer.Option(help="Seeds 0..N-1.")] = 3,
        contention: Annotated[str, typer.Option(
            help="deside (rate-based: the seeds give the same runs) or deside_stochastic "
                 "(busy and idle times drawn per 0.1 s interval, seeded: they differ).")]
        = "deside") -> None:
    """Chahal et al.'s DESiDE experiment: two STREAM-like DAGs (50 and 100 jobs) on 2-5
    servers of 56 logical cores and 80 GB/s under DESiDE's contention; SLF, LET, MOM, HEFT's
    plan and fcfs; makespans (mean and spread over the seeds) and MOM's and LET's gains over
    SLF beside the paper's."""
    from hetsched.experiments import deside as study
    from hetsched.parsing import parse_int
    from hetsched.output import write_rows_csv
    from hetsched.report.bars import makespans_by_servers

    with user_errors():
        counts = tuple(parse_int(s.strip()) for s in servers.split(",") if s.strip())
        if not counts or None in counts or min(counts) < 1:
            raise ConfigError(f"--servers takes whole numbers of servers, at least 1, "
                              f"comma-separated: got {servers!r}")
        if seeds < 1:
            raise ConfigError(f"--seeds must be at least 1, got {seeds}")
        if contention not in study.CONTENTION:
            raise ConfigError(f"--contention must be {' or '.join(study.CONTENTION)}, got "
                              f"{contention!r}")
        done = list(study.runs(counts, tuple(range(seeds)), contention=contention))
        summary = study.improvements(done)
        out.mkdir(parents=True, exist_ok=True)
        write_rows_csv([vars(r) for r in done], out / "runs.csv")
        write_rows_csv(summary, out / "summary.csv")
        makespans_by_servers(summary, out / "makespan.png")
    screen = console()
    for name in study.DAGS:
        rows = [r for r in summary if r["dag"] == name]
        screen.print(_deside_table(f"{name} under {contention}", rows))
        if seeds > 1:
            screen.print(_deside_spread(rows))
    slowest = max(done, key=lambda r: r.seconds)
    screen.print(f"simulation time per run: {sum(r.seconds for r in done) / len(done):.3f} s "
                 f"CPU on average, at most {slowest.seconds:.3f} s ({slowest.scheduler}, "
                 f"{slowest.dag}, {slowest.servers} servers)")
    screen.print(f"wrote {out}/ (runs.csv, summary.csv, makespan.png)")


def _deside_table(name: str, rows: list[dict[str, Any]]) -> Any:
    from hetsched.cli.tables import new_table

    counts = sorted({row["servers"] for row in rows})
    table = new_table("scheduler", [f"{c} servers" for c in counts],
                      title=f"{name} · makespan, and its gain over SLF (the paper's)")
    for scheduler in dict.fromkeys(row["scheduler"] for row in rows):
        cells = []
        for count in counts:
            row = next(r for r in rows if (r["scheduler"], r["servers"]) == (scheduler, count))
            gain = "" if scheduler == "slf" else f" {row['vs_slf_percent']:+.1f} %"
            paper = row["paper_vs_slf_percent"]
            cells.append(f"{row['makespan'] / 3600:.2f} h{gain}"
                         + (f" ({paper:+d} %)" if paper is not None else ""))
        table.add_row(scheduler, *cells)
    return table


def _deside_spread(rows: list[dict[str, Any]]) -> str:
    """The widest spread of the makespans over the seeds, relative to their mean."""
    widest = max(rows, key=lambda r: (r["makespan_max"] - r["makespan_min"]) / r["makespan"])
    spread = 100.0 * (widest["makespan_max"] - widest["makespan_min"]) / widest["makespan"]
    return (f"spread over the seeds (largest - smallest makespan): at most {spread:.2f} % of "
            f"the mean ({widest['scheduler']}, {widest['servers']} servers)")


DaskOpt = typer.Option(help="Run on Dask: 'local' or a scheduler's address (tcp://host:8786).")
TraceOpt = typer.Option(help="The KIT ForHLR II SWF trace (default: the project's shared "
                        "data, relative to the current directory).")


@study_app.command("node-centric")
def node_centric(
        out: Annotated[Path, typer.Option(help="Output directory: the sweep's store (resumed "
                                          "when run again), results.csv, the comparison with "
                                          "the paper and one representative week's runs.")],
        workers: Annotated[Optional[int], WorkersOpt] = None,
        dask: Annotated[Optional[str], DaskOpt] = None,
        trace: Annotated[Path, TraceOpt] = KIT_TRACE,
        weeks: Annotated[Optional[int], typer.Option(
            help="Only the first N weeks (default: all 41; with --sensitivity, the grid "
                 "file's).")] = None,
        platform: Annotated[Optional[str], typer.Option(
            help="The study's setting: 'faithful' (the default: the sensitivity sweep's "
                 "closest to the paper) or 'legacy' (the first platform, node_centric_16; "
                 "docs/experiments.md).")] = None,
        sensitivity: Annotated[bool, typer.Option(
            "--sensitivity", help="Run the sensitivity sweep instead (clock and power spread, "
            "cores per node, batching): sensitivity.csv, sensitivity_summary.csv and "
            "figures/sensitivity.png.")] = False,
        grid: Annotated[Optional[Path], typer.Option(
            help="With --sensitivity: the grid file (default: the shipped "
                 "node_centric_sensitivity.yaml).")] = None,
) -> None:
    """HighGFlops and LowPower against Min-min, Max-min and Duplex on the KIT trace's weeks,
    16 heterogeneous nodes (Stafford & Bosque, J. Supercomputing 2024)."""
    from hetsched.experiments import node_centric as study
    from hetsched.experiments.trace_studies import plan, results
    from hetsched.sweep.runner import check_executor

    with user_errors():
        check_executor(workers, dask)
        if weeks is not None and weeks < 1:
            raise ConfigError(f"--weeks must be at least 1, got {weeks}")
        if sensitivity:
            if platform is not None:
                raise ConfigError("--platform names the study's setting; --sensitivity runs "
                                  "every setting of its grid: give one of them")
            _sensitivity(out, workers, dask, trace, weeks, grid)
            return
        if grid is not None:
            raise ConfigError("--grid goes with --sensitivity")
        chosen = study.study_named(platform or study.DEFAULT)
        planned = plan(chosen, out, trace, weeks)
        _run(planned, workers, dask)
        frame = results(chosen, out, planned)
        comparison = study.compare_with_paper(frame)
        comparison.to_csv(out / study.COMPARISON, index=False)
        wins = study.weekly_wins(frame)
        wins.to_csv(out / study.WINS, index_label="scheduler")
        week, dirs = study.write_representative(planned, out)
        figures = _figures(lambda: study.write_figures(frame, week, dirs, out))
    screen = console()
    screen.print(_comparison_table(comparison, chosen.catalogue))
    screen.print(_wins_table(wins, chosen.catalogue))
    screen.print(f"wrote {out}/: results.csv ({len(frame):,} runs), {study.COMPARISON}, "
                 f"{study.WINS}, results.sqlite, week {week}'s runs in {dirs[0].parent}/"
                 + (f", {', '.join(str(p.relative_to(out)) for p in figures)}"
                    if figures else ""))


def _sensitivity(out: Path, workers: int | None, dask: str | None, trace: Path,
                 weeks: int | None, grid: Path | None) -> None:
    """The node-centric sensitivity sweep: every batching's sweep, then the changes per
    setting, the settings ranked, and the figure."""
    from hetsched.experiments import node_centric_sensitivity as sensitivity

    grid = grid or sensitivity.GRID
    plans = sensitivity.plan(out, trace, weeks, grid)
    for planned in plans:
        _run(planned, workers, dask)
    table = sensitivity.changes(out, plans, grid)
    ranked = sensitivity.summary(table, out)
    figures = _figures(lambda: sensitivity.write_figure(
        table, out, weeks or sensitivity.load_grid(grid).weeks))
    screen = console()
    screen.print(_ranking_table(ranked.head(10)))
    screen.print(f"wrote {out}/: {sensitivity.CHANGES} ({len(ranked):,} settings), "
                 f"{sensitivity.SUMMARY}, {sensitivity.STORE}"
                 + (f", {', '.join(str(p.relative_to(out)) for p in figures)}"
                    if figures else ""))


def _ranking_table(ranked: Any) -> Any:
    from hetsched.cli.tables import new_table

    names = [str(c) for c in ranked.columns[:-3]]
    table = new_table(names[0], [*names[1:], "same direction", "within 2x"],
                      title="settings closest to the paper (of "
                            f"{int(ranked['of'].iloc[0])} changes)")
    for row in ranked.itertuples(index=False):
        values = list(row)
        table.add_row(*(f"{v:g}" if isinstance(v, float) else str(v) for v in values[:-3]),
                      str(int(values[-3])), str(int(values[-2])))
    return table


def _figures(draw: Any) -> list[Path]:
    """The study's figures, or none (with a warning) without matplotlib."""
    from hetsched.cli.errors import warn

    try:
        return list(draw())
    except ConfigError as err:
        if "matplotlib" not in str(err):
            raise
        warn(f"no figures: {err}")
        return []


def _wins_table(wins: Any, catalogue: Catalogue) -> Any:
    from hetsched.cli.tables import new_table

    table = new_table("scheduler", [catalogue[c].label for c in wins.columns],
                      title="weeks won (ties count for each)")
    for name, row in wins.iterrows():
        table.add_row(str(name), *(str(int(v)) for v in row))
    return table


def _run(planned: Any, workers: int | None, dask: str | None) -> None:
    """Run the pending runs with a progress bar; a failed run is an error (a study's runs are
    all needed)."""
    from hetsched.cli.errors import warn
    from hetsched.sweep.runner import run_plan

    for message in planned.warnings:
        warn(message)
    done = len(planned.runs) - len(planned.pending)
    typer.echo(f"{len(planned.runs):,} runs, {done:,} already in {planned.store}", err=True)
    with progress_bar(True) as progress:
        tally = run_plan(planned, workers, dask, progress)
    if tally.failed:
        raise ConfigError(f"{tally.failed:,} runs failed; see `hetsched results "
                          f"{planned.store} --where status=error`")


def _comparison_table(comparison: Any, catalogue: Catalogue) -> Any:
    """One row per scheduler and metric; its two medians in the metric's unit, one unit (SI
    prefix) for both."""
    from hetsched.cli.tables import new_table
    from hetsched.metrics.formats import fmt_row

    table = new_table("scheduler", ["metric", "median", "baselines' median", "change",
                                    "paper", "same direction"],
                      title="median over weeks vs the baselines' pooled median")
    for row in comparison.itertuples():
        metric = catalogue[row.metric]
        table.add_row(row.scheduler, metric.label,
                      *fmt_row(metric.format, [row.median, row.baseline_median]),
                      f"{row.change_pct:+.1f} %", f"{row.paper_pct:+.1f} %",
                      "yes" if row.same_direction else "[red]no[/]")
    return table


@study_app.command("realistic")
def realistic(
        out: Annotated[Path, typer.Option(help="Output directory: the sweep's store (resumed "
                                          "when run again) and results.csv.")],
        workers: Annotated[Optional[int], WorkersOpt] = None,
        dask: Annotated[Optional[str], DaskOpt] = None,
        trace: Annotated[Optional[Path], typer.Option(
            help="The KIT workload (default: the project's shared data, relative to the "
                 "current directory: IRMaSim's KIT JSON, or for --variant legacy the KIT "
                 "SWF trace).")] = None,
        variant: Annotated[str, typer.Option(
            help="thesis: the thesis' platforms (its Tables 4 and 5), multi-task KIT jobs and "
                 "its own mapper and node-list rules; braun: the same with Braun's Min-min, "
                 "Max-min, Duplex, FIFO node queues and A* with a budget; legacy: the "
                 "single-core platforms and one-task jobs used before.")] = "thesis",
) -> None:
    """The batch-mapping thesis' realistic study: 5 windows of 500 KIT jobs, submit times
    rounded to 1e5 s, on the thesis' two platforms, its nine schedulers."""
    from hetsched.experiments.realistic import VARIANTS
    from hetsched.experiments.trace_studies import plan, results
    from hetsched.errors import did_you_mean
    from hetsched.sweep.runner import check_executor

    with user_errors():
        check_executor(workers, dask)
        if variant not in VARIANTS:
            raise ConfigError(f"--variant is {' or '.join(VARIANTS)}, got {variant!r}"
                              + did_you_mean(variant, list(VARIANTS)))
        study, source = VARIANTS[variant]
        suffix = None if trace is None else trace.suffix.lower()
        if suffix is not None and suffix != source.suffix:
            other = [name for name, (_, path) in VARIANTS.items() if path.suffix == suffix]
            raise ConfigError(f"--variant {variant} reads a {source.suffix} workload, got "
                              f"{trace}" + (f"; --variant {other[0]} reads {suffix} files"
                                            if other else ""))
        planned = plan(study, out, source if trace is None else trace)
        _run(planned, workers, dask)
        frame = results(study, out, planned)
    screen = console()
    means = frame.groupby(["platform", "scheduler"], sort=False).mean(numeric_only=True)
    for level in frame["platform"].unique():
        screen.print(_means_table(level, means.loc[level], frame["part"].nunique(),
                                  study.catalogue))
    screen.print(f"wrote {out}/: results.csv ({len(frame):,} runs), results.sqlite")


def _platform_title(label: str) -> str:
    """The legacy variant's platforms are heterogeneity levels; the thesis' are named."""
    return f"{label} heterogeneity" if label in ("low", "high") else label


def _means_table(level: str, means: Any, parts: int, catalogue: Catalogue) -> Any:
    """One row per scheduler; each column in one unit (SI prefix) for every scheduler."""
    from hetsched.cli.tables import new_table
    from hetsched.metrics.formats import fmt_row

    metrics = [catalogue[m] for m in ("makespan", "mean_wait", "slowdown", "bounded_slowdown")]
    table = new_table("scheduler", [m.label for m in metrics],
                      title=f"{_platform_title(level)} · mean over {parts} parts")
    columns = [fmt_row(m.format, means[m.key].tolist()) for m in metrics]
    for scheduler, *cells in zip(means.index, *columns):
        table.add_row(str(scheduler), *cells)
    return table


@study_app.command("coalloc")
def coalloc(
        out: Annotated[Path, typer.Option(help="Output directory: trials.csv, summary.csv, "
                                          "paper.csv, windows.png and cost_q.png (needs "
                                          "matplotlib).")],
        trials: Annotated[int, typer.Option(help="Environments (the paper's: 3,000).")] = 3000,
        seed: Annotated[int, typer.Option(help="Seed: trial i draws its environment from "
                                          "the seeds [seed, i].")] = 0,
        load: Annotated[str, typer.Option(help="How the pre-reserved load is drawn: "
                                          "hypergeometric or uniform (docs/coalloc.md).")]
        = "hypergeometric",
        cells: Annotated[int, typer.Option(help="The knapsack's budget resolution: the "
                                           "budget in this many cells.")] = 1000) -> None:
    """Toporkov & Yemelyanov's co-allocation experiment (ICCS 2018): windows of 7 nodes among
    100 partly reserved heterogeneous nodes within a budget, by FirstFit, MinStart, MinFinish,
    MinRuntime, MinCost, MaxQ and MultipleBest; their average start, runtime, finish, cost and
    Q beside the paper's."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from hetsched.experiments import coalloc as study

    with user_errors():
        settings = study.settings(trials, seed, load, cells)
        with Progress(TextColumn("trials"), BarColumn(), MofNCompleteColumn(),
                      console=console(stderr=True), transient=True) as bar:
            task = bar.add_task("trials", total=trials)
            done = study.run_study(trials, seed, settings, cells,
                                   progress=lambda: bar.advance(task))
        summary = study.summarize(done)
        paper = study.compare_with_paper(summary)
        written = study.write(out, done, summary, paper)
        figures = _figures(lambda: study.figures(out, summary, settings))
    screen = console()
    screen.print(_coalloc_table(summary, trials))
    screen.print(_paper_table(paper))
    searches = sum(o.seconds for o in done)
    screen.print(f"searches: {searches:.1f} s CPU for {len(done):,} "
                 f"({1000 * searches / max(1, len(done)):.2f} ms each on average)")
    screen.print(f"wrote {out}/ ({', '.join(p.name for p in (*written, *figures))})")


def _coalloc_table(summary: list[dict[str, Any]], trials: int) -> Any:
    from hetsched.cli.tables import new_table

    table = new_table("algorithm", ["start", "runtime", "finish", "cost", "Q",
                                    "starts at 0", "found", "ms per search"],
                      title=f"co-allocation · averages over {trials:,} environments "
                            f"(time units, cost units)")
    for row in summary:
        table.add_row(row["algorithm"], *(f"{row[c]:,.1f}" for c in
                                          ("start", "runtime", "finish", "cost", "q")),
                      f"{row['starts_at_zero_percent']:.0f} %", f"{row['found']:,}",
                      f"{row['ms_per_search']:.2f}")
    return table


def _paper_table(paper: list[dict[str, Any]]) -> Any:
    from hetsched.cli.tables import new_table

    table = new_table("figure", ["paper", "ours"], title="beside Toporkov & Yemelyanov's")
    for row in paper:
        table.add_row(row["figure"], f"{row['paper']:,.1f}", f"{row['ours']:,.1f}")
    return table
