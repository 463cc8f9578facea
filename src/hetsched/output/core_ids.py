"""Which core ids each job held: a replay of the run that gives every job the lowest-numbered
cores free on each of its nodes when it starts.

The engine counts busy cores per node, not which ones; any assignment that never gives one
core to two jobs at once is as true as another. This one is deterministic and never overlaps,
so Gantt tools (evalys) draw it as it happened. Node ``n`` owns the global ids
``[offset_n, offset_n + slots_n)`` (its cores, times its oversubscription when it allows more
threads than cores); a node's free ids are kept as the bits of one integer (bit ``i``: id
``offset_n + i``), and what a count of cores takes from a set of free ones is worked out once
per distinct pair (a run repeats few of them: a million jobs' replay in a third of the time
sorted lists of ranges took).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import numpy as np

from hetsched.sim.result import KilledAttempt, SimResult

Ranges = list[tuple[int, int]]
Allocation = tuple[tuple[int, int], ...]
#: Per node of a job's allocation (in its order), the bits of the ids it holds there.
Held = tuple[int, ...]


def _events(start: np.ndarray, end: np.ndarray,
            allocations: list[Allocation | None]) -> Iterator[Iterator[tuple[int, int]]]:
    """(order, interval) of every start and end of the intervals (jobs, then killed
    attempts) in time order, in parts: at one time, ends (order 0) first, then zero-length
    intervals (1), then starts (2), each kind by number. Laid out in that order, then sorted
    by time alone (numpy's stable sort keeps the rest)."""
    started = np.array([a is not None for a in allocations], dtype=bool)
    index = np.flatnonzero(started)
    start, end = start[index], end[index]
    ends = ~np.isnan(end) & (end != start)
    zero = end == start
    kinds = ((end, ends, 0), (start, zero, 1), (start, ~zero, 2))
    times = np.concatenate([time[kind] for time, kind, _ in kinds])
    orders = np.concatenate([np.full(int(kind.sum()), order) for _, kind, order in kinds])
    jobs = np.concatenate([index[kind] for _, kind, _ in kinds])
    sequence = np.argsort(times, kind="stable")
    orders, jobs = orders[sequence], jobs[sequence]
    for begin in range(0, len(sequence), _EVENTS):  # Python's ints for a part at a time
        yield zip(orders[begin:begin + _EVENTS].tolist(), jobs[begin:begin + _EVENTS].tolist())


def killed_attempts(result: SimResult) -> list[tuple[int, KilledAttempt]]:
    """``(job, (start, kill time, allocation))`` of each attempt a failure killed and
    requeued, by job, then in order: the replay's intervals after the jobs."""
    return [(index, attempt) for index in sorted(result.requeued)
            for attempt in result.requeued[index].attempts]


#: Events whose numbers are made Python ints at once (two million jobs' ends and starts
#: would be 70 MB of them).
_EVENTS = 1 << 16


def core_ranges(result: SimResult) -> list[Ranges | None]:
    """Per job, the global core-id ranges it held (``None`` if it never started), each node's
    in the allocation's order; its last attempt's for a requeued job."""
    held: list[Ranges | None] = [None] * len(result.allocation)
    for index, ranges in _ranges(result, attempts=False):
        held[index] = ranges
    return held


def attempt_ranges(result: SimResult) -> list[Ranges]:
    """The global core-id ranges each attempt of :func:`killed_attempts` held (replayed with
    the jobs: no id is held by two at once)."""
    jobs = len(result.allocation)
    held: list[Ranges] = [[] for _ in range(sum(r.killed for r in result.requeued.values()))]
    for index, ranges in _ranges(result, attempts=True):
        if index >= jobs:  # (an attempt's number is past every job's)
            held[index - jobs] = ranges
    return held


def job_replay(result: SimResult) -> Iterator[tuple[int, Held]]:
    """:func:`replay`'s starts of jobs (their last attempts), without the killed attempts."""
    return replay(result, attempts=False)


def id_ranges(allocation: Allocation, held: Held, first: list[int]) -> Ranges:
    """The global id ranges of the bits ``held`` on each node of ``allocation`` (``first``:
    each node's first id, :func:`offsets`), node by node."""
    return [r for (node, _), bits in zip(allocation, held) for r in runs(bits, first[node])]


def _ranges(result: SimResult, attempts: bool) -> Iterator[tuple[int, Ranges]]:
    """:func:`replay`'s intervals with their bits as id ranges."""
    first = offsets(result)
    spans = intervals(result)
    for index, bits in _replay(result, spans, attempts):
        allocation = spans[2][index]
        assert allocation is not None
        yield index, id_ranges(allocation, bits, first)


def intervals(result: SimResult) -> tuple[np.ndarray, np.ndarray, list[Allocation | None]]:
    """The start, end and allocation of what held cores: each job (its last attempt), then
    each attempt of :func:`killed_attempts`."""
    attempts = killed_attempts(result)
    if not attempts:
        return result.start, result.end, result.allocation
    start, end, allocation = zip(*(attempt for _, attempt in attempts))
    return (np.concatenate((result.start, start)), np.concatenate((result.end, end)),
            [*result.allocation, *allocation])


def replay(result: SimResult, attempts: bool = True) -> Iterator[tuple[int, Held]]:
    """(interval, the bits of the ids it holds on each node of its allocation) at each start,
    in the replay's order, for the intervals of :func:`intervals` (a job's number is its
    index; a killed attempt's comes after every job's, given only with ``attempts``: they
    hold their ids all the same); only the running ones' are kept."""
    return _replay(result, intervals(result), attempts)


def _replay(result: SimResult,
            spans: tuple[np.ndarray, np.ndarray, list[Allocation | None]],
            attempts: bool) -> Iterator[tuple[int, Held]]:
    """:func:`replay` of ``spans`` (:func:`intervals`: made by the caller, who may need them
    too)."""
    slots = result.platform.arrays.slots.tolist()
    free = [(1 << int(n)) - 1 for n in slots]
    lowest: dict[tuple[int, int], int] = {}  # (free bits, count) -> the bits taken
    held: dict[int, Held] = {}
    start, end, allocations = spans
    shown = len(allocations) if attempts else len(result.allocation)
    for order, index in chain.from_iterable(_events(start, end, allocations)):
        allocation = allocations[index]
        assert allocation is not None
        if len(allocation) == 1:  # one node, the common case
            (node, count), = allocation
            if order:
                bits = lowest.get((free[node], count))
                if bits is None:
                    bits = lowest[free[node], count] = _lowest_bits(free[node], count)
                if index < shown:
                    yield index, (bits,)
                if order == 2:
                    free[node] ^= bits
                    held[index] = (bits,)
            else:
                free[node] |= held.pop(index)[0]
        elif order:
            taken = []
            for node, count in allocation:
                bits = _lowest_bits(free[node], count)
                free[node] ^= bits
                taken.append(bits)
            if index < shown:
                yield index, tuple(taken)
            if order == 2:
                held[index] = tuple(taken)
            else:  # a zero-length job gives its cores back at once
                _give_back(free, allocation, taken)
        else:
            _give_back(free, allocation, held.pop(index))


def _give_back(free: list[int], allocation: tuple[tuple[int, int], ...],
               held: Held | list[int]) -> None:
    for (node, _), bits in zip(allocation, held):
        free[node] |= bits


def _lowest_bits(free: int, count: int) -> int:
    """The ``count`` lowest set bits of ``free``."""
    taken = 0
    for _ in range(count):
        bit = free & -free
        taken |= bit
        free ^= bit
    return taken


def runs(bits: int, offset: int = 0) -> Ranges:
    """The runs of set bits of ``bits`` as half-open ranges of ids from ``offset``, lowest
    first: ``0b1101`` -> ``[(0, 1), (2, 4)]``."""
    out: Ranges = []
    at = offset
    while bits:
        gap = (bits & -bits).bit_length() - 1
        bits >>= gap
        at += gap
        length = (~bits & (bits + 1)).bit_length() - 1  # the trailing ones
        out.append((at, at + length))
        bits >>= length
        at += length
    return out


def offsets(result: SimResult) -> list[int]:
    """Each node's first global id."""
    slots = result.platform.arrays.slots
    return (np.cumsum(slots) - slots).tolist()
