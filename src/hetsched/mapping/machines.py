"""Machine models the list heuristics map onto: when could a task start and end on a machine,
and what does mapping it there change.

Three models, one interface, so every list heuristic (:mod:`hetsched.mapping.greedy`) runs
unchanged on each:

- :class:`ReadyTimes`, the classic static problem (Braun et al. 2001): machine ``j`` runs one
  task at a time and is free from ``r[j]``; mapping task ``i`` there ends at
  ``r[j] + etc[i, j]`` and sets ``r[j]`` to that.
- :class:`CoreSlots`, multi-core nodes with FIFO local queues (the batch schedulers of the
  simulator): node ``j`` has one free-from time per core; a task needing ``k`` cores starts
  when its ``k`` earliest-free cores are free and no earlier than the start of the task queued
  on ``j`` before it (FIFO, no backfilling); mapping it sets those ``k`` cores busy until its end.
- :class:`GraphProcessors`, a task graph's processors (HEFT's model): a task starts in the
  earliest idle slot that fits it once its inputs have arrived (parents' ends plus data costs).

In both, mapping a task on machine ``j`` changes only column ``j`` of the completion times, and
only makes it later: the incremental updates of Min-min and Max-min rely on that.
"""

from __future__ import annotations

import bisect
import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from hetsched.mapping.graph import TaskGraph


