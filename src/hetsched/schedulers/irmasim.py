"""IRMaSim's own workload managers, Minimal and Heuristic, as hetsched schedulers.

They make IRMaSim's decisions (irmasim/workload_manager/Minimal.py and Heuristic.py) on
hetsched's engine, where the fcfs and job x node grid schedulers of
:mod:`hetsched.schedulers.queue` only resemble them (they honour the job's ``nodes`` and pick
nodes by hetsched's keys).

``irmasim_minimal`` (Minimal): FCFS. The queue head starts when the platform's idle cores add
up to its ``ntasks``; its tasks take the first idle cores in platform order (node 0's first,
then node 1's, ...), straddling nodes whatever the job's ``nodes`` (``Start.any_nodes``).
Nothing overtakes the head.

``irmasim_heuristic`` (Heuristic, options ``job_selection`` and ``node_selection``, IRMaSim's
values; ``resource_selection``, IRMaSim's name of the second, is accepted too): the pending
jobs are sorted by the job key (ties in arrival order) and only the head is tried. Viable
nodes have at least ``ceil(ntasks / nodes)`` idle cores; they are sorted by the node key (a
stable sort: ties in platform order). With fewer than ``nodes`` viable nodes the head waits;
otherwise its tasks are dealt round robin over the first ``nodes`` of them (so the first
ones get one task more when ``ntasks`` is not a multiple of ``nodes``).

Within a node the engine gives a job the node's first idle cores, lowest processor first,
which is IRMaSim's choice of core for both managers.

Where hetsched cannot or does not follow IRMaSim (each said again in the descriptions):

- Memory. IRMaSim's managers ignore it; hetsched's engine checks it. Here a node counts only
  the idle cores whose task would fit in its free memory, so a job waits while memory is
  short. Without memory requests (or with ample memory) the decisions are IRMaSim's.
- Simultaneous events. IRMaSim handles the submissions of an instant before the completions
  of that instant; hetsched's engine ends jobs first and then calls the scheduler once. Both
  managers therefore schedule the instant in two passes when both happened: first on the
  resources as they were before the ends (the finished jobs' cores, memory and bandwidth still
  held), then on the freed ones. (Within a node the engine may still hand the first pass a
  just-freed core; on nodes of one processor that makes no difference.)
- Random choices (job key ``random``, node key ``random``) draw from the run's generator, not
  from Python's ``random`` module as IRMaSim does: same distributions, other draws.
- Jobs hetsched's engine rejects at submission (e.g. ``nodes: 1`` with more tasks than the
  largest node has cores) never reach the scheduler, though Minimal would straddle them.
- Heuristic only: a job whose layout can never exist (fewer than ``nodes`` nodes with
  ``ceil(ntasks / nodes)`` cores and memory, even idle) is rejected at submission with the
  reason; IRMaSim would leave it at the head of its queue forever, blocking every job behind
  it. A job with ``nodes`` = ``SPREAD`` (IRMaSim jobs always name their nodes) is laid out on
  the fewest nodes its layout can use.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from hetsched.errors import ConfigError, did_you_mean
from hetsched.sim.protocol import Decision, Events, Reject, Scheduler, Start
from hetsched.schedulers.placement import Allocation, positive_total
from hetsched.sim.resources import capacity, footprint
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

#: IRMaSim's ``job_selections``: the key a pending job is sorted by (lower first). ``random``
#: is a uniform draw made when the job is submitted.
JOB_SELECTIONS: dict[str, Callable[[Job], float] | None] = {
    "random": None,
    "first": lambda job: job.submit,
    "shortest": lambda job: job.req_time,
    "longest": lambda job: -job.req_time,
    "smallest": lambda job: job.ntasks,
    "low_mem": lambda job: job.task_memory_mb,
    "low_mem_ops": lambda job: job.mem_vol,
}

#: IRMaSim's ``node_selections`` (lower first; ``random`` shuffles the viable nodes).
RESOURCE_SELECTIONS = ("random", "first", "high_gflops", "high_cores", "low_cores", "high_mem",
                       "high_mem_bw", "low_power")

JOB_SELECTION_HELP = {
    "random": "a random key drawn at submission",
    "first": "submission time",
    "shortest": "req_time, shortest first",
    "longest": "req_time, longest first",
    "smallest": "ntasks, fewest first",
    "low_mem": "memory per task, least first",
    "low_mem_ops": "mem_vol, least first",
}

RESOURCE_SELECTION_HELP = {
    "random": "a random order",
    "first": "IRMaSim's node id as a string ('node10' before 'node2')",
    "high_gflops": "fastest cores first",
    "high_cores": "most idle cores first",
    "low_cores": "fewest idle cores first",
    "high_mem": "most memory in use first",
    "high_mem_bw": "least memory bandwidth requested on the first processor first",
    "low_power": "lowest maximum power first",
}


def _choice(option: str, value: object, valid: Iterable[str]) -> str:
    valid = list(valid)
    if value not in valid:
        hint = did_you_mean(str(value), valid)
        raise ConfigError(f"irmasim_heuristic: unknown {option} '{value}'{hint} (choose from: "
                          f"{', '.join(valid)})")
    return str(value)


def irmasim_node_ids(view: ClusterView) -> list[str]:
    """IRMaSim's id of each node: ``node<k>``, k counting the nodes of its cluster from 0."""
    counters: dict[str, int] = {}
    ids = []
    for node in view.platform.nodes:
        k = counters.get(node.cluster, 0)
        counters[node.cluster] = k + 1
        ids.append(f"node{k}")
    return ids


