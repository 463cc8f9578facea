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
from collections.abc import Iterator

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


def _events(result: SimResult) -> Iterator[tuple[int, int]]:
    """(order, job) of every start and end in time order: at one time, ends (order 0) first,
    then zero-length jobs (1), then starts (2), each kind by job index. Laid out in that
    order, then sorted by time alone (numpy's stable sort keeps the rest)."""
    started = np.array([a is not None for a in result.allocation], dtype=bool)
    index = np.flatnonzero(started)
    start, end = result.start[index], result.end[index]
    ends = ~np.isnan(end) & (end != start)
    zero = end == start
    kinds = ((end, ends, 0), (start, zero, 1), (start, ~zero, 2))
    times = np.concatenate([time[kind] for time, kind, _ in kinds])
    orders = np.concatenate([np.full(int(kind.sum()), order) for _, kind, order in kinds])
    jobs = np.concatenate([index[kind] for _, kind, _ in kinds])
    sequence = np.argsort(times, kind="stable")
    return zip(orders[sequence].tolist(), jobs[sequence].tolist())


def core_ranges(result: SimResult) -> list[Ranges | None]:
    """Per job, the global core-id ranges it held (``None`` if it never started)."""
    held: list[Ranges | None] = [None] * len(result.allocation)
    for index, ranges in replay(result):
        held[index] = ranges
    return held


def replay(result: SimResult) -> Iterator[tuple[int, Ranges]]:
    """(job, the global core-id ranges it holds) at each start, in the replay's order; only
    the running jobs' ranges are kept (a million jobs' would take hundreds of MB)."""
    cores = result.platform.arrays.slots
    offsets = (np.cumsum(cores) - cores).tolist()
    free = [[[lo, lo + int(c)]] for lo, c in zip(offsets, cores.tolist())]
    held: dict[int, Ranges] = {}
    allocations = result.allocation
    for order, index in _events(result):
        allocation = allocations[index]
        assert allocation is not None
        if order:
            if len(allocation) == 1:  # one node, the common case
                (node, count), = allocation
                ranges = _take(free[node], count)
            else:
                ranges = [r for node, k in allocation for r in _take(free[node], k)]
            yield index, ranges
            if order == 2:
                held[index] = ranges
                continue
        else:
            ranges = held.pop(index)
        if len(allocation) == 1:  # an end, or a zero-length job that gives its cores back
            _give_back(free[allocation[0][0]], ranges)
        else:
            _release(free, allocation, ranges)
