"""Lower bounds and exact solving of the makespan problem with HiGHS (``scipy.optimize``).

The makespan MILP (unrelated machines, ``R|r_j|Cmax`` with machine ready times):

    minimise C
    subject to  sum_j x[i, j] = 1                       for every task i
                ready[j] + sum_i etc[i, j] x[i, j] <= C  for every machine j
                x[i, j] in {0, 1}

The *LP bound* is the optimum of its relaxation ``0 <= x <= 1``. The *combined bound* used
to report gaps is ``max(LP bound, max_i min_j (ready[j] + etc[i, j]), max_j ready[j])``:
every task must finish somewhere, and every machine is busy until its ready time anyway.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping


@dataclass(frozen=True)
class LPRelaxation:
    """The LP relaxation's optimum: ``value`` (a lower bound on the makespan), the fractional
    assignment ``x`` (tasks × machines), the machine-constraint duals ``machine_duals``
    (>= 0, summing to 1) and the task-constraint duals ``task_duals``, and the reduced cost of
    every ``x[i, j]`` (``reduced``; >= 0 at the optimum)."""

    value: float
    x: np.ndarray
    machine_duals: np.ndarray
    task_duals: np.ndarray
    reduced: np.ndarray
    seconds: float


@contextmanager
def quiet_native_output() -> Iterator[None]:
    """Silence what native code (HiGHS) writes straight to file descriptors 1 and 2."""
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # pragma: no cover - no real descriptors (embedded interpreters)
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError):  # pragma: no cover
            pass
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


#: Largest coefficient given to HiGHS: it refuses a model with one of 1e15 or more
#: ("Model error"), which an ETC matrix may hold (values up to ``limits.MAX_ETC``).
_MAX_COEFFICIENT = 1e12


def _scale(etc: np.ndarray) -> float:
    """A power of two that brings the ETC values under :data:`_MAX_COEFFICIENT` (1 for any
    usual matrix): the model's times are divided by it, exactly, and the results' times
    multiplied back."""
    top = float(etc.max(initial=0.0))
    return 1.0 if top < _MAX_COEFFICIENT else 2.0 ** math.ceil(math.log2(top / _MAX_COEFFICIENT))


def _constraints(etc: np.ndarray, allowed: np.ndarray | None):
    """Sparse rows of the model over the variables (x[i, j] for allowed pairs..., C)."""
    from scipy import sparse  # scipy is imported only when a model is built (start-up time)

    n, m = etc.shape
    if allowed is None:
        allowed = np.ones((n, m), dtype=bool)
    rows, cols = np.nonzero(allowed)
    k = rows.size
    var = np.arange(k)
    assign = sparse.csr_array((np.ones(k), (rows, var)), shape=(n, k + 1))
    load = sparse.csr_array((etc[rows, cols], (cols, var)), shape=(m, k + 1))
    cvar = sparse.csr_array((-np.ones(m), (np.arange(m), np.full(m, k))), shape=(m, k + 1))
    return rows, cols, assign, (load + cvar).tocsr()


def lp_relaxation(etc: object, ready: object = None) -> LPRelaxation:
    """Solve the LP relaxation of the makespan MILP with HiGHS (dual simplex)."""
    began = time.perf_counter()
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    n, m = arr.shape
    if n == 0:
        return LPRelaxation(float(r.max()), np.zeros((0, m)), np.zeros(m), np.zeros(0),
                            np.zeros((0, m)), time.perf_counter() - began)
    scale = _scale(arr)
    rows, cols, a_eq, a_ub = _constraints(arr / scale, None)
    k = rows.size
    c = np.zeros(k + 1)
    c[k] = 1.0
    bounds = (0.0, None)  # x <= 1 is implied by the assignment rows
    from scipy.optimize import linprog
    res = linprog(c, A_ub=a_ub, b_ub=-r / scale, A_eq=a_eq, b_eq=np.ones(n), bounds=bounds,
                  method="highs-ds")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise ConfigError(f"LP relaxation failed: {res.message}")
    x = np.zeros((n, m))
    x[rows, cols] = res.x[:k]
    mu = -np.asarray(res.ineqlin.marginals)  # >= 0
    lam = np.asarray(res.eqlin.marginals) * scale
    reduced = mu[None, :] * arr - lam[:, None]
    return LPRelaxation(float(res.fun) * scale, x, mu, lam, reduced,
                        time.perf_counter() - began)


def trivial_bound(etc: object, ready: object = None) -> float:
    """``max(max_i min_j (ready[j] + etc[i, j]), max_j ready[j])``."""
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    bound = float(r.max())
    if arr.shape[0]:
        bound = max(bound, float((arr + r).min(axis=1).max()))
    return bound


def lp_bound(etc: object, ready: object = None) -> float:
    """The LP-relaxation lower bound on the makespan."""
    return lp_relaxation(etc, ready).value


def lower_bound(etc: object, ready: object = None) -> float:
    """The combined lower bound: ``max(LP bound, trivial bound)``."""
    return max(lp_bound(etc, ready), trivial_bound(etc, ready))


def milp_mapping(etc: object, ready: object = None, time_limit: float | None = 60.0,
                 allowed: np.ndarray | None = None, upper_bound: float | None = None,
                 rel_gap: float = 1e-6, name: str = "milp",
                 secondary: np.ndarray | None = None,
                 max_nodes: int | None = None) -> Mapping | None:
    """Solve the makespan MILP with HiGHS within ``time_limit`` seconds and ``max_nodes``
    branch-and-bound nodes (HiGHS's ``mip_max_nodes``: unlike the time, a limit that does not
    depend on the machine's speed).

    ``allowed`` (tasks × machines, bool) restricts where tasks may go (a heuristic
    restriction: the result is then optimal for the restricted problem only); ``upper_bound``
    adds ``C <= upper_bound`` (e.g. an incumbent's makespan, to prune); ``secondary``
    (tasks × machines) adds ``sum secondary[i, j] x[i, j]`` to the objective (a small
    tie-breaking cost; the reported bounds are then those of the combined objective, so
    ``dual_bound`` is dropped). Returns the best
    mapping found, or ``None`` when HiGHS found none in time. ``info`` holds ``status``
    (HiGHS message), ``optimal``, ``dual_bound`` and ``mip_gap`` (``None`` when HiGHS gave
    none; the dual bound is only a bound on the full problem when ``allowed`` is ``None``).
    """
    began = time.perf_counter()
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    n, m = arr.shape
    if allowed is not None:
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != arr.shape or not allowed.any(axis=1).all():
            raise ConfigError("milp: 'allowed' must be tasks × machines with a machine per task")
    scale = _scale(arr)  # the model's C is the makespan / scale, and so is its objective
    rows, cols, a_eq, a_ub = _constraints(arr / scale, allowed)
    k = rows.size
    c = np.zeros(k + 1)
    c[k] = 1.0
    if secondary is not None:
        c[:k] = np.asarray(secondary, dtype=np.float64)[rows, cols] / scale
    upper = np.ones(k + 1)
    upper[k] = np.inf if upper_bound is None else float(upper_bound) / scale
    integrality = np.ones(k + 1)
    integrality[k] = 0
    options: dict[str, object] = {"mip_rel_gap": rel_gap, "presolve": True}
    if time_limit is not None:
        options["time_limit"] = max(0.01, float(time_limit))
    if max_nodes is not None:
        options["node_limit"] = int(max_nodes)
    from scipy.optimize import Bounds, LinearConstraint, milp
    with quiet_native_output():
        res = milp(c, integrality=integrality, bounds=Bounds(np.zeros(k + 1), upper),
                   constraints=[LinearConstraint(a_eq, np.ones(n), np.ones(n)),
                                LinearConstraint(a_ub, -np.inf, -r / scale)],
                   options=options)
    if res.x is None:
        return None
    x = np.asarray(res.x[:k])
    chosen = x > 0.5
    assign = np.empty(n, dtype=np.int64)
    assign[rows[chosen]] = cols[chosen]
    dual = getattr(res, "mip_dual_bound", None)
    gap = getattr(res, "mip_gap", None)
    if secondary is not None:
        dual = gap = None
    info = {"status": str(res.message), "optimal": bool(res.status == 0),
            "dual_bound": None if dual is None else float(dual) * scale,
            "mip_gap": None if gap is None else float(gap),
            "nodes": getattr(res, "mip_node_count", None), "restricted": allowed is not None}
    bound = None if (dual is None or allowed is not None) else float(dual) * scale
    return make_mapping(name, arr, assign, r, seconds=time.perf_counter() - began,
                        lower_bound=bound, info=info)
