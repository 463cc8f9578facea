"""Task graphs on heterogeneous processors: the classic model of list scheduling (HEFT, CPOP,
PEFT; Topcuoglu et al. 2002, Arabnejad & Barbosa 2014) and what a schedule on it must obey.

A :class:`TaskGraph` has ``n`` tasks and ``m`` processors. ``cost[i, p]`` is task ``i``'s run
time on processor ``p`` (costs are *unrelated*: a row need not be a multiple of another); an
edge ``(parent, child, data)`` says ``child`` may start only once ``parent`` has ended and, when
they run on different processors, ``data`` more time units have passed (the communication cost,
the same between every two processors, as in the textbook examples; 0 on one processor). A
processor runs one task at a time, without preemption.

A :class:`GraphSchedule` gives every task a processor and a start time; :func:`check_schedule`
tells whether it obeys the model. Tasks are numbered in the order given; ``names`` keeps the
names the input used.
"""

from __future__ import annotations

import graphlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from hetsched.errors import ConfigError

#: Tolerance of the schedule checks and of the float comparisons of ranks (relative to the
#: schedule's length).
TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class TaskGraph:
    """``cost`` (tasks × processors), ``edges`` ``(parent, child, data)`` by task index."""

    cost: np.ndarray
    edges: tuple[tuple[int, int, float], ...]
    names: tuple[str, ...] = ()
    name: str = "dag"

    def __post_init__(self) -> None:
        cost = np.ascontiguousarray(np.asarray(self.cost, dtype=np.float64))
        if cost.ndim != 2 or cost.shape[1] < 1:
            raise ConfigError(f"task graph {self.name!r}: costs must be tasks × processors "
                              f"with at least one processor, got shape {cost.shape}")
        if not np.all(np.isfinite(cost)) or (cost.size and cost.min() < 0):
            raise ConfigError(f"task graph {self.name!r}: costs must be finite and "
                              "non-negative")
        object.__setattr__(self, "cost", cost)
        n = cost.shape[0]
        names = tuple(self.names) or tuple(str(i) for i in range(n))
        if len(names) != n:
            raise ConfigError(f"task graph {self.name!r}: {len(names)} names for {n} tasks")
        object.__setattr__(self, "names", names)
        seen: set[tuple[int, int]] = set()
        for parent, child, data in self.edges:
            if not (0 <= parent < n and 0 <= child < n) or parent == child:
                raise ConfigError(f"task graph {self.name!r}: bad edge {parent} -> {child}")
            if (parent, child) in seen:
                raise ConfigError(f"task graph {self.name!r}: edge {names[parent]} -> "
                                  f"{names[child]} given twice")
            if not (np.isfinite(data) and data >= 0):
                raise ConfigError(f"task graph {self.name!r}: edge {names[parent]} -> "
                                  f"{names[child]} has data cost {data}")
            seen.add((parent, child))
        self.order  # noqa: B018 (a cycle is refused now, naming it)

    @property
    def tasks(self) -> int:
        return self.cost.shape[0]

    @property
    def processors(self) -> int:
        return self.cost.shape[1]

    @cached_property
    def parents(self) -> tuple[tuple[tuple[int, float], ...], ...]:
        """``parents[i]``: ``(parent, data)`` pairs of task ``i``, in edge order."""
        return self._neighbours(upward=True)

    @cached_property
    def children(self) -> tuple[tuple[tuple[int, float], ...], ...]:
        """``children[i]``: ``(child, data)`` pairs of task ``i``, in edge order."""
        return self._neighbours(upward=False)

    def _neighbours(self, upward: bool) -> tuple[tuple[tuple[int, float], ...], ...]:
        lists: list[list[tuple[int, float]]] = [[] for _ in range(self.tasks)]
        for parent, child, data in self.edges:
            this, other = (child, parent) if upward else (parent, child)
            lists[this].append((other, float(data)))
        return tuple(tuple(n) for n in lists)

    @cached_property
    def order(self) -> tuple[int, ...]:
        """A topological order (parents first; among ready tasks, the lowest index first).
        A cycle raises :class:`ConfigError` naming every task on it."""
        sorter: graphlib.TopologicalSorter[int] = graphlib.TopologicalSorter()
        for i in range(self.tasks):
            sorter.add(i, *(p for p, _ in self.parents[i]))
        try:
            sorter.prepare()
        except graphlib.CycleError as err:
            cycle = " -> ".join(self.names[i] for i in err.args[1])
            raise ConfigError(f"task graph {self.name!r} has a cycle: {cycle}") from None
        order: list[int] = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready())
            order.extend(ready)
            sorter.done(*ready)
        return tuple(order)

    @cached_property
    def mean_cost(self) -> np.ndarray:
        """Each task's cost averaged over the processors (HEFT's ``w̄``)."""
        return self.cost.mean(axis=1)

    def restricted(self, processors: int) -> "TaskGraph":
        """The same graph on its first ``processors`` processors."""
        return TaskGraph(self.cost[:, :processors], self.edges, self.names, self.name)


def identical(times: Sequence[float], edges: Iterable[tuple[int, int, float]], processors: int,
              names: Sequence[str] = (), name: str = "dag") -> TaskGraph:
    """A graph on ``processors`` identical processors: task ``i`` takes ``times[i]`` on any."""
    if processors < 1:
        raise ConfigError(f"processors must be at least 1, got {processors}")
    cost = np.repeat(np.asarray(times, dtype=np.float64).reshape(-1, 1), processors, axis=1)
    return TaskGraph(cost, tuple(edges), tuple(names), name)


