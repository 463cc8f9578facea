"""The ``policy`` action space: IRMaSim's (job selection, node selection) pairs, or wait.

Action ``j * 8 + r`` picks the ``j``-th of IRMaSim's job selections and the ``r``-th of its
resource selections (:data:`PAIRS`, in the orders of
:data:`hetsched.schedulers.irmasim.JOB_SELECTIONS` and ``RESOURCE_SELECTIONS``); the last
action waits. The pair decides the next start as ``irmasim_heuristic`` with those selections
would: the pending job first by the job key (ties in arrival order) starts, its tasks dealt
round robin over the first ``nodes`` viable nodes by the node key. A pair is allowed when that
job can start now. Everything else is the Heuristic manager's (this driver is one, with the pair
chosen per start): its rejections at submission, its memory rule, and its two passes at an
instant with both submissions and completions (first on the resources as they were before the
completions; "wait" ends a pass). So a constant pair gives ``irmasim_heuristic``'s run,
except that the ``random`` job key is drawn from a stream of its own (the driver draws every
job's random key at submission, whatever the pair), not the run's.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

import numpy as np

from hetsched.gym.turns import WAIT, Driver
from hetsched.schedulers.irmasim import JOB_SELECTIONS, RESOURCE_SELECTIONS, IrmasimHeuristic
from hetsched.schedulers.placement import largest
from hetsched.sim.protocol import Decision, Events, Start
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

#: The actions' pairs, in action order.
PAIRS: tuple[tuple[str, str], ...] = tuple((job, node) for job in JOB_SELECTIONS
                                           for node in RESOURCE_SELECTIONS)


class PolicyDriver(IrmasimHeuristic, Driver):
    """IRMaSim's Heuristic manager with the (job, node) selection pair chosen per start."""

    name = "gym_policy"
    size = len(PAIRS) + 1

    def __init__(self) -> None:
        super().__init__()

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        self.heaps: dict[str, list[tuple[float, int, Job]]] = {key: [] for key in JOB_SELECTIONS}
        self.shares: list[tuple[int, int]] = []  # (share per node, index): the narrowest first
        self.key_rng = np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0])
        self.reset_mask()
        self.events = Events()
        super().reset(view, rng)

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        self.events = events  # (for resume)
        return super().decide(now, events)

    def checkpoint(self) -> tuple:
        return (self.rng.bit_generator.state, self.key_rng.bit_generator.state,
                {key: list(heap) for key, heap in self.heaps.items()}, list(self.shares),
                dict(self.layout_nodes),
                dict(self.placed), self.held_cores.copy(), self.held_mem.copy(), self.holding,
                self.pending_at_reset, self.events)

    def restore(self, view: ClusterView, state: tuple) -> None:
        self.view = view
        (self.rng.bit_generator.state, self.key_rng.bit_generator.state, heaps, shares,
         layout_nodes, placed, held_cores, held_mem, self.holding, self.pending_at_reset,
         self.events) = state
        self.shares = list(shares)
        self.heaps = {key: list(heap) for key, heap in heaps.items()}
        self.layout_nodes, self.placed = dict(layout_nodes), dict(placed)
        self.held_cores, self.held_mem = held_cores.copy(), held_mem.copy()

    def resume(self, now: float) -> Iterator[Decision | Any]:
        """The rest of the instant's passes (its first, while the finished jobs' resources
        are still held, if it was taken then)."""
        return self.passes(self.events)

    def enqueue(self, job: Job) -> None:
        """Queue ``job`` by every job key (its random one drawn now, from a stream of its
        own), and by its share per node."""
        drawn = float(self.key_rng.random())
        for selection, key in JOB_SELECTIONS.items():
            value = drawn if key is None else float(key(job))
            heapq.heappush(self.heaps[selection], (value, job.index, job))
        heapq.heappush(self.shares, (self.per_node(job), job.index))

    def head(self, selection: str) -> Job | None:
        """The pending job first by ``selection`` (jobs started meanwhile dropped)."""
        heap = _dropped(self.heaps[selection], self.layout_nodes)
        return heap[0][2] if heap else None

    def schedule(self) -> Iterator[Decision]:
        while True:
            action = yield from self.turn(self._mask())
            if action == WAIT:
                return
            job_selection, node_selection = PAIRS[action]
            job = self.head(job_selection)
            assert job is not None, "masked action taken"
            allocation = self.layout(job, node_selection)
            assert allocation is not None, "masked action taken"
            del self.layout_nodes[job.index]
            self.started(job, allocation)
            yield Start(job, allocation)

    def _mask(self) -> np.ndarray | None:
        """The pairs whose job can start now (``None``: none; whether it can does not depend
        on the node selection: only the order of the viable nodes does). A job whose share
        per node exceeds every node's free slots cannot (no fit check needed: memory,
        reservations and the cores held in a first pass only lower them)."""
        most = largest(self.view.free_slots)
        narrowest = _dropped(self.shares, self.layout_nodes)
        if not narrowest or narrowest[0][0] > most:
            return None  # no pending job has room on any node: no head to look at
        mask = None
        startable: dict[int, bool] = {}
        width = len(RESOURCE_SELECTIONS)
        for i, selection in enumerate(JOB_SELECTIONS):
            job = self.head(selection)
            if job is None:
                continue
            if job.index not in startable:
                startable[job.index] = self.per_node(job) <= most and self.can_start(job)
            if startable[job.index]:
                if mask is None:
                    mask = np.zeros(self.size, dtype=np.int8)
                    mask[-1] = 1
                mask[i * width:(i + 1) * width] = 1
        return mask

    def describe(self, action: int) -> str:
        if action == len(PAIRS):
            return f"action {action} (wait)"
        job_selection, node_selection = PAIRS[action]
        return f"action {action} (job selection {job_selection}, node selection {node_selection})"

    def why_not(self, action: int) -> str:
        job = self.head(PAIRS[action][0])
        if job is None:
            return "no job is pending"
        return (f"its job {job.id!r} needs {self.layout_nodes[job.index]} node(s) with "
                f"{self.per_node(job)} idle core(s) (and their memory) each, and fewer have them "
                "now")


def _dropped(heap: list, waiting: dict[int, int]) -> list:
    """``heap`` (of tuples whose second item is a job index) with the jobs no longer
    ``waiting`` (started) popped off its top."""
    while heap and heap[0][1] not in waiting:
        heapq.heappop(heap)
    return heap