class _IrmasimManager(Scheduler):
    """What both managers share: the resources each started job holds (so an instant with
    both submissions and completions can be scheduled in IRMaSim's order) and the two
    passes."""

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        n = len(view.platform.nodes)
        self.placed: dict[int, Allocation] = {i: run.allocation
                                              for i, run in view.running.items()}
        self.held_cores = np.zeros(n, dtype=np.int64)
        self.held_mem = np.zeros(n)
        self.holding = False  # in an instant's first pass: the finished jobs' resources held
        self.pending_at_reset = tuple(view.pending.values())  # a fork's: submitted first

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        if self.pending_at_reset:
            yield from self.submit(self.pending_at_reset)
            self.pending_at_reset = ()
        if events.submitted and events.finished:
            # IRMaSim: the submissions first, while the finished jobs still hold their nodes
            for job in events.finished:
                for (node, cores), memory, _ in footprint(job, self.placed[job.index]):
                    self.held_cores[node] += cores
                    self.held_mem[node] += memory
            self.holding = True
            # (released first: a job a failure requeued is submitted again, and may start)
            self.release(events.finished)
            yield from self.submit(events.submitted)
        else:
            self.release(events.finished)
            yield from self.submit(events.arrived)
        yield from self.passes(events)

    def passes(self, events: Events) -> Iterator[Decision]:
        """The instant's scheduling passes, once its jobs are submitted: first (while the
        finished jobs' resources are held) a pass on the resources as they were before the
        ends, then one on the resources now."""
        if self.holding:
            yield from self.schedule()
            self.held_cores[:] = 0
            self.held_mem[:] = 0
            self.holding = False
            yield from self.submit(events.released)  # jobs those ends released (a DAG's)
        yield from self.schedule()

    def free(self, job: Job) -> tuple[np.ndarray, np.ndarray]:
        """Idle cores (those ``job`` may take beside the reservations, on any nodes) and free
        memory per node, as IRMaSim sees them in this pass."""
        view = self.view
        slots = view.free_slots_for(job, longest=True)
        if self.holding:
            return slots - self.held_cores, view.free_mem - self.held_mem
        return slots, view.free_mem

    def started(self, job: Job, allocation: Allocation) -> None:
        self.placed[job.index] = allocation

    def release(self, jobs: Iterable[Job]) -> None:
        for job in jobs:
            self.placed.pop(job.index, None)

    def submit(self, jobs: tuple[Job, ...]) -> Iterator[Decision]:
        raise NotImplementedError

    def schedule(self) -> Iterator[Decision]:
        raise NotImplementedError


