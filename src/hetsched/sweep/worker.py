"""What a worker process does: run a task (a chunk of runs on the same platform and workload,
which travel with it, so workers read no input file), each run caught on its own: one failing
run (bad scheduler code, an impossible decision, a strict-mode error) becomes a one-line error
in its row and never stops the others. Workers write nothing: every result goes back to the
sweep's process, the only one that writes the store."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hetsched.errors import HetschedError, describe_exception
from hetsched.platform.model import Platform
from hetsched.sweep.grid import RunSpec
from hetsched.sweep.packing import Packed
from hetsched.workload.model import Workload


@dataclass(frozen=True)
class Task:
    """Runs to do on one platform and one workload (part), both packed."""

    platform: Packed
    workload: Packed
    runs: list[RunSpec]


@dataclass(frozen=True)
class Outcome:
    """A run's result: ``status`` ``ok`` with every summary metric and ``wall_seconds`` (the
    simulation's), or ``error`` with one line; ``run_seconds`` is the whole run in the worker
    (scheduler, simulation, metrics, job records); ``jobs``: per-job rows when asked for."""

    status: str
    error: str | None = None
    metrics: dict[str, float | int] = field(default_factory=dict)
    run_seconds: float = 0.0
    jobs: list[tuple[Any, ...]] | None = None


def failed(error: str, run_seconds: float = 0.0) -> Outcome:
    return Outcome("error", " ".join(error.split()), run_seconds=run_seconds)


def run_task(task: Task, job_records: bool) -> list[Outcome]:
    """The outcome of each run of ``task``, in order."""
    platform, workload = task.platform.unpack(), task.workload.unpack()
    return [execute(run, platform, workload, job_records) for run in task.runs]


def execute(run: RunSpec, platform: Platform, workload: Workload, job_records: bool) -> Outcome:
    """``run`` on its (already loaded) inputs; input warnings are the sweep's, given once up
    front, so the worker gives none."""
    from hetsched.metrics import summarize
    from hetsched.run.execute import run_simulation

    began = time.perf_counter()
    try:
        result = run_simulation(platform, workload, run.scheduler.spec, run.seed, run.options,
                                timeseries=False)
        metrics = {**summarize(result), "wall_seconds": result.wall_seconds}
        jobs = job_rows(result) if job_records else None
    except Exception as err:  # noqa: BLE001 - any failure of one run is recorded, not raised
        message = str(err) if isinstance(err, HetschedError) else describe_exception(err)
        return failed(message, time.perf_counter() - began)
    return Outcome("ok", None, metrics, time.perf_counter() - began, jobs)


def job_rows(result: Any) -> list[tuple[Any, ...]]:
    """One tuple per job: the columns of ``jobs.csv`` (:data:`hetsched.output.COLUMNS`)."""
    from hetsched.output import COLUMNS
    from hetsched.output.jobs_csv import job_columns

    columns = job_columns(result)
    return list(zip(*(_plain(columns[name]) for name in COLUMNS)))


def _plain(column: Any) -> list[Any]:
    return column.tolist() if hasattr(column, "tolist") else list(column)
