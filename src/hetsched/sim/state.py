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
    both as of ``last_update``; ``version`` invalidates stale finish events.
    ``node_index``/``cores`` hold the allocation as arrays for vectorised bookkeeping."""

    job: Job
    allocation: tuple[tuple[int, int], ...]
    node_index: np.ndarray
    cores: np.ndarray
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
    """Per-node counters plus energy accounting. Only the engine calls the mutators.

    Free resources are numpy arrays (schedulers select nodes on them, vectorised); the
    energy integrals are Python lists because they are touched one node at a time.
    """

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
        self.total_busy_cores = 0
        self._idle_w = a.idle_w.tolist()
        self._static_w = a.static_w.tolist()
        self._dynamic_w = a.dynamic_w_per_core.tolist()
        self._busy = [0] * n
        self._power = list(self._idle_w)
        self.total_power = float(sum(self._power))
        self._last_change = [float(t0)] * n
        self._energy = [0.0] * n
        self._busy_core_s = [0.0] * n
        self._busy_s = [0.0] * n

    def _set_busy(self, node: int, delta: int, now: float) -> None:
        """Integrate ``node`` up to ``now``, then change its busy cores by ``delta``."""
        dt = now - self._last_change[node]
        busy = self._busy[node]
        if dt > 0.0:
            self._energy[node] += self._power[node] * dt
            if busy:
                self._busy_core_s[node] += busy * dt
                self._busy_s[node] += dt
        self._last_change[node] = now
        busy += delta
        self._busy[node] = busy
        self.busy_cores[node] = busy
        self.free_cores[node] -= delta
        self.total_busy_cores += delta
        power = self._static_w[node] + self._dynamic_w[node] * busy if busy else self._idle_w[node]
        self.total_power += power - self._power[node]
        self._power[node] = power

    def _change(self, run: RunningJob, sign: int, now: float) -> None:
        job = run.job
        for node, cores in run.allocation:
            self._set_busy(node, sign * cores, now)
            if job.mem_mb:
                self.free_mem[node] -= sign * cores * job.mem_mb
            if job.mem_bw_gbs:
                self.used_mem_bw[node] += sign * cores * job.mem_bw_gbs

    def occupy(self, run: RunningJob, now: float) -> None:
        self._change(run, 1, now)
        for node, _ in run.allocation:
            self.running_on[node][run.job.index] = run
        self.running[run.job.index] = run

    def release(self, run: RunningJob, now: float) -> None:
        self._change(run, -1, now)
        for node, _ in run.allocation:
            del self.running_on[node][run.job.index]
        del self.running[run.job.index]

    def close(self, now: float) -> None:
        """Integrate every node up to ``now`` (the end of the accounting window)."""
        for node in range(len(self._busy)):
            self._set_busy(node, 0, now)

    @property
    def energy_j(self) -> np.ndarray:
        return np.array(self._energy)

    @property
    def busy_core_seconds(self) -> np.ndarray:
        return np.array(self._busy_core_s)

    @property
    def busy_seconds(self) -> np.ndarray:
        return np.array(self._busy_s)

    def fits(self, node: int, cores: int, job: Job) -> bool:
        return bool(self.free_cores[node] >= cores and self.free_mem[node] >= cores * job.mem_mb)
