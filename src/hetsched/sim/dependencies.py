"""Dependencies between jobs (a DAG given by ``Job.parents``): which jobs wait for which.

The graph is immutable and shared by forks; what changes during a run (how many parents each
job still waits for) is a numpy array the engine owns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hetsched.errors import InputError
from hetsched.workload.model import Workload


@dataclass(frozen=True)
class Dependencies:
    """``children[i]``: indices of the jobs waiting for job ``i`` (absent: none);
    ``parent_count[i]``: how many distinct parents job ``i`` has."""

    children: dict[int, tuple[int, ...]]
    parent_count: np.ndarray

    @staticmethod
    def of(workload: Workload) -> "Dependencies":
        children: dict[int, list[int]] = {}
        count = np.zeros(len(workload.jobs), dtype=np.int64)
        for job in workload.jobs:
            for parent in set(job.parents) if job.parents else ():
                if parent not in workload.by_id:
                    raise InputError(workload.source, f"unknown parent job '{parent}'",
                                     record=f"job '{job.id}'", field="parents")
                children.setdefault(workload.by_id[parent].index, []).append(job.index)
                count[job.index] += 1
        count.setflags(write=False)
        return Dependencies({i: tuple(c) for i, c in children.items()}, count)

    def descendants(self, index: int) -> list[tuple[int, int]]:
        """Every job that depends on job ``index``, directly or not, in breadth-first order,
        each with the parent it was reached through: ``(job, parent)`` pairs."""
        found: list[tuple[int, int]] = []
        seen = {index}
        frontier = [index]
        while frontier:
            nxt = []
            for job in frontier:
                for child in self.children.get(job, ()):
                    if child not in seen:
                        seen.add(child)
                        found.append((child, job))
                        nxt.append(child)
            frontier = nxt
        return found
