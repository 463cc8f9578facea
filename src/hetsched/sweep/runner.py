"""A sweep from start to end: read the sweep file, expand the grid, leave out the runs the
store already holds, run the others on an executor (in tasks that carry their platform and
workload part, loaded here) and store each task's results as it ends. The command line
(``hetsched sweep``) and :func:`run_sweep` share it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hetsched.errors import ConfigError, option_name
from hetsched.sweep.executors import (ChunkSizer, DaskPool, Executor, LocalPool, chunks,
                                      execute)
from hetsched.sweep.grid import RunSpec, expand
from hetsched.sweep.inputs import packed_part, packed_platform
from hetsched.sweep.spec import Sweep, load_sweep
from hetsched.sweep.store import finished_keys, write, writing
from hetsched.sweep.worker import Task

#: ``progress(done, total, failed)`` after each chunk of runs.
Progress = Callable[[int, int, int], None]


@dataclass(frozen=True)
class Plan:
    """What a sweep will do: the grid's runs, and those not yet in the store."""

    sweep: Sweep
    store: Path
    runs: list[RunSpec]
    pending: list[RunSpec]
    warnings: list[str]


@dataclass(frozen=True)
class Tally:
    """What a sweep did: runs done now (ok, failed), wall time, workers."""

    ok: int
    failed: int
    seconds: float
    workers: int


def default_store(spec: str | Path) -> Path:
    """``<sweep file stem>.sqlite`` in the current directory."""
    from hetsched.documents import file_stem

    return Path(f"{file_stem(spec)}.sqlite")


def plan_sweep(spec: str | Path, store: str | Path | None = None,
               retry_failed: bool = False) -> Plan:
    """Check the sweep file and its inputs, expand the grid, open (or create) the store."""
    sweep = load_sweep(spec)
    runs, warnings = expand(sweep)
    path = Path(store) if store is not None else default_store(spec)
    with writing(path) as conn:
        done = finished_keys(conn, sweep.job_records, retry_failed)
    return Plan(sweep, path, runs, [run for run in runs if run.key not in done], warnings)


def check_executor(workers: int | None, dask: str | None) -> int:
    """The number of workers (default: one per CPU), once the options are checked."""
    count = workers if workers is not None else os.cpu_count() or 1
    if count < 1:
        raise ConfigError(f"workers must be at least 1, got {count}")
    if dask is not None and not dask.strip():
        raise ConfigError(f"{option_name('dask')} needs 'local' or a scheduler's address")
    return count


@contextmanager
def executor(workers: int | None = None, dask: str | None = None) -> Iterator[Executor]:
    """A local pool of ``workers`` processes (default: one per CPU), or a Dask cluster
    (``dask="local"``: a local one of ``workers`` processes; else a scheduler's address)."""
    count = check_executor(workers, dask)
    with (DaskPool(dask, count) if dask is not None else LocalPool(count)) as pool:
        yield pool


def run_plan(plan: Plan, workers: int | None = None, dask: str | None = None,
             progress: Progress | None = None) -> Tally:
    """Run the pending runs of ``plan`` (see :func:`executor`), storing each chunk's results
    as soon as it ends."""
    if not plan.pending:
        return Tally(0, 0, 0.0, 0)
    ok = failed = 0
    began = time.perf_counter()
    with executor(workers, dask) as pool, writing(plan.store) as conn:
        size = ChunkSizer()
        tasks = (Task(packed_platform(chunk[0].platform), packed_part(*chunk[0].inputs), chunk)
                 for chunk in chunks(plan.pending, size))
        for results in execute(pool, tasks, plan.sweep.job_records):
            write(conn, results)
            size.observe(outcome for _, outcome in results)
            bad = sum(outcome.status != "ok" for _, outcome in results)
            ok, failed = ok + len(results) - bad, failed + bad
            if progress is not None:
                progress(ok + failed, len(plan.pending), failed)
        return Tally(ok, failed, time.perf_counter() - began, pool.workers)


def run_sweep(spec: str | Path, store: str | Path | None = None, *,
              workers: int | None = None, dask: str | None = None,
              retry_failed: bool = False) -> Tally:
    """Run the sweep file ``spec`` into ``store`` (default ``<spec stem>.sqlite``): the runs
    not already there, on ``workers`` local processes or a Dask cluster (``dask``). Input
    warnings are issued as :class:`~hetsched.errors.InputWarning`."""
    import warnings

    from hetsched.errors import InputWarning

    check_executor(workers, dask)
    plan = plan_sweep(spec, store, retry_failed)
    for message in plan.warnings:
        warnings.warn(message, InputWarning, stacklevel=2)
    return run_plan(plan, workers, dask)
