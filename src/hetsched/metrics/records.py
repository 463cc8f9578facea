"""Per-job times and slowdowns as numpy columns (NaN where a job never ran)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hetsched.metrics.costs import job_costs
from hetsched.models.speed import SpeedModel
from hetsched.sim.result import JobState, SimResult

#: Bounded-slowdown threshold (seconds).
TAU = 10.0


@dataclass(frozen=True)
class JobRecords:
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    wait: np.ndarray
    run: np.ndarray
    response: np.ndarray
    slowdown: np.ndarray
    bounded_slowdown: np.ndarray
    het_slowdown: np.ndarray
    finished: np.ndarray  # boolean mask
    cost: np.ndarray  # what the job paid for its nodes (metrics/costs.py)


def bounded_slowdown(response: np.ndarray | float, run: np.ndarray | float) -> np.ndarray:
    """``max(response / max(run, TAU), 1)``, element by element: the one definition, which
    the per-job records and the gym environment's rewards use (the latter one job at a time:
    on two floats, Python's arithmetic, a tenth of numpy's cost per call)."""
    if type(response) is float and type(run) is float:
        return max(response / max(run, TAU), 1.0)  # type: ignore[return-value]
    return np.maximum(np.divide(response, np.maximum(run, TAU)), 1.0)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (undefined, e.g. zero-length jobs)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def job_records(result: SimResult) -> JobRecords:
    """wait = start - submit; run = end - start; response = end - submit;
    slowdown = response / run; bounded = max(response / max(run, TAU), 1);
    heterogeneous slowdown = response / (run time alone on the slowest node type); cost:
    :func:`~hetsched.metrics.costs.job_costs`."""
    submit = result.workload.column("submit").copy()  # (the records' own: they may be changed)
    base = SpeedModel(result.platform).base_times(result.workload)
    wait = result.start - submit
    run = result.end - result.start
    response = result.end - submit
    return JobRecords(
        submit=submit, start=result.start, end=result.end, wait=wait, run=run,
        response=response, slowdown=_ratio(response, run),
        bounded_slowdown=bounded_slowdown(response, run),
        het_slowdown=_ratio(response, base), finished=result.state == JobState.FINISHED,
        cost=job_costs(result))
