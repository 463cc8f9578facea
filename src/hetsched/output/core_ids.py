"""Which core ids each job held: a replay of the run that gives every job the lowest-numbered
cores free on each of its nodes when it starts.

The engine counts busy cores per node, not which ones; any assignment that never gives one
core to two jobs at once is as true as another. This one is deterministic and never overlaps,
so Gantt tools (evalys) draw it as it happened. Node ``n`` owns the global ids
``[offset_n, offset_n + slots_n)`` (its cores, times its oversubscription when it allows more
threads than cores); free ids are kept per node as sorted half-open ranges.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from hetsched.sim.result import SimResult

Ranges = list[tuple[int, int]]


def _take(free: list[list[int]], count: int) -> Ranges:
    """Remove the ``count`` lowest ids from ``free`` and return them as ranges."""
    taken: Ranges = []
    while count:
        lo, hi = free[0]
        used = min(count, hi - lo)
        taken.append((lo, lo + used))
        count -= used
        if used == hi - lo:
            free.pop(0)
        else:
            free[0][0] = lo + used
    return taken


def _give_back(free: list[list[int]], ranges: Ranges) -> None:
    """Return ``ranges`` to ``free``, merging neighbours."""
    for lo, hi in ranges:
        i = bisect.bisect_left(free, [lo, hi])
        free.insert(i, [lo, hi])
        if i + 1 < len(free) and free[i][1] == free[i + 1][0]:
            free[i][1] = free.pop(i + 1)[1]
        if i > 0 and free[i - 1][1] == free[i][0]:
            free[i - 1][1] = free.pop(i)[1]


def _release(free: list[list[list[int]]], allocation: tuple[tuple[int, int], ...],
             held: Ranges) -> None:
    """Give a job's ``held`` ranges back to each node of its ``allocation``."""
    per_node = iter(held)
    for node, k in allocation:
        ranges, need = [], k
        while need:
            lo, hi = next(per_node)
            ranges.append((lo, hi))
            need -= hi - lo
        _give_back(free[node], ranges)


def core_ranges(result: SimResult) -> list[Ranges | None]:
    """Per job, the global core-id ranges it held (``None`` if it never started)."""
    cores = result.platform.arrays.slots
    offsets = (np.cumsum(cores) - cores).tolist()
    free = [[[lo, lo + int(c)]] for lo, c in zip(offsets, cores.tolist())]
    events = []  # (time, order, job): ends first, then zero-length jobs, then starts
    for index, allocation in enumerate(result.allocation):
        if allocation is None:
            continue
        start, end = float(result.start[index]), float(result.end[index])
        events.append((start, 1 if end == start else 2, index))
        if not math.isnan(end) and end != start:
            events.append((end, 0, index))
    held: list[Ranges | None] = [None] * len(result.allocation)
    for _, order, index in sorted(events):
        allocation = result.allocation[index]
        assert allocation is not None
        if order:
            held[index] = [r for node, k in allocation for r in _take(free[node], k)]
        if order < 2:  # an end, or a zero-length job that gives its cores back at once
            _release(free, allocation, held[index] or [])
    return held
