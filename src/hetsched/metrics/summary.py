"""Summary metrics of one run (definitions in docs/metrics.md)."""

from __future__ import annotations

import numpy as np

from hetsched.metrics.records import job_records
from hetsched.sim.result import JobState, SimResult


def _stat(values: np.ndarray, how) -> float:
    values = values[~np.isnan(values)]
    return float(how(values)) if values.size else float("nan")


def summarize(result: SimResult) -> dict[str, float | int]:
    """Every headline metric of ``result``, as plain numbers.

    Times over finished jobs. makespan = last end - first submission; utilisation = busy
    core-seconds / (total cores x makespan); energy integrates every node's power over the
    same window; EDP = energy x makespan; rental cost charges each priced node for the window.
    """
    rec = job_records(result)
    done = rec.finished
    platform = result.platform
    window = result.t_end - result.t0
    energy = float(result.node_energy_j.sum())
    busy_core_s = float(result.node_busy_core_seconds.sum())
    prices = np.array([n.type.hourly_price for n in platform.nodes])
    summary: dict[str, float | int] = {
        "jobs": len(result.workload.jobs),
        "finished": result.count(JobState.FINISHED),
        "rejected": result.count(JobState.REJECTED),
        "unfinished": result.count(JobState.UNFINISHED),
        "skipped_records": len(result.workload.skipped),
        "makespan": window,
        "mean_wait": _stat(rec.wait[done], np.mean),
        "median_wait": _stat(rec.wait[done], np.median),
        "max_wait": _stat(rec.wait[done], np.max),
        "mean_turnaround": _stat(rec.response[done], np.mean),
        "mean_slowdown": _stat(rec.slowdown[done], np.mean),
        "mean_bounded_slowdown": _stat(rec.bounded_slowdown[done], np.mean),
        "max_bounded_slowdown": _stat(rec.bounded_slowdown[done], np.max),
        "mean_het_slowdown": _stat(rec.het_slowdown[done], np.mean),
        "utilisation": busy_core_s / (platform.total_cores * window) if window > 0 else 0.0,
        "energy_j": energy,
        "edp_js": energy * window,
        "rental_cost": float(prices.sum() * window / 3600.0),
        "busy_core_seconds": busy_core_s,
    }
    return summary