class IrmasimMinimal(_IrmasimManager):
    """IRMaSim's Minimal: FCFS; the head's tasks take the first idle cores in platform order,
    on any nodes."""

    name = "irmasim_minimal"
    description = ("IRMaSim's Minimal: FCFS, no backfilling; the head starts when the "
                   "platform's idle cores suffice and its tasks take the first idle cores in "
                   "platform order, on any nodes (its nodes ignored); memory is checked (a job "
                   "waits for it)")

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.queue: deque[Job] = deque()

    def submit(self, jobs: tuple[Job, ...]) -> Iterator[Decision]:
        self.queue.extend(jobs)
        return iter(())

    def schedule(self) -> Iterator[Decision]:
        queue = self.queue
        while queue:
            job = queue[0]
            if self.view.total_free_slots < job.ntasks:  # memory can only lower the room
                return
            free_slots, free_mem = self.free(job)
            if positive_total(free_slots) < job.ntasks:  # cores held in IRMaSim's order
                return
            room = capacity(job, free_slots, free_mem, self.view.free_disk)
            if positive_total(room) < job.ntasks:  # (a shrunken node's room is negative)
                return
            nodes = np.flatnonzero(room > 0)
            filled = np.cumsum(room[nodes])
            last = int(np.searchsorted(filled, job.ntasks))
            counts = room[nodes[:last + 1]].copy()
            counts[last] -= int(filled[last]) - job.ntasks
            allocation = tuple(zip(nodes[:last + 1].tolist(), counts.tolist()))
            queue.popleft()
            self.started(job, allocation)
            yield Start(job, allocation, any_nodes=True)


