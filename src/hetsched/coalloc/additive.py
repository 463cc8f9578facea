"""Additive criteria (MaxQ, ``max:NAME``, ``min:NAME``): the scan of Toporkov & Yemelyanov
(ICCS 2018, §3.2) with the knapsack of §3.3 at each start, choosing the ``n`` slots of ``S_W``
of the best ``Σ z_i`` within the budget (costs scaled to cells, :mod:`~hetsched.coalloc.knapsack`).

Without pruning it is the paper's scan: a knapsack over the whole ``S_W`` at every start of
every group that passes step A. With pruning (the default) the optimum is the same, found with
far fewer knapsacks, by visiting candidates in order of decreasing upper bound and stopping
when no bound can beat the best value found, refining a bound only when it is next:

1. a group, bounded by the LP bound of all its slots (every ``S_W`` of the group is a subset);
2. a start's ``S_W``, bounded by the Lagrangian bound at the group's multiplier, for the
   *maximal* lists only (between two of them ``S_W`` only grows, so every other list is a
   subset of the next maximal one) that pass step A and can afford ``n`` slots;
3. the same list without the slots no optimal choice needs
   (:func:`~hetsched.coalloc.knapsack.useful_items`), bounded by its own LP bound;
4. its knapsack.

Ties keep the window the scan meets first, as the plain scan does, so both give the same
value (a different window only between choices of exactly equal value).
"""

from __future__ import annotations

import heapq

import numpy as np

from hetsched.coalloc.candidates import Group, group, least_sums, levels
from hetsched.coalloc.criteria import Criterion
from hetsched.coalloc.knapsack import knapsack, scaled_weights, upper_bound, useful_items
from hetsched.coalloc.model import Request, Slots, Window
from hetsched.coalloc.scan import Best, SearchStats, beats, below, window
from hetsched.errors import ConfigError, did_you_mean


def additive_search(table: Slots, request: Request, rule: Criterion, cells: int,
                    prune: bool, stats: SearchStats) -> Window | None:
    """The window of the best ``Σ`` of ``rule``'s attribute within the budget, or ``None``."""
    if rule.measure not in table.attributes:
        raise ConfigError(f"criterion {rule.name}: the slots have no attribute "
                          f"{rule.measure!r}{did_you_mean(rule.measure, list(table.attributes))}"
                          f" (they have: {', '.join(table.attributes) or 'none'})")
    knapsacks = _Knapsacks(table, request, rule, cells, stats)
    best = knapsacks.best_first() if prune else knapsacks.in_scan_order()
    if best is None:
        return None
    found, values, weights = knapsacks.group(best[1][0])
    inside = knapsacks.items(best[1], prune)
    _, chosen = knapsack(values[inside], weights[inside], request.n, cells, choose=True)
    assert chosen is not None
    return window(table, found.slots[inside[chosen]], request, rule)


