"""Small composable policies: which pending job goes next, and which node it prefers.

Job selections rank jobs by a key (lower first; ties in submission order), except
``random``. Node selections give a key per node (lower preferred; ties by node index),
except ``random``. Dynamic keys (free cores, memory, bandwidth) are read from the view at
the moment of placement.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping

import numpy as np

from hetsched.errors import did_you_mean
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

JobKey = Callable[[Job], float]
NodeKey = Callable[[ClusterView], np.ndarray]


# Keys are module-level functions, not lambdas: a scheduler that holds one can be pickled.
def submission_order(job: Job) -> float:
    return job.index


def shortest_first(job: Job) -> float:
    return job.req_time


def longest_first(job: Job) -> float:
    return -job.req_time


def fewest_tasks(job: Job) -> float:
    return job.ntasks


def least_memory(job: Job) -> float:
    return job.task_memory_mb


def least_bandwidth(job: Job) -> float:
    return job.mem_bw_gbs if job.mem_bw_gbs > 0 else job.mem_vol


def node_order(view: ClusterView) -> np.ndarray:
    return view.node_index


def fastest(view: ClusterView) -> np.ndarray:
    return -view.platform.arrays.speed


def most_free_slots(view: ClusterView) -> np.ndarray:
    return -view.free_slots


def most_free_memory(view: ClusterView) -> np.ndarray:
    return -view.free_mem


def most_unused_bandwidth(view: ClusterView) -> np.ndarray:
    return view.used_mem_bw - view.platform.arrays.mem_bw_gbs


def lowest_power(view: ClusterView) -> np.ndarray:
    return view.platform.arrays.full_power_w


JOB_SELECTIONS: dict[str, JobKey | None] = {
    "first": submission_order,
    "random": None,
    "shortest": shortest_first,
    "longest": longest_first,
    "smallest": fewest_tasks,
    "low_mem": least_memory,
    "low_mem_bw": least_bandwidth,
}

NODE_SELECTIONS: dict[str, NodeKey | None] = {
    "first": node_order,
    "random": None,
    "high_gflops": fastest,
    "high_cores": most_free_slots,
    "high_mem": most_free_memory,
    "high_mem_bw": most_unused_bandwidth,
    "low_power": lowest_power,
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


def known(kind: str, name: str, table: Mapping[str, object]) -> str:
    """``name`` if ``table`` has it, else a ValueError naming the ``kind`` and the choices."""
    if name not in table:
        raise ValueError(f"unknown {kind} {name!r}{did_you_mean(str(name), list(table))} "
                         f"(known: {', '.join(table)})")
    return name


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
