"""Iterated local search (ILS) for the makespan, and the ``best`` portfolio.

ILS (our design; see docs/mapping.md for the measured results):

1. *Starts*: the LP relaxation's optimum rounded (every task on the machine carrying its
   largest fraction; ties: lowest machine), Min-min and Sufferage; each is improved by the
   local search below and the best becomes the incumbent.
2. *Local search* (``descend``), focused on the critical machine ``c`` (largest finish time,
   lowest index on ties): among all *moves* (a task of ``c`` to another machine ``k``) and
   *swaps* (a task of ``c`` with a task of another machine ``k``) take the one with the least
   ``max(new load of c, new load of k)`` (ties: moves before swaps, then the lowest flat index)
   and apply it if that value is strictly below the makespan; repeat until none is. Every
   step strictly lowers the sorted vector of machine loads, so it terminates. The candidate
   loads are computed for all moves and swaps at once with numpy. When no move or swap
   helps, *ejection chains* of length 2 are tried: a task ``t`` of ``c`` goes to ``k`` while
   a task ``u`` of ``k`` goes to ``l`` (``l`` != ``c``, ``k``), applied when all three new
   loads are below the makespan.
3. *Perturbation* (ruin and recreate): remove ``d`` tasks (two from the critical machine,
   the rest uniformly random; ``d`` uniform in ``[d_min, d_max]``), reinsert them largest
   first (decreasing least ETC) each on the machine where it finishes first (MCT), then
   local search.
4. *Acceptance*: the new mapping replaces the current one when its makespan is lower or
   equal, or otherwise with probability ``exp(-(new - current) / T)``,
   ``T = temperature × lower bound / tasks``. Every ``restart`` iterations without an
   improvement of the best mapping, the search restarts from the best one.

``best``: the portfolio run under one time limit: ILS for ``ils_share`` of the budget, then
HiGHS on the full MILP with the ILS makespan as an upper bound for the rest, then the local
search on HiGHS's answer; returns the best mapping with the combined lower bound (LP bound,
or HiGHS's proven dual bound when larger) in ``lower_bound``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping
from hetsched.mapping.exact import LPRelaxation, lp_relaxation, milp_mapping, trivial_bound
from hetsched.mapping.greedy import min_min, sufferage


class _State:
    """An assignment with its machine loads (kept in sync by ``move``)."""

    def __init__(self, etc: np.ndarray, assign: np.ndarray, ready: np.ndarray) -> None:
        self.etc = etc
        n, m = etc.shape
        self.assign = np.array(assign, dtype=np.int64)
        self.loads = ready + np.bincount(self.assign, weights=etc[np.arange(n), self.assign],
                                         minlength=m)

    def copy(self) -> "_State":
        other = object.__new__(_State)
        other.etc = self.etc
        other.assign = self.assign.copy()
        other.loads = self.loads.copy()
        return other

    def move(self, task: int, machine: int) -> None:
        old = self.assign[task]
        self.loads[old] -= self.etc[task, old]
        self.loads[machine] += self.etc[task, machine]
        self.assign[task] = machine

    @property
    def makespan(self) -> float:
        return float(self.loads.max())


def _best_move_or_swap(s: _State, c: int, tc: np.ndarray) -> tuple[float, list[tuple[int, int]]]:
    etc, loads, assign = s.etc, s.loads, s.assign
    m = etc.shape[1]
    cmax = loads[c]
    ec = etc[tc, c]
    relieved = cmax - ec
    move_val = np.maximum(loads[None, :] + etc[tc, :], relieved[:, None])
    move_val[:, c] = np.inf
    bi = int(move_val.argmin())
    best_move = float(move_val.flat[bi])
    ot = np.flatnonzero(assign != c)
    if ot.size:
        k = assign[ot]
        new_c = relieved[:, None] + etc[ot, c][None, :]
        new_k = (loads[k] - etc[ot, k])[None, :] + etc[tc[:, None], k[None, :]]
        swap_val = np.maximum(new_c, new_k)
        bj = int(swap_val.argmin())
        best_swap = float(swap_val.flat[bj])
    else:
        best_swap = math.inf
    if best_move <= best_swap:
        return best_move, [(int(tc[bi // m]), bi % m)]
    t, u = int(tc[bj // ot.size]), int(ot[bj % ot.size])
    return best_swap, [(t, int(assign[u])), (u, c)]


def _ejection_chain(s: _State, c: int, tc: np.ndarray) -> list[tuple[int, int]] | None:
    """A task t of c to k, a task u of k to l: the first (by least max of the three new
    loads) with all new loads below the makespan, or None."""
    etc, loads, assign = s.etc, s.loads, s.assign
    m = etc.shape[1]
    cmax = loads[c]
    ot = np.flatnonzero(assign != c)
    if ot.size == 0 or m < 3:
        return None
    k = assign[ot]  # u = ot[b] leaves machine k[b]
    # t -> k[b] while u leaves k[b]: (T, U)
    new_k = (loads[k] - etc[ot, k])[None, :] + etc[tc[:, None], k[None, :]]
    ok_k = new_k < cmax
    # u -> l: (U, m)
    new_l = loads[None, :] + etc[ot, :]
    new_l[np.arange(ot.size), k] = np.inf
    new_l[:, c] = np.inf
    best_l = new_l.argmin(axis=1)
    best_lv = new_l[np.arange(ot.size), best_l]
    new_c = (cmax - etc[tc, c])[:, None]
    val = np.maximum(np.maximum(new_k, best_lv[None, :]), new_c)
    val[~ok_k] = np.inf
    b = int(val.argmin())
    if not val.flat[b] < cmax:
        return None
    ti, ui = divmod(b, ot.size)
    return [(int(tc[ti]), int(k[ui])), (int(ot[ui]), int(best_l[ui]))]


def descend(s: _State, chains: bool = True, max_steps: int | None = None) -> int:
    """Local search on ``s`` in place (see the module docstring); returns the step count."""
    steps = 0
    while max_steps is None or steps < max_steps:
        c = int(s.loads.argmax())
        tc = np.flatnonzero(s.assign == c)
        if tc.size == 0:
            break
        value, moves = _best_move_or_swap(s, c, tc)
        if not value < s.loads[c]:
            chain = _ejection_chain(s, c, tc) if chains else None
            if chain is None:
                break
            moves = chain
        for task, machine in moves:
            s.move(task, machine)
        steps += 1
    return steps


def _recreate(s: _State, tasks: np.ndarray) -> None:
    """Remove ``tasks`` and reinsert them largest first, each where it finishes first."""
    etc = s.etc
    for t in tasks:
        s.loads[s.assign[t]] -= etc[t, s.assign[t]]
    order = tasks[np.lexsort((tasks, -etc[tasks].min(axis=1)))]
    for t in order:
        j = int(np.argmin(s.loads + etc[t]))
        s.loads[j] += etc[t, j]
        s.assign[t] = j


def lp_rounding(etc: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Every task on the machine with its largest LP fraction (ties: lowest machine)."""
    return x.argmax(axis=1).astype(np.int64)


