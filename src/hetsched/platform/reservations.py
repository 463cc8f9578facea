"""Reservations as step functions: the cores held on a node over time, and the conversions of
the inputs that say it in other ways (a native ``downtime``: the cores *left available* in a
window, the fewest holding where windows overlap). One implementation for the loaders, the
engine and the invariants checker.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from hetsched.platform.model import Reservation

#: An interval of held cores: ``(start, end, cores)``; ``end`` may be ``math.inf``.
Interval = tuple[float, float, int]


def steps(intervals: Iterable[Interval]) -> tuple[list[float], list[int]]:
    """The cores held over time by ``intervals``, which add up: the times at which the count
    changes, in order, and the count from each (0 before the first)."""
    deltas: defaultdict[float, int] = defaultdict(int)
    for start, end, cores in intervals:
        deltas[start] += cores
        if end < math.inf:
            deltas[end] -= cores
    times: list[float] = []
    held: list[int] = []
    total = 0
    for time in sorted(deltas):
        total += deltas[time]
        if (held[-1] if held else 0) != total:
            times.append(time)
            held.append(total)
    return times, held


def by_node(reservations: Iterable[Reservation]) -> dict[int, tuple[list[float], list[int]]]:
    """:func:`steps` of each node that has reservations."""
    intervals: defaultdict[int, list[Interval]] = defaultdict(list)
    for r in reservations:
        intervals[r.node].append((r.start, r.end, r.cores))
    return {node: steps(parts) for node, parts in sorted(intervals.items())}


def overbooked(reservations: Sequence[Reservation], cores: Sequence[int]) -> int | None:
    """The position in ``reservations`` of one that takes its node beyond its ``cores[node]``
    cores (the last given of those in force at the first time the node is overbooked), or
    ``None`` when no node is."""
    for node, (times, held) in by_node(reservations).items():
        over = next((t for t, h in zip(times, held) if h > cores[node]), None)
        if over is not None:
            return max(i for i, r in enumerate(reservations)
                       if r.node == node and r.start <= over < r.end)
    return None


def from_downtime(node: int, cores: int,
                  windows: Iterable[tuple[float, float, int]]) -> list[Reservation]:
    """Downtime windows ``(start, end, cores left available)`` of a node of ``cores`` cores as
    the equivalent reservations: where windows overlap, the fewer available cores hold (they
    do not add up), so the pieces between the windows' ends each hold ``cores - fewest``."""
    windows = list(windows)
    bounds = sorted({t for start, end, _ in windows for t in (start, end)})
    pieces: list[Reservation] = []
    for start, end in zip(bounds, bounds[1:] + [math.inf]):
        left = [available for a, b, available in windows if a <= start < b]
        held = cores - min(left) if left else 0
        if not held:
            continue
        if pieces and pieces[-1].end == start and pieces[-1].cores == held:
            start = pieces.pop().start
        pieces.append(Reservation(node, start, end, held))
    return pieces
