"""Lower bounds and an exact solver (a MILP with HiGHS, ``scipy.optimize.milp``) for small
task graphs in the model of :mod:`hetsched.mapping.graph`.

Variables: ``x[i, p]`` (task ``i`` on processor ``p``, binary), ``s[i]`` (start), ``C``
(makespan), and ``y[i, j]`` (binary, ``i`` before ``j``) for the pairs that no path of the
graph orders. With ``d[i] = Σ_p cost[i, p] x[i, p]``, ``UB`` an incumbent's makespan and
``head``/``tail`` the least-cost longest paths before/after a task::

    min C  s.t.  Σ_p x[i, p] = 1                                  every task
                 s[b] ≥ s[a] + d[a] + data · (x[a, p] − x[b, p])   every edge (a, b, data), every p
                 s[i] + d[i] + tail[i] ≤ C                         every task
                 Σ_i cost[i, p] x[i, p] ≤ C                        every processor
                 s[j] ≥ s[i] + d[i] − M (1 − y[i, j]) − M (2 − x[i, p] − x[j, p])
                 s[i] ≥ s[j] + d[j] − M y[i, j] − M (2 − x[i, p] − x[j, p])
                                                                   every unordered pair, every p
                 head[i] ≤ s[i],  lower_bound(graph) ≤ C ≤ UB

The edge rows pay ``data`` exactly when the parent and the child are apart: the row of the
parent's processor adds ``data`` then, and every row adds 0 when they share one. Pairs ordered
by a path need no ``y``: the edge rows already keep them apart. ``M = UB − tail[i] − head[j]``
(the most ``s[i] + d[i] − s[j]`` can be in a schedule no longer than ``UB``). Of a class of
identical processors (equal cost columns), the ``k``-th task of the topological order
(counting from 1) may use only the first ``k`` (a relabelling, so no optimum is lost). When
every cost and data size is a whole number, so is some optimum, and ``C`` is an integer.

The solution's assignment and its order of starts are turned back into a schedule by one
forward pass (each task as early as its inputs and its processor allow, in that order), so
the result obeys :func:`~hetsched.mapping.graph.check_schedule` exactly and ends no later
than the MILP's ``C``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.dag import by_priority, heft
from hetsched.mapping.exact import quiet_native_output
from hetsched.mapping.graph import (TOLERANCE, GraphSchedule, TaskGraph, check_schedule,
                                    least_cost_paths, min_cost_path)
from hetsched.mapping.machines import GraphProcessors
from hetsched.options import check_number


#: How far above a whole number HiGHS's dual bound may be and still be that number (its
#: absolute gap is 1e-6): whole-number data round the bound up to the next whole number.
_ROUNDING = 1e-6


def lower_bound(graph: TaskGraph) -> float:
    """A lower bound on the makespan of every schedule of ``graph``: the larger of its critical
    path when each task takes its least cost and no data moves (no task can start before its
    ancestors end, whatever processors they use), and the total of the least costs over the
    number of processors (the processors' busy time, shared at best evenly)."""
    if not graph.tasks:
        return 0.0
    return max(min_cost_path(graph), float(graph.cost.min(axis=1).sum()) / graph.processors)


def _unordered_pairs(graph: TaskGraph) -> np.ndarray:
    """The pairs ``(i, j)``, ``i < j``, that no path of the graph joins (k × 2)."""
    below = [0] * graph.tasks  # bit j of below[i]: a path goes from i to j
    for i in reversed(graph.order):
        for child, _ in graph.children[i]:
            below[i] |= below[child] | (1 << child)
    pairs = [(i, j) for i in range(graph.tasks) for j in range(i + 1, graph.tasks)
             if not (below[i] >> j) & 1 and not (below[j] >> i) & 1]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


class _Rows:
    """Sparse ``≤`` rows over the variables, gathered as triplets."""

    def __init__(self) -> None:
        self.row: list[int] = []
        self.col: list[int] = []
        self.val: list[float] = []
        self.upper: list[float] = []

    def add(self, terms: dict[int, float], upper: float) -> None:
        k = len(self.upper)
        for col, val in terms.items():
            self.row.append(k)
            self.col.append(col)
            self.val.append(val)
        self.upper.append(upper)


class _Model:
    """The MILP's variables (``x``, then ``s``, then ``y``, then ``C``) and its rows."""

    def __init__(self, graph: TaskGraph, upper: float, integral: bool) -> None:
        self.graph, self.upper, self.integral = graph, upper, integral
        n, m = graph.cost.shape
        self.pairs = _unordered_pairs(graph)
        self.s0, self.y0 = n * m, n * m + n
        self.c = self.y0 + len(self.pairs)
        self.head, self.tail = least_cost_paths(graph)
        self.rows = _Rows()
        self._edges()
        self._ends()
        self._disjunctions()

    def x(self, i: int, p: int) -> int:
        return i * self.graph.processors + p

    def run_time(self, i: int) -> dict[int, float]:
        """``d[i]`` as terms."""
        return {self.x(i, p): float(self.graph.cost[i, p]) for p in range(self.graph.processors)}

    def _edges(self) -> None:
        for a, b, data in self.graph.edges:
            for p in range(self.graph.processors if data else 1):  # without data, one row
                terms = {**self.run_time(a), self.s0 + a: 1.0, self.s0 + b: -1.0}
                if data:
                    terms[self.x(a, p)] += data
                    terms[self.x(b, p)] = -float(data)
                self.rows.add(terms, 0.0)

    def _ends(self) -> None:
        for i in range(self.graph.tasks):
            self.rows.add({**self.run_time(i), self.s0 + i: 1.0, self.c: -1.0}, -self.tail[i])
        for p in range(self.graph.processors):
            terms = {self.x(i, p): float(self.graph.cost[i, p]) for i in range(self.graph.tasks)}
            self.rows.add({**terms, self.c: -1.0}, 0.0)

    def _disjunctions(self) -> None:
        for k, (i, j) in enumerate(self.pairs):
            y = self.y0 + k
            for first, second, sign in ((i, j, 1.0), (j, i, -1.0)):
                big = max(0.0, self.upper - self.tail[first] - self.head[second])
                for p in range(self.graph.processors):
                    terms = self.run_time(first)
                    terms[self.s0 + first], terms[self.s0 + second] = 1.0, -1.0
                    for task in (i, j):
                        terms[self.x(task, p)] = terms.get(self.x(task, p), 0.0) + big
                    terms[y] = sign * big
                    self.rows.add(terms, (3.0 if sign > 0 else 2.0) * big)

    def bounds(self, bound: float) -> tuple[np.ndarray, np.ndarray]:
        lower = np.zeros(self.c + 1)
        upper = np.ones(self.c + 1)
        lower[self.s0:self.y0] = self.head
        upper[self.s0:self.y0] = np.inf
        lower[self.c], upper[self.c] = bound, self.upper
        upper[:self.s0] = self._symmetry().ravel()
        return lower, upper

    def _symmetry(self) -> np.ndarray:
        """1 where ``x[i, p]`` may be 1: the ``r``-th processor of a class of identical ones
        is open to the tasks ``k ≥ r`` of the topological order only."""
        open_ = np.ones(self.graph.cost.shape)
        columns: dict[bytes, int] = {}
        for p in range(self.graph.processors):
            rank = columns.get(key := self.graph.cost[:, p].tobytes(), 0)
            columns[key] = rank + 1
            open_[list(self.graph.order[:rank]), p] = 0.0
        return open_

    def solve(self, bound: float, options: dict[str, object]):
        from scipy import sparse  # scipy is imported only when a model is built
        from scipy.optimize import Bounds, LinearConstraint, milp

        n, m = self.graph.cost.shape
        rows = self.rows
        a_ub = sparse.csr_array((rows.val, (rows.row, rows.col)),
                                shape=(len(rows.upper), self.c + 1))
        a_eq = sparse.csr_array((np.ones(n * m), (np.repeat(np.arange(n), m), np.arange(n * m))),
                                shape=(n, self.c + 1))
        integrality = np.zeros(self.c + 1)
        integrality[:self.s0] = integrality[self.y0:self.c] = 1
        integrality[self.c] = self.integral
        objective = np.zeros(self.c + 1)
        objective[self.c] = 1.0
        with quiet_native_output():
            return milp(objective, integrality=integrality, bounds=Bounds(*self.bounds(bound)),
                        constraints=[LinearConstraint(a_eq, 1.0, 1.0),
                                     LinearConstraint(a_ub, -np.inf, np.array(rows.upper))],
                        options=options)


def _integral(graph: TaskGraph) -> bool:
    """Whether every cost and data size is a whole number: then so is the makespan of some
    optimal schedule (a forward pass of whole numbers), and ``C`` may be an integer."""
    data = np.array([d for _, _, d in graph.edges])
    return bool(np.all(graph.cost == np.round(graph.cost)) and np.all(data == np.round(data)))


def forward_pass(graph: TaskGraph, processor: np.ndarray, start: np.ndarray) -> GraphProcessors:
    """Tasks on ``processor`` in the order of ``start`` (among those whose parents are placed;
    ties by topological order), each as early as its inputs and its processor allow."""
    state = GraphProcessors(graph, np.arange(graph.tasks))
    by_priority(graph, -np.asarray(start, float), lambda task: int(processor[task]), state)
    return state


def _check_limits(time_limit: float | None, max_nodes: int | None) -> None:
    if time_limit is not None:
        check_number("time limit", time_limit, positive=True)
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int)
                                  or max_nodes < 1):
        raise ConfigError(f"max_nodes must be a positive whole number, got {max_nodes!r}")


