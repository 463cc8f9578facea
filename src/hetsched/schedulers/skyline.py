"""One node's projected free cores, memory and disk over time, as a step function.

Step ``i`` holds ``cores[i]`` free cores, ``mem[i]`` MB of free memory and ``disk[i]`` MB of
free disk over ``[times[i], times[i + 1])``; the last step is open-ended. Backfilling books
jobs in it (:meth:`Skyline.add` with negative amounts), gives them back, and asks where a
window of free resources starts (:meth:`Skyline.first_fit`). Plain Python lists: a node has
few steps, and numpy's per-call cost would dominate on them.

A window ``[t, t + d)`` covers the steps that start before ``t + d`` and end after ``t`` (at
least the step holding ``t``). Steps that end at or before the present are dropped by
:meth:`Skyline.prune`; until then searches start from the step holding their lower bound.
"""

from __future__ import annotations

import bisect
import math

from hetsched.sim.resources import Resources


class Skyline:
    """One node's free cores, memory and disk from ``times[0]`` on (see the module's
    docstring)."""

    __slots__ = ("times", "cores", "mem", "disk")

    def __init__(self, times: list[float], cores: list[int], mem: list[float],
                 disk: list[float]) -> None:
        self.times = times
        self.cores = cores
        self.mem = mem
        self.disk = disk

    def step_at(self, t: float) -> int:
        """Index of the step holding ``t`` (the first one if ``t`` is before it)."""
        return max(bisect.bisect_right(self.times, t) - 1, 0)

    def add(self, start: float, end: float, cores: int, mem: float, disk: float) -> None:
        """Add ``cores``, ``mem`` and ``disk`` (negative: take them) over ``[start, end)``
        (``end`` may be ``inf``); ``start`` is never before the first step. Steps left equal
        to their neighbour are merged (no start can be earliest at their boundary: the step
        before offers the same)."""
        if end <= start:
            return
        # the two boundaries are split inline: the hot path of every booking (a helper
        # method made it about 15 % slower)
        times, free, free_mem, free_disk = self.times, self.cores, self.mem, self.disk
        first = bisect.bisect_right(times, start) - 1
        if times[first] != start:
            first += 1
            times.insert(first, start)
            free.insert(first, free[first - 1])
            free_mem.insert(first, free_mem[first - 1])
            free_disk.insert(first, free_disk[first - 1])
        last = bisect.bisect_right(times, end, first) - 1
        if end == math.inf:  # to the end of the open last step
            last += 1
        elif times[last] != end:
            last += 1
            times.insert(last, end)
            free.insert(last, free[last - 1])
            free_mem.insert(last, free_mem[last - 1])
            free_disk.insert(last, free_disk[last - 1])
        for i in range(first, last):
            free[i] += cores
        if mem:
            for i in range(first, last):
                free_mem[i] += mem
        if disk:
            for i in range(first, last):
                free_disk[i] += disk
        if last < len(times) and free[last] == free[last - 1] and \
                free_mem[last] == free_mem[last - 1] and free_disk[last] == free_disk[last - 1]:
            del times[last], free[last], free_mem[last], free_disk[last]
        if first and free[first] == free[first - 1] and free_mem[first] == free_mem[first - 1] \
                and free_disk[first] == free_disk[first - 1]:
            del times[first], free[first], free_mem[first], free_disk[first]

    def prune(self, now: float) -> None:
        """Forget the steps that end at or before ``now``."""
        if len(self.times) > 1 and self.times[1] <= now:
            first = bisect.bisect_right(self.times, now) - 1
            del self.times[:first], self.cores[:first], self.mem[:first], self.disk[:first]

    def lowest(self, start: float, end: float) -> Resources:
        """The least free cores, memory and disk over the window ``[start, end)``."""
        i = self.step_at(start)
        last = max(bisect.bisect_left(self.times, end, i + 1), i + 1)
        return min(self.cores[i:last]), min(self.mem[i:last]), min(self.disk[i:last])

    def highest(self, start: float, end: float) -> Resources:
        """The most free cores, memory and disk over the window ``[start, end)``."""
        i = self.step_at(start)
        last = max(bisect.bisect_left(self.times, end, i + 1), i + 1)
        return max(self.cores[i:last]), max(self.mem[i:last]), max(self.disk[i:last])

    def runs(self, start: float, end: float, now: float) -> "Runs":
        """How far free cores reach out of ``[start, end)`` on either side (from ``now``)."""
        times, cores, last = self.times, self.cores, len(self.times) - 1
        left, left_low, low = [], [], math.inf
        j = bisect.bisect_left(times, start) - 1  # the step just before start
        while j >= 0 and low >= 1 and (j == last or times[j + 1] > now):
            low = min(low, cores[j])
            left.append(max(times[j], now))
            left_low.append(-low)
            j -= 1
        right, right_low, low = [], [], math.inf
        j = self.step_at(end)
        while low >= 1:
            low = min(low, cores[j])
            right.append(times[j + 1] if j < last else math.inf)
            right_low.append(-low)
            if j == last:
                break
            j += 1
        return Runs(start, end, left, left_low, right, right_low)

    def first_fit(self, tasks: int, need_mem: float, duration: float, lo: float,
                  hi: float, now: float, until: float = math.inf,
                  need_disk: float = 0.0) -> float | None:
        """The earliest start ``t < hi`` from the step holding ``lo`` on (a step's start, or
        ``now`` for the step holding it) such that ``tasks`` tasks needing ``need_mem`` MB of
        memory and ``need_disk`` MB of disk in all fit over all of ``[t, min(t + duration,
        until))``; ``None`` if there is none."""
        times, cores, free_mem, free_disk = self.times, self.cores, self.mem, self.disk
        last = len(times) - 1
        i = bisect.bisect_right(times, lo) - 1  # (step_at inline: every search's hot path)
        if i < 0:
            i = 0
        start = end = None
        while True:
            if cores[i] >= tasks and (need_mem <= 0 or free_mem[i] >= need_mem) and \
                    (need_disk <= 0 or free_disk[i] >= need_disk):
                if start is None:
                    start = times[i] if times[i] > now else now
                    if start >= hi:
                        return None
                    end = start + duration
                    if end > until:
                        end = until
                if i == last or times[i + 1] >= end:
                    return start
            else:
                start = None
                if i == last or times[i + 1] >= hi:
                    return None
            i += 1


class Runs:
    """Around a time range: for a level of free cores, how far before its start and after its
    end a skyline keeps at least that many (steps met going outwards, with the least free
    cores seen so far, negated to stay sorted)."""

    __slots__ = ("start", "end", "left", "left_low", "right", "right_low")

    def __init__(self, start: float, end: float, left: list[float], left_low: list[int],
                 right: list[float], right_low: list[int]) -> None:
        self.start, self.end = start, end
        self.left, self.left_low, self.right, self.right_low = left, left_low, right, right_low

    def span(self, level: int) -> tuple[float, float]:
        """``(u, v)``: the skyline keeps ``level`` free cores over ``[u, start)`` and over
        ``[end, v)``, and no further out."""
        k = bisect.bisect_right(self.left_low, -level)
        u = self.left[k - 1] if k else self.start
        k = bisect.bisect_right(self.right_low, -level)
        return u, self.right[k - 1] if k else self.end
