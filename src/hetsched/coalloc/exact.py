"""The subset choice as a MILP (Toporkov & Yemelyanov, ICCS 2018, eq. (1)), solved by HiGHS
through ``scipy.optimize.milp``: the reference the knapsack DP is checked against.

    maximise    Σ z_i x_i
    subject to  Σ c_i x_i <= C,   Σ x_i = n,   x_i in {0, 1}

Given the DP's scaled integer weights it is the same problem; given the real costs it tells
what the rounding up of :func:`hetsched.coalloc.knapsack.scaled_weights` loses.
"""

from __future__ import annotations

import numpy as np


def milp_subset(values: np.ndarray, costs: np.ndarray, n: int,
                capacity: float) -> tuple[float, np.ndarray] | None:
    """The best ``Σ values`` of exactly ``n`` items of total cost at most ``capacity`` and the
    items' positions, or ``None`` when no ``n`` items fit. The choice returned is checked on
    the exact costs (HiGHS accepts a constraint violated by up to 1e-6); one HiGHS accepts
    only by its tolerance is refused."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # imported when first solved

    values = np.asarray(values, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.float64)
    m = values.size
    if m < n:
        return None
    rows = np.vstack([costs, np.ones(m)])
    result = milp(-values, integrality=np.ones(m), bounds=Bounds(0, 1),
                  constraints=LinearConstraint(rows, [-np.inf, n], [capacity, n]),
                  options={"mip_rel_gap": 0.0, "presolve": True})
    if result.x is None:
        return None
    chosen = np.flatnonzero(result.x > 0.5)
    if chosen.size != n or float(costs[chosen].sum()) > capacity:
        return None
    return float(values[chosen].sum()), chosen
