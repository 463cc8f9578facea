"""The general window search (Toporkov & Yemelyanov, ICCS 2018, §3.2), for every criterion.

The scan visits the performance groups from the fastest and, in each, the candidate starts in
order (:mod:`~hetsched.coalloc.candidates`). At each start it picks ``n`` slots of ``S_W``
within the budget: the ``n`` cheapest for FirstFit and the sort criteria
(:mod:`~hetsched.coalloc.sorted_scan`), the knapsack's choice for additive ones
(:mod:`~hetsched.coalloc.additive`). It keeps the best window by the criterion (ties: the
scan's first, :mod:`~hetsched.coalloc.scan`). FirstFit, which walks the starts in order and
at each the groups from the fastest, takes the earliest affordable start on the fastest group
there: MinStart's window.

``prune=False`` runs the paper's plain scan; pruning (the default) skips what cannot beat the
best window found, with the same result (docs/coalloc.md#pruning).
"""

from __future__ import annotations

from collections.abc import Iterable

from hetsched.coalloc.additive import additive_search
from hetsched.coalloc.knapsack import CELLS
from hetsched.coalloc.model import Request, Slot, Slots, Window, as_slots
from hetsched.coalloc.scan import SearchStats, window
from hetsched.coalloc.sorted_scan import sorted_search
from hetsched.errors import ConfigError


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
        return additive_search(table, request, rule, cells, prune, stats)
    chosen = sorted_search(table, request, rule, prune, stats)
    return None if chosen is None else window(table, chosen, request, rule)
