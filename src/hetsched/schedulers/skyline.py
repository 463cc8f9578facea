"""One node's projected free cores and memory over time, as a step function.

Step ``i`` holds ``cores[i]`` free cores and ``mem[i]`` MB of free memory over
``[times[i], times[i + 1])``; the last step is open-ended. Backfilling books jobs in it
(:meth:`Skyline.add` with negative amounts), gives them back, and asks where a window of free
resources starts (:meth:`Skyline.first_fit`). Plain Python lists: a node has few steps, and
numpy's per-call cost would dominate on them.

A window ``[t, t + d)`` covers the steps that start before ``t + d`` and end after ``t`` (at
least the step holding ``t``). Steps that end at or before the present are dropped by
:meth:`Skyline.prune`; until then searches start from the step holding their lower bound.
"""

from __future__ import annotations

import bisect
import math


def room(cores: int, mem: float, tasks_mem: float) -> int:
    """Tasks (each ``tasks_mem`` MB) that ``cores`` free cores and ``mem`` free MB can take;
    the scalar form of :func:`hetsched.sim.resources.capacity`."""
    if tasks_mem <= 0:
        return cores
    share = mem / tasks_mem
    return cores if share >= cores else math.floor(share)


class Skyline:
    __slots__ = ("times", "cores", "mem")

    def __init__(self, times: list[float], cores: list[int], mem: list[float]) -> None:
        self.times = times
        self.cores = cores
        self.mem = mem

    def step_at(self, t: float) -> int:
        """Index of the step holding ``t`` (the first one if ``t`` is before it)."""
        return max(bisect.bisect_right(self.times, t) - 1, 0)

    def _split(self, t: float) -> int:
        """Index of the step starting exactly at ``t``, splitting the one holding it."""
        i = self.step_at(t)
        if self.times[i] == t:
            return i
        self.times.insert(i + 1, t)
        self.cores.insert(i + 1, self.cores[i])
        self.mem.insert(i + 1, self.mem[i])
        return i + 1

    def add(self, start: float, end: float, cores: int, mem: float) -> None:
        """Add ``cores`` and ``mem`` (negative: take them) over ``[start, end)``."""
        if end <= start:
            return
        first = self._split(start)
        last = self._split(end)
        for i in range(first, last):
            self.cores[i] += cores
        if mem:
            for i in range(first, last):
                self.mem[i] += mem
        self._merge(last)
        self._merge(first)

    def _merge(self, i: int) -> None:
        """Drop the boundary at step ``i`` if it separates equal steps (no start can be
        earliest there: the step before it offers the same)."""
        if 0 < i < len(self.times) and self.cores[i] == self.cores[i - 1] and \
                self.mem[i] == self.mem[i - 1]:
            del self.times[i], self.cores[i], self.mem[i]

    def prune(self, now: float) -> None:
        """Forget the steps that end at or before ``now``."""
        first = self.step_at(now)
        if first:
            del self.times[:first], self.cores[:first], self.mem[:first]

    def lowest(self, start: float, end: float) -> tuple[int, float]:
        """The least free cores and memory over the window ``[start, end)``."""
        i = self.step_at(start)
        times, cores, mem = self.times, self.cores, self.mem
        low_cores, low_mem = cores[i], mem[i]
        for j in range(i + 1, bisect.bisect_left(times, end, i + 1)):
            low_cores = min(low_cores, cores[j])
            low_mem = min(low_mem, mem[j])
        return low_cores, low_mem

    def highest(self, start: float, end: float) -> tuple[int, float]:
        """The most free cores and memory over the window ``[start, end)``."""
        i = self.step_at(start)
        last = max(bisect.bisect_left(self.times, end, i + 1), i + 1)
        return max(self.cores[i:last]), max(self.mem[i:last])

    def first_fit(self, tasks: int, tasks_mem: float, duration: float, lo: float,
                  hi: float, now: float) -> float | None:
        """The earliest start ``t < hi`` from the step holding ``lo`` on (a step's start, or
        ``now`` for the step holding it) such that ``tasks`` tasks of ``tasks_mem`` MB each fit
        over all of ``[t, t + duration)``; ``None`` if there is none."""
        times, cores, mem = self.times, self.cores, self.mem
        last = len(times) - 1
        i = self.step_at(lo)
        start = None
        while True:
            if cores[i] >= tasks and (tasks_mem <= 0 or room(cores[i], mem[i], tasks_mem) >= tasks):
                if start is None:
                    start = times[i] if times[i] > now else now
                    if start >= hi:
                        return None
                if i == last or times[i + 1] >= start + duration:
                    return start
            else:
                start = None
                if i == last or times[i + 1] >= hi:
                    return None
            i += 1