def _prepared(etc: object, ready: object, rng: np.random.Generator | None,
              lp: LPRelaxation | None = None) -> tuple[np.ndarray, np.ndarray,
                                                       np.random.Generator, LPRelaxation, float]:
    """The ETC matrix and ready times checked, the generator (``default_rng(0)``), the LP
    relaxation (``lp`` if given) and the combined lower bound."""
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    relax = lp_relaxation(arr, r) if lp is None else lp
    return (arr, r, np.random.default_rng(0) if rng is None else rng, relax,
            max(relax.value, trivial_bound(arr, r)))


def ils(etc: object, ready: object = None, rng: np.random.Generator | None = None,
        time_limit: float | None = 10.0, max_iterations: int | None = None,
        d_min: int = 2, d_max: int = 8, temperature: float = 0.5, restart: int = 2000,
        starts: tuple[np.ndarray, ...] = (), lp: object = None) -> Mapping:
    """Iterated local search (see the module docstring). Stops at ``time_limit`` seconds or
    after ``max_iterations`` perturbations (at least one of them must be given)."""
    began = time.perf_counter()
    arr, r, rng, relax, bound = _prepared(etc, ready, rng, lp)
    n, m = arr.shape
    if time_limit is None and max_iterations is None:
        max_iterations = 2000
    deadline = None if time_limit is None else began + float(time_limit)
    candidates = [lp_rounding(arr, relax.x), min_min(arr, r).assignment,
                  sufferage(arr, r).assignment, *starts] if n else [np.zeros(0, np.int64)]
    best: _State | None = None
    for assign in candidates:
        s = _State(arr, assign, r)
        descend(s)
        if best is None or s.makespan < best.makespan:
            best = s
    assert best is not None
    current = best.copy()
    temp = temperature * bound / max(n, 1)
    it = since = 0
    d_hi = max(1, min(d_max, n))
    d_lo = max(1, min(d_min, d_hi))
    while n and m > 1 and best.makespan > bound:
        if max_iterations is not None and it >= max_iterations:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        it += 1
        trial = current.copy()
        c = int(trial.loads.argmax())
        on_c = np.flatnonzero(trial.assign == c)
        d = int(rng.integers(d_lo, d_hi + 1))
        picked = rng.choice(on_c, size=min(2, on_c.size, d), replace=False)
        rest = rng.choice(n, size=d, replace=False)
        tasks = np.unique(np.concatenate((picked, rest)))[:max(d, picked.size)]
        _recreate(trial, tasks)
        descend(trial)
        delta = trial.makespan - current.makespan
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            current = trial
        if current.makespan < best.makespan:
            best, since = current.copy(), 0
        else:
            since += 1
            if since >= restart:
                current, since = best.copy(), 0
    return make_mapping("ils", arr, best.assign, r, seconds=time.perf_counter() - began,
                        lower_bound=bound, info={"iterations": it})


