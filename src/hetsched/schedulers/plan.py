"""HEFT as a static plan in the simulator: the submitted workflow is planned once, each job on
the node of its earliest finish with the nodes' cores over time (jobs run side by side while
their threads fit its cores; :func:`hetsched.mapping.dag.heft` on
:class:`~hetsched.mapping.machines.GraphProcessors`), from the run-time estimates the
scheduler sees, without contention; the run then starts each job on its planned node once it
is released and its threads fit there, and contention decides the speed. On nodes of one core
this is classic HEFT.

Choices: the plan is made when jobs are first submitted, for those jobs (a later submission
is planned then, on its own: edges to jobs planned before are left out); a job's cost on a
node is its estimate there, and a node whose cores are fewer than the job's threads cannot
take it; there is no communication cost (the engine moves no data); a job that needs more
than one node is placed first-fit when released. Jobs on a node start in release order, not
in the plan's: the plan chooses where, the run decides when.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.mapping.dag import heft
from hetsched.mapping.graph import TaskGraph
from hetsched.schedulers.placement import place
from hetsched.sim.protocol import Decision, Events, Scheduler, Start
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


class HeftPlan(Scheduler):
    """HEFT's static plan of the submitted workflow, each job then started on its node."""

    name = "heft"
    description = ("HEFT's static plan of the submitted workflow on the nodes' cores "
                   "(estimates, no contention); each job started on its planned node once "
                   "released and its threads fit")

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.node_of: dict[int, int] = {}
        self.planned = 0

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        view = self.view
        submitted = view.submitted
        if len(submitted) > self.planned:
            self._plan([job for job in submitted[self.planned:] if job.nodes == 1])
            self.planned = len(submitted)
        for job in list(view.pending.values()):
            node = self.node_of.get(job.index)
            if node is None:
                allocation = place(job, view.free_slots, view.free_mem, view.free_disk, None,
                                   self.rng, order=view.node_index)
                if allocation is not None:
                    yield Start(job, allocation)
            elif view.fits(job, node):
                yield Start.on(job, node)

    def _plan(self, jobs: list[Job]) -> None:
        """Plan ``jobs`` (one node each) with HEFT on the nodes' cores."""
        if not jobs:
            return
        view = self.view
        cores = view.platform.arrays.cores.astype(int).tolist()
        position = {job.id: i for i, job in enumerate(jobs)}
        cost = np.array([[view.speed.estimate(job, node) for node in range(len(cores))]
                         for job in jobs])
        edges = tuple((position[parent], i, 0.0) for i, job in enumerate(jobs)
                      for parent in job.parents if parent in position)
        schedule = heft(TaskGraph(cost, edges), cores, [job.ntasks for job in jobs])
        for job, node in zip(jobs, schedule.processor.tolist()):
            self.node_of[job.index] = node
