"""What ``run`` and ``compare`` share: the inputs and options of a run, loading them, and
simulating one scheduler spec with a progress bar. Imported only by the commands that run
simulations, so ``hetsched --help`` stays fast."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.api import load_inputs, recorded_options
from hetsched.cli.errors import warn
from hetsched.errors import ConfigError
from hetsched.documents import file_stem
from hetsched.models.contention import check_contention
from hetsched.options import check_horizon, check_seed, check_walltime
from hetsched.platform.model import Platform
from hetsched.schedulers.registry import create
from hetsched.run.checks import input_warnings
from hetsched.sim.engine import ProgressCallback, simulate
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload, scale_delays
from hetsched.workload.swf import SwfOptions

#: What a trace made for a machine of another size is told when it runs on the bundled example.
BUNDLED_HINT = "the bundled example; give --platform"
#: Workloads with more jobs than this get a progress bar (when stderr is a terminal).
PROGRESS_MIN_JOBS = 2000


@dataclass(frozen=True)
class Inputs:
    """What a run simulates, and how (shared by run and compare); ``None`` paths mean the
    defaults of :func:`hetsched.api.load_inputs`."""

    platform_path: Path | None
    workload_path: Path | None
    seed: int
    horizon: float | None
    strict: bool
    swf: SwfOptions
    contention: str | None = None
    walltime: str = "auto"
    scale_delays: bool = False

    def options(self) -> dict[str, Any]:
        """How the run was configured, as recorded in ``summary.json``."""
        return {**recorded_options(self.horizon, self.strict, self.swf, self.walltime),
                "scale_delays": self.scale_delays}

    def load(self) -> tuple[Platform, Workload]:
        platform, workload = load_inputs(self.platform_path, self.workload_path, self.swf)
        if self.scale_delays:
            workload = scale_delays(workload, platform.slowest_speed)
        return platform, workload


def warn_inputs(platform: Platform, workload: Workload, quiet: bool) -> None:
    """Each input warning as one ``warning:`` line on stderr (unless ``quiet``). Commands call
    this once their runs succeeded, so that an error stays the only line on stderr."""
    if quiet:
        return
    from hetsched.examples import default_platform_path

    bundled = Path(platform.source) == default_platform_path()
    for message in input_warnings(platform, workload, BUNDLED_HINT if bundled else ""):
        warn(message)


def make_inputs(platform: Path | None, workload: Path | None, seed: int, horizon: float | None,
                strict: bool, placement: str, reference_speed: float | None,
                estimate_factor: float, contention: str | None = None,
                walltime: str = "auto", scale_delays: bool = False) -> Inputs:
    """The run's inputs, every option checked (one-line ConfigError) before any file is read."""
    swf = SwfOptions(placement=placement, reference_speed=reference_speed,
                     estimate_factor=estimate_factor, strict=strict)
    return Inputs(platform, workload, check_seed(seed), check_horizon(horizon), strict, swf,
                  check_contention(contention), check_walltime(walltime), scale_delays)


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


def simulate_spec(spec: str, platform: Platform, workload: Workload, inputs: Inputs,
                  quiet: bool) -> SimResult:
    """Run scheduler ``spec`` on the inputs (a progress bar on a terminal for big workloads)."""
    scheduler = create(spec)
    show = not quiet and sys.stderr.isatty() and len(workload.jobs) > PROGRESS_MIN_JOBS
    with progress_bar(spec, len(workload.jobs), show) as progress:
        return simulate(platform, workload, scheduler, seed=inputs.seed,
                        horizon=inputs.horizon, strict=inputs.strict, progress=progress,
                        contention=inputs.contention, walltime=inputs.walltime)


def run_values(metrics: Mapping[str, float | int], wall_seconds: float) -> dict[str, Any]:
    """``summarize`` output plus the run's wall time and simulated jobs per wall second."""
    rate = metrics["jobs"] / wall_seconds if wall_seconds > 0 else math.nan
    return {**metrics, "wall_seconds": wall_seconds, "jobs_per_second": rate}


def run_dir_name(workload: Workload, spec: str) -> str:
    """``<workload file stem>-<scheduler>``: where ``run`` writes by default."""
    return f"{file_stem(Path(workload.source))}-{safe_name(spec)}"


def describe(platform: Platform, workload: Workload) -> str:
    return (f"{workload.name} ({len(workload.jobs):,} jobs) on {platform.name} "
            f"({len(platform.nodes)} nodes, {platform.total_cores:,} cores)")

