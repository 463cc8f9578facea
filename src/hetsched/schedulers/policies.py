"""Small composable policies: which pending job goes next, and which node it prefers.

Job selections rank jobs by a key (lower first; ties in submission order), except
``random``. Node selections give a key per node (lower preferred; ties by node index),
except ``random``. Dynamic keys (free cores, memory, bandwidth) are read from the view at
the moment of placement.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

JobKey = Callable[[Job], float]
NodeKey = Callable[[ClusterView], np.ndarray]

JOB_SELECTIONS: dict[str, JobKey | None] = {
    "first": lambda job: job.index,
    "random": None,
    "shortest": lambda job: job.req_time,
    "longest": lambda job: -job.req_time,
    "smallest": lambda job: job.ntasks,
    "low_mem": lambda job: job.mem_mb,
    "low_mem_bw": lambda job: job.mem_bw_gbs if job.mem_bw_gbs > 0 else job.mem_vol,
}

NODE_SELECTIONS: dict[str, NodeKey | None] = {
    "first": lambda view: view.node_index,
    "random": None,
    "high_gflops": lambda view: -view.platform.arrays.speed,
    "high_cores": lambda view: -view.free_cores,
    "high_mem": lambda view: -view.free_mem,
    "high_mem_bw": lambda view: view.used_mem_bw - view.platform.arrays.mem_bw_gbs,
    "low_power": lambda view: view.platform.arrays.full_power_w,
}

#: Node selections whose key depends only on the platform: computed once per run.
STATIC_NODE_SELECTIONS = frozenset({"first", "high_gflops", "low_power"})

JOB_SELECTION_HELP = {
    "first": "submission order (FCFS)",
    "random": "a uniformly random pending job",
    "shortest": "smallest requested time first",
    "longest": "largest requested time first",
    "smallest": "fewest tasks (cores) first",
    "low_mem": "least memory per task first",
    "low_mem_bw": "least memory bandwidth (or memory volume) per task first",
}

NODE_SELECTION_HELP = {
    "first": "lowest node index",
    "random": "a uniformly random node that fits",
    "high_gflops": "fastest cores (clock x ops/cycle)",
    "high_cores": "most free cores",
    "high_mem": "most free memory",
    "high_mem_bw": "most unused memory bandwidth",
    "low_power": "lowest full-load power",
}


class JobQueue:
    """Pending jobs ordered by a job selection; ``peek`` is O(1), ``pop`` O(log n)."""

    def __init__(self, selection: str, rng: np.random.Generator) -> None:
        self.key = JOB_SELECTIONS[selection]
        self.rng = rng
        self.heap: list[tuple[float, int, Job]] = []
        self.items: list[Job] = []  # random selection: unordered bag
        self.chosen = -1

    def __len__(self) -> int:
        return len(self.items) if self.key is None else len(self.heap)

    def push(self, job: Job) -> None:
        if self.key is None:
            self.items.append(job)
        else:
            heapq.heappush(self.heap, (self.key(job), job.index, job))

    def peek(self) -> Job:
        if self.key is not None:
            return self.heap[0][2]
        self.chosen = int(self.rng.integers(len(self.items)))
        return self.items[self.chosen]

    def pop(self) -> Job:
        """Remove the job the last ``peek`` returned."""
        if self.key is not None:
            return heapq.heappop(self.heap)[2]
        self.items[self.chosen], self.items[-1] = self.items[-1], self.items[self.chosen]
        return self.items.pop()
