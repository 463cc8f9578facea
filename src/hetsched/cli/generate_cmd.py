"""``hetsched generate …``: synthetic inputs (``workload``: a seeded workload model's jobs;
``dag``: the same for the models that draw DAGs, written as native JSON or YAML, or a
workflow generator's WfFormat instance;
``platform``, registered from :mod:`hetsched.cli.generate_platform_cmd`: a platform from a
processor catalogue)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hetsched.cli.console import QuietOpt, console
from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError

generate_app = typer.Typer(add_completion=False, no_args_is_help=True,
                           help="Generate synthetic inputs.")

#: The format of a workflow generator's own draw: the WfFormat instance, as JSON.
WFFORMAT = "wfformat"


def parse_params(items: list[str]) -> dict[str, Any]:
    """``["jobs=10", "batch.pa=-0.01", "runtime=[1,60]"]`` -> nested parameters: each value
    read as JSON (numbers, lists, true/false), else kept as text; dots nest keys."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--param '{item}' is not key=value")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        *outer, last = key.strip().split(".")
        target = params
        for part in outer:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ConfigError(f"--param '{item}': '{part}' is not a group of parameters")
        target[last] = value
    return params


def _summary(drawn: Any, workload: Any, platform: Any, out: Path, fmt: str) -> str:
    """What was written, in one line: the jobs' count, span or dependencies, mean size and
    mean run time (a workflow's jobs' on the platform's slowest core, as its reader takes
    them; otherwise the table's)."""
    import numpy as np

    from hetsched.workload.generators import DrawnWorkflow
    from hetsched.workload.swf import COL

    if isinstance(drawn, DrawnWorkflow):
        from hetsched.models.speed import run_time

        jobs = workload.jobs
        sizes = [job.ntasks for job in jobs]
        runs = [run_time(job, platform.slowest_speed) for job in jobs]
        when = f"with {sum(len(job.parents) for job in jobs):,} dependencies"
    else:
        table = drawn.table
        sizes, runs = table[:, COL["allocated_processors"]], table[:, COL["run_time"]]
        submit = table[:, COL["submit_time"]]
        span = float(submit.max() - submit.min()) if len(submit) else 0.0
        when = f"over {span / 86400:,.2f} days"
        if "parents" in drawn.extra:
            when = f"with {sum(len(p) for p in drawn.extra['parents']):,} dependencies"
    return (f"{len(sizes):,} jobs {when}; mean size {float(np.mean(sizes)):,.2f} processors, "
            f"mean run time {float(np.mean(runs)):,.0f} s → {out} ({fmt})")


@generate_app.command("workload")
def workload(
        model: Annotated[str, typer.Option(
            "--generator", "-g", "--model", "-m", help="Generator: poisson, lublin, irmasim, "
            "dag_layered, stream or wfcommons (docs/generators.md), as a sweep file's "
            "`generator`. "
            "--model and -m are the same (kept from earlier versions; elsewhere -m is "
            "--metric).")],
        out: Annotated[Path, typer.Option("--out", "-o", help="File to write.")],
        jobs: Annotated[Optional[int], typer.Option(help="Number of jobs (the jobs "
                                                    "parameter).")] = None,
        seed: Annotated[int, typer.Option(help="Seed (a whole number >= 0).")] = 0,
        param: Annotated[Optional[list[str]], typer.Option(
            "--param", help="A model parameter, key=value (JSON values; dots for groups: "
            "batch.pa=-0.01). Repeatable.")] = None,
        platform: Annotated[Optional[Path], typer.Option(
            "--platform", "-p", help="Platform the jobs' work refers to (required but for swf: "
            "run times become req_ops on its slowest core).")] = None,
        fmt: Annotated[Optional[str], typer.Option(
            "--format", "-f", help="swf (run times in seconds, as the model draws them), or "
            "any workload format of `hetsched convert` (json, yaml, batsim, irmasim, …: what "
            "it cannot hold is a warning), or wfformat (the WfFormat instance wfcommons "
            "draws). Default: from --out's suffix as `hetsched convert` takes it (.json: "
            "native; .yaml/.yml; .xml: dssim), else swf.", show_default=False)] = None,
        quiet: QuietOpt = False,
) -> None:
    """Draw a seeded synthetic workload and write it (SWF, native or another format)."""
    from hetsched.convert import suffix_format

    with user_errors():
        text = write_generated(model, out, jobs, seed, param or [], platform,
                               fmt or suffix_format(out, "workload") or "swf")
        if not quiet:
            console().print(text, highlight=False)