class IrmasimHeuristic(_IrmasimManager):
    """IRMaSim's Heuristic: the head by ``job_selection``, its tasks dealt round robin over
    the first ``nodes`` viable nodes by ``node_selection`` (IRMaSim's ``resource_selection``,
    a name that specs still accept)."""

    name = "irmasim_heuristic"
    aliases = {"resource_selection": "node_selection"}
    description = ("IRMaSim's Heuristic: only the head by job_selection ("
                   f"{', '.join(JOB_SELECTIONS)}) is tried; its tasks are dealt round robin "
                   "over the first <nodes> nodes with ceil(ntasks/nodes) idle cores, by "
                   f"node_selection ({', '.join(RESOURCE_SELECTIONS)}; IRMaSim's name "
                   "resource_selection works too); memory is checked")

    def __init__(self, job_selection: str = "first", node_selection: str = "first") -> None:
        self.job_selection = _choice("job_selection", job_selection, JOB_SELECTIONS)
        self.node_selection = _choice("node_selection", node_selection, RESOURCE_SELECTIONS)

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        platform = view.platform
        n = len(platform.nodes)
        self.pending: list[tuple[float, int, Job]] = []
        self.layout_nodes: dict[int, int] = {}
        # "first": IRMaSim sorts nodes by their id strings; rank them once (stable: ties
        # keep platform order)
        ids = irmasim_node_ids(view)
        order = sorted(range(n), key=ids.__getitem__)
        self.id_rank = np.empty(n)
        self.id_rank[order] = np.arange(n)

    # ---- IRMaSim's queue ------------------------------------------------------------------
    def submit(self, jobs: tuple[Job, ...]) -> Iterator[Decision]:
        for job in jobs:
            nodes = self._layout_nodes(job)
            if nodes is None:
                yield Reject(job, self._never_reason(job))
                continue
            self.layout_nodes[job.index] = nodes
            self.enqueue(job)

    def enqueue(self, job: Job) -> None:
        """Queue a submitted job that has a layout, by the job key."""
        key = JOB_SELECTIONS[self.job_selection]
        value = float(self.rng.random()) if key is None else float(key(job))
        heapq.heappush(self.pending, (value, job.index, job))

    def schedule(self) -> Iterator[Decision]:
        while self.pending:
            job = self.pending[0][2]
            allocation = self.layout(job)
            if allocation is None:
                return
            heapq.heappop(self.pending)
            del self.layout_nodes[job.index]
            self.started(job, allocation)
            yield Start(job, allocation)

    # ---- IRMaSim's layout_job -------------------------------------------------------------
    def layout(self, job: Job, node_selection: str | None = None) -> Allocation | None:
        """The head's allocation now, or ``None`` (fewer than ``nodes`` viable nodes); the
        nodes sorted by ``node_selection`` (default: this scheduler's)."""
        found = self.viable(job)
        if found is None:
            return None
        viable, free_slots = found
        nodes = self.layout_nodes[job.index]
        chosen = self._sorted(viable, free_slots,
                              node_selection or self.node_selection)[:nodes].tolist()
        base, extra = divmod(job.ntasks, nodes)
        return tuple((node, base + (i < extra)) for i, node in enumerate(chosen))

    def viable(self, job: Job) -> tuple[np.ndarray, np.ndarray] | None:
        """The nodes with room for ``ceil(ntasks / nodes)`` of ``job``'s tasks now and the
        idle cores per node, or ``None`` when fewer than ``nodes`` nodes have it (the job
        waits). Draws nothing: whether the job can start now, whatever the node order."""
        room, free_slots, nodes = self._room(job)
        viable = np.flatnonzero(room)
        return None if viable.size < nodes else (viable, free_slots)

    def can_start(self, job: Job) -> bool:
        """Whether ``job`` can start now (:meth:`viable` is not ``None``), counted only."""
        room, _, nodes = self._room(job)
        return int(np.count_nonzero(room)) >= nodes

    def _room(self, job: Job) -> tuple[np.ndarray, np.ndarray, int]:
        """Per node, whether it has room for ``ceil(ntasks / nodes)`` of ``job``'s tasks now;
        the idle cores per node; and the ``nodes`` of the job's layout."""
        free_slots, free_mem = self.free(job)
        room = capacity(job, free_slots, free_mem, self.view.free_disk) >= self.per_node(job)
        return room, free_slots, self.layout_nodes[job.index]

    def per_node(self, job: Job) -> int:
        """The tasks the layout of queued ``job`` puts on each of its nodes (at most)."""
        return -(-job.ntasks // self.layout_nodes[job.index])

    def _sorted(self, viable: np.ndarray, free_slots: np.ndarray,
                selection: str) -> np.ndarray:
        if selection == "random":
            return self.rng.permutation(viable)
        arrays = self.view.platform.arrays
        if selection == "first":
            key = self.id_rank
        elif selection == "high_gflops":
            key = -arrays.speed
        elif selection == "high_cores":
            key = -free_slots
        elif selection == "low_cores":
            key = free_slots
        elif selection == "high_mem":
            key = -self.view.used_mem
        elif selection == "high_mem_bw":
            key = first_processor_bandwidth(self.view)
        else:  # low_power
            key = arrays.full_power_w
        return viable[np.argsort(key[viable], kind="stable")]

    def _layout_nodes(self, job: Job) -> int | None:
        """The nodes IRMaSim lays ``job`` out on (the fewest possible for ``SPREAD``), or
        ``None`` if no such layout fits even on the idle platform."""
        arrays = self.view.platform.arrays
        room = capacity(job, arrays.cores, arrays.memory_mb, arrays.disk_mb)
        candidates = ([job.nodes] if not job.spread
                      else range(1, min(job.ntasks, len(room)) + 1))
        for nodes in candidates:
            if np.count_nonzero(room >= -(-job.ntasks // nodes)) >= nodes:
                return nodes
        return None

    def _never_reason(self, job: Job) -> str:
        if job.spread:
            return ("IRMaSim's Heuristic lays it out on k nodes with ceil(ntasks / k) cores (and "
                    "their memory) each; the platform has too few such nodes for any k")
        return (f"IRMaSim's Heuristic lays it out on {job.nodes} node(s) with "
                f"{-(-job.ntasks // job.nodes)} cores (and their memory) each; the platform "
                "has too few such nodes")


def first_processor_bandwidth(view: ClusterView) -> np.ndarray:
    """Per node, the memory bandwidth its first processor's running tasks request: each task
    ``mem_vol`` over its uncontended run time there (IRMaSim's ``requested_memory_bandwidth``
    of ``node.children[0]``; a job with an ETC row: the row's time there)."""
    speed = view.platform.arrays.speed
    demand = np.zeros(len(view.platform.nodes))
    for run in view.running.values():
        job = run.job
        for part in run.shares:
            if part.processor != view.first_processor(part.node):
                continue
            if job.etc:
                demand[part.node] += part.threads * job.mem_vol / view.speed.run_time(job,
                                                                                      part.node)
                continue
            ops = math.ceil(job.req_ops / job.ipc)  # IRMaSim's Job.ops
            demand[part.node] += part.threads * job.mem_vol * speed[part.node] / ops \
                if ops else 0.0
    return demand
