"""The node availability a run's options add to its platform's own: failures from a trace
file (``failures``) and a trace drawn from the run's seed (``failure_mtbf``,
``failure_mttr``), and the availability changes of a Batsim events file (``batsim_events``).

They become the platform's failures (``Platform.failures``) and availability changes
(``Platform.availability``), so that the result, its metrics, the invariants checker and the
figures see them as they see a native file's.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from hetsched.models.speed import SpeedModel
from hetsched.platform.batsim_events import with_batsim_events
from hetsched.platform.failure_trace import read_failure_trace
from hetsched.platform.failures import generate_failures
from hetsched.platform.model import Platform
from hetsched.run.options import RunOptions
from hetsched.workload.model import Workload

#: Which child of the run seed's ``SeedSequence`` a drawn trace comes from (child 0 is the
#: contention model's: :func:`hetsched.sim.engine.model_generator`).
TRACE_STREAM = 1


def with_run_availability(platform: Platform, workload: Workload, options: RunOptions,
                          seed: int) -> Platform:
    """``platform`` with the failures and availability changes ``options`` add (itself when
    they add none)."""
    if options.batsim_events:
        platform = with_batsim_events(platform, Path(options.batsim_events))
    added = read_failure_trace(options.failures, platform) if options.failures else ()
    if options.failure_mtbf is not None:
        stream = np.random.SeedSequence(seed).spawn(TRACE_STREAM + 1)[TRACE_STREAM]
        added += generate_failures(platform, options.failure_mtbf, options.failure_mttr,
                                   trace_horizon(platform, workload, options.horizon), stream)
    return replace(platform, failures=(*platform.failures, *added)) if added else platform


def trace_horizon(platform: Platform, workload: Workload, horizon: float | None) -> float:
    """Up to when a drawn trace has failures: the run's horizon, else the workload's last
    submission plus its longest job alone on the slowest node type (at least 1 s)."""
    if horizon is not None:
        return max(horizon, 1.0)
    base_time = SpeedModel(platform).base_time
    jobs = workload.jobs
    longest = max((t for job in jobs if math.isfinite(t := base_time(job))), default=0.0)
    return max(max((job.submit for job in jobs), default=0.0) + longest, 1.0)
