"""The ``job_node`` action space: start one of the first K pending jobs from a node, or wait.

Action ``k * nodes + n`` starts visible job ``k`` (the k-th pending job in submission order)
on node ``n``; action ``K * nodes`` waits. A job of one node runs all its tasks on ``n``. A job
of several nodes is placed from ``n`` by the spread rule: ``n`` first, then the following
nodes in index order (wrapping round to node 0), each given what it can hold of the job's
layout (exactly ``nodes`` nodes split evenly, or for ``SPREAD`` all the tasks a node has room
for), all or nothing; ``n`` must take a share. This is :func:`hetsched.schedulers.placement.place`
with the rotated node order, so from the job's lowest-index fitting node it places the job as
``fcfs`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

import numpy as np

from hetsched.gym.turns import WAIT, Driver
from hetsched.schedulers.placement import largest, place
from hetsched.sim.protocol import Decision, Events, Start
from hetsched.sim.resources import Allocation
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


def first_share(job: Job) -> int:
    """The fewest tasks the first node of the job's placement takes: all of a one-node job's,
    an even share of an exact layout's, one of a ``SPREAD`` job's."""
    if job.nodes == 1:
        return job.ntasks
    return 1 if job.spread else job.ntasks // job.nodes


class JobNodeDriver(Driver):
    """Hands each start to the agent as a (visible job, node) pair."""

    name = "gym_job_node"

    def __init__(self, visible: int = 16) -> None:
        self.visible = visible

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.nodes = len(view.platform.nodes)
        self.size = self.visible * self.nodes + 1
        order = np.arange(self.nodes)
        self.rotations = [np.roll(order, -n) for n in range(self.nodes)]
        self.jobs: list[Job] = []
        self.reset_mask()
        self.needs: dict[int, tuple[int, int]] = {}  # by job: (first share, slots in all)
        # by job of several nodes: the resources on which its layout was found not to fit
        self.blocked: dict[int, bytes] = {}

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        view = self.view
        while view.pending:
            self.jobs = jobs = list(islice(view.pending.values(), self.visible))
            action = yield from self.turn(self._mask(jobs))
            if action == WAIT:
                return
            k, node = divmod(action, self.nodes)
            yield self.start(jobs[k], node)
        self.jobs, self.mask = [], self.waiting

    def _mask(self, jobs: list[Job]) -> np.ndarray | None:
        """Which (visible job, node) pairs can start now (``None``: none), from one batched
        fit check (none, without it, when no job has the free slots it needs: on one node for
        a one-node job, in all for one of several nodes; memory, disk and reservations only
        lower them)."""
        view, needs = self.view, self.needs
        most, total = largest(view.free_slots), view.total_free_slots
        shares, spanning, possible = [], [], False
        for k, job in enumerate(jobs):  # (one Python pass: numpy costs more on 16 jobs)
            share, slots = needs.get(job.index) or self._needs(job)
            shares.append(share)
            if slots:
                spanning.append((k, slots))
            if share <= most and slots <= total:
                possible = True
        if not possible:
            return None
        fit = view.fit_matrix(jobs, shares)
        for k, slots in spanning:  # does the rest of the layout fit? (only where the first
            # share may: a row whose share exceeds every node's free slots holds no pair)
            if shares[k] <= most and (slots > total or not self._placeable(jobs[k])):
                fit[k] = False
        if not np.count_nonzero(fit):  # (quicker than fit.any() on a small array)
            return None
        mask = self.waiting.copy()
        mask[:fit.size] = fit.ravel()
        return mask

    def _needs(self, job: Job) -> tuple[int, int]:
        """The job's first share, and the slots it needs in all if it spans nodes (0 if not:
        then the share is all it needs)."""
        needs = self.needs[job.index] = (first_share(job), 0 if job.nodes == 1 else job.ntasks)
        return needs

    def _placeable(self, job: Job) -> bool:
        """Whether the spread rule places ``job`` (of several nodes) from node 0 now. Not
        tried again on the very resources on which it last failed (a pure function of
        them: a job that does not fit waits through many instants)."""
        view = self.view
        free = view.free_slots_for(job)
        resources = free.tobytes() + view.free_mem.tobytes() + view.free_disk.tobytes()
        if self.blocked.get(job.index) == resources:
            return False
        if self.placement(job, 0, free) is not None:
            return True
        self.blocked[job.index] = resources
        return False

    def checkpoint(self) -> dict:
        return self.rng.bit_generator.state

    def restore(self, view: ClusterView, state: dict) -> None:
        self.view = view
        self.rng.bit_generator.state = state
        # (both by job index: another episode's jobs may have had those indexes since)
        self.needs, self.blocked = {}, {}

    def resume(self, now: float) -> Iterator[Decision | Any]:
        """The instant's turns from the state now: they depend on nothing else."""
        return self.decide(now, Events())

    def placement(self, job: Job, node: int,
                  free: np.ndarray | None = None) -> Allocation | None:
        """Where the spread rule places ``job`` from ``node`` now (``None``: nowhere);
        ``free``: ``view.free_slots_for(job)`` if the caller has it."""
        view = self.view
        return place(job, view.free_slots_for(job) if free is None else free, view.free_mem,
                     view.free_disk, None, self.rng, order=self.rotations[node])

    def start(self, job: Job, node: int) -> Start:
        if job.nodes == 1:
            return Start.on(job, node)
        allocation = self.placement(job, node)
        assert allocation is not None and allocation[0][0] == node, "masked action taken"
        return Start(job, allocation)

    def describe(self, action: int) -> str:
        if action == self.size - 1:
            return f"action {action} (wait)"
        k, node = divmod(action, self.nodes)
        return f"action {action} (job slot {k}, node {node})"

    def why_not(self, action: int) -> str:
        k, node = divmod(action, self.nodes)
        if k >= len(self.jobs):
            return f"slot {k} holds no job ({len(self.jobs)} pending job(s) visible)"
        job, view = self.jobs[k], self.view
        cores = first_share(job)
        if not view.fit_matrix([job], [cores])[0, node]:
            return (f"job {job.id!r} needs room for {cores} task(s) on node {node}, which has "
                    f"{int(view.free_slots_for(job)[node])} free slot(s) and "
                    f"{float(view.free_mem[node]):g} MB free memory now")
        return (f"job {job.id!r} ({job.ntasks} tasks over "
                f"{'any' if job.spread else job.nodes} nodes) fits on node {node} but not on "
                "enough other nodes now")