def _rc_used(rc: np.ndarray, assign: np.ndarray) -> float:
    return float(rc[np.arange(assign.size), assign].sum())


def lns_polish(etc: np.ndarray, ready: np.ndarray, state: _State, lp: object,
               rng: np.random.Generator, deadline: float | None, size: int = 60,
               sub_limit: float = 1.0, weight: float = 0.05,
               max_nodes: int | None = None) -> tuple[_State, int]:
    """MILP-based large neighbourhood search (in place of ``state``; returns the new state and
    the number of improvements).

    Each round frees the tasks of the critical machine plus ``size`` random other tasks, keeps
    every other task where it is (their loads act as ready times), allows a freed task ``i``
    only on machines with LP reduced cost ``rc[i, j] <= makespan - LP bound`` (no better
    solution uses another pair, see docs/mapping.md) and solves that MILP with HiGHS
    (objective ``C + weight · sum rc x``, ``C <= makespan``, ``sub_limit`` seconds). The
    result replaces the current mapping when its makespan is lower, or equal with a lower
    total reduced cost. Rounds go on until ``deadline`` and until the rounds have used
    ``max_nodes`` HiGHS nodes (each round at least one); one of them must be given.
    """
    if deadline is None and max_nodes is None:
        raise ValueError("lns_polish needs a deadline or a node budget")
    n, m = etc.shape
    rc = lp.reduced
    improvements = 0
    nodes = _NodeBudget(max_nodes)
    while n > 1 and m > 1 and nodes.left != 0 and (deadline is None
                                                   or time.perf_counter() < deadline - 0.05):
        c = int(state.loads.argmax())
        cmax = state.makespan
        on_c = np.flatnonzero(state.assign == c)
        off_c = np.flatnonzero(state.assign != c)
        extra = rng.choice(off_c, size=min(size, off_c.size), replace=False)
        free = np.unique(np.concatenate((on_c, extra)))
        fixed = np.ones(n, dtype=bool)
        fixed[free] = False
        base = ready + np.bincount(state.assign[fixed],
                                   weights=etc[fixed, state.assign[fixed]], minlength=m)
        allowed = rc[free] <= cmax - lp.value + 1e-9 * abs(lp.value)
        allowed[np.arange(free.size), state.assign[free]] = True
        limit = None if deadline is None else min(sub_limit, deadline - time.perf_counter())
        if limit is not None and limit <= 0.01:
            break
        sub = milp_mapping(etc[free], ready=base, time_limit=limit, allowed=allowed,
                           upper_bound=cmax, secondary=weight * rc[free],
                           max_nodes=nodes.left)
        nodes.spend(sub)
        if sub is None:
            continue
        assign = state.assign.copy()
        assign[free] = sub.assignment
        trial = _State(etc, assign, ready)
        if trial.makespan < cmax or (trial.makespan == cmax and
                                     _rc_used(rc, assign) < _rc_used(rc, state.assign)):
            state = trial
            improvements += 1
    return state, improvements


