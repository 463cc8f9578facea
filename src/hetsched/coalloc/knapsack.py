"""The subset choice of additive criteria: a cardinality-constrained 0-1 knapsack (Toporkov &
Yemelyanov, ICCS 2018, eq. (2)).

Choose exactly ``n`` of ``m`` items (slots) of integer weights ``w_i`` (costs) and values
``z_i`` to maximise ``Σ z_i`` with ``Σ w_i <= capacity``. The dynamic programme is the paper's:
``f_i(b, k) = max(f_{i-1}(b, k), f_{i-1}(b - w_i, k - 1) + z_i)`` over budgets ``b`` and counts
``k``, with ``f_0(b, 0) = 0`` and ``f_0(b, k > 0) = -inf`` so that exactly ``n`` items are
chosen; ``f_m(capacity, n)`` is the optimum. It runs in ``m`` numpy steps, each over the
``n × (capacity + 1)`` table (``m · n · capacity`` cells).

Costs are real numbers: :func:`scaled_weights` turns them into whole *cells* of
``budget / cells`` each, rounding **up**, so a choice within ``cells`` is within the budget on
the real costs (the DP is exact for the scaled costs; it can miss a choice whose real cost
fits and whose rounded cost does not: at most ``n`` cells, ``n / cells`` of the budget).

Two exact reductions shrink a problem before the DP (:func:`useful_items`), and
:func:`upper_bound` bounds its optimum from above (the Lagrangian of the budget, the LP bound)
so the search can skip problems that cannot beat its best window.
"""

from __future__ import annotations

import numpy as np

#: The default resolution of the budget: ``cells`` integer weight units per budget.
CELLS = 1000


def scaled_weights(costs: np.ndarray, budget: float, cells: int) -> np.ndarray:
    """Each cost in whole cells of ``budget / cells``, rounded up; a cost above the budget
    weighs ``cells + 1`` (it never fits). With a zero budget only a zero cost fits."""
    costs = np.asarray(costs, dtype=np.float64)
    if budget <= 0:
        return np.where(costs <= 0, 0, cells + 1).astype(np.int64)
    return np.minimum(np.ceil(costs * (cells / budget)), cells + 1).astype(np.int64)


def knapsack(values: np.ndarray, weights: np.ndarray, n: int, capacity: int,
             choose: bool = False) -> tuple[float, np.ndarray | None]:
    """The best ``Σ values`` of exactly ``n`` items within ``capacity`` (``-inf`` when no
    ``n`` items fit), and, with ``choose``, the items' positions (``None`` otherwise or when
    none fit). Among choices of equal value the DP keeps the one without the later item."""
    m = len(values)
    f = np.full((n + 1, capacity + 1), -np.inf)
    f[0] = 0.0
    take = np.zeros((m, n, capacity + 1), dtype=bool) if choose else None
    for i in range(m):
        w = int(weights[i])
        if w > capacity:
            continue
        top = min(i + 1, n)  # at most i + 1 items among the first i + 1
        offered = f[:top, :capacity + 1 - w] + values[i]
        kept = f[1:top + 1, w:]
        if take is not None:
            take[i, :top, w:] = offered > kept
        np.maximum(kept, offered, out=kept)
    best = float(f[n, capacity])
    if take is None or best == -np.inf:
        return best, None
    chosen, k, b = [], n, capacity
    for i in range(m - 1, -1, -1):
        if k and take[i, k - 1, b]:
            chosen.append(i)
            k -= 1
            b -= int(weights[i])
    return best, np.array(chosen[::-1], dtype=np.int64)


def useful_items(values: np.ndarray, weights: np.ndarray, n: int, capacity: int) -> np.ndarray:
    """The positions of the items an optimal choice may need, in their order; the others are
    dropped with the optimum unchanged:

    - an item that fits in no ``n``-subset within ``capacity`` (its weight plus the ``n - 1``
      least others' exceeds it);
    - an item that ``n`` others *dominate* (each weighs no more and is worth no less, ties
      broken by (weight, -value, position)): a choice holding it misses one of them, and
      swapping it for that one loses nothing.
    """
    m = len(values)
    if m < n:
        return np.arange(0)
    order = np.lexsort((np.arange(m), -values, weights))
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    least = np.sort(weights)[:n]
    others = np.where(rank < n, least.sum() - weights, least[:n - 1].sum())
    fits = weights + others <= capacity
    dominated = ((weights[:, None] <= weights[None, :]) & (values[:, None] >= values[None, :])
                 & (rank[:, None] < rank[None, :])).sum(axis=0) >= n
    return np.flatnonzero(fits & ~dominated)


def upper_bound(values: np.ndarray, weights: np.ndarray, n: int, capacity: int,
                rounds: int = 3, points: int = 16) -> tuple[float, float]:
    """An upper bound of :func:`knapsack`'s optimum and the multiplier ``λ`` that gives it:
    ``min over λ >= 0`` of ``λ · capacity + Σ of the n largest (z_i - λ w_i)`` (every ``λ``
    gives a bound; their least is the LP relaxation's optimum), searched on a grid refined
    ``rounds`` times. ``-inf`` when no ``n`` items fit."""
    m = len(values)
    if m < n or np.sort(weights)[:n].sum() > capacity:
        return -np.inf, 0.0
    top = np.argpartition(-values, n - 1)[:n]
    if weights[top].sum() <= capacity:
        return float(values[top].sum()), 0.0  # the n most valuable fit: that is the optimum
    low, high = 0.0, float(np.ptp(values)) + 1.0  # beyond high the order is by weight
    best, multiplier = np.inf, 0.0
    for _ in range(rounds):
        lam = np.linspace(low, high, points)
        bound = lam * capacity + top_sums(values[None, :] - lam[:, None] * weights[None, :], n)
        k = int(np.argmin(bound))
        if bound[k] < best:
            best, multiplier = float(bound[k]), float(lam[k])
        step = (high - low) / (points - 1)
        low, high = max(0.0, lam[k] - step), lam[k] + step
    return best, multiplier


def top_sums(values: np.ndarray, n: int) -> np.ndarray:
    """The sum of the ``n`` largest of each row of ``values``."""
    m = values.shape[1]
    return np.partition(values, m - n, axis=1)[:, m - n:].sum(axis=1)
