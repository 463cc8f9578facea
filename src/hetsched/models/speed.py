"""How long a job takes on a node, and what the scheduler may estimate beforehand.

A task on a core of speed ``s`` progresses at ``rate = ipc * s`` operations per second and
takes ``req_ops / rate`` seconds. A job spread over several nodes ends with its slowest node's
tasks (without contention: ``req_ops / (ipc * slowest)``). Estimates scale the user's
``req_time`` (given for the slowest node type) by speed: ``req_time * slowest_speed / s`` —
the scheduler never sees ``req_ops``.

A job with ``fixed_duration`` (Batsim's ``delay``) takes the same time on every node: its rate
is ``ipc`` whatever the node's speed (``req_ops`` is then ``ipc`` times its duration in
seconds), and its estimate is ``req_time`` on every node. :func:`node_speed` is that one rule
(:func:`rate`, on every start, applies it inline).

A job with an ETC row (``Job.etc``: seconds per node type, the textbook DAGs' unrelated costs)
takes, on a node of type ``t``, the row's time there (``Job.etc_time(t)``) whatever the node's
speed, ``ipc`` or ``fixed_duration``: its rate is ``req_ops / etc_time(t)``, and its estimate
there is that time too (the costs a scheduler plans with). A type the row does not name gives
``inf`` (the job cannot run there). :func:`rate`, :func:`run_time` and :func:`estimate` are the
rules every run time, rate and estimate of the engine, its projection and the schedulers goes
through; :class:`SpeedModel` applies them to the nodes of a platform.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    from hetsched.platform.model import Platform
    from hetsched.workload.model import Job, Workload

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


def rate(job: Job, speed: float, node_type: str = "") -> float:
    """Operations per second of one of ``job``'s tasks on a core of ``speed`` ops/s of the
    node type named ``node_type`` (uncontended): ``req_ops / etc_time(node_type)`` with an ETC
    row."""
    if job.etc:
        return job.req_ops / job.etc_time(node_type)
    # node_speed's rule, inline: on every start of every job
    return job.ipc * (1.0 if job.fixed_duration else speed)


def run_time(job: Job, speed: float, node_type: str = "") -> float:
    """Uncontended run time of one of ``job``'s tasks on a core of ``speed`` ops/s of the node
    type named ``node_type`` (the row's time with an ETC row): ``req_ops`` at its
    :func:`rate` (:func:`seconds`, to the bit)."""
    if job.etc:
        return job.etc_time(node_type)
    return job.req_ops / rate(job, speed)


def estimate(job: Job, speed: float, node_type: str, slowest: float) -> float:
    """The scheduler-visible run-time estimate of ``job`` on a core of ``speed`` ops/s of the
    node type named ``node_type``, on a platform whose slowest core has ``slowest`` ops/s."""
    if job.etc:
        return job.etc_time(node_type)
    if job.fixed_duration:
        return job.req_time
    return job.req_time * slowest / speed


def missing_types(job: Job, node_types: Sequence[str]) -> list[str]:
    """The names among ``node_types`` that ``job``'s ETC row does not name (none without a
    row): where it cannot run."""
    if not job.etc:
        return []
    named = {name for name, _ in job.etc}
    return [name for name in node_types if name not in named]


@dataclass(frozen=True)
class SpeedModel:
    """Run times and estimates of jobs on the nodes of one platform."""

    platform: Platform

    @cached_property
    def speeds(self) -> list[float]:
        """Each node's core speed (ops/s), as floats."""
        return self.platform.arrays.speed.tolist()

    @cached_property
    def slowest(self) -> float:
        """The platform's slowest core speed (ops/s)."""
        return self.platform.slowest_speed

    @cached_property
    def types(self) -> list[str]:
        """Each node's node-type name."""
        return [node.type.name for node in self.platform.nodes]

    @cached_property
    def _type_of(self) -> np.ndarray:
        """Each node's position in ``platform.node_types``."""
        position = {t.name: i for i, t in enumerate(self.platform.node_types)}
        return np.array([position[name] for name in self.types], dtype=np.intp)

    def run_time(self, job: Job, node: int) -> float:
        """Uncontended run time of ``job`` on ``node``."""
        return run_time(job, self.speeds[node], self.types[node])

    def times_on(self, job: Job, nodes: Sequence[int]) -> tuple[float, float]:
        """``job``'s uncontended run time and its estimate on ``nodes``: its slowest node's
        (the lowest speed's without a row; the row's largest time there with one). On every
        start: one node is the quick case."""
        if len(nodes) == 1:
            node = nodes[0]
            speed, kind = self.speeds[node], self.types[node]
            return run_time(job, speed, kind), estimate(job, speed, kind, self.slowest)
        return self._spread_time(job, nodes, run_time), self.estimate_on(job, nodes)

    def estimate(self, job: Job, node: int) -> float:
        """The scheduler-visible run-time estimate of ``job`` on ``node``."""
        return estimate(job, self.speeds[node], self.types[node], self.slowest)

    def estimate_on(self, job: Job, nodes: Sequence[int]) -> float:
        """The estimate of ``job`` on ``nodes``: its slowest node's (as :meth:`times_on`)."""
        if len(nodes) == 1:
            return self.estimate(job, nodes[0])
        return self._spread_time(job, nodes, self._estimate)

    def _estimate(self, job: Job, speed: float, node_type: str) -> float:
        return estimate(job, speed, node_type, self.slowest)

    def _spread_time(self, job: Job, nodes: Sequence[int],
                     time: Callable[[Job, float, str], float]) -> float:
        """``time`` of ``job`` on its slowest node of ``nodes``: the longest of a row's times
        there, else the time at the lowest speed."""
        speeds, types = self.speeds, self.types
        if job.etc:
            return max(time(job, speeds[n], types[n]) for n in nodes)
        return time(job, min(speeds[n] for n in nodes), "")

    def estimates(self, job: Job) -> np.ndarray:
        """The estimate of ``job`` on every node (one value per node)."""
        speeds = self.platform.arrays.speed
        if job.etc:
            by_type = [job.etc_time(t.name) for t in self.platform.node_types]
            return np.array(by_type)[self._type_of]
        if job.fixed_duration:
            return np.full(speeds.shape, job.req_time)
        return job.req_time * self.platform.slowest_speed / speeds

    def estimate_at_speed(self, job: Job, speed: float) -> float:
        """The estimate of ``job`` on a core of ``speed``; with an ETC row (which a speed does
        not index), its longest estimate on the platform (on its slowest node type)."""
        if job.etc:
            return self.base_time(job)
        return estimate(job, speed, "", self.platform.slowest_speed)

    def least_estimate(self, job: Job) -> float:
        """The shortest estimate of ``job`` on any node (on the fastest, without a row)."""
        if job.etc:
            return min(job.etc_time(t.name) for t in self.platform.node_types)
        return estimate(job, float(self.platform.arrays.speed.max()), "",
                        self.platform.slowest_speed)

    def base_time(self, job: Job) -> float:
        """Run time alone on the slowest node type (heterogeneous slowdown's denominator):
        with an ETC row, the type on which the row makes it slowest."""
        if job.etc:
            return max(job.etc_time(t.name) for t in self.platform.node_types)
        return run_time(job, self.platform.slowest_speed)

    def base_times(self, workload: Workload) -> np.ndarray:
        """:meth:`base_time` of every job of ``workload``: :func:`run_time`'s rule by numpy
        over the workload's columns, the jobs with an ETC row one by one."""
        column = workload.column
        speed = np.where(column("fixed_duration", bool), 1.0, self.platform.slowest_speed)
        times = seconds(column("req_ops"), column("ipc"), speed)
        for index in np.flatnonzero(column("etc", bool)).tolist():
            times[index] = self.base_time(workload.jobs[index])
        return times
