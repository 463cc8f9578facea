"""List scheduling of task graphs: HEFT and CPOP (Topcuoglu, Hariri & Wu, IEEE TPDS 13(3),
2002), PEFT (Arabnejad & Barbosa, IEEE TPDS 25(3), 2014), and the independent-task list
heuristics applied ready set by ready set.

Each maps tasks one at a time on :class:`~hetsched.mapping.machines.GraphProcessors`
(insertion-based earliest finish). Conventions, where the papers leave a choice open:

- communication costs are the edges' own (the textbook examples give them already averaged,
  ``c̄``); 0 between tasks on one processor;
- ties between processors go to the lowest index; ties between tasks of equal priority go to
  the one earlier in the graph's topological order (:attr:`TaskGraph.order`: parents first,
  then the lowest index), which also keeps a zero-cost parent ahead of its child;
- CPOP's critical path starts at the entry task of largest priority and goes on through the
  child whose priority equals the path's (the first in edge order); its processor minimises
  the path's summed cost (lowest index on ties).

The ready-set heuristics (``mct``, ``min_min``, ... of :mod:`hetsched.mapping.greedy`) take the
tasks whose parents are all mapped, map that whole set by the heuristic's rule, then take the
next ready set: a heuristic for independent tasks sees, at each step, only tasks that are
independent of each other.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.graph import TOLERANCE, GraphSchedule, TaskGraph
from hetsched.mapping.greedy import LIST_HEURISTICS, mct_on
from hetsched.mapping.machines import GraphProcessors


def upward_rank(graph: TaskGraph) -> np.ndarray:
    """``rank_u(i) = w̄_i + max over children j of (c̄_ij + rank_u(j))`` (exit: ``w̄_i``)."""
    rank = np.zeros(graph.tasks)
    w = graph.mean_cost
    for i in reversed(graph.order):
        rank[i] = w[i] + max((data + rank[j] for j, data in graph.children[i]), default=0.0)
    return rank


def downward_rank(graph: TaskGraph) -> np.ndarray:
    """``rank_d(i) = max over parents j of (rank_d(j) + w̄_j + c̄_ji)`` (entry: 0)."""
    rank = np.zeros(graph.tasks)
    w = graph.mean_cost
    for i in graph.order:
        rank[i] = max((rank[j] + w[j] + data for j, data in graph.parents[i]), default=0.0)
    return rank


def optimistic_cost_table(graph: TaskGraph) -> np.ndarray:
    """PEFT's ``OCT(i, p)``: the longest of the shortest ways from ``i``'s end on ``p`` to the
    graph's end, ``max over children j of min over q of (OCT(j, q) + w(j, q) + c̄_ij·[q ≠
    p])``, processors left free (0 for an exit task)."""
    oct_ = np.zeros(graph.cost.shape)
    for i in reversed(graph.order):
        for j, data in graph.children[i]:
            through = oct_[j] + graph.cost[j]  # the child on each processor q
            best_elsewhere = through.min() + data
            # on p itself no data moves: min(through[p], the best on any other q + data)
            np.maximum(oct_[i], np.minimum(through, best_elsewhere), out=oct_[i])
    return oct_


def _positions(graph: TaskGraph) -> np.ndarray:
    position = np.empty(graph.tasks, dtype=np.int64)
    position[list(graph.order)] = np.arange(graph.tasks)
    return position


def _schedule(name: str, state: GraphProcessors, began: float, **info: object) -> GraphSchedule:
    return GraphSchedule(name, state.processor.copy(), state.start.copy(), state.finish.copy(),
                         seconds=time.perf_counter() - began, info=dict(info))


#: Tasks already placed (task: processor, start, finish), planned around (a plan made mid-run).
Fixed = dict[int, tuple[int, float, float]]


def _machines(graph: TaskGraph, rows: Sequence[int], capacity: Sequence[int] | None,
              demand: Sequence[int] | None, fixed: Fixed | None) -> GraphProcessors:
    state = GraphProcessors(graph, rows, capacity, demand)
    for task, (p, start, finish) in (fixed or {}).items():
        state.fix(task, p, start, finish)
    return state


def heft(graph: TaskGraph, capacity: Sequence[int] | None = None,
         demand: Sequence[int] | None = None, fixed: Fixed | None = None) -> GraphSchedule:
    """HEFT: tasks by decreasing upward rank, each on the processor of its earliest finish
    (with insertion). That is MCT on the graph's processors, tasks in that order. With
    ``capacity`` and ``demand`` (cores per machine and per task), tasks share a machine while
    their cores fit (:class:`GraphProcessors`); ``fixed`` tasks are where they are, the others
    planned around them. CPOP and PEFT take the same three."""
    began = time.perf_counter()
    rank = upward_rank(graph)
    order = [int(i) for i in np.lexsort((_positions(graph), -rank))
             if int(i) not in (fixed or {})]
    state = _machines(graph, order, capacity, demand, fixed)
    mct_on(state)
    return _schedule("heft", state, began)


def by_priority(graph: TaskGraph, priority: np.ndarray,
                 place: Callable[[int], int], state: GraphProcessors) -> None:
    """Map ready tasks, highest ``priority`` first, each on processor ``place(task)`` (a task
    already placed, ``fixed``, stays)."""
    position = _positions(graph)
    waiting = np.array([len(p) for p in graph.parents])
    heap = [(-priority[i], position[i], i) for i in range(graph.tasks) if waiting[i] == 0]
    heapq.heapify(heap)
    while heap:
        _, _, task = heapq.heappop(heap)
        if state.processor[task] < 0:
            state.commit(task, place(task))
        for child, _ in graph.children[task]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(heap, (-priority[child], position[child], child))


def critical_path(graph: TaskGraph, priority: np.ndarray) -> list[int]:
    """CPOP's critical path: from the entry task of largest priority, the child whose priority
    equals the path's, to an exit task."""
    entries = [i for i in graph.order if not graph.parents[i]]
    task = max(entries, key=lambda i: (priority[i], -i))
    length = priority[task]
    tol = TOLERANCE * max(1.0, abs(length))
    path = [task]
    while graph.children[task]:
        on = [j for j, _ in graph.children[task] if abs(priority[j] - length) <= tol]
        if not on:
            break
        task = on[0]
        path.append(task)
    return path


