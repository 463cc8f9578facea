"""``hetsched generate …``: synthetic inputs (``workload``: a seeded workload model's jobs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hetsched.cli.console import console
from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError

generate_app = typer.Typer(add_completion=False, no_args_is_help=True,
                           help="Generate synthetic inputs.")


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


def _summary(table: Any, out: Path, fmt: str) -> str:
    from hetsched.workload.swf import COL

    submit = table[:, COL["submit_time"]]
    span = float(submit.max() - submit.min()) if len(submit) else 0.0
    return (f"{len(table):,} jobs over {span / 86400:,.2f} days; mean size "
            f"{table[:, COL['allocated_processors']].mean():,.2f} processors, mean run time "
            f"{table[:, COL['run_time']].mean():,.0f} s → {out} ({fmt})")


@generate_app.command("workload")
def workload(
        model: Annotated[str, typer.Option("--model", "-m", help="Generator: poisson or lublin "
                                           "(docs/generators.md).")],
        out: Annotated[Path, typer.Option("--out", "-o", help="File to write.")],
        jobs: Annotated[Optional[int], typer.Option(help="Number of jobs (the jobs "
                                                    "parameter).")] = None,
        seed: Annotated[int, typer.Option(help="Seed (a whole number >= 0).")] = 0,
        param: Annotated[Optional[list[str]], typer.Option(
            "--param", help="A model parameter, key=value (JSON values; dots for groups: "
            "batch.pa=-0.01). Repeatable.")] = None,
        platform: Annotated[Optional[Path], typer.Option(
            "--platform", "-p", help="Platform the jobs' work refers to (required for json: "
            "run times become req_ops on its slowest core).")] = None,
        fmt: Annotated[str, typer.Option("--format", "-f", help="swf (run times in seconds, "
                                         "as the model draws them) or json (native).")] = "swf",
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but "
                                            "errors.")] = False,
) -> None:
    """Draw a seeded synthetic workload and write it (SWF or native JSON)."""
    with user_errors():
        text = write_generated(model, out, jobs, seed, param or [], platform, fmt)
        if not quiet:
            console().print(text, highlight=False)


def write_generated(model: str, out: Path, jobs: int | None, seed: int, items: list[str],
                    platform_path: Path | None, fmt: str) -> str:
    """Draw ``model`` and write it to ``out`` in ``fmt``; the summary line."""
    import numpy as np

    from hetsched.options import check_seed
    from hetsched.workload.generators import check_params, generator
    from hetsched.workload.writers import writer

    chosen = writer(fmt)
    check_seed(seed)
    raw = parse_params(items) | ({} if jobs is None else {"jobs": jobs})
    params = check_params(model, raw, Path("--param"))
    if fmt != "swf" and platform_path is None:
        raise ConfigError(f"--format {fmt} needs --platform: the jobs' work (req_ops) "
                          "depends on the platform's speed")
    table = generator(model).draw(params, np.random.default_rng(seed))
    header = {"Generator": model, "Seed": seed, "Parameters": params.model_dump_json()}
    if fmt == "swf":
        from hetsched.workload.writers.swf import write_table

        write_table(table, out, _swf_header(table, header))
    else:
        from hetsched.platform.load import load_platform
        from hetsched.workload.swf import SwfOptions, table_workload

        platform = load_platform(platform_path)  # type: ignore[arg-type]
        workload = table_workload(f"{model} seed {seed}", f"generator:{model}", platform,
                                  SwfOptions(), table, header)
        chosen.write(workload, out, platform, header)
    return _summary(table, out, fmt)


def _swf_header(table: Any, header: dict[str, object]) -> dict[str, object]:
    from hetsched import __version__

    return {"Note": f"generated by hetsched {__version__}; run times in seconds on the "
                    "model's reference machine", **header,
            "MaxJobs": len(table), "MaxRecords": len(table)}
