"""Mutable cluster state owned by the engine: free resources, running jobs, local queues,
and the exact per-node energy / busy-time integrals."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from hetsched.platform.model import Platform
from hetsched.workload.model import Job


@dataclass(slots=True)
class RunningJob:
    """A started job. Progress is rate based: ``remaining_ops`` per task at ``rate`` ops/s,
    both as of ``last_update``; ``version`` invalidates stale finish events."""

    job: Job
    allocation: tuple[tuple[int, int], ...]
    start: float
    est_end: float
    remaining_ops: float
    rate: float
    last_update: float
    version: int = 0

    @property
    def nodes(self) -> tuple[int, ...]:
        return tuple(node for node, _ in self.allocation)

    def expected_end(self) -> float:
        return self.last_update + self.remaining_ops / self.rate


class ClusterState:
    """Per-node counters plus energy accounting. Only the engine calls the mutators."""

    def __init__(self, platform: Platform, t0: float) -> None:
        a = platform.arrays
        n = len(platform.nodes)
        self.platform = platform
        self.free_cores = a.cores.copy()
        self.free_mem = a.memory_mb.copy()
        self.used_mem_bw = np.zeros(n)
        self.busy_cores = np.zeros(n, dtype=np.int64)
        self.running_on: list[dict[int, RunningJob]] = [dict() for _ in range(n)]
        self.local_queues: list[deque[Job]] = [deque() for _ in range(n)]
        self.running: dict[int, RunningJob] = {}
        # energy and busy-time integrals, advanced lazily per node at each change
        self.power = a.idle_w.astype(float).copy()
        self.total_power = float(self.power.sum())
        self.energy_j = np.zeros(n)
        self.busy_core_seconds = np.zeros(n)
        self.busy_seconds = np.zeros(n)
        self.last_change = np.full(n, float(t0))
        self.total_busy_cores = 0

    def _advance_node(self, node: int, now: float) -> None:
        dt = now - self.last_change[node]
        if dt > 0.0:
            self.energy_j[node] += self.power[node] * dt
            busy = self.busy_cores[node]
            if busy:
                self.busy_core_seconds[node] += busy * dt
                self.busy_seconds[node] += dt
        self.last_change[node] = now

    def _set_busy(self, node: int, delta: int, now: float) -> None:
        self._advance_node(node, now)
        a = self.platform.arrays
        busy = int(self.busy_cores[node]) + delta
        self.busy_cores[node] = busy
        self.free_cores[node] -= delta
        self.total_busy_cores += delta
        new_power = a.static_w[node] + a.dynamic_w_per_core[node] * busy if busy else a.idle_w[node]
        self.total_power += new_power - self.power[node]
        self.power[node] = new_power

    def occupy(self, run: RunningJob, now: float) -> None:
        job = run.job
        for node, cores in run.allocation:
            self._set_busy(node, cores, now)
            self.free_mem[node] -= cores * job.mem_mb
            self.used_mem_bw[node] += cores * job.mem_bw_gbs
            self.running_on[node][job.index] = run
        self.running[job.index] = run

    def release(self, run: RunningJob, now: float) -> None:
        job = run.job
        for node, cores in run.allocation:
            self._set_busy(node, -cores, now)
            self.free_mem[node] += cores * job.mem_mb
            self.used_mem_bw[node] -= cores * job.mem_bw_gbs
            del self.running_on[node][job.index]
        del self.running[job.index]

    def close(self, now: float) -> None:
        """Integrate every node up to ``now`` (the end of the accounting window)."""
        for node in range(len(self.platform.nodes)):
            self._advance_node(node, now)

    def fits(self, node: int, cores: int, job: Job) -> bool:
        return bool(self.free_cores[node] >= cores and self.free_mem[node] >= cores * job.mem_mb)