@generate_app.command("dag")
def dag(
        generator: Annotated[str, typer.Option(
            "--generator", "-g", help="DAG generator: dag_layered, stream or wfcommons "
            "(a WfCommons recipe: --param recipe=montage; pip install "
            "'hetsched\\[workflows]'; docs/generators.md).")],
        out: Annotated[Path, typer.Option("--out", "-o", help="File to write.")],
        platform: Annotated[Path, typer.Option(
            "--platform", "-p", help="Platform the jobs' work refers to (run times become "
            "req_ops on its slowest core).")],
        jobs: Annotated[Optional[int], typer.Option(help="Number of jobs (the jobs "
                                                    "parameter).")] = None,
        depth: Annotated[Optional[int], typer.Option(help="Layers (the depth "
                                                     "parameter).")] = None,
        density: Annotated[Optional[float], typer.Option(
            help="Probability of an edge between two jobs of consecutive layers (the density "
            "parameter).")] = None,
        seed: Annotated[int, typer.Option(help="Seed (a whole number >= 0).")] = 0,
        param: Annotated[Optional[list[str]], typer.Option(
            "--param", help="A generator parameter, key=value (JSON values). "
            "Repeatable.")] = None,
        fmt: Annotated[str, typer.Option("--format", "-f", help="json or yaml (hetsched's "
                                         "native workload, with parents), or wfformat (the "
                                         "WfFormat instance wfcommons draws).")] = "json",
        quiet: QuietOpt = False,
) -> None:
    """Draw a seeded DAG workload (jobs with parents) and write it as a native workload (or
    the WfFormat instance a workflow generator draws)."""
    with user_errors():
        text = write_generated_dag(generator, out, platform, fmt, seed, jobs, param or [],
                                   {"depth": depth, "density": density})
        if not quiet:
            console().print(text, highlight=False)


def write_generated_dag(generator: str, out: Path, platform: Path, fmt: str, seed: int,
                        jobs: int | None, items: list[str], shape: dict[str, Any]) -> str:
    """``write_generated`` for a DAG generator, in a format that holds parents; the shape's
    options given (not ``None``) are parameters, over ``items``."""
    from hetsched.workload.generators import dag_generators, generator as find

    if not find(generator).dag:
        raise ConfigError(f"--generator {generator} draws no DAG: give one of "
                          f"{', '.join(dag_generators())} (or use `hetsched generate "
                          "workload`)")
    if fmt not in ("json", "yaml", WFFORMAT):
        raise ConfigError(f"--format {fmt}: a DAG is written as json or yaml (formats "
                          f"with parents), or as {WFFORMAT} by a workflow generator")
    given = [f"{key}={json.dumps(value)}" for key, value in shape.items() if value is not None]
    return write_generated(generator, out, jobs, seed, items + given, platform, fmt)


def write_generated(model: str, out: Path, jobs: int | None, seed: int, items: list[str],
                    platform_path: Path | None, fmt: str) -> str:
    """Draw ``model`` and write it to ``out`` in ``fmt``; the summary line. SWF gets the draw
    as is; ``wfformat`` a workflow generator's instance as is; the other formats get jobs for
    the platform (run times on its slowest core)."""
    from hetsched.options import check_seed
    from hetsched.workload.generators import check_params, draw, drawn_workload
    from hetsched.workload.swf import SwfOptions
    from hetsched.cli.errors import warn
    from hetsched.workload.writers import losses, write, writer

    chosen = None if fmt == WFFORMAT else writer(fmt)
    check_seed(seed)
    raw = parse_params(items) | ({} if jobs is None else {"jobs": jobs})
    params = check_params(model, raw, Path("--param"))
    platform = _platform(fmt, platform_path)
    drawn = draw(model, params, seed)
    header = {"Generator": model, "Seed": seed, "Parameters": params.model_dump_json()}
    workload = None
    if platform is None:
        _write_swf(model, drawn, out, header)
    else:
        workload = drawn_workload(model, seed, drawn, platform, SwfOptions(), header)
        if chosen is None:
            _write_wfformat(model, drawn, out)
        else:
            for line in losses(chosen, workload, platform):  # as `hetsched convert --lossy`
                warn(f"{out}: {line}")
            write(chosen, workload, out, platform, header)
    return _summary(drawn, workload, platform, out, fmt)


def _platform(fmt: str, path: Path | None) -> Any:
    """The platform a non-SWF output needs (``None`` for SWF)."""
    if fmt == "swf":
        return None
    if path is None:
        why = "the workflow is read as jobs on it, as `hetsched run` reads it" \
            if fmt == WFFORMAT else "the jobs' work (req_ops) depends on the platform's speed"
        raise ConfigError(f"--format {fmt} needs --platform: {why}")
    from hetsched.platform.load import load_platform

    return load_platform(path)


def _write_swf(model: str, drawn: Any, out: Path, header: dict[str, object]) -> None:
    """The draw's table as SWF, unless the model drew fields SWF cannot hold."""
    from hetsched.version import __version__
    from hetsched.workload.generators import DrawnWorkflow
    from hetsched.workload.writers.swf import write_table

    lost = ["a workflow"] if isinstance(drawn, DrawnWorkflow) else list(drawn.extra)
    if lost:
        raise ConfigError(f"generator {model} draws {', '.join(lost)}, which SWF "
                          "cannot hold: use --format json")
    table = drawn.table
    write_table(table, out, {"Note": f"generated by hetsched {__version__}; run times in "
                                     "seconds on the model's reference machine", **header,
                             "MaxJobs": len(table), "MaxRecords": len(table)})


def _write_wfformat(model: str, drawn: Any, out: Path) -> None:
    """A workflow generator's WfFormat instance, as JSON (indented as WfCommons writes it)."""
    from hetsched.workload.generators import DrawnWorkflow

    if not isinstance(drawn, DrawnWorkflow):
        raise ConfigError(f"--format {WFFORMAT}: generator {model} draws no WfFormat "
                          "workflow (wfcommons does)")
    out.write_text(json.dumps(drawn.document, indent=4) + "\n", encoding="utf-8")
