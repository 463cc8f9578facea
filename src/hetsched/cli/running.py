"""What ``run`` and ``compare`` share: simulating one scheduler spec with a progress bar, the
input warnings in the command line's words, the names and descriptions of runs. Imported only
by the commands that run simulations, so ``hetsched --help`` stays fast."""

from __future__ import annotations

import gc
import math
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hetsched.cli.errors import warn
from hetsched.documents import file_stem
from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.run.checks import input_warnings
from hetsched.run.execute import run_simulation
from hetsched.run.options import RunOptions
from hetsched.sim.engine import ProgressCallback
from hetsched.sim.result import SimResult
from hetsched.workload.bulk import collector_paused
from hetsched.workload.model import Workload

#: What a trace made for a machine of another size is told when it runs on the bundled example.
BUNDLED_HINT = "the bundled example; give --platform"
#: Workloads with more jobs than this get a progress bar (when stderr is a terminal).
PROGRESS_MIN_JOBS = 2000


def warn_inputs(platform: Platform, workload: Workload, quiet: bool) -> None:
    """Each input warning as one ``warning:`` line on stderr (unless ``quiet``). Commands call
    this once their runs succeeded, so that an error stays the only line on stderr."""
    if quiet:
        return
    from hetsched.examples import default_platform_path

    bundled = Path(platform.source) == default_platform_path()
    for message in input_warnings(platform, workload, BUNDLED_HINT if bundled else ""):
        warn(message)


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
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)

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


@contextmanager
def kept_inputs() -> Iterator[None]:
    """Load the inputs in this block: every object alive at its end, the loaded inputs, is
    moved out of the cyclic collector's sight (``gc.freeze``) before the collector runs
    again. They live until the command ends, and each full collection during the run and the
    writing would walk a million jobs again for nothing; with the collector paused while
    they are made, not even the one collection that a million new objects call for walks
    them (0.2 s at a million jobs)."""
    with collector_paused():
        yield
        gc.freeze()


def simulate_spec(spec: str, platform: Platform, workload: Workload, seed: int,
                  options: RunOptions, quiet: bool) -> SimResult:
    """Run scheduler ``spec`` on the inputs (a progress bar on a terminal for big workloads)."""
    show = not quiet and sys.stderr.isatty() and len(workload.jobs) > PROGRESS_MIN_JOBS
    with progress_bar(spec, len(workload.jobs), show) as progress:
        return run_simulation(platform, workload, spec, seed, options, progress=progress)


def run_values(metrics: Mapping[str, float | int], wall_seconds: float) -> dict[str, Any]:
    """``summarize`` output plus the run's wall time and simulated jobs per wall second."""
    rate = metrics["jobs"] / wall_seconds if wall_seconds > 0 else math.nan
    return {**metrics, "wall_seconds": wall_seconds, "jobs_per_second": rate}


def run_dir_name(workload: Workload, spec: str) -> str:
    """``<workload file stem>-<scheduler>``: where ``run`` writes by default (a file spec's
    scheduler by its name, :func:`run_labels`)."""
    return f"{file_stem(Path(workload.source))}-{safe_name(run_labels([spec])[0])}"


def run_labels(specs: list[str]) -> list[str]:
    """What tables, ``comparison.csv`` and run directories call each spec: a scheduler file's
    by its class's ``name`` (with the spec's options), not the file's path; other specs as
    given. Names two file specs share stay their specs, so every label is unique."""
    from hetsched.schedulers.userfile import is_file_spec, load_file_spec

    def label(spec: str) -> str:
        if not is_file_spec(spec):
            return spec
        _, name, options = load_file_spec(spec)
        return f"{name}:{options}" if options else name

    labels = [label(spec) for spec in specs]
    return [lab if labels.count(lab) == 1 else spec for lab, spec in zip(labels, specs)]


def describe(platform: Platform, workload: Workload) -> str:
    return (f"{workload.name} ({len(workload.jobs):,} jobs) on {platform.name} "
            f"({len(platform.nodes)} nodes, {platform.total_cores:,} cores)")

