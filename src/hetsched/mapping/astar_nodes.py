"""A* on multi-core nodes, the model of the 2023 IRMaSim batch-mapping thesis (its §3.6 and
§4.5): a job of ``k`` tasks runs on ``k`` cores of one node, one task per core, and starts
when the ``k`` earliest-free cores of that node are free (no earlier than the start of the job
queued there before it: :class:`~hetsched.mapping.machines.CoreSlots`).

The search is :func:`hetsched.mapping.tree_search.search`, the classic A*'s; what changes is
a tree node's state, one ready time per core (free, and no earlier than its node's FIFO bound),
and its cost ``f = g + max(h1, h2)``:

- ``g``: the latest ready time of any core (the partial mapping's makespan);
- ``h1 = max(0, mmct - g)``, ``mmct`` the largest, over the unmapped jobs, of their least
  completion time under this model;
- ``h2 = max(0, (smet - sdma) / C)`` with ``C`` the cores, ``smet`` the unmapped jobs' least
  core-seconds (``k · min_n etc``) and ``sdma`` the idle core-seconds before ``g``
  (``Σ_cores (g - ready)``).

Both are lower bounds on the makespan still to come (mapping a job only delays cores, so an
unmapped job ends no earlier than its least completion time now; the remaining work needs at
least ``smet`` core-seconds and only ``sdma`` of them fit before ``g``). With one core per node
and one task per job this is the classic A* of :mod:`~hetsched.mapping.tree_search`.
"""

from __future__ import annotations

import time

import numpy as np

from hetsched.mapping.greedy import Plan
from hetsched.mapping.machines import CoreSlots
from hetsched.mapping.tree_search import bounds, search, task_order


class _Cores:
    """The jobs in search order and the nodes' cores as an ``m × width`` table of ready
    times, each row sorted, ``inf`` past a node's last core (a tree node's state, flattened)."""

    def __init__(self, state: CoreSlots, seq: np.ndarray) -> None:
        node_of, ready = state.core_table()
        self.m = state.etc.shape[1]
        self.cores = np.bincount(node_of, minlength=self.m)
        self.etc = np.ascontiguousarray(state.etc[seq])
        self.tasks = state.tasks[seq]
        self.width = int(max(self.cores.max(initial=1), self.tasks.max(initial=1)))
        table = np.full((self.m, self.width), np.inf)
        for j in range(self.m):
            table[j, :self.cores[j]] = np.sort(ready[node_of == j])
        self.root = table.ravel()
        self.last = np.maximum(self.cores - 1, 0)
        self.total = int(self.cores.sum())
        work = self.tasks * self.etc.min(axis=1) if seq.size else np.zeros(0)
        self.suffix = np.concatenate((np.cumsum(work[::-1])[::-1], [0.0]))

    def expand(self, state: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """The ``m`` children of ``state`` (job ``depth`` on each node): their states, ``f``
        and the job's completion time on each node (``inf``: it does not fit)."""
        m, k = self.m, int(self.tasks[depth])
        table = state.reshape(m, self.width)
        end = table[:, k - 1] + self.etc[depth]
        fits = np.isfinite(end)
        rows = table.copy()  # rows[j]: node j's cores once the job runs there
        rows[:, :k] = np.where(fits, end, np.inf)[:, None]
        rows.sort(axis=1)
        children = np.broadcast_to(table, (m, m, self.width)).copy()
        diag = np.arange(m)
        children[diag, diag] = rows
        with np.errstate(invalid="ignore"):
            g = np.maximum(table[diag, self.last].max(), end)
            ready_sum = table[np.isfinite(table)].sum() - table[:, :k].sum(axis=1) + k * end
            h2 = np.maximum(0.0, (self.suffix[depth + 1] - (self.total * g - ready_sum))
                            / self.total)
            f = g + np.maximum(self._h1(table, rows, depth, g), h2)
        return children.reshape(m, -1), np.where(fits, f, np.inf), end

    def _h1(self, table: np.ndarray, rows: np.ndarray, depth: int,
            g: np.ndarray) -> np.ndarray:
        """``max(0, mmct - g)`` of each child: only the child's own node changes, so a job's
        least completion time there is the least of its best on the other nodes (its best,
        or its second best where the best was that node) and its time on the changed node."""
        etc, need = self.etc[depth + 1:], self.tasks[depth + 1:] - 1
        if etc.shape[0] == 0:
            return np.zeros(self.m)
        ct = table[:, need].T + etc
        col = ct.argmin(axis=1)
        best = ct[np.arange(ct.shape[0]), col]
        ct[np.arange(ct.shape[0]), col] = np.inf
        second = ct.min(axis=1)
        others = np.where(col[None, :] == np.arange(self.m)[:, None], second, best)
        mmct = np.minimum(others, rows[:, need] + etc.T).max(axis=1)
        return np.maximum(0.0, mmct - g)


def astar_on(state: CoreSlots, node_limit: int = 1024, order: object = "index",
             max_expansions: int | None = -1, time_limit: float | None = None,
             rng: np.random.Generator | None = None, prune: str = "open") -> Plan:
    """A* over the jobs of ``state`` (options as :func:`~hetsched.mapping.tree_search.astar`'s);
    the mapping found is committed on ``state`` in the search's order, which is the plan's
    sequence."""
    began = time.perf_counter()
    n = state.etc.shape[0]
    limits = bounds(n, node_limit, max_expansions, time_limit, began, prune)
    seq = task_order(state.etc, order, rng)
    cores = _Cores(state, seq)
    path, info = search(cores.root, n, cores.m, cores.expand, limits)
    assign = np.empty(n, dtype=np.int64)
    assign[seq] = path
    for i in seq.tolist():
        state.commit(i, int(assign[i]))
    return Plan(assign, seq, info)