def _incumbent(graph: TaskGraph, start: GraphSchedule | None) -> GraphSchedule:
    if start is None:
        return heft(graph)
    problems = check_schedule(graph, start)
    if problems:
        raise ConfigError(f"start schedule {start.heuristic!r} is not a schedule of graph "
                          f"{graph.name!r}: {problems[0]}")
    return start


def exact(graph: TaskGraph, time_limit: float | None = 60.0, max_nodes: int | None = None,
          start: GraphSchedule | None = None) -> GraphSchedule:
    """The best schedule HiGHS finds within ``time_limit`` seconds and ``max_nodes``
    branch-and-bound nodes (the formulation is in the module docstring), named ``"exact"``.

    ``start`` (default: HEFT's schedule) is the incumbent: its makespan is ``UB``. It is also
    the fallback: when HiGHS finds no schedule within the limits, or none shorter, the
    incumbent's times are returned (``info["solution"] == "incumbent"``), so a schedule is
    always returned. ``lower_bound`` is the proven bound: HiGHS's dual bound, at least
    :func:`lower_bound`, rounded up to a whole number when every cost and data size is one,
    at most the makespan. ``info``: ``optimal`` (HiGHS proved it optimal, within its absolute
    gap of 1e-6, or the bound reaches the makespan), ``gap_percent`` (``100 · (makespan /
    bound − 1)``; 0 when optimal, ``None`` when the bound is 0), ``status`` (HiGHS's message),
    ``nodes`` (HiGHS's, ``None`` when it gives none), ``solution`` (``"milp"`` or
    ``"incumbent"``) and ``incumbent`` (its name and makespan)."""
    began = time.perf_counter()
    _check_limits(time_limit, max_nodes)
    incumbent = _incumbent(graph, start)
    integral = _integral(graph)
    bound = _rounded(lower_bound(graph), integral)
    best, info = incumbent, {"status": "the incumbent reaches the lower bound", "nodes": 0,
                             "solution": "incumbent"}
    proved = False
    if incumbent.makespan > bound:
        model = _Model(graph, incumbent.makespan, integral)
        res = model.solve(bound, _options(time_limit, max_nodes))
        info = {"status": str(res.message), "nodes": getattr(res, "mip_node_count", None),
                "solution": "incumbent"}
        proved = res.status == 0
        dual = getattr(res, "mip_dual_bound", None)
        if dual is not None and np.isfinite(dual):
            bound = max(bound, _rounded(float(dual), integral))
        found = None if res.x is None else _solution(graph, model, res.x)
        if found is not None and found.makespan <= best.makespan:
            best, info["solution"] = found, "milp"
    makespan = best.makespan
    bound = min(bound, makespan)
    optimal = proved or bound >= makespan - TOLERANCE * max(1.0, makespan)
    info = {"optimal": bool(optimal), "gap_percent": _gap(makespan, bound, optimal), **info,
            "incumbent": {"heuristic": incumbent.heuristic, "makespan": incumbent.makespan}}
    return GraphSchedule("exact", best.processor.copy(), best.start.copy(), best.finish.copy(),
                         seconds=time.perf_counter() - began, lower_bound=bound, info=info)


def _options(time_limit: float | None, max_nodes: int | None) -> dict[str, object]:
    """HiGHS's options: no relative gap (its absolute gap, 1e-6, stays), the limits."""
    options: dict[str, object] = {"mip_rel_gap": 0.0, "presolve": True}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    if max_nodes is not None:
        options["node_limit"] = max_nodes
    return options


def _rounded(bound: float, integral: bool) -> float:
    """``bound``, rounded up to a whole number when the data are whole numbers (see
    :func:`_integral`); a bound a hair above a whole number (73 + 1e-9) is that number."""
    return float(math.ceil(bound - _ROUNDING)) if integral else bound


def _solution(graph: TaskGraph, model: _Model, values: np.ndarray) -> GraphSchedule:
    """The schedule of the MILP's assignment and order of starts (see :func:`forward_pass`)."""
    x = np.asarray(values[:model.s0]).reshape(graph.tasks, graph.processors)
    state = forward_pass(graph, x.argmax(axis=1), values[model.s0:model.y0])
    return GraphSchedule("milp", state.processor, state.start, state.finish)


def _gap(makespan: float, bound: float, optimal: bool) -> float | None:
    if optimal:
        return 0.0
    return None if bound <= 0 else 100.0 * (makespan / bound - 1.0)
