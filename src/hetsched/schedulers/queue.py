"""Queue policies without backfilling: the job-selection x node-selection grid.

The selected job starts on the preferred node(s) where it fits now; when it does not fit,
scheduling stops until the next event (no job overtakes it). FCFS is ``first`` x ``first``;
HighGFlops and LowPower are ``first`` x ``high_gflops`` / ``low_power``.

The grid is modelled on IRMaSim's Heuristic manager but is not it: a job is placed as its
``nodes`` field says (one node, exactly k nodes split evenly, or any nodes), memory is checked,
any pending job is selected afresh each time (``random``) and nodes are ranked by hetsched's
keys (``first`` is the node index, ``high_mem`` the most free memory, ``high_mem_bw`` the most
unused bandwidth). FCFS is not IRMaSim's Minimal either, whose tasks straddle the first idle
cores of the platform whatever the job's ``nodes``. IRMaSim's own managers are
:mod:`hetsched.schedulers.irmasim` (``irmasim_minimal``, ``irmasim_heuristic``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.sim.protocol import Decision, Events, Scheduler, Start
from hetsched.schedulers.placement import place
from hetsched.schedulers.policies import (JOB_SELECTION_HELP, JOB_SELECTIONS,
                                          NODE_SELECTION_HELP, NODE_SELECTIONS,
                                          STATIC_NODE_SELECTIONS, JobQueue, known)
from hetsched.sim.view import ClusterView


class NodePreference:
    """Evaluates a node selection on the live view (a static one once per platform)."""

    def __init__(self, selection: str) -> None:
        self.selection = known("node selection", selection, NODE_SELECTIONS)
        self.key_of = NODE_SELECTIONS[selection]
        self.static = selection in STATIC_NODE_SELECTIONS
        self._platform: object = None
        self._key: np.ndarray | None = None
        self._order: np.ndarray | None = None

    def key(self, view: ClusterView) -> np.ndarray | None:
        if self.key_of is None:
            return None
        if not self.static:
            return self.key_of(view)
        if self._platform is not view.platform:
            self._platform, self._key = view.platform, self.key_of(view)
            self._order = np.argsort(self._key, kind="stable")
        return self._key

    def order(self, view: ClusterView) -> np.ndarray | None:
        """The nodes in preference order for a static selection (``None`` otherwise)."""
        if not self.static:
            return None
        self.key(view)  # ranks the nodes of a new platform
        return self._order


#: What the queue policies with names of their own do (the others' texts come from the
#: selections' help).
NAMED = {
    "fcfs": "FCFS: queue head to the lowest-index node(s) where it fits now, honouring its "
            "nodes and memory (not IRMaSim's Minimal, which straddles any idle cores: "
            "irmasim_minimal)",
    "high_gflops": "FCFS order; fastest node with enough idle cores",
    "low_power": "FCFS order; lowest full-load power node with enough idle cores",
}


class QueuePolicy(Scheduler):
    """Starts jobs in ``job_selection`` order on ``node_selection``'s preferred nodes."""

    @classmethod
    def describe(cls, name: str, job_selection: str = "first",
                 node_selection: str = "first") -> str:
        """One line about the scheduler registered as ``name`` with these selections."""
        return NAMED.get(name) or (
            f"jobs: {JOB_SELECTION_HELP[job_selection]}; nodes: "
            f"{NODE_SELECTION_HELP[node_selection]} (not IRMaSim's Heuristic: honours the "
            "job's nodes and memory; see irmasim_heuristic)")

    def __init__(self, job_selection: str = "first", node_selection: str = "first") -> None:
        self.job_selection = known("job selection", job_selection, JOB_SELECTIONS)
        self.node_selection = known("node selection", node_selection, NODE_SELECTIONS)
        self.name = f"{job_selection}-{node_selection}"  # type: ignore[misc]

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.nodes = NodePreference(self.node_selection)
        self.queue = JobQueue(self.job_selection, rng)
        for job in view.pending.values():  # a fork's pending jobs
            self.queue.push(job)

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        for job in events.arrived:
            self.queue.push(job)
        view = self.view
        while len(self.queue):
            job = self.queue.peek()
            if job.ntasks > view.total_free_slots:  # cannot fit anywhere: no need to look
                return
            allocation = place(job, view.free_slots_for(job), view.free_mem, view.free_disk,
                               self.nodes.key(view), self.rng, order=self.nodes.order(view))
            if allocation is None:
                return
            self.queue.pop()
            yield Start(job, allocation)
