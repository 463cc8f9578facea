"""Batch-mode mapping: at each submission batch, map the jobs that just arrived with a mapping
heuristic (:mod:`hetsched.mapping`) and queue each one on its node.

- **ETC**: a job's estimate on node n, ``req_time · slowest_speed / speed_n`` (its ETC row's
  time there, if it has one); ``inf`` on a node
  that can never hold it (too few cores or too little memory).
- **Machines** (:class:`~hetsched.mapping.machines.CoreSlots`): every core of every node is
  free from now (idle) or from the estimated end of the job running on it; the jobs already
  waiting in the node's local queue are then played in FIFO order, each taking its k
  earliest-free cores no earlier than the start of the job ahead of it.
- **List heuristics** (olb, met, mct, min_min, max_min, duplex, sufferage, kpb, swa) run on
  that model directly: a job of k tasks completes when its k earliest-free cores are free. So
  do, on a platform with multi-core nodes, **astar** (:mod:`~hetsched.mapping.astar_nodes`)
  and **ga**, **gsa** and **sa** (a mapping's makespan is that of its jobs committed on the
  model in index order, the order they are queued in). **The others** (tabu, ils, milp,
  best), and astar, ga, gsa and sa on single-core nodes (where the models coincide; the
  classic code keeps its floating-point sums, so its ties break as before), solve the
  classic problem with one machine per core (ready time: when the core is free, and no
  earlier than the node's FIFO bound), so every job of the batch must have one task.
- Each job is appended to its node's local FIFO queue in planned start order; the engine starts
  it there once it fits and every job ahead of it has started (no backfilling). With
  ``queue=any_fit`` (the 2023 IRMaSim thesis' node lists, its §4.1.2 ``schedule_next_job``)
  the scheduler keeps each node's planned list itself and, at every event, starts every
  listed job that fits the node's idle cores now, in list order, not only the head; the
  machine model then has no FIFO bound (a job starts when its k earliest-free cores are free).
- **min_min_sorted**, **max_min_sorted** and **duplex_sorted** order the batch by the jobs'
  requested times (the estimate on the platform's slowest node: the thesis' requested time).

Jobs already queued are not re-planned (the design of the IRMaSim batch schedulers this follows):
a queued job keeps its place, so later arrivals can never starve it, but the plan is never
revised when jobs end earlier or later than estimated or when a better placement appears. With
``replan=true`` every queued-but-not-started job is taken back at each batch and mapped again
with the new arrivals: better packing, at the price of possible starvation and of re-planning
cost that grows with the queue.

Jobs that must span several nodes are rejected with a reason: local queues hold single-node jobs.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.astar_nodes import astar_on
from hetsched.mapping.catalogue import DESCRIPTIONS, EXTRA_OPTIONS, scheduler_options
from hetsched.mapping.greedy import BY_REQUESTED_TIME, LIST_HEURISTICS, Plan
from hetsched.mapping.machines import CoreSlots
from hetsched.mapping.registry import HEURISTICS, budget_keyword, run_heuristic
from hetsched.mapping.tree_search import ORDERS, PRUNE_RULES
from hetsched.sim.protocol import (Decision, Dequeue, Enqueue, Events, Reject, Scheduler,
                                   Start)
from hetsched.sim.resources import capacity
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

#: The heuristics beyond the list heuristics that map on multi-core nodes (the others map one
#: machine per core).
NODE_MODEL = ("astar", "ga", "gsa", "sa")
MULTI_NODE_REASON = "batch mapping queues single-node jobs; this job needs several nodes"
#: How a node starts the jobs planned on it: the engine's FIFO queue (head only), or any
#: listed job that fits its idle cores (the thesis' node lists).
QUEUES = ("fifo", "any_fit")


class BatchMapping(Scheduler):
    """Map each submission batch with ``heuristic``. ``time_limit`` (s) and ``budget`` (the
    heuristic's steps: generations, iterations, HiGHS nodes, ...; see
    :data:`~hetsched.mapping.catalogue.BUDGETS`) bound the other heuristics per batch: with a
    budget and no time limit a run does not depend on the machine's speed. ``node_limit`` is
    A*'s, with ``order`` (its job order: index, largest_first or random, a permutation drawn
    per batch from the run's generator) and ``prune`` (open or tree: the thesis' rule, which
    searches until a leaf; :data:`~hetsched.mapping.tree_search.PRUNE_RULES`); ``percent`` is
    KPB's. ``queue``: how nodes start their planned jobs (:data:`QUEUES`)."""

    @classmethod
    def describe(cls, name: str, heuristic: str = "min_min") -> str:
        """One line about the batch scheduler running ``heuristic``."""
        return (f"per submission batch: {DESCRIPTIONS[heuristic]} (options "
                f"{', '.join(scheduler_options(heuristic))})")

    def __init__(self, heuristic: str = "min_min", replan: bool = False,
                 time_limit: float | None = None, node_limit: int | None = None,
                 percent: float | None = None, budget: int | None = None,
                 queue: str = "fifo", order: str | None = None,
                 prune: str | None = None) -> None:
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic '{heuristic}'")
        if queue not in QUEUES:
            raise ValueError(f"queue must be one of {', '.join(QUEUES)}, got {queue!r}")
        for key, value in (("time_limit", time_limit), ("budget", budget)):
            if heuristic in LIST_HEURISTICS and value is not None:
                raise ValueError(f"{heuristic} is a list heuristic: it takes no {key}")
        if budget is not None:
            try:
                budget_keyword(heuristic, budget)  # refuses a bad one now
            except ConfigError as err:  # a ValueError: create() names the spec
                raise ValueError(str(err)) from None
        self.heuristic = heuristic
        self.replan = replan
        self.time_limit = time_limit
        self.budget = budget
        self.node_limit = node_limit
        self.percent = percent
        self.queue = queue
        self.order = order
        self.prune = prune
        for key, value, allowed in (("order", order, ORDERS), ("prune", prune, PRUNE_RULES)):
            if value is not None and value not in allowed:
                raise ValueError(f"{key} must be one of {', '.join(allowed)}, got {value!r}")
        for key in self._options():
            if key not in EXTRA_OPTIONS.get(heuristic, ()):
                raise ValueError(f"{heuristic} takes no option {key}")

    def _options(self) -> dict[str, object]:
        """The heuristic's own options that were given."""
        given = {"node_limit": self.node_limit, "percent": self.percent, "order": self.order,
                 "prune": self.prune}
        return {k: v for k, v in given.items() if v is not None}

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self._lists: list[list[Job]] = [[] for _ in view.platform.nodes]
        """``queue=any_fit``: each node's planned jobs not started yet, in list order."""

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        listed = self.queue == "any_fit"
        if events.arrived or (listed and len(self.view.pending) > self._listed_count()):
            yield from self._plan_batch(now)
        if listed:
            yield from self._start_listed()

    def _listed_count(self) -> int:
        return sum(len(jobs) for jobs in self._lists)

    def _plan_batch(self, now: float) -> Iterator[Decision]:
        """Map the pending jobs not planned yet (with ``replan``, every job not started)."""
        view = self.view
        if self.replan:
            for node in range(len(view.platform.nodes)):
                for job in view.local_queue(node):
                    yield Dequeue(job)
            self._lists = [[] for _ in self._lists]
        planned = {job.index for jobs in self._lists for job in jobs}
        batch = []
        for job in list(view.pending.values()):
            if job.index in planned:
                continue
            if job.nodes == 1:
                batch.append(job)
            else:
                yield Reject(job, MULTI_NODE_REASON)
        if batch:
            for job, node in self._plan(batch, now):
                if self.queue == "any_fit":
                    self._lists[node].append(job)
                else:
                    yield Enqueue(job, node)

    def _start_listed(self) -> Iterator[Decision]:
        """Every node starts each listed job its idle cores hold now, in list order."""
        for node, jobs in enumerate(self._lists):
            waiting = []
            for job in jobs:
                if self.view.fits(job, node):
                    yield Start.on(job, node)
                else:
                    waiting.append(job)
            self._lists[node] = waiting

    # ---- the plan ----------------------------------------------------------------------------
    def _etc(self, jobs: list[Job]) -> np.ndarray:
        """Estimates of ``jobs`` on every node; ``inf`` where a node can never hold the job."""
        a = self.view.platform.arrays
        etc = np.empty((len(jobs), a.cores.size))
        for row, job in enumerate(jobs):
            fits = capacity(job, a.slots, a.memory_mb, a.disk_mb) >= job.ntasks
            etc[row] = np.where(fits, self.view.speed.estimates(job), np.inf)
        return etc

    def _queued(self, node: int) -> list[Job]:
        """The jobs planned on ``node`` and not started, in queue (list) order."""
        return self._lists[node] if self.queue == "any_fit" else list(self.view.local_queue(node))

    def _machines(self, now: float) -> CoreSlots:
        """Per node: when each core is free, after the jobs queued there; the FIFO bound (none
        with ``queue=any_fit``). A core a reservation holds now is free when the reservations
        give it back; one the node does not have now (down: a failure, a set-point) is never
        free as far as anyone knows."""
        view = self.view
        core_free, fifo = [], np.full(len(view.platform.nodes), now)
        slots, free = view.platform.arrays.slots.tolist(), view.free_slots.tolist()
        given_back = _given_back(view.reserved_ahead()) if view.platform.reservations else {}
        for node, (total, idle) in enumerate(zip(slots, free)):
            times = [now] * max(idle, 0)
            for run in view.running_on(node).values():
                count = next(cores for at, cores in run.allocation if at == node)
                times += [max(run.est_end, now)] * count  # (view.estimated_end, inlined)
            if len(times) < total:
                back = given_back.get(node, [])[:total - len(times)]
                times += back + [np.inf] * (total - len(times) - len(back))
            core_free.append(np.array(times))
        machines = CoreSlots(np.empty((0, len(core_free))), np.empty(0, np.int64), core_free,
                             fifo, ordered=self.queue == "fifo")
        for node in range(len(view.platform.nodes)):
            queued = self._queued(node)
            if queued:
                machines = machines.with_tasks(self._etc(queued),
                                               [job.ntasks for job in queued])
                for row in range(len(queued)):
                    machines.commit(row, node)
        return machines

    def _plan(self, jobs: list[Job], now: float) -> list[tuple[Job, int]]:
        """(job, node) pairs in the order to queue them."""
        machines = self._machines(now).with_tasks(self._etc(jobs), [j.ntasks for j in jobs])
        if self.heuristic in BY_REQUESTED_TIME:
            plan = LIST_HEURISTICS[self.heuristic](machines, requested=self._requested(jobs))
        elif self.heuristic in LIST_HEURISTICS:
            plan = LIST_HEURISTICS[self.heuristic](machines, **self._options())
        elif self.heuristic in NODE_MODEL and self.view.platform.arrays.cores.max() > 1:
            plan = self._plan_on_nodes(machines)
        else:
            return self._plan_on_cores(jobs, machines)
        return [(jobs[i], int(plan.assignment[i])) for i in plan.sequence.tolist()]

    def _requested(self, jobs: list[Job]) -> np.ndarray:
        """The jobs' requested times: their estimates on the platform's slowest node."""
        slowest = int(np.argmin(self.view.platform.arrays.speed))
        return np.array([self.view.speed.estimates(job)[slowest] for job in jobs])

    def _plan_on_nodes(self, machines: CoreSlots) -> Plan:
        """A* searches the multi-core model itself; the GA, the GSA and SA evaluate their
        mappings on it, the jobs queued in index order."""
        if self.heuristic == "astar":
            options = self._options()
            if self.budget is not None:
                options[budget_keyword(self.heuristic, self.budget)] = self.budget
            return astar_on(machines, time_limit=self.time_limit, rng=self.rng, **options)
        # ETC checks refuse inf (a node too small for a job): the model's own inf decides,
        # the stand-in only fills the matrix
        etc = np.where(np.isfinite(machines.etc), machines.etc, np.finfo(np.float64).max)
        mapping = run_heuristic(self.heuristic, etc, rng=self.rng, time_limit=self.time_limit,
                                budget=self.budget, machines=machines, **self._options())
        return Plan(np.asarray(mapping.assignment), np.arange(machines.etc.shape[0]))

    def _plan_on_cores(self, jobs: list[Job], machines: CoreSlots) -> list[tuple[Job, int]]:
        """Classic mapping with one machine per core; queue order = planned start order."""
        wide = next((job for job in jobs if job.ntasks != 1), None)
        if wide is not None:
            raise ConfigError(f"{self.heuristic} maps single-task jobs on cores; job "
                              f"'{wide.id}' has {wide.ntasks} tasks (use astar or a list "
                              f"heuristic such as min_min)")
        node_of, ready = machines.core_table()
        etc = machines.etc[:, node_of]
        mapping = run_heuristic(self.heuristic, etc, ready, rng=self.rng,
                                time_limit=self.time_limit, budget=self.budget,
                                **self._options())
        starts = np.empty(len(jobs))
        for core, tasks in enumerate(mapping.order):
            durations = etc[tasks, core]
            starts[tasks] = ready[core] + np.concatenate(([0.0], np.cumsum(durations)[:-1]))
        order = np.lexsort((np.arange(len(jobs)), starts))
        return [(jobs[i], int(node_of[mapping.assignment[i]])) for i in order.tolist()]


def _given_back(ahead: dict[int, list[tuple[float, float, int]]]) -> dict[int, list[float]]:
    """Per node, when the slots reservations hold now come back, one time per slot, earliest
    first (from ``view.reserved_ahead``: pieces of negative slots are those given back)."""
    out: dict[int, list[float]] = {}
    for node, pieces in ahead.items():
        times: list[float] = []
        for start, _, slots in sorted(pieces):
            if -slots > len(times):
                times += [start] * (-slots - len(times))
        out[node] = times
    return out
