"""HEFT, CPOP and PEFT as static plans in the simulator (``heft``, ``cpop``, ``peft``): the
submitted workflow is planned once by the heuristic on the nodes' cores over time (jobs run side
by side while their threads fit its cores: :mod:`hetsched.mapping.dag` on
:class:`~hetsched.mapping.machines.GraphProcessors`), from the run-time estimates the scheduler
sees, without contention; the run then starts each job on its planned node once it is released
and its threads fit there, and contention decides the speed. On nodes of one core this is
classic HEFT (CPOP, PEFT).

``heft_replan`` plans again whenever jobs are released: the jobs not started yet, around the
running ones (each fixed on its node from now to its estimated end, its children's inputs
ready then).

Choices: the plan is made when jobs are first submitted, for those jobs (a later submission
is planned then, around the running jobs: edges to jobs planned before and not running are
left out); a job's cost on a
node is its estimate there, and a node whose cores are fewer than the job's threads cannot
take it, nor one whose memory or disk is too small (a job no node's cores can hold, even if
its slots can, is placed first-fit when released); there is no communication cost (the
engine moves no data); a job that needs more than one node is placed first-fit when
released. The pending jobs are tried in the plan's order (the earlier plan first, then by
planned start; ties and the jobs no plan places, which come last, in release order), each
started once it fits on its node: the plan chooses where and in which order, the run decides
when. So with exact estimates and no contention the run is the plan: on the textbook graphs,
job by job, HEFT's, CPOP's and PEFT's schedules without communication costs
(tests/test_taskgraph_workloads.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from hetsched.mapping.dag import cpop, heft, peft
from hetsched.mapping.graph import TaskGraph
from hetsched.schedulers.placement import place
from hetsched.schedulers.policies import known
from hetsched.sim.protocol import Decision, Events, Scheduler, Start
from hetsched.sim.resources import capacity
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


#: A job's planned cost on a node that can never run it (its threads exceed the node's cores,
#: or its memory or disk the node's): no plan chooses it while another node can.
NEVER = 1e30


#: The plans a workflow can be given, by heuristic.
PLANS = {"heft": heft, "cpop": cpop, "peft": peft}


class WorkflowPlan(Scheduler):
    """A static plan of the submitted workflow by ``heuristic`` (HEFT, CPOP or PEFT), each job
    then started on its node; with ``replan``, the jobs not yet started are planned again
    whenever jobs are released, around the running ones (each where it runs, until its
    estimated end)."""

    name = "heft"

    @classmethod
    def describe(cls, name: str, heuristic: str = "heft", replan: bool = False) -> str:
        when = ("planned again at every release, around the running jobs" if replan else
                "a static plan of the submitted workflow")
        return (f"{heuristic.upper()}: {when} on the nodes' cores (estimates, no contention); "
                "each job started on its planned node once released and its threads fit")

    def __init__(self, heuristic: str = "heft", replan: bool = False) -> None:
        self.heuristic = known("plan", heuristic, PLANS)
        self.replan = replan
        self.name = f"{heuristic}_replan" if replan else heuristic  # type: ignore[misc]

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.node_of: dict[int, int] = {}
        self.order: dict[int, tuple[int, float]] = {}  # by job: (plan number, planned start)
        self.plans = 0
        self.planned = 0
        self.started: set[int] = set()

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        view = self.view
        submitted = view.submitted
        if len(submitted) > self.planned or (self.replan and events is not None
                                             and events.released):
            since = 0 if self.replan else self.planned
            self._plan([job for job in submitted[since:]
                        if job.nodes == 1 and job.index not in self.started])
            self.planned = len(submitted)
        last = (self.plans, math.inf)  # the jobs no plan places
        for job in sorted(view.pending.values(), key=lambda j: self.order.get(j.index, last)):
            node = self.node_of.get(job.index)
            if node is None:
                allocation = place(job, view.free_slots_for(job), view.free_mem,
                                   view.free_disk, None, self.rng, order=view.node_index)
            else:
                allocation = ((node, job.ntasks),) if view.fits(job, node) else None
            if allocation is not None:
                self.started.add(job.index)
                yield Start(job, allocation)

    def _plan(self, jobs: list[Job]) -> None:
        """Plan ``jobs`` (one node each) with HEFT on the nodes' cores, around the running
        jobs (their parents among them)."""
        if not jobs:
            return
        view = self.view
        arrays = view.platform.arrays
        cores = arrays.cores.astype(int).tolist()
        room = {job.index: (capacity(job, arrays.slots, arrays.memory_mb, arrays.disk_mb)
                            >= job.ntasks) & (arrays.cores >= job.ntasks) for job in jobs}
        jobs = [job for job in jobs if room[job.index].any()]  # the others: first fit
        if not jobs:
            return
        running = [run for run in view.running.values() if len(run.allocation) == 1]
        tasks = [run.job for run in running] + jobs
        position = {job.id: i for i, job in enumerate(tasks)}
        cost = np.array([view.speed.estimates(job) for job in tasks])
        for i, job in enumerate(jobs, start=len(running)):  # never where it cannot fit
            cost[i, ~room[job.index]] = NEVER
        edges = tuple((position[parent], i, 0.0) for i, job in enumerate(tasks)
                      for parent in job.parents if parent in position)
        fixed = {i: (run.allocation[0][0], view.now, view.estimated_end(run))
                 for i, run in enumerate(running)}
        schedule = PLANS[self.heuristic](TaskGraph(cost, edges), cores,
                                         [job.ntasks for job in tasks], fixed)
        self.plans += 1
        for job, node, start in zip(jobs, schedule.processor[len(running):].tolist(),
                                    schedule.start[len(running):].tolist()):
            self.node_of[job.index] = node
            self.order[job.index] = (self.plans, start)