class _NodeBudget:
    """HiGHS branch-and-bound nodes left to spend (``None``: no node limit)."""

    def __init__(self, nodes: int | None) -> None:
        self.left = nodes

    def spend(self, found: Mapping | None) -> None:
        """Count a HiGHS call's nodes (at least one, so that a budget always runs out)."""
        if self.left is not None:
            used = (found.info.get("nodes") if found is not None else None) or 1
            self.left = max(0, self.left - max(1, int(used)))


def best(etc: object, ready: object = None, rng: np.random.Generator | None = None,
         time_limit: float | None = 60.0, milp_share: float = 0.7,
         max_nodes: int | None = None) -> Mapping:
    """The strongest portfolio within ``time_limit`` seconds (default 60), or, given
    ``max_nodes`` and no time limit, within that many HiGHS branch-and-bound nodes (shared as
    the time is: ``milp_share`` to step 2, the rest to step 3), which does not depend on
    the machine's speed.

    1. LP relaxation (bound ``LB``, reduced costs ``rc``); starts = LP rounding, Min-min,
       Sufferage, each improved by :func:`descend`; the best is the incumbent ``U``.
    2. HiGHS on the makespan MILP with ``C <= U`` and *reduced-cost fixing*: ``x[i, j]`` is
       dropped when ``rc[i, j] > U - LB`` — exact, since every mapping of makespan ``C`` has
       ``sum rc x <= C - LB`` — for ``milp_share`` of the budget.
    3. :func:`lns_polish` on the best mapping for the rest of the budget.

    ``lower_bound`` is ``max(LB, trivial bound, min(U, HiGHS's dual bound))``: HiGHS's bound
    on the restricted problem bounds every mapping better than ``U``.
    """
    began = time.perf_counter()
    arr, r, rng, relax, bound = _prepared(etc, ready, rng)
    limit = 60.0 if time_limit is None and max_nodes is None else time_limit
    deadline = None if limit is None else began + float(limit)
    n, m = arr.shape
    if n == 0:
        return make_mapping("best", arr, np.zeros(0, np.int64), r, lower_bound=bound)
    state: _State | None = None
    for assign in (lp_rounding(arr, relax.x), min_min(arr, r).assignment,
                   sufferage(arr, r).assignment):
        s = _State(arr, assign, r)
        descend(s)
        if state is None or s.makespan < state.makespan:
            state = s
    assert state is not None
    info: dict[str, object] = {"start": state.makespan}
    proven = False
    if m > 1 and state.makespan > bound:
        upper = state.makespan
        allowed = relax.reduced <= upper - relax.value + 1e-9 * abs(relax.value)
        allowed[np.arange(n), state.assign] = True
        limit = None if deadline is None else \
            max(0.0, milp_share * (deadline - time.perf_counter()))
        nodes = None if max_nodes is None else max(1, int(milp_share * max_nodes))
        info["milp_vars"] = int(allowed.sum())
        if limit is None or limit > 0.05:
            found = milp_mapping(arr, r, time_limit=limit, allowed=allowed, upper_bound=upper,
                                 max_nodes=nodes)
            if found is not None:
                info.update(milp_status=found.info["status"], milp=found.makespan)
                dual = found.info.get("dual_bound")
                if dual is not None:
                    bound = max(bound, min(upper, float(dual)))
                if found.makespan < state.makespan:
                    state = _State(arr, found.assignment, r)
                proven = bool(found.info.get("optimal"))
        descend(state)
        if not proven:
            rest = None if max_nodes is None else max(0, max_nodes - (nodes or 0))
            state, improved = lns_polish(arr, r, state, relax, rng, deadline, max_nodes=rest)
            info["lns_improvements"] = improved
    bound = min(bound, state.makespan)
    return make_mapping("best", arr, state.assign, r, seconds=time.perf_counter() - began,
                        lower_bound=bound, info=info)
