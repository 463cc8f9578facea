"""The simple synthetic model: Poisson arrivals, log-uniform run times and sizes.

Inter-arrival times are exponential with mean ``mean_interarrival`` seconds (0: every job is
submitted at time 0, a batch), the first job arriving at 0. Run times are log-uniform in
``runtime`` = [low, high] seconds (many short jobs, few long ones, as in real logs), processor
counts log-uniform integers in ``procs`` = [low, high], and the requested time is the run time
times a factor uniform in ``estimate`` = [low, high] (>= 1: users over-estimate). Each
quantity is drawn in that order from one ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import AfterValidator, Field

from hetsched.fileio import StrictModel
from hetsched.limits import MAX_GENERATED_JOBS, MAX_TASKS, MAX_TIME
from hetsched.workload.generators import Generator
from hetsched.options import MAX_ESTIMATE_FACTOR
from hetsched.workload.swf import COL, FIELDS

def ordered(low: float, high: float) -> AfterValidator:
    """``[a, b]`` with ``low <= a <= b <= high``."""
    def check(pair: list[float]) -> list[float]:
        if not low <= pair[0] <= pair[1] <= high:
            raise ValueError(f"must be [low, high] with {low:g} <= low <= high <= {high:g}, "
                             f"got {pair}")
        return pair
    return AfterValidator(check)


Pair = Field(min_length=2, max_length=2)


class PoissonParams(StrictModel):
    jobs: Annotated[int, Field(ge=1, le=MAX_GENERATED_JOBS)]
    mean_interarrival: Annotated[float, Field(ge=0, le=MAX_TIME)]
    runtime: Annotated[list[float], Pair, ordered(1e-3, MAX_TIME)]
    procs: Annotated[list[int], Pair, ordered(1, MAX_TASKS)] = [1, 1]
    estimate: Annotated[list[float], Pair, ordered(1.0, MAX_ESTIMATE_FACTOR)] = [1.0, 1.0]


def log_uniform(rng: np.random.Generator, low: float, high: float, n: int) -> np.ndarray:
    return np.exp(rng.uniform(np.log(low), np.log(high), n))


def draw_poisson(params: PoissonParams, rng: np.random.Generator) -> np.ndarray:
    """The SWF table of ``params.jobs`` jobs (see the module's docstring)."""
    n = params.jobs
    gaps = rng.exponential(params.mean_interarrival, n) if params.mean_interarrival else \
        np.zeros(n)
    run = log_uniform(rng, *params.runtime, n)
    low, high = params.procs
    procs = np.minimum(np.floor(log_uniform(rng, low, high + 1, n)), high)
    factor = rng.uniform(*params.estimate, n)
    table = np.full((n, len(FIELDS)), -1.0)
    table[:, COL["job_number"]] = np.arange(1, n + 1)
    table[:, COL["submit_time"]] = np.cumsum(gaps) - gaps[0]
    table[:, COL["run_time"]] = run
    table[:, COL["allocated_processors"]] = procs
    table[:, COL["requested_processors"]] = procs
    table[:, COL["requested_time"]] = run * factor
    table[:, COL["status"]] = 1
    return table


GENERATORS = (
    Generator("poisson", PoissonParams, draw_poisson,
              "Poisson arrivals; log-uniform run times, processor counts; estimate factors"),
)
