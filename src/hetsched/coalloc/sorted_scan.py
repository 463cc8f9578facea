"""FirstFit and the sort criteria (MinStart, MinFinish, MinRuntime, MinCost): the scan of
Toporkov & Yemelyanov (ICCS 2018, §3.2) choosing, at each start, the ``n`` cheapest slots of
``S_W`` (at one start, in one group, every choice has the same start, length and finish, and
the cheapest has the least cost; a window exists there only if they fit the budget).

One numpy table per group evaluates every start at once. FirstFit stops at the first
affordable window. With ``prune``, the scan skips what cannot beat the best window found:
later groups for MinRuntime (their windows last longer), starts no earlier than the best
start for MinStart, groups and starts that cannot finish earlier for MinFinish, and groups
whose ``n`` cheapest slots cost more than the best window for MinCost.
"""

from __future__ import annotations

import numpy as np

from hetsched.coalloc.candidates import Spans, group, least_of, least_sums, levels
from hetsched.coalloc.criteria import Criterion
from hetsched.coalloc.model import Request
from hetsched.coalloc.scan import Best, SearchStats, beats


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
            if rule.measure == "cost" and not beats(-_least_cost(table, request, level),
                                                     (order, 0), best):
                continue
        found = group(table, level, runtime, since, before)
        stats.groups += 1
        stats.starts += len(found.starts)
        sums = least_sums(found, table.price[found.slots], request.n)
        affordable = np.flatnonzero(found.exact & (runtime * sums <= request.budget))
        if not affordable.size:
            continue
        values = np.broadcast_to(rule.value(found.starts[affordable], runtime,
                                            runtime * sums[affordable], {}), affordable.shape)
        k = 0 if rule.kind == "first" else int(np.argmin(values))
        row = int(affordable[k])
        if beats(-float(values[k]), (order, row), best):
            chosen = least_of(found, table.price[found.slots], request.n, row)
            best = (-float(values[k]), (order, row), (chosen, float(found.starts[row])))
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
