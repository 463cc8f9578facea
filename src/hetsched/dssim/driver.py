"""The simulation driver of the ds-sim algorithms: the emulated ds-sim server answered by the
algorithm (:func:`~hetsched.dssim.dispatch.dispatch`), turned into a hetsched ``SimResult``
so every output (jobs.csv, summary.json, metrics) works as for the event engine. ds-sim has
no power model, so the result carries no energy (``None``), whatever the platform says."""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable

import numpy as np

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.dssim.dispatch import dispatch
from hetsched.dssim.server import EmulatedServer
from hetsched.dssim.xml import JOBS_KEY, server_types
from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.schedulers.base import OwnDriver
from hetsched.sim.result import JobState, SimResult, TimeSeries
from hetsched.workload.model import Workload


class DsSimPolicy(OwnDriver):
    """A ds-sim algorithm run on the emulated ds-sim server (docs/dssim.md)."""

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm
        self.name = algorithm  # type: ignore[misc]

    def simulate(self, platform: Platform, workload: Workload, *, seed: int = 0,
                 horizon: float | None = None, strict: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> SimResult:
        """``seed`` is recorded (the algorithms are deterministic); ``strict`` changes nothing
        (jobs no server can run are already refused by the job-list reader)."""
        if horizon is not None:
            raise ConfigError(f"scheduler '{self.name}': ds-sim emulation runs every job to "
                              "completion; --horizon is not supported")
        jobs = workload.metadata.get(JOBS_KEY)
        if jobs is None:
            raise ConfigError(f"scheduler '{self.name}' is a ds-sim algorithm: it needs a ds-sim "
                              "job list (XML) as the workload")
        began = wallclock.perf_counter()
        server = EmulatedServer(server_types(platform), jobs, progress)
        dispatch(server, ALGORITHMS[self.algorithm]())
        return _result(self.name, seed, platform, workload, server,
                       wallclock.perf_counter() - began)


def _result(name: str, seed: int, platform: Platform, workload: Workload,
            server: EmulatedServer, wall: float) -> SimResult:
    n = len(workload.jobs)
    state = np.full(n, JobState.UNFINISHED, dtype=np.int8)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    allocation: list[tuple[tuple[int, int], ...] | None] = [None] * n
    busy_core_s = np.zeros(len(platform.nodes))
    for job in workload.jobs:
        placed = server.placed.get(int(job.id))
        if placed is None:
            continue
        state[job.index] = JobState.FINISHED
        start[job.index], end[job.index] = placed.start, placed.end
        allocation[job.index] = ((placed.server.index, job.ntasks),)
        busy_core_s[placed.server.index] += job.ntasks * placed.actual
    reason = {i: "left in ds-sim's global queue" for i in np.flatnonzero(np.isnan(start)).tolist()}
    charged = np.array([s.last_end - s.start if s.used else 0 for s in server.servers], float)
    t0 = workload.jobs[0].submit if n else 0.0
    return SimResult(
        platform=platform, workload=workload, scheduler=name, seed=seed, state=state,
        start=start, end=end, allocation=allocation, reason=reason, job_energy_j=None,
        node_energy_j=None, node_busy_core_seconds=busy_core_s,
        node_busy_seconds=np.array([s.busy for s in server.servers], float), t0=t0,
        t_end=float(np.nanmax(end)) if n and not np.isnan(end).all() else t0,
        timeseries=_timeseries(workload, start, end), wall_seconds=wall,
        node_charged_seconds=charged)


def _timeseries(workload: Workload, start: np.ndarray, end: np.ndarray) -> TimeSeries:
    """Queue length, running jobs and busy cores after each instant something happened."""
    submit = np.array([j.submit for j in workload.jobs], float)
    cores = np.array([j.ntasks for j in workload.jobs], np.int64)
    ran = ~np.isnan(start)
    times = np.unique(np.concatenate([submit, start[ran], end[ran]]))
    submitted = np.searchsorted(np.sort(submit), times, side="right")
    started = np.searchsorted(np.sort(start[ran]), times, side="right")
    ended = np.searchsorted(np.sort(end[ran]), times, side="right")
    by_start, by_end = np.argsort(start[ran]), np.argsort(end[ran])
    core_start = np.concatenate([[0], np.cumsum(cores[ran][by_start])])
    core_end = np.concatenate([[0], np.cumsum(cores[ran][by_end])])
    series = TimeSeries()
    for i, t in enumerate(times.tolist()):
        series.append(t, int(submitted[i] - started[i]), int(started[i] - ended[i]),
                      int(core_start[started[i]] - core_end[ended[i]]), 0.0)
    return series
