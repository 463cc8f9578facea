"""Co-allocation in the simulator: windows booked for parallel jobs (docs/coalloc.md).

A job of ``n = ntasks`` tasks runs one task per node on ``n`` distinct nodes that are wholly
free (no running job by its estimate, no reservation, no booking) over a common window
``[t, t + T)``; ``T`` is the job's estimate on its slowest chosen node (the engine's own
estimate of the allocation, ``SpeedModel.estimate_on``). Jobs are booked in submission order
(FCFS booking) by :func:`hetsched.coalloc.search`, with the job's criterion (else the
scheduler's), budget and minimum speed, as ``Reserve`` decisions: the engine holds each window
and starts its job then (:mod:`hetsched.sim.bookings`). A booking is never moved later, except
when a job running past its estimate still holds a booked node at the booked start: the booked
job then starts as soon as its nodes are free. A job no window fits within the horizon is
rejected with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from hetsched.coalloc import Request, Slots, criterion as coalloc_criterion, search
from hetsched.errors import ConfigError
from hetsched.sim.protocol import Decision, Events, Reject, Reserve, Scheduler
from hetsched.sim.resources import room
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job, criterion_problem

#: How far ahead windows are searched without a ``horizon`` (seconds after now): unbounded
#: in effect, finite for the search's numbers.
UNBOUNDED = 1e12
#: The slots' additive attributes a ``max:NAME`` / ``min:NAME`` criterion may sum.
ATTRIBUTES = ("speed",)


class CoAllocation(Scheduler):
    """Books a common window on ``ntasks`` distinct whole nodes for each job, by criterion."""

    description = ("co-allocation (Toporkov & Yemelyanov): each job's tasks on distinct whole "
                   "nodes in a common window, by criterion within its budget; FCFS booking, "
                   "never delayed; a job no window fits is rejected (options criterion=<a "
                   "co-allocation criterion>, horizon=<seconds>)")

    def __init__(self, criterion: str = "first_fit", horizon: float | None = None) -> None:
        problem = unusable(criterion)
        if problem:
            raise ConfigError(f"coalloc: {problem}")
        if horizon is not None and (isinstance(horizon, bool)
                                    or not isinstance(horizon, (int, float))
                                    or not math.isfinite(horizon) or horizon < 0):
            raise ConfigError(f"coalloc: horizon must be a finite number of seconds >= 0, "
                              f"got {horizon!r}")
        self.criterion = criterion
        self.horizon = horizon

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.waiting: list[Job] = list(view.pending.values())  # a fork's pending jobs

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        """Books the jobs that arrived (and a fork's pending ones), in order; rejects those no
        window fits."""
        waiting, self.waiting = [*self.waiting, *events.arrived], []
        for job in waiting:
            booking = self._book(job, now)
            yield booking if isinstance(booking, Reserve) else Reject(job, booking)

    def _book(self, job: Job, now: float) -> Reserve | str:
        """``job``'s booking, or why none."""
        view = self.view
        rule = job.criterion or self.criterion
        problem = unusable(rule)
        if problem:
            return f"coalloc: {problem}"
        eligible = self._eligible(job)
        if len(eligible) < job.ntasks:
            return (f"coalloc: needs {job.ntasks} distinct nodes of speed >= "
                    f"{job.min_performance:g} with room for one task; the platform has "
                    f"{len(eligible)}")
        cheapest, dearest = self._cost_range(job, eligible)
        budget = dearest if job.budget is None else job.budget
        if cheapest > budget:
            return (f"coalloc: budget {budget:g} too small: the cheapest window of "
                    f"{job.ntasks} nodes costs {cheapest:g}")
        horizon = self.horizon if self.horizon is not None else view.horizon
        until = now + UNBOUNDED if horizon is None else horizon
        slots = self._slots(eligible, now, until)
        volume, performance = self._performance(job, slots["node"])
        request = Request(job.ntasks, volume, budget, 0.0, rule)
        table = Slots(np.array(slots["node"], dtype=np.int64), slots["start"], slots["end"],
                      performance, self._prices(slots["node"]),
                      {"speed": [view.speed.speeds[n] for n in slots["node"]]})
        found = search(table, request) if len(table) >= job.ntasks else None
        if found is None:
            by = f"before {until:g}" if horizon is not None else \
                f"in the next {UNBOUNDED:g} s"
            return f"coalloc: no common free window of {job.ntasks} nodes within the budget {by}"
        return Reserve(job, tuple((int(node), 1) for node in sorted(found.nodes)), found.start,
                       any_nodes=True)

    def _eligible(self, job: Job) -> list[int]:
        """The nodes fast enough for ``job`` with the memory and disk for one of its tasks."""
        speeds = self.view.speed.speeds
        nodes = self.view.platform.nodes
        estimates = self.view.speed.estimates(job)
        return [i for i, node in enumerate(nodes)
                if speeds[i] >= job.min_performance and math.isfinite(estimates[i])
                and room(job, 1, node.type.memory_mb, node.type.disk_mb) >= 1]

    def _prices(self, nodes: list[int]) -> np.ndarray:
        """Co-allocation's ``c_i``: what one task pays per second on each node, the node's
        price over its slots, as ``jobs.csv``'s ``cost`` charges it
        (:mod:`hetsched.metrics.costs`): the node's price on a one-core node."""
        arrays = self.view.platform.arrays
        index = np.asarray(nodes, dtype=np.intp)
        return arrays.price[index] / arrays.slots[index]

    def _cost_range(self, job: Job, eligible: list[int]) -> tuple[float, float]:
        """The least cost of any ``ntasks`` eligible nodes whenever they are free (for each
        node as the slowest, its estimate times the cheapest ``ntasks`` at least as fast),
        and a cost no window exceeds (the budget of a job without one: the knapsack of
        additive criteria needs a finite one)."""
        estimates = self.view.speed.estimates(job)[eligible]
        prices = self._prices(eligible)
        cheapest = math.inf
        for slowest in np.unique(estimates):
            within = np.sort(prices[estimates <= slowest])
            if within.size >= job.ntasks:
                cheapest = min(cheapest, float(slowest * within[:job.ntasks].sum()))
        dearest = float(estimates.max() * np.sort(prices)[-job.ntasks:].sum())
        return cheapest, max(2.0 * dearest, 1.0)

    def _performance(self, job: Job, nodes: list[int]) -> tuple[float, np.ndarray]:
        """``(V, p)`` with ``V / p_i`` the job's estimate on node ``i``: the speed model's
        ``req_time · slowest / speed`` (to the bit) without an ETC row or a fixed duration."""
        speed = self.view.speed
        index = np.asarray(nodes, dtype=np.intp)
        if job.etc:
            return 1.0, 1.0 / speed.estimates(job)[index]
        if job.fixed_duration:
            return job.req_time, np.ones(index.size)
        return job.req_time * speed.slowest, self.view.platform.arrays.speed[index]

    def _slots(self, eligible: list[int], now: float, until: float) -> dict[str, list]:
        """The spans in which each eligible node is wholly free from now to ``until`` (beside
        running jobs by their estimates, reservations and bookings)."""
        view = self.view
        total = view.platform.arrays.slots
        columns: dict[str, list] = {"node": [], "start": [], "end": []}
        for node in eligible:  # (an on-demand node that is off is up after its boot)
            pieces = view.free_intervals(node, view.start_time(node), until)
            for start, end in _free_spans(pieces, int(total[node])):
                columns["node"].append(node)
                columns["start"].append(start)
                columns["end"].append(end)
        return columns


def _free_spans(pieces: list[tuple[float, float, int]], whole: int) -> list[tuple[float, float]]:
    """The spans of ``pieces`` in which all ``whole`` slots are free, adjacent ones merged."""
    spans: list[tuple[float, float]] = []
    for start, end, free in pieces:
        if free < whole or end <= start:
            continue
        if spans and spans[-1][1] == start:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def unusable(name: str) -> str | None:
    """Why this scheduler cannot choose windows by criterion ``name`` (unknown, or summing an
    attribute the nodes' slots do not have), or ``None``."""
    problem = criterion_problem(name)
    if problem:
        return problem
    rule = coalloc_criterion(name)
    if rule.kind == "additive" and rule.measure not in ATTRIBUTES:
        return (f"criterion {name!r} sums attribute {rule.measure!r}, which nodes do not "
                f"have; they have: {', '.join(ATTRIBUTES)}")
    return None
