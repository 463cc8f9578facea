"""MultipleBest (Toporkov & Yemelyanov, ICCS 2018, §4.2; after Ernemann et al.): every
non-intersecting alternative window FirstFit finds, then the best of them by a criterion.

FirstFit finds a window; its span is cut out of its slots (each keeps what lies before the
window's start and after its finish); FirstFit searches again, until it finds none. The
alternatives never share a node at the same time. Each search walks on from the last one's
earliest affordable start: cutting only takes free time away, so no window starts before
it, and the result is the same as searching from the top (docs/coalloc.md#multiplebest).

The best alternative depends on the criterion: :func:`best_of` takes, per criterion, the
alternative with the best measure (the first found on ties). The study reports for MultipleBest
each column's own best: the least start, runtime, finish and cost and the largest Q of the
alternatives, which may be different windows (docs/coalloc.md#multiplebest).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from hetsched.coalloc.criteria import Criterion, criterion
from hetsched.coalloc.model import Request, Slot, Slots, Window, as_slots
from hetsched.coalloc.scan import SearchStats, slack, window
from hetsched.coalloc.sorted_scan import earliest, sorted_search


class Pieces:
    """What is left of a table's slots as windows are cut out of them: each entry is a slot's
    part (``origin``: the slot's position in the table), with the slot's performance and
    price. A slot cut by a window keeps, in its place, the part before the window (or becomes
    empty), and the part after it is added at the end."""

    def __init__(self, table: Slots) -> None:
        self.start, self.end = table.start.copy(), table.end.copy()
        self.performance, self.price = table.performance, table.price
        self.origin = np.arange(len(table))

    def cut(self, parts: np.ndarray, start: float, finish: float) -> None:
        """Cut ``[start, finish)`` out of ``parts`` (positions of entries holding it)."""
        after = parts[self.end[parts] > finish]
        self.start = np.concatenate([self.start, np.full(after.size, finish)])
        self.end = np.concatenate([self.end, self.end[after]])
        self.performance = np.concatenate([self.performance, self.performance[after]])
        self.price = np.concatenate([self.price, self.price[after]])
        self.origin = np.concatenate([self.origin, self.origin[after]])
        self.end[parts] = np.maximum(self.start[parts], start)  # empty when nothing is before


def alternatives(slots: Slots | Iterable[Slot], request: Request, *, prune: bool = True,
                 stats: SearchStats | None = None) -> list[Window]:
    """Every alternative window FirstFit finds, in the order found; each window's ``slots``
    are positions in ``slots`` (the slots it was cut from). ``prune=False`` starts each
    search from the top, with the same windows."""
    table = as_slots(slots)
    rule = criterion("first_fit")
    stats = stats if stats is not None else SearchStats()
    left = Pieces(table)
    found: list[Window] = []
    since = -np.inf
    while (hit := _first_fit(left, request, rule, prune, stats, since)) is not None:
        parts, since = hit
        cut = window(table, left.origin[parts], request, rule,
                     start=float(left.start[parts].max()))
        left.cut(parts, cut.start, cut.finish)
        found.append(cut)
    return found


def _first_fit(left: Pieces, request: Request, rule: Criterion, prune: bool,
               stats: SearchStats, since: float) -> tuple[np.ndarray, float] | None:
    """FirstFit's window on what is ``left`` (its slots, positions in ``left``), and the
    start the next search may walk from: with ``prune``, the walk from ``since`` (the last
    window's start); without, the plain scan from the top."""
    if prune:
        return earliest(left, request, rule, stats, since)
    parts = sorted_search(left, request, rule, False, stats)
    return None if parts is None else (parts, -np.inf)


def best_of(windows: Sequence[Window], rule: Criterion) -> Window | None:
    """The window of ``windows`` with the best measure by ``rule`` (the first on ties, equal
    within the scans' tolerance: MultipleBest's cuts leave float noise in starts), labelled
    with ``rule``; ``None`` for no window."""
    best, value = None, 0.0
    for found in windows:
        own = rule.value(found.start, found.runtime, found.cost, found.totals)
        if best is None or (rule.better(own, value) and abs(own - value) > slack(value)):
            best, value = found, own
    return None if best is None else replace(best, criterion=rule.name, value=value)


def multiple_best(slots: Slots | Iterable[Slot], request: Request, *,
                  stats: SearchStats | None = None) -> Window | None:
    """The best alternative (:func:`alternatives`) by the request's criterion."""
    return best_of(alternatives(slots, request, stats=stats), request.rule)