def cpop(graph: TaskGraph, capacity: Sequence[int] | None = None,
         demand: Sequence[int] | None = None, fixed: Fixed | None = None) -> GraphSchedule:
    """CPOP: priority ``rank_u + rank_d``; the critical path's tasks all on the processor that
    runs the path fastest (unless that one can never hold the task: then its earliest-finish
    processor), every other task on its earliest-finish processor; ready tasks in decreasing
    priority."""
    began = time.perf_counter()
    state = _machines(graph, np.arange(graph.tasks), capacity, demand, fixed)
    priority = upward_rank(graph) + downward_rank(graph)
    path = critical_path(graph, priority)
    on_path = set(path)
    cp_processor = int(np.argmin(graph.cost[path].sum(axis=0)))

    def place(task: int) -> int:
        ends = state.completion(np.array([task]))[0]
        if task in on_path and np.isfinite(ends[cp_processor]):
            return cp_processor
        return int(np.argmin(ends))

    by_priority(graph, priority, place, state)
    return _schedule("cpop", state, began, critical_path=[graph.names[i] for i in path],
                     critical_path_processor=cp_processor)


def peft(graph: TaskGraph, capacity: Sequence[int] | None = None,
         demand: Sequence[int] | None = None, fixed: Fixed | None = None) -> GraphSchedule:
    """PEFT: ready tasks by decreasing ``rank_oct`` (the mean of their row of the optimistic
    cost table), each on the processor of least ``EFT + OCT``."""
    began = time.perf_counter()
    state = _machines(graph, np.arange(graph.tasks), capacity, demand, fixed)
    table = optimistic_cost_table(graph)

    def place(task: int) -> int:
        return int(np.argmin(state.completion(np.array([task]))[0] + table[task]))

    by_priority(graph, table.mean(axis=1), place, state)
    return _schedule("peft", state, began)


def by_ready_sets(graph: TaskGraph, heuristic: str) -> GraphSchedule:
    """An independent-task list heuristic over the graph, ready set by ready set (the tasks
    whose parents are all mapped, in topological order)."""
    if heuristic not in LIST_HEURISTICS:
        raise ConfigError(f"unknown list heuristic {heuristic!r}")
    began = time.perf_counter()
    state = GraphProcessors(graph, [])
    waiting = np.array([len(p) for p in graph.parents])
    position = _positions(graph)
    ready = sorted((i for i in range(graph.tasks) if waiting[i] == 0), key=position.__getitem__)
    sets = 0
    while ready:
        sets += 1
        LIST_HEURISTICS[heuristic](state.for_tasks(ready))
        released = []
        for task in ready:
            for child, _ in graph.children[task]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    released.append(child)
        ready = sorted(released, key=position.__getitem__)
    return _schedule(heuristic, state, began, ready_sets=sets)


#: The task-graph schedulers by name (beside the ready-set ones, ``LIST_HEURISTICS``).
GRAPH_HEURISTICS: dict[str, Callable[[TaskGraph], GraphSchedule]] = {
    "heft": heft, "cpop": cpop, "peft": peft,
}
