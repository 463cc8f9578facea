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
released. Each node runs its planned jobs in the plan's order (the earlier plan first, then
by planned start, then parents first): a job starts once it is released,
fits on its node and every job planned before it on that node has started (or ended without
running: rejected with a parent that failed); the jobs no plan places are placed first-fit
after the planned ones. The plan chooses where and in which order, the run decides when. So
with exact estimates and no contention the run is the plan, job by job (the textbook graphs
and random ones: tests/test_taskgraph_workloads.py); where estimates are wrong or contention
slows jobs, a node waits for its next planned job as a static schedule does (``heft_replan``
plans again at each release). No job waits for itself: each waits only for jobs planned to
start earlier (its parents and its node's earlier jobs).
"""

from __future__ import annotations

import heapq
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
        self.order: dict[int, tuple[int, float, int]] = {}  # by job: its place in the plans
        self.queues: dict[int, list[tuple[tuple[int, float, int], int]]] = {}  # by node: heap
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
        last = (self.plans, math.inf, 0)  # the jobs no plan places
        for job in sorted(view.pending.values(), key=lambda j: self.order.get(j.index, last)):
            node = self.node_of.get(job.index)
            if node is None:
                allocation = place(job, view.free_slots_for(job), view.free_mem,
                                   view.free_disk, None, self.rng, order=view.node_index)
            else:
                allocation = ((node, job.ntasks),) if self._next_on(node) == job.index \
                    and view.fits(job, node) else None
            if allocation is not None:
                self.started.add(job.index)
                yield Start(job, allocation)

    def _next_on(self, node: int) -> int | None:
        """The job planned next on ``node``: the earliest in the plans' order of those not
        started and not ended there."""
        queue, view, jobs = self.queues.get(node), self.view, self.view.submitted
        while queue and (queue[0][1] in self.started or view.ended(jobs[queue[0][1]])):
            heapq.heappop(queue)
        return queue[0][1] if queue else None

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
        graph = TaskGraph(cost, edges)
        schedule = PLANS[self.heuristic](graph, cores, [job.ntasks for job in tasks], fixed)
        topological = {task: rank for rank, task in enumerate(graph.order)}
        self.plans += 1
        if self.replan:  # the jobs planned again leave their former places
            self.queues = {}
        for i, (job, node, start) in enumerate(zip(
                jobs, schedule.processor[len(running):].tolist(),
                schedule.start[len(running):].tolist()), start=len(running)):
            self.node_of[job.index] = node
            # ties (zero-length jobs) in topological order: a parent before its children
            self.order[job.index] = key = (self.plans, start, topological[i])
            heapq.heappush(self.queues.setdefault(node, []), (key, job.index))