class MachineState(Protocol):
    etc: np.ndarray
    """Run time of every task on every machine (``inf``: the task can never run there)."""

    def completion(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Completion times of tasks ``rows`` (default all) on every machine."""

    def column(self, j: int, rows: np.ndarray) -> np.ndarray:
        """Completion times of tasks ``rows`` on machine ``j``."""

    def ready(self, i: int) -> np.ndarray:
        """When task ``i`` could start on every machine."""

    def loads(self) -> np.ndarray:
        """When every machine has finished all it was given."""

    def commit(self, i: int, j: int) -> float:
        """Map task ``i`` on machine ``j``; returns its start."""

    def copy(self) -> "MachineState":
        ...


class ReadyTimes:
    """One ready time per machine (the classic ETC model)."""

    def __init__(self, etc: np.ndarray, ready: np.ndarray) -> None:
        self.etc = etc
        self.r = ready.astype(np.float64, copy=True)

    def completion(self, rows: np.ndarray | None = None) -> np.ndarray:
        return (self.etc if rows is None else self.etc[rows]) + self.r

    def column(self, j: int, rows: np.ndarray) -> np.ndarray:
        return self.etc[rows, j] + self.r[j]

    def ready(self, i: int) -> np.ndarray:
        return self.r

    def loads(self) -> np.ndarray:
        return self.r

    def commit(self, i: int, j: int) -> float:
        start = float(self.r[j])
        self.r[j] += self.etc[i, j]
        return start

    def copy(self) -> "ReadyTimes":
        return ReadyTimes(self.etc, self.r)


class CoreSlots:
    """Multi-core machines with FIFO queues: ``tasks[i]`` cores per task, a free-from time per
    core (``core_free[j]``, any order) and a FIFO bound per machine (``fifo[j]``: no task mapped
    on ``j`` from now on starts earlier). A machine with fewer cores than a task needs gets
    ``inf`` for it. With ``ordered=False`` a mapped task does not raise the bound (the
    thesis' node lists, where a node starts any listed task its idle cores hold): a task
    starts when its ``k`` earliest-free cores are free."""

    def __init__(self, etc: np.ndarray, tasks: Sequence[int] | np.ndarray,
                 core_free: Sequence[np.ndarray], fifo: np.ndarray,
                 ordered: bool = True) -> None:
        self.etc = etc
        self.tasks = np.asarray(tasks, dtype=np.int64)
        self.fifo = np.asarray(fifo, dtype=np.float64).copy()
        self.ordered = ordered
        self._all = [np.sort(np.asarray(t, dtype=np.float64)) for t in core_free]
        width = int(self.tasks.max(initial=1))
        # free[j, c]: when the (c+1)-th earliest core of j is free; inf past its last core
        self.free = np.full((len(self._all), width), np.inf)
        for j, times in enumerate(self._all):
            self.free[j, :min(width, times.size)] = times[:width]

    def with_tasks(self, etc: np.ndarray, tasks: Sequence[int]) -> "CoreSlots":
        """The same machines, as they are now, for other tasks."""
        return CoreSlots(etc, tasks, [t.copy() for t in self._all], self.fifo, self.ordered)

    def core_table(self) -> tuple[np.ndarray, np.ndarray]:
        """One machine per core: its node, and when it is ready (free, and no earlier than
        its node's FIFO bound)."""
        node_of = np.repeat(np.arange(len(self._all)), [t.size for t in self._all])
        ready = np.maximum(np.concatenate(self._all), self.fifo[node_of])
        return node_of, ready

    def completion(self, rows: np.ndarray | None = None) -> np.ndarray:
        rows = np.arange(self.etc.shape[0]) if rows is None else rows
        starts = np.maximum(self.free[:, self.tasks[rows] - 1].T, self.fifo)
        return starts + self.etc[rows]

    def column(self, j: int, rows: np.ndarray) -> np.ndarray:
        starts = np.maximum(self.free[j, self.tasks[rows] - 1], self.fifo[j])
        return starts + self.etc[rows, j]

    def ready(self, i: int) -> np.ndarray:
        return np.maximum(self.free[:, self.tasks[i] - 1], self.fifo)

    def loads(self) -> np.ndarray:
        return np.array([times[-1] if times.size else 0.0 for times in self._all])

    def commit(self, i: int, j: int) -> float:
        k = int(self.tasks[i])
        times = self._all[j]
        start = max(float(times[k - 1]), float(self.fifo[j]))
        times[:k] = start + self.etc[i, j]
        times.sort()
        if self.ordered:
            self.fifo[j] = start
        width = self.free.shape[1]
        self.free[j, :min(width, times.size)] = times[:width]
        return start

    def copy(self) -> "CoreSlots":
        return self.with_tasks(self.etc, self.tasks)

    def makespans(self, pop: np.ndarray) -> np.ndarray:
        """The makespan of each mapping of ``pop`` (one per row, task -> machine) with its
        tasks committed in index order from this state, every mapping at once (``inf``: a
        task on a machine that cannot run it)."""
        p, n = pop.shape
        counts = np.array([t.size for t in self._all])
        width = int(max(counts.max(initial=1), self.tasks.max(initial=1)))
        free = np.full((p, len(self._all), width), np.inf)
        for j, times in enumerate(self._all):
            free[:, j, :times.size] = times
        fifo = np.tile(self.fifo, (p, 1))
        rows = np.arange(p)
        for i in range(n):
            j, k = pop[:, i], int(self.tasks[i])
            cores = free[rows, j]
            start = np.maximum(cores[:, k - 1], fifo[rows, j])
            cores[:, :k] = (start + self.etc[i, j])[:, None]
            cores.sort(axis=1)
            free[rows, j] = cores
            if self.ordered:
                fifo[rows, j] = start
        last = free[:, np.arange(len(self._all)), np.maximum(counts - 1, 0)]
        return last.max(axis=1) if last.size else np.zeros(p)


class GraphProcessors:
    """Processors running a task graph's tasks one at a time, with insertion (HEFT's model,
    Topcuoglu et al. 2002): a task mapped on ``p`` starts at the earliest idle slot of ``p``
    long enough for it that begins no earlier than its inputs are ready there (its parents'
    finishes, plus the edge's data cost from a parent on another processor).

    With ``capacity`` (cores per machine) and ``demand`` (cores per task), a machine runs
    tasks side by side while their demands fit its capacity: a task starts at the earliest time
    from which its demand stays free for its whole run (a multi-core node's free cores over
    time). The defaults, one and one, are the classic model.

    The state rows are ``rows`` (task indices of ``graph``, every parent of each already
    mapped): the list heuristics map them in row order; :meth:`for_tasks` gives the same
    processors for other rows, so a whole graph is mapped ready set by ready set. Mapping a
    task on ``p`` only takes free room of ``p``: the other rows' completion times change in
    column ``p`` alone, and only later, as Min-min's updates need.
    """

    def __init__(self, graph: "TaskGraph", rows: Sequence[int] | np.ndarray,
                 capacity: Sequence[int] | None = None,
                 demand: Sequence[int] | None = None) -> None:
        self.graph = graph
        self.rows = np.asarray(rows, dtype=np.int64)
        self.etc = graph.cost[self.rows]
        n, m = graph.cost.shape
        self.capacity = [1] * m if capacity is None else [int(c) for c in capacity]
        self.demand = [1] * n if demand is None else [int(d) for d in demand]
        self.processor = np.full(n, -1, dtype=np.int64)
        self.start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.busy: list[list[tuple[float, float, int]]] = [[] for _ in range(m)]
        """Per processor, its tasks' ``(start, finish, demand)``, by start."""

    def fix(self, task: int, p: int, start: float, finish: float) -> None:
        """Task ``task`` runs on ``p`` from ``start`` to ``finish`` whatever the model would
        choose (a job already running when a plan is made)."""
        self.processor[task], self.start[task], self.finish[task] = p, start, finish
        if finish > start:  # a task that takes no time holds no core
            bisect.insort(self.busy[p], (start, finish, self.demand[task]))

    def for_tasks(self, rows: Sequence[int] | np.ndarray) -> "GraphProcessors":
        """These processors, as they are now (shared, not copied), for tasks ``rows``."""
        other = copy.copy(self)
        other.rows = np.asarray(rows, dtype=np.int64)
        other.etc = self.graph.cost[other.rows]
        return other

    def _inputs_ready(self, task: int) -> np.ndarray:
        """When ``task``'s inputs are on each processor."""
        ready = np.zeros(self.graph.processors)
        for parent, data in self.graph.parents[task]:
            where = self.processor[parent]
            if where < 0:
                raise ValueError(f"task {self.graph.names[task]} before its parent "
                                 f"{self.graph.names[parent]}")
            arrival = np.full_like(ready, self.finish[parent] + data)
            arrival[where] = self.finish[parent]
            np.maximum(ready, arrival, out=ready)
        return ready

    def _earliest(self, p: int, after: float, length: float, need: int = 1) -> float:
        """The earliest start ``>= after`` from which ``need`` cores of ``p`` stay free for
        ``length`` (``inf``: never, ``p`` has fewer)."""
        if self.capacity[p] == 1:
            return self._earliest_gap(p, after, length) if need == 1 else math.inf
        return self._earliest_room(p, after, length, need)

    def _earliest_gap(self, p: int, after: float, length: float) -> float:
        """One task at a time: the first idle slot long enough."""
        slots = self.busy[p]
        k = bisect.bisect_right(slots, after, key=lambda slot: slot[1])
        begin = after if k == 0 else max(after, slots[k - 1][1])
        for s, f, _ in slots[k:]:
            if begin + length <= s:
                return begin
            begin = max(begin, f)
        return begin

    def _earliest_room(self, p: int, after: float, length: float, need: int) -> float:
        """Tasks side by side: the first of ``after`` and the later finishes from which the
        cores in use stay at most ``capacity - need`` until ``length`` has passed."""
        room = self.capacity[p] - need
        if room < 0:
            return math.inf
        slots = self.busy[p]
        for begin in sorted({after, *(f for _, f, _ in slots if f > after)}):
            end = begin + length
            live = [(s, f, d) for s, f, d in slots if f > begin and (s < end or s <= begin)]
            points = [begin, *(s for s, _, _ in live if s > begin)]
            if all(sum(d for s, f, d in live if s <= x < f) <= room for x in points):
                return begin
        return math.inf  # not reached: after the last finish every core is free

    def _starts(self, row: int) -> np.ndarray:
        task = int(self.rows[row])
        ready, need = self._inputs_ready(task), self.demand[task]
        return np.array([self._earliest(p, ready[p], self.etc[row, p], need)
                         for p in range(self.etc.shape[1])])

    def ready(self, i: int) -> np.ndarray:
        return self._starts(i)

    def completion(self, rows: np.ndarray | None = None) -> np.ndarray:
        rows = np.arange(self.etc.shape[0]) if rows is None else rows
        out = np.empty((len(rows), self.etc.shape[1]))
        for k, row in enumerate(rows):
            out[k] = self._starts(int(row)) + self.etc[row]
        return out

    def column(self, j: int, rows: np.ndarray) -> np.ndarray:
        out = np.empty(len(rows))
        for k, row in enumerate(rows):
            task = int(self.rows[row])
            out[k] = self._earliest(j, self._inputs_ready(task)[j], self.etc[row, j],
                                    self.demand[task]) + self.etc[row, j]
        return out

    def loads(self) -> np.ndarray:
        return np.array([max((f for _, f, _ in slots), default=0.0) for slots in self.busy])

    def commit(self, i: int, j: int) -> float:
        task, length = int(self.rows[i]), float(self.etc[i, j])
        need = self.demand[task]
        start = self._earliest(j, float(self._inputs_ready(task)[j]), length, need)
        if not math.isfinite(start):
            raise ValueError(f"task {self.graph.names[task]} needs {need} cores: machine {j} "
                             f"has {self.capacity[j]}")
        self.fix(task, j, start, start + length)
        return start

    def copy(self) -> "GraphProcessors":
        other = copy.copy(self)
        other.processor, other.start = self.processor.copy(), self.start.copy()
        other.finish = self.finish.copy()
        other.busy = [list(slots) for slots in self.busy]
        return other
