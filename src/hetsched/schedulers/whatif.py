"""Chahal, Mathew & Nambiar's placement of a batch workflow's jobs (ICPE'19, "Simulation Based
Job Scheduling Optimization for Batch Workloads", §4.2): each job is placed on a server as
soon as it is released, with no queue, and the servers may be oversubscribed; contention
decides the speed.

- ``slf`` (Smallest Load First): the server of least load ``threads on it / its cores``,
  measured now;
- ``let`` (Least Execution Time): the server where a what-if says the new job ends first;
- ``mom`` (Min of Max): the server whose last job to end, the new one included, ends first.

The what-if is :meth:`ClusterView.project`: the jobs on a server simulated forward under the
run's contention model with the new job added, nothing else starting there (the paper's
"worker simulation", done on that server alone rather than by forking the whole run).

Choices the paper leaves open: ties go to the lowest server index; jobs released together are
placed one by one in release order, each seeing the ones placed before it; a job fits a server
when its threads fit the server's slots (cores × ``oversubscription``) and memory, and a job
that fits no server now waits until one has room (the jobs after it are still placed); a job
that needs more than one node is placed by SLF's order (the what-if starts a job on one node).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.schedulers.placement import place
from hetsched.sim.protocol import Decision, Events, Scheduler, Start
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


class WhatIfPlacement(Scheduler):
    """Places pending jobs in release order, each on the fitting node of least ``score``."""

    name = "whatif"

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.cores = view.platform.arrays.cores.astype(float)

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        view = self.view
        for job in list(view.pending.values()):
            key = self.score(job, view.fit_mask(job)) if job.nodes == 1 else self.loads()
            allocation = place(job, view.free_slots_for(job), view.free_mem, view.free_disk, key,
                               self.rng)
            if allocation is not None:  # else it waits for room
                yield Start(job, allocation)

    def loads(self) -> np.ndarray:
        """Threads per core on each node, now."""
        view = self.view
        threads = [sum(view.processor_threads(n)) for n in range(len(self.cores))]
        return np.asarray(threads, dtype=float) / self.cores

    def score(self, job: Job, fits: np.ndarray) -> np.ndarray:
        """Each node's score for ``job`` (lower is better), at least where it fits."""
        return self.loads()


class SmallestLoadFirst(WhatIfPlacement):
    """SLF: the server of least load (threads on it per core), measured now."""

    name = "slf"
    description = "DESiDE's SLF: each released job on the server of least threads per core"


class Projected(WhatIfPlacement):
    """Scores each node where the job fits by a what-if of the job started there."""

    def score(self, job: Job, fits: np.ndarray) -> np.ndarray:
        key = np.full(fits.size, np.inf)
        for node in np.flatnonzero(fits).tolist():
            key[node] = self.judge(job, self.view.project(node, [job]))
        return key

    def judge(self, job: Job, ends: dict[int, float]) -> float:
        """A node's score from the predicted ends of its jobs, ``job`` started there."""
        raise NotImplementedError


class LeastExecutionTime(Projected):
    """LET: the server where the new job, run with those already there, ends first."""

    name = "let"
    description = ("DESiDE's LET: each released job on the server where a what-if under "
                   "contention says it ends first")

    def judge(self, job: Job, ends: dict[int, float]) -> float:
        return ends[job.index]


class MinOfMax(Projected):
    """MOM: the server whose last job to end, the new one included, ends first."""

    name = "mom"
    description = ("DESiDE's MOM: each released job on the server whose longest job, the "
                   "new one included, ends first by a what-if under contention")

    def judge(self, job: Job, ends: dict[int, float]) -> float:
        return max(ends.values())
