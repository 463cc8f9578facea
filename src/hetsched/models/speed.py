"""How long a job takes on a node, and what the scheduler may estimate beforehand.

Run time of a task on a core of speed ``s``: ``req_ops / (ipc * s)``. A job spread over several
nodes ends with its slowest node's tasks (without contention: ``req_ops / (ipc * slowest)``).
Estimates scale the user's ``req_time`` (given for the slowest node type) by speed:
``req_time * slowest_speed / s`` — the scheduler never sees ``req_ops``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hetsched.platform.model import Platform
from hetsched.workload.model import Job


def run_time(job: Job, speed: float) -> float:
    """Uncontended run time of ``job`` when its slowest core has ``speed`` ops/s."""
    return job.req_ops / (job.ipc * speed)


@dataclass(frozen=True)
class SpeedModel:
    """Run times and estimates of jobs on the nodes of one platform."""

    platform: Platform

    def run_time(self, job: Job, node: int) -> float:
        return run_time(job, float(self.platform.arrays.speed[node]))

    def estimate(self, job: Job, node: int) -> float:
        """The scheduler-visible run-time estimate of ``job`` on ``node``."""
        return self.estimate_at_speed(job, float(self.platform.arrays.speed[node]))

    def estimates(self, job: Job) -> np.ndarray:
        """The estimate of ``job`` on every node (one value per node)."""
        return job.req_time * self.platform.slowest_speed / self.platform.arrays.speed

    def estimate_at_speed(self, job: Job, speed: float) -> float:
        return job.req_time * self.platform.slowest_speed / speed

    def base_time(self, job: Job) -> float:
        """Run time alone on the slowest node type (heterogeneous slowdown's denominator)."""
        return run_time(job, self.platform.slowest_speed)