class _Knapsacks:
    """The knapsacks of an additive search, one per start of each group, built on demand."""

    def __init__(self, table: Slots, request: Request, rule: Criterion, cells: int,
                 stats: SearchStats) -> None:
        self.table, self.request, self.cells, self.stats = table, request, cells, stats
        self.n = request.n
        self.z = (1.0 if rule.maximize else -1.0) * table.attributes[rule.measure]
        self.levels = levels(table, request)
        self._groups: dict[int, tuple[Group, np.ndarray, np.ndarray]] = {}
        self._items: dict[tuple[int, int], np.ndarray] = {}

    def group(self, order: int) -> tuple[Group, np.ndarray, np.ndarray]:
        """Group ``order``'s candidate lists, its slots' values and weights."""
        if order not in self._groups:
            runtime = self.request.volume / self.levels[order]
            found = group(self.table, self.levels[order], runtime)
            self.stats.groups += 1
            weights = scaled_weights(runtime * self.table.price[found.slots],
                                     self.request.budget, self.cells)
            self._groups[order] = (found, self.z[found.slots], weights)
        return self._groups[order]

    def items(self, place: tuple[int, int], prune: bool) -> np.ndarray:
        """The positions (in its group) of the candidates of the knapsack at ``place``: with
        ``prune``, only those an optimal choice may need."""
        if place not in self._items:
            found, values, weights = self.group(place[0])
            inside = np.flatnonzero(found.member[place[1]])
            if prune:
                inside = inside[useful_items(values[inside], weights[inside], self.n,
                                             self.cells)]
            self._items[place] = inside
        return self._items[place]

    def solve(self, place: tuple[int, int], prune: bool) -> float:
        _, values, weights = self.group(place[0])
        inside = self.items(place, prune)
        self.stats.solves += 1
        self.stats.cells += len(inside) * self.n * (self.cells + 1)
        return knapsack(values[inside], weights[inside], self.n, self.cells)[0]

    def in_scan_order(self) -> Best | None:
        """The paper's scan: a knapsack over the whole ``S_W`` at every start that passes
        step A."""
        best: Best | None = None
        for order in range(len(self.levels)):
            found, _, _ = self.group(order)
            for row in np.flatnonzero(found.exact & (found.counts >= self.n)):
                self.stats.starts += 1
                place = (order, int(row))
                value = self.solve(place, prune=False)
                if value > -np.inf and beats(value, place, best):
                    best = (value, place, None)
        return best

    def best_first(self) -> Best | None:
        """Groups, lists, reduced lists and knapsacks by decreasing upper bound (the module's
        steps 1 to 4), until no bound left can beat the best value."""
        heap: list[tuple[float, tuple[int, int], int, float]] = []
        for order in range(len(self.levels)):
            bound, multiplier = self._whole(order)
            if bound > -np.inf:
                heap.append((-bound, (order, -1), 1, multiplier))
        heapq.heapify(heap)
        best: Best | None = None
        while heap:
            negative, place, step, multiplier = heapq.heappop(heap)
            bound = -negative
            if not beats(bound, place, best):
                if below(bound, best):
                    break  # every bound left is lower
                continue
            if step == 1:
                for row, own in self._lists(place[0], multiplier):
                    heapq.heappush(heap, (-min(bound, own), (place[0], row), 2, 0.0))
            elif step == 2:
                _, values, weights = self.group(place[0])
                inside = self.items(place, prune=True)
                own, _ = upper_bound(values[inside], weights[inside], self.n, self.cells)
                if own > -np.inf:
                    heapq.heappush(heap, (-min(bound, own), place, 3, 0.0))
            else:
                value = self.solve(place, prune=True)
                if value > -np.inf and beats(value, place, best):
                    best = (value, place, None)
        return best

    def _whole(self, order: int) -> tuple[float, float]:
        """Step 1: the LP bound of all group ``order``'s slots that fit the budget alone, and
        its multiplier."""
        level = self.levels[order]
        runtime = self.request.volume / level
        inside = np.flatnonzero((self.table.performance >= level)
                                & (self.table.end - self.table.start >= runtime))
        weights = scaled_weights(runtime * self.table.price[inside], self.request.budget,
                                 self.cells)
        fits = weights <= self.cells
        return upper_bound(self.z[inside[fits]], weights[fits], self.n, self.cells)

    def _lists(self, order: int, multiplier: float) -> list[tuple[int, float]]:
        """Step 2: ``(row, bound)`` of the group's maximal lists that pass step A and can
        afford ``n`` slots, each bounded at ``multiplier``."""
        found, values, weights = self.group(order)
        rows = found.exact & found.maximal() & (
            least_sums(found, weights.astype(float), self.n) <= self.cells)
        self.stats.starts += int(rows.sum())
        bound = multiplier * self.cells - least_sums(found, multiplier * weights - values,
                                                     self.n)
        return [(int(row), float(bound[row])) for row in np.flatnonzero(rows)]
