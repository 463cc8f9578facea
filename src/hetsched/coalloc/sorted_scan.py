"""FirstFit and the sort criteria (MinStart, MinFinish, MinRuntime, MinCost): the scan of
Toporkov & Yemelyanov (ICCS 2018, §3.2) choosing, at each start, the ``n`` cheapest slots of
``S_W`` (at one start, in one group, every choice has the same start, length and finish, and
the cheapest has the least cost; a window exists there only if they fit the budget).

The scan (:func:`sorted_search`) builds one numpy table per group, evaluating every start at
once, and keeps the best window (ties: the scan's first). With ``prune`` it skips what cannot
beat the best window found: later groups for MinRuntime (their windows last longer), groups
and starts that cannot finish earlier for MinFinish, and groups whose ``n`` cheapest slots
cost more than the best window for MinCost.

FirstFit walks the slots by start and, at each start, the groups from the fastest: its window
is the earliest affordable start, on the fastest group there, the ``n`` cheapest, which is
MinStart's (ties go to the faster group, met first in the scan). Pruned, both walk
(:func:`earliest`): the next few starts at once for every group (one numpy table), stopping
at the first start where a group can afford ``n`` slots, so at the first table when a window
starts at the first slot's start. Starts equal within the tolerance are ties, which the walk
by exact start would not see: when another slot starts that close after the walk's start
(float noise, as MultipleBest's cuts make), the scan decides.
"""

from __future__ import annotations

import numpy as np

from hetsched.coalloc.candidates import Spans, distinct, group, least_of, least_sums, levels
from hetsched.coalloc.criteria import Criterion
from hetsched.coalloc.model import Request
from hetsched.coalloc.scan import Best, SearchStats, beats, slack

#: How many starts the walk evaluates at once, at first (doubling as it goes on), and the
#: most cells (groups × starts × slots) of one of its tables.
WALK, WALK_CELLS = 4, 1_000_000


def sorted_search(table: Spans, request: Request, rule: Criterion, prune: bool,
                  stats: SearchStats) -> np.ndarray | None:
    """FirstFit and the sort criteria: the best window's slots (the ``n`` cheapest of its
    ``S_W``), or ``None``."""
    if prune and rule.measure == "start":
        found = earliest(table, request, rule, stats)
        return None if found is None else found[0]
    best: Best | None = None
    first = float(table.start.min(initial=np.inf))
    for order, level in enumerate(levels(table, request)):
        runtime = request.volume / level
        before = np.inf
        if best is not None and prune:
            if rule.measure == "runtime":
                break  # every later group's windows last longer
            if rule.measure == "finish":
                before = -best[0] - runtime
                if before <= first:
                    break  # no start is early enough, here or in any later group
            if rule.measure == "cost" and not beats(-_least_cost(table, request, level),
                                                     (order, 0), best):
                continue
        found = group(table, level, runtime, before)
        stats.groups += 1
        stats.starts += len(found.starts)
        sums = least_sums(found, table.price[found.slots], request.n)
        affordable = np.flatnonzero(found.exact & (runtime * sums <= request.budget))
        if not affordable.size:
            continue
        values = np.broadcast_to(rule.value(found.starts[affordable], runtime,
                                            runtime * sums[affordable], {}), affordable.shape)
        k = int(np.argmin(values))
        row = int(affordable[k])
        if beats(-float(values[k]), (order, row), best):
            best = (-float(values[k]), (order, row),
                    least_of(found, table.price[found.slots], request.n, row))
    return None if best is None else best[2]  # type: ignore[return-value]


def earliest(table: Spans, request: Request, rule: Criterion, stats: SearchStats,
             since: float = -np.inf) -> tuple[np.ndarray, float] | None:
    """FirstFit's (MinStart's) window by the walk: its slots, and the earliest affordable
    start (no group has a window before it); ``None`` when there is none. ``since``: a start
    before which no group is known to have a window (MultipleBest's last)."""
    ranks = levels(table, request)
    if not ranks.size:
        return None
    useful = (table.performance >= ranks[-1]) & \
        (table.end - table.start >= request.volume / table.performance)
    starts = distinct(table.start[useful & (table.start >= since)])
    most = max(1, WALK_CELLS // (ranks.size * max(1, int(useful.sum()))))
    done, size = 0, WALK
    while done < starts.size:
        times = starts[done:done + min(size, most)]
        hit = _first_affordable(table, request, ranks, useful, times, stats)
        if hit is not None:
            chosen, start = hit
            near = useful & (table.start > start) & (table.start <= start + 2 * slack(start))
            if near.any() and (scanned := sorted_search(table, request, rule, False, stats)) \
                    is not None:
                chosen = scanned  # a later start equal within the tolerance: the scan's tie
            return chosen, start
        done, size = done + times.size, 2 * size
    return None


def _first_affordable(table: Spans, request: Request, ranks: np.ndarray, useful: np.ndarray,
                      times: np.ndarray, stats: SearchStats) -> tuple[np.ndarray, float] | None:
    """The first of ``times`` where a group can afford ``n`` slots, and there the fastest
    group's ``n`` cheapest (ties: the earlier slot in the table); ``None`` if none can. One
    table groups × times × slots, the slots in order of price."""
    runtimes = request.volume / ranks
    inside = np.flatnonzero(useful & (table.start <= times[-1])
                            & (table.end >= times[0] + runtimes[0]))
    inside = inside[np.argsort(table.price[inside], kind="stable")]
    start, end = table.start[inside], table.end[inside]
    member = (((table.performance[inside] >= ranks[:, None])
               & (end - start >= runtimes[:, None]))[:, None, :]  # the group's slots
              & (start <= times[:, None])[None, :, :]
              & (end >= times[:, None] + runtimes[:, None, None]))
    taken = member & (np.cumsum(member, axis=2) <= request.n)
    affordable = (member.sum(axis=2) >= request.n) \
        & (runtimes[:, None] * (taken @ table.price[inside]) <= request.budget)
    stats.groups += ranks.size
    stats.starts += ranks.size * times.size
    at = np.flatnonzero(affordable.any(axis=0))
    if not at.size:
        return None
    k = int(at[0])
    return inside[taken[int(np.argmax(affordable[:, k])), k]], float(times[k])


def _least_cost(table: Spans, request: Request, level: float) -> float:
    """A lower bound of the cost of group ``level``'s windows: its ``n`` cheapest slots'."""
    runtime = request.volume / level
    prices = table.price[(table.performance >= level) & (table.end - table.start >= runtime)]
    if prices.size < request.n:
        return np.inf
    return runtime * float(np.partition(prices, request.n - 1)[:request.n].sum())