@dataclass
class GraphSchedule:
    """Task ``i`` runs on ``processor[i]`` from ``start[i]`` to ``finish[i]``."""

    heuristic: str
    processor: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    seconds: float = 0.0
    lower_bound: float | None = None
    """A bound the method proved itself (the exact solver's), else ``None``."""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def makespan(self) -> float:
        return float(self.finish.max(initial=0.0))


def data_ready(graph: TaskGraph, task: int, processor: int, processor_of: np.ndarray,
               finish: np.ndarray) -> float:
    """When every input of ``task`` is on ``processor``: each parent's finish, plus the edge's
    data cost when the parent ran elsewhere (the parents must be scheduled)."""
    ready = 0.0
    for parent, data in graph.parents[task]:
        arrival = finish[parent] + (data if processor_of[parent] != processor else 0.0)
        ready = max(ready, arrival)
    return float(ready)


def check_schedule(graph: TaskGraph, schedule: GraphSchedule,
                   capacity: Sequence[int] | None = None,
                   demand: Sequence[int] | None = None) -> list[str]:
    """What ``schedule`` breaks of the model (empty: nothing): a task on no processor or a
    wrong run time, a start before its inputs are ready, more tasks at once on a processor
    than it runs (one; with ``capacity`` and ``demand``, cores per machine and per task: more
    cores in use than it has)."""
    n = graph.tasks
    proc = np.asarray(schedule.processor)
    start, finish = np.asarray(schedule.start, float), np.asarray(schedule.finish, float)
    if proc.shape != (n,) or start.shape != (n,) or finish.shape != (n,):
        return [f"the schedule has {proc.size} processors, {start.size} starts and "
                f"{finish.size} finishes for {n} tasks"]
    unset = [graph.names[i] for i in range(n) if not (np.isfinite(start[i])
                                                      and np.isfinite(finish[i]))]
    if unset:
        return [f"task {unset[0]} has no finite start and finish"]
    tol = TOLERANCE * max(1.0, float(finish.max(initial=0.0)))
    problems: list[str] = []
    for i in range(n):
        name = graph.names[i]
        if not 0 <= proc[i] < graph.processors:
            problems.append(f"task {name} on processor {proc[i]}")
            continue
        if start[i] < -tol or abs(finish[i] - start[i] - graph.cost[i, proc[i]]) > tol:
            problems.append(f"task {name} runs {start[i]:g}-{finish[i]:g}, not its cost "
                            f"{graph.cost[i, proc[i]]:g} on processor {proc[i]}")
        ready = data_ready(graph, i, int(proc[i]), proc, finish)
        if start[i] < ready - tol:
            problems.append(f"task {name} starts at {start[i]:g}, before its inputs are "
                            f"ready at {ready:g}")
    cores = [1] * graph.processors if capacity is None else list(capacity)
    need = np.ones(n) if demand is None else np.asarray(demand, float)
    for p in range(graph.processors):
        on = [i for i in np.flatnonzero(proc == p) if finish[i] - start[i] > tol]
        for i in on:  # the cores in use just after each start
            used = sum(need[j] for j in on if start[j] <= start[i] + tol < finish[j])
            if used > cores[p]:
                problems.append(f"{used:g} cores in use on processor {p} at {start[i]:g} "
                                f"(it has {cores[p]})")
                break
    return problems


def least_cost_paths(graph: TaskGraph) -> tuple[np.ndarray, np.ndarray]:
    """``head[i]``: the longest path of least costs before ``i`` starts; ``tail[i]``: the
    same after ``i`` ends (no data moves in either)."""
    least = graph.cost.min(axis=1)
    head, tail = np.zeros(graph.tasks), np.zeros(graph.tasks)
    for i in graph.order:
        head[i] = max((head[p] + least[p] for p, _ in graph.parents[i]), default=0.0)
    for i in reversed(graph.order):
        tail[i] = max((least[c] + tail[c] for c, _ in graph.children[i]), default=0.0)
    return head, tail


def min_cost_path(graph: TaskGraph) -> float:
    """The longest path through the graph with every task at its least cost and no data
    moved (Topcuoglu et al.'s ``CP_MIN`` length, SLR's denominator): no schedule is shorter."""
    head, tail = least_cost_paths(graph)
    return float((head + graph.cost.min(axis=1) + tail).max(initial=0.0))


def schedule_metrics(graph: TaskGraph, schedule: GraphSchedule) -> dict[str, float | None]:
    """The classic measures of a schedule (Topcuoglu et al. 2002, §5.1): ``slr``, its length
    over :func:`min_cost_path`; ``speedup``, the shortest run of every task on one processor
    over its length; ``efficiency``, the speedup per processor. ``None`` where the length or
    the path is 0."""
    makespan = schedule.makespan
    sequential = float(graph.cost.sum(axis=0).min())
    path = min_cost_path(graph)
    speedup = sequential / makespan if makespan > 0 else None
    return {"slr": makespan / path if path > 0 else None, "speedup": speedup,
            "efficiency": None if speedup is None else speedup / graph.processors}
