"""How long a job takes on a node, and what the scheduler may estimate beforehand.

A task on a core of speed ``s`` progresses at ``rate = ipc * s`` operations per second and
takes ``req_ops / rate`` seconds. A job spread over several nodes ends with its slowest node's
tasks (without contention: ``req_ops / (ipc * slowest)``). Estimates scale the user's
``req_time`` (given for the slowest node type) by speed: ``req_time * slowest_speed / s`` —
the scheduler never sees ``req_ops``.

A job with ``fixed_duration`` (Batsim's ``delay``) takes the same time on every node: its rate
is ``ipc`` whatever the node's speed (``req_ops`` is then ``ipc`` times its duration in
seconds), and its estimate is ``req_time`` on every node. :func:`node_speed` is that one rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    from hetsched.platform.model import Platform
    from hetsched.workload.model import Job

#: A number, or a numpy array of them.
Number = TypeVar("Number", float, np.ndarray)


def node_speed(fixed_duration: bool, speed: float) -> float:
    """The speed a job sees on a core of ``speed`` ops/s: 1 for a fixed-duration job."""
    return 1.0 if fixed_duration else speed


def seconds(ops: Number, ipc: Number, speed: Number) -> Number:
    """How long ``ops`` operations take at ``ipc`` on a core of ``speed`` ops/s: ``ops / (ipc ·
    speed)`` (numbers or numpy arrays, elementwise)."""
    return ops / (ipc * speed)


def work(duration: Number, ipc: Number, speed: Number) -> Number:
    """The operations done in ``duration`` seconds at ``ipc`` on a core of ``speed`` ops/s (the
    inverse of :func:`seconds`)."""
    return duration * ipc * speed


def on_slowest(duration: Number, speed: float, slowest: float) -> Number:
    """``duration`` seconds on a core of ``speed`` ops/s, as seconds on the platform's
    ``slowest`` core (where a job's estimate is given: ``req_time``)."""
    return seconds(work(duration, 1.0, speed), 1.0, slowest)


def rate(job: Job, speed: float) -> float:
    """Operations per second of one of ``job``'s tasks on a core of ``speed`` (uncontended)."""
    return job.ipc * node_speed(job.fixed_duration, speed)


def run_time(job: Job, speed: float) -> float:
    """Uncontended run time of ``job`` when its slowest core has ``speed`` ops/s."""
    return seconds(job.req_ops, job.ipc, node_speed(job.fixed_duration, speed))


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
        speeds = self.platform.arrays.speed
        if job.fixed_duration:
            return np.full(speeds.shape, job.req_time)
        return job.req_time * self.platform.slowest_speed / speeds

    def estimate_at_speed(self, job: Job, speed: float) -> float:
        if job.fixed_duration:
            return job.req_time
        return job.req_time * self.platform.slowest_speed / speed

    def base_time(self, job: Job) -> float:
        """Run time alone on the slowest node type (heterogeneous slowdown's denominator)."""
        return run_time(job, self.platform.slowest_speed)
