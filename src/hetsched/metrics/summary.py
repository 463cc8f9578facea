"""Summary metrics of one run (definitions in docs/metrics.md)."""

from __future__ import annotations

import math

import numpy as np

from hetsched.metrics.records import JobRecords, job_records
from hetsched.platform.model import SECONDS_PER_HOUR
from hetsched.sim.result import JobState, SimResult


def median(values: np.ndarray) -> float:
    """The median (the mean of the two middle values of an even count), as ``numpy.median``
    computes it; ``numpy.median`` imports ``numpy.ma``, 20 ms of every run's start-up."""
    n = values.size
    middle = np.partition(values, [(n - 1) // 2, n // 2])
    return float((middle[(n - 1) // 2] + middle[n // 2]) / 2)


def _stat(values: np.ndarray, how) -> float:
    values = values[~np.isnan(values)]
    return float(how(values)) if values.size else float("nan")


def rental_cost(result: SimResult) -> float:
    """Charged seconds x hourly price / 3600, summed over nodes. Nodes are charged for the
    whole window unless the driver reports per-node charged seconds (on-demand nodes). NaN
    (absent, not a misleading 0) when no node has a price."""
    prices = np.array([n.type.hourly_price for n in result.platform.nodes])
    if not prices.any():
        return math.nan
    if result.node_charged_seconds is None:
        return float(prices.sum() * (result.t_end - result.t0) / SECONDS_PER_HOUR)
    return float(prices @ result.node_charged_seconds / SECONDS_PER_HOUR)


def failed_kills(result: SimResult) -> float:
    """Jobs killed by node failures; NaN (no value: the tables leave the row out) for a run
    without failures (the platform's and those given to the engine) that killed none."""
    count = result.count(JobState.FAILED)
    return count if count or _may_fail(result) else float("nan")


def requeued(result: SimResult) -> float:
    """Attempts killed by failures and requeued; NaN as for :func:`failed_kills`."""
    count = sum(entry.killed for entry in result.requeued.values())
    return count if count or _may_fail(result) else float("nan")


def work_lost(result: SimResult) -> float:
    """Core-seconds of the attempts failures killed: the requeued ones and the last attempts
    of the jobs they ended; NaN as for :func:`failed_kills`."""
    failed = np.flatnonzero(result.state == JobState.FAILED).tolist()
    lost = sum(entry.work_lost for entry in result.requeued.values()) + sum(
        (result.end[i] - result.start[i]) * sum(cores for _, cores in result.allocation[i])
        for i in failed)
    return float(lost) if failed or result.requeued or _may_fail(result) else float("nan")


def _may_fail(result: SimResult) -> bool:
    return bool(result.failures)


def dssim_turnaround(result: SimResult, wait: np.ndarray, run: np.ndarray) -> float:
    """ds-sim's average turnaround: mean wait and mean execution, each truncated to whole
    seconds, then added (NaN without finished jobs, and for always-on platforms)."""
    if wait.size == 0 or result.node_charged_seconds is None:
        return float("nan")
    return float(math.floor(wait.sum() / wait.size) + math.floor(run.sum() / run.size))


def dssim_utilisation(result: SimResult) -> float:
    """ds-sim's utilisation (a fraction; ds-sim prints it in percent): per used node busy
    seconds / charged seconds, averaged unweighted over the nodes charged for any time (NaN
    for always-on platforms)."""
    if result.node_charged_seconds is None:
        return float("nan")
    charged = result.node_charged_seconds
    used = charged > 0
    if not used.any():
        return float("nan")
    return float(np.mean(result.node_busy_seconds[used] / charged[used]))


def total_energy(result: SimResult) -> float:
    """Joules used by every node over the window; NaN when energy was not measured."""
    return float(result.node_energy_j.sum()) if result.node_energy_j is not None else math.nan


def summarize(result: SimResult, records: JobRecords | None = None) -> dict[str, float | int]:
    """Every headline metric of ``result``, as plain numbers.

    Times over finished jobs. makespan = last end - first submission; utilisation = busy
    core-seconds / (total cores x makespan); energy integrates every node's power over the
    same window (NaN without a power model); EDP = energy x makespan; rental cost = sum over
    nodes of charged seconds x hourly price / 3600 (charged: the window, or what the driver
    reports for on-demand nodes); total cost = what every job paid (``job_costs``), mean cost
    = its mean over finished jobs. Keys, in order, and units:
    :data:`hetsched.metrics.catalogue.SUMMARY`. ``records``: the run's
    :func:`~hetsched.metrics.records.job_records`, if already computed.
    """
    rec = records or job_records(result)
    done = rec.finished
    platform = result.platform
    window = result.t_end - result.t0
    energy = total_energy(result)
    busy_core_s = float(result.node_busy_core_seconds.sum())
    not_submitted = int(np.count_nonzero(result.not_submitted))
    summary: dict[str, float | int] = {
        "jobs": len(result.workload.jobs),
        "finished": result.count(JobState.FINISHED),
        "rejected": result.count(JobState.REJECTED),
        "unfinished": int(np.count_nonzero(result.ended_in(JobState.UNFINISHED))),
        "not_submitted": not_submitted,
        "killed": result.count(JobState.KILLED),
        "failed_kills": failed_kills(result),
        "requeued": requeued(result),
        "work_lost": work_lost(result),
        "skipped_records": len(result.workload.skipped),
        "makespan": window,
        "mean_wait": _stat(rec.wait[done], np.mean),
        "median_wait": _stat(rec.wait[done], median),
        "max_wait": _stat(rec.wait[done], np.max),
        "mean_turnaround": _stat(rec.response[done], np.mean),
        "mean_slowdown": _stat(rec.slowdown[done], np.mean),
        "mean_bounded_slowdown": _stat(rec.bounded_slowdown[done], np.mean),
        "max_bounded_slowdown": _stat(rec.bounded_slowdown[done], np.max),
        "mean_het_slowdown": _stat(rec.het_slowdown[done], np.mean),
        "utilisation": busy_core_s / (platform.total_cores * window) if window > 0 else 0.0,
        "energy_j": energy,
        "edp_js": energy * window,
        "rental_cost": rental_cost(result),
        "total_cost": _stat(rec.cost, np.sum),
        "mean_cost": _stat(rec.cost[done], np.mean),
        "busy_core_seconds": busy_core_s,
        "dssim_turnaround": dssim_turnaround(result, rec.wait[done], rec.run[done]),
        "dssim_utilisation": dssim_utilisation(result),
    }
    return summary
