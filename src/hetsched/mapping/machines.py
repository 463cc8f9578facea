"""Machine models the list heuristics map onto: when could a task start and end on a machine,
and what does mapping it there change.

Two models, one interface, so every list heuristic (:mod:`hetsched.mapping.greedy`) runs
unchanged on both:

- :class:`ReadyTimes`, the classic static problem (Braun et al. 2001): machine ``j`` runs one
  task at a time and is free from ``r[j]``; mapping task ``i`` there ends at
  ``r[j] + etc[i, j]`` and sets ``r[j]`` to that.
- :class:`CoreSlots`, multi-core nodes with FIFO local queues (the batch schedulers of the
  simulator): node ``j`` has one free-from time per core; a task needing ``k`` cores starts
  when its ``k`` earliest-free cores are free and no earlier than the start of the task queued
  on ``j`` before it (FIFO, no backfilling); mapping it sets those ``k`` cores busy until its end.

In both, mapping a task on machine ``j`` changes only column ``j`` of the completion times, and
only makes it later: the incremental updates of Min-min and Max-min rely on that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


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
    ``inf`` for it."""

    def __init__(self, etc: np.ndarray, tasks: Sequence[int] | np.ndarray,
                 core_free: Sequence[np.ndarray], fifo: np.ndarray) -> None:
        self.etc = etc
        self.tasks = np.asarray(tasks, dtype=np.int64)
        self.fifo = np.asarray(fifo, dtype=np.float64).copy()
        self._all = [np.sort(np.asarray(t, dtype=np.float64)) for t in core_free]
        width = int(self.tasks.max(initial=1))
        # free[j, c]: when the (c+1)-th earliest core of j is free; inf past its last core
        self.free = np.full((len(self._all), width), np.inf)
        for j, times in enumerate(self._all):
            self.free[j, :min(width, times.size)] = times[:width]

    def with_tasks(self, etc: np.ndarray, tasks: Sequence[int]) -> "CoreSlots":
        """The same machines, as they are now, for other tasks."""
        return CoreSlots(etc, tasks, [t.copy() for t in self._all], self.fifo)

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
        self.fifo[j] = start
        width = self.free.shape[1]
        self.free[j, :min(width, times.size)] = times[:width]
        return start

    def copy(self) -> "CoreSlots":
        return self.with_tasks(self.etc, self.tasks)
