"""What every window scan shares: the window of the slots it chose, the order of windows (the
best so far and its ties), and the counters of what a search did.

A scan evaluates the slots it chose at a start with its group's length ``T_k``; the window
it returns is the slots' own: it lasts ``V / min p`` of its slots and starts at the latest of
their starts, both no later than the group's, so no criterion the scan supports is worse for
it (docs/coalloc.md#why-the-scan-is-exact).

Ties: a window replaces the best one only when it is better by more than :data:`TOLERANCE`
(relative) or equal within it and earlier in the scan (its group's rank, then its start's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hetsched.coalloc.criteria import Criterion
from hetsched.coalloc.model import Request, Slots, Window

#: Two measures closer than this (relative, at least absolute for small ones) are equal.
TOLERANCE = 1e-9

#: The best window so far: its value (larger is better), its place in the scan (group rank,
#: start rank) and what the scan needs to make the window.
Best = tuple[float, tuple[int, int], object]


@dataclass
class SearchStats:
    """What a search did: ``groups`` whose candidate lists it built, candidate ``starts`` it
    evaluated (FirstFit's walk: starts × groups), knapsack ``solves`` and their ``cells``
    (``items · n · (cells + 1)`` each)."""

    groups: int = 0
    starts: int = 0
    solves: int = 0
    cells: int = 0


def slack(value: float) -> float:
    """How far from ``value`` a measure is still equal to it (:data:`TOLERANCE`)."""
    return TOLERANCE * max(1.0, abs(value))


def beats(value: float, place: tuple[int, int], best: Best | None) -> bool:
    """Whether ``value`` at ``place`` in the scan beats ``best``: larger by more than the
    tolerance, or equal within it and earlier in the scan."""
    if best is None:
        return True
    near = slack(best[0])
    return value > best[0] + near or (value >= best[0] - near and place < best[1])


def below(value: float, best: Best | None) -> bool:
    """Whether ``value`` is below ``best``'s by more than the tolerance (cannot even tie)."""
    return best is not None and value < best[0] - slack(best[0])


def window(table: Slots, picked: np.ndarray, request: Request, rule: Criterion,
           start: float | None = None) -> Window:
    """The window of slots ``picked``: its own length, from ``start`` (by default the latest
    of their starts)."""
    picked = np.sort(picked)
    runtime = request.volume / float(table.performance[picked].min())
    start = float(table.start[picked].max()) if start is None else start
    cost = runtime * float(table.price[picked].sum())
    totals = {name: float(column[picked].sum()) for name, column in table.attributes.items()}
    return Window(tuple(int(i) for i in picked), tuple(int(n) for n in table.node[picked]),
                  start, runtime, cost, totals, rule.name,
                  rule.value(start, runtime, cost, totals))
