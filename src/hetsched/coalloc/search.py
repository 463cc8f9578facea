"""The general window search (Toporkov & Yemelyanov, ICCS 2018, §3.2), for every criterion.

The scan visits the performance groups from the fastest and, in each, the candidate starts in
order (:mod:`hetsched.coalloc.candidates`). At each start it picks ``n`` slots of ``S_W``
within the budget, evaluated with the group's length ``T_k``: the ``n`` cheapest for FirstFit
and the sort criteria, the knapsack's choice for additive ones. It keeps the best window by
the criterion; FirstFit stops at the first. The window returned is the chosen slots' own:
it lasts ``V / min p`` of its slots and starts at the latest start among them (both no later
than what the group gave, so no criterion is worse for it; docs/coalloc.md proves the scan
exact).

Ties: a window replaces the best one only when it is strictly better (by more than 1e-9 of
the measure), so among equal windows the scan's first is kept: the fastest group, then the
earliest start. Additive criteria visit their candidate lists in order of decreasing upper
bound (with pruning) and keep, among equal values, the one the scan meets first.

Pruning (``prune=True``; ``prune=False`` is the paper's plain scan, for comparison) skips
what cannot beat the best window found: later groups for MinRuntime (their windows are
longer), starts no earlier than the best start for MinStart, groups and starts that cannot
finish earlier for MinFinish, groups whose ``n`` cheapest slots cost more for MinCost; and for
additive criteria it solves only the maximal candidate lists (every other is a subset of the
next maximal one), drops items no optimal choice needs, and solves a list only when its upper
bound can beat the best value found.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from hetsched.coalloc.candidates import Group, Spans, group, least_of, least_sums, levels
from hetsched.coalloc.criteria import Criterion
from hetsched.coalloc.knapsack import CELLS, knapsack, scaled_weights, upper_bound, \
    useful_items
from hetsched.coalloc.model import Request, Slot, Slots, Window, as_slots
from hetsched.errors import ConfigError, did_you_mean

#: Two measures closer than this (relative, at least absolute for small ones) are equal.
TOLERANCE = 1e-9


@dataclass
class SearchStats:
    """What a search did: ``groups`` whose candidate lists it built, candidate ``starts`` it
    evaluated, knapsack ``solves`` and their ``cells`` (``items · n · (cells + 1)`` each)."""

    groups: int = 0
    starts: int = 0
    solves: int = 0
    cells: int = 0

    def add(self, other: SearchStats) -> None:
        for name in ("groups", "starts", "solves", "cells"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def search(slots: Slots | Iterable[Slot], request: Request, *, cells: int = CELLS,
           prune: bool = True, stats: SearchStats | None = None) -> Window | None:
    """The best window for ``request`` among ``slots`` by its criterion, or ``None`` when no
    window fits. ``cells``: the knapsack's budget resolution (additive criteria,
    :mod:`hetsched.coalloc.knapsack`)."""
    table = as_slots(slots)
    rule = request.rule
    if isinstance(cells, bool) or not isinstance(cells, int) or not 1 <= cells <= 10**6:
        raise ConfigError(f"cells must be a whole number from 1 to 1,000,000, got {cells!r}")
    stats = stats if stats is not None else SearchStats()
    if rule.kind == "additive":
        return _additive(table, request, rule, cells, prune, stats)
    found = sorted_search(table, request, rule, prune, stats)
    if found is None:
        return None
    chosen, _ = found
    return window(table, chosen, request, rule)


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


#: The best window so far: its value (larger is better), its place in the scan, and what
#: makes the window.
Best = tuple[float, tuple[int, int], object]


def _beats(value: float, place: tuple[int, int], best: Best | None) -> bool:
    """Whether ``value`` at ``place`` in the scan beats ``best``: larger by more than the
    tolerance, or equal within it and earlier in the scan."""
    if best is None:
        return True
    slack = TOLERANCE * max(1.0, abs(best[0]))
    return value > best[0] + slack or (value >= best[0] - slack and place < best[1])


def sorted_search(table: Spans, request: Request, rule: Criterion, prune: bool,
                  stats: SearchStats, resume: tuple[int, float] = (0, -np.inf)
                  ) -> tuple[np.ndarray, tuple[int, float]] | None:
    """FirstFit and the sort criteria: the best window's slots (the ``n`` cheapest of its
    ``S_W``) and its place in the scan (the group's rank, the start), or ``None``. The scan
    begins at place ``resume``."""
    best: Best | None = None
    first = float(table.start.min(initial=np.inf))
    for order, level in enumerate(levels(table, request)):
        if order < resume[0]:
            continue
        runtime = request.volume / level
        since = resume[1] if order == resume[0] else -np.inf
        before = np.inf
        if best is not None and prune:
            if rule.measure == "runtime":
                break  # every later group's windows last longer
            if rule.measure == "start":
                before = -best[0]
            elif rule.measure == "finish":
                before = -best[0] - runtime
            if before <= first:
                break  # no start is early enough, here or in any later group
            if rule.measure == "cost" and not _beats(-_least_cost(table, request, level),
                                                     (order, 0), best):
                continue
        found = group(table, level, runtime, since, before)
        stats.groups += 1
        stats.starts += len(found.starts)
        sums = least_sums(found, table.price[found.slots], request.n)
        affordable = np.flatnonzero(found.exact & (runtime * sums <= request.budget))
        if not affordable.size:
            continue
        values = {"start": found.starts, "finish": found.starts + runtime,
                  "runtime": np.full(len(found.starts), runtime), "cost": runtime * sums
                  }[rule.measure][affordable]
        row = int(affordable[0 if rule.kind == "first" else np.argmin(values)])
        if _beats(-float(values.min()), (order, row), best):
            chosen = least_of(found, table.price[found.slots], request.n, row)
            best = (-float(values.min()), (order, row), (chosen, float(found.starts[row])))
        if rule.kind == "first":
            break
    if best is None:
        return None
    chosen, start = best[2]  # type: ignore[misc]
    return chosen, (best[1][0], start)


def _least_cost(table: Spans, request: Request, level: float) -> float:
    """A lower bound of the cost of group ``level``'s windows: its ``n`` cheapest slots'."""
    runtime = request.volume / level
    prices = table.price[(table.performance >= level) & (table.end - table.start >= runtime)]
    if prices.size < request.n:
        return np.inf
    return runtime * float(np.partition(prices, request.n - 1)[:request.n].sum())


def _additive(table: Slots, request: Request, rule: Criterion, cells: int, prune: bool,
              stats: SearchStats) -> Window | None:
    """Additive criteria: the knapsack over each ``S_W`` (with pruning, the maximal ones, by
    decreasing upper bound)."""
    if rule.measure not in table.attributes:
        raise ConfigError(f"criterion {rule.name}: the slots have no attribute "
                          f"{rule.measure!r}{did_you_mean(rule.measure, list(table.attributes))}"
                          f" (they have: {', '.join(table.attributes) or 'none'})")
    z = (1.0 if rule.maximize else -1.0) * table.attributes[rule.measure]
    groups = []
    for level in levels(table, request):
        runtime = request.volume / level
        found = group(table, level, runtime)
        stats.groups += 1
        weights = scaled_weights(runtime * table.price[found.slots], request.budget, cells)
        groups.append((found, z[found.slots], weights))
    solve = _Knapsacks(groups, request.n, cells, stats)
    best = solve.best_first() if prune else solve.in_scan_order()
    if best is None:
        return None
    found, values, weights = groups[best[1][0]]
    inside = solve.items(best[1], prune)
    _, chosen = knapsack(values[inside], weights[inside], request.n, cells, choose=True)
    assert chosen is not None
    return window(table, found.slots[inside[chosen]], request, rule)


class _Knapsacks:
    """The knapsacks of an additive search, one per start of each group: ``groups`` holds each
    group's candidates, their values (``z``, negated for a least sum) and weights."""

    def __init__(self, groups: list[tuple[Group, np.ndarray, np.ndarray]], n: int, cells: int,
                 stats: SearchStats) -> None:
        self.groups, self.n, self.cells, self.stats = groups, n, cells, stats

    def items(self, place: tuple[int, int], prune: bool) -> np.ndarray:
        """The positions (in its group) of the candidates of the knapsack at ``place``: with
        ``prune``, those an optimal choice may need."""
        found, values, weights = self.groups[place[0]]
        inside = np.flatnonzero(found.member[place[1]])
        if prune:
            inside = inside[useful_items(values[inside], weights[inside], self.n, self.cells)]
        return inside

    def solve(self, place: tuple[int, int], inside: np.ndarray) -> float:
        _, values, weights = self.groups[place[0]]
        self.stats.solves += 1
        self.stats.cells += len(inside) * self.n * (self.cells + 1)
        return knapsack(values[inside], weights[inside], self.n, self.cells)[0]

    def in_scan_order(self) -> Best | None:
        """The paper's scan: a knapsack over the whole ``S_W`` at every start that passes
        step A."""
        best: Best | None = None
        for order, (found, _, _) in enumerate(self.groups):
            for row in np.flatnonzero(found.exact & (found.counts >= self.n)):
                self.stats.starts += 1
                place = (order, int(row))
                value = self.solve(place, self.items(place, prune=False))
                if value > -np.inf and _beats(value, place, best):
                    best = (value, place, None)
        return best

    def best_first(self) -> Best | None:
        """The maximal lists that pass step A and can afford ``n`` slots, by decreasing upper
        bound: first a coarse one (a few multipliers for the whole group), then the list's
        own LP bound, then the knapsack, until no bound can beat the best value."""
        heap: list[tuple[float, tuple[int, int], bool]] = []
        for order, (found, values, weights) in enumerate(self.groups):
            for row, bound in self._coarse(found, values, weights):
                heap.append((-bound, (order, row), False))
        heapq.heapify(heap)
        best: Best | None = None
        while heap:
            negative, place, refined = heapq.heappop(heap)
            bound = -negative
            if not _beats(bound, place, best):
                if best is not None and bound < best[0] - TOLERANCE * max(1.0, abs(best[0])):
                    break  # every bound left is lower
                continue
            inside = self.items(place, prune=True)
            if not refined:
                _, values, weights = self.groups[place[0]]
                own, _ = upper_bound(values[inside], weights[inside], self.n, self.cells)
                if own > -np.inf:
                    heapq.heappush(heap, (-min(bound, own), place, True))
                continue
            value = self.solve(place, inside)
            if value > -np.inf and _beats(value, place, best):
                best = (value, place, None)
        return best

    def _coarse(self, found: Group, values: np.ndarray,
                weights: np.ndarray) -> list[tuple[int, float]]:
        """``(row, bound)`` of the group's maximal lists that pass step A and can afford ``n``
        slots: the least Lagrangian bound over multipliers around the whole group's."""
        n, cells = self.n, self.cells
        rows = found.exact & found.maximal() & (least_sums(found, weights.astype(float), n)
                                                <= cells)
        self.stats.starts += int(rows.sum())
        if not rows.any():
            return []
        fits = weights <= cells
        _, multiplier = upper_bound(values[fits], weights[fits], n, cells)
        bound = np.full(len(found.starts), np.inf)
        for lam in (0.5 * multiplier, multiplier, 1.5 * multiplier):
            bound = np.minimum(bound, lam * cells - least_sums(found, lam * weights - values, n))
        return [(int(row), float(bound[row])) for row in np.flatnonzero(rows)]
