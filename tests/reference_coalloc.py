"""A brute-force oracle for the co-allocation search: every ``n``-subset of slots on distinct
nodes, at every slot start, the window's own length ``V / min p`` and cost, kept when it lies
inside its slots and fits the budget (on the real costs for FirstFit and the sort criteria, on
the knapsack's scaled costs for additive ones, as the search does); and FirstFit walked
literally, start by start (:func:`first_fit_walk`)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from hetsched.coalloc.knapsack import CELLS, scaled_weights
from hetsched.coalloc.model import Request, Slots


def key(rule_name: str, measure: str, kind: str, maximize: bool, start: float, runtime: float,
        cost: float, total: float) -> tuple[float, ...]:
    """What the criterion minimises, in order. FirstFit and MinStart take the earliest start,
    on the fastest group there (the least runtime), the ``n`` cheapest slots: (start, runtime,
    cost)."""
    if kind == "additive":
        return (-total if maximize else total,)
    if measure == "start":
        return (start, runtime, cost)
    return ({"finish": start + runtime, "runtime": runtime, "cost": cost}[measure],)


def brute_force(table: Slots, request: Request, cells: int = CELLS,
                real_costs: bool = False) -> tuple[float, ...] | None:
    """The best key over every window, or None when none fits. ``real_costs``: additive
    criteria too are held to the real costs (what the scaled knapsack may miss)."""
    rule = request.rule
    eligible = [i for i in range(len(table))
                if table.performance[i] >= request.min_performance]
    starts = sorted(set(float(s) for s in table.start))
    best = None
    for subset in combinations(eligible, request.n):
        picked = list(subset)
        if len(set(table.node[picked].tolist())) < request.n:
            continue
        runtime = request.volume / float(table.performance[picked].min())
        prices = table.price[picked]
        cost = runtime * float(prices.sum())
        if rule.kind == "additive" and not real_costs:
            fits = int(scaled_weights(runtime * prices, request.budget, cells).sum()) <= cells
        else:
            fits = cost <= request.budget
        if not fits:
            continue
        total = float(table.attributes[rule.measure][picked].sum()) \
            if rule.kind == "additive" else 0.0
        for t in starts:
            if np.all(table.start[picked] <= t) and np.all(table.end[picked] >= t + runtime):
                found = key(rule.name, rule.measure, rule.kind, rule.maximize, t, runtime, cost,
                            total)
                best = found if best is None or found < best else best
                break  # later starts are no better for any criterion
    return best


def first_fit_walk(table: Slots, request: Request) -> tuple[float, float, float] | None:
    """FirstFit as the paper's §4.2 reads: the slots walked by start and, at each start ``t``,
    the groups from the fastest; in group ``P`` the slots of performance ``>= P`` free over
    ``[t, t + V / P]``; the first affordable ``n`` cheapest of them: (start, runtime, cost)."""
    performances = sorted({float(p) for p in table.performance
                           if p >= request.min_performance}, reverse=True)
    for t in sorted(set(float(s) for s in table.start)):
        for level in performances:
            runtime = request.volume / level
            free = [i for i in range(len(table)) if table.performance[i] >= level
                    and table.start[i] <= t and table.end[i] >= t + runtime]
            if len(free) < request.n:
                continue
            cost = runtime * float(np.sort(table.price[free])[:request.n].sum())
            if cost <= request.budget:
                return t, runtime, cost
    return None
