"""A* tree search for the makespan (Braun et al., JPDC 61, 2001, section 3.11).

Tasks are mapped in a fixed order ``order`` (default: index order); a node at depth ``d`` maps
the first ``d`` tasks of the order, and its ``m`` children map task ``order[d]`` on machines
``0..m-1``. A node is stored compactly: its machine-availability vector ``r`` while it is
open, and (parent, machine) for every node so that the leaf's path gives the mapping.

Node cost ``f(n) = g(n) + h(n)``, with ``U`` the unmapped tasks and ``mu`` the machine count:

- ``g(n) = max_j r[j]`` (machine-availability makespan of the partial mapping);
- ``mmct(n) = max_{t in U} min_j (etc[t, j] + r[j])``; ``h1(n) = max(0, mmct(n) - g(n))``;
- ``sdma(n) = sum_j (g(n) - r[j])``; ``smet(n) = sum_{t in U} min_j etc[t, j]``;
  ``h2(n) = max(0, (smet(n) - sdma(n)) / mu)``;
- ``h(n) = max(h1(n), h2(n))``. Both are lower bounds on the increase of the makespan still
  to come, so ``f`` never overestimates (``g + h1 = max(g, mmct)``,
  ``g + h2 = max(g, (sum_j r[j] + smet) / mu)``).

Search: always expand the open node of least ``f`` (ties: the deeper node, then the older
one); stop when that node is a complete mapping. When more than ``node_limit`` nodes are open
the worst ones (largest ``f``; ties: shallower, then newer) are deleted until ``node_limit``
remain. If ``max_expansions`` or ``time_limit`` runs out first, the best open node is completed
by a greedy dive (expand it, keep the child of least ``f``, ties: least completion time of the
task, then lowest machine; repeat) and ``info['complete_search']`` is False.

With hundreds of tasks the bounded best-first search practically never reaches a leaf on its
own (the bounds are flat near the root, so the 1024 kept nodes stay shallow: on the Braun
512 × 16 instances, 300,000+ expansions in 60 s reached no leaf), hence the default budget of
``EXPANSIONS_PER_TASK × tasks`` expansions followed by the dive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping


class _Tree:
    """Parent pointers and machine choices of every node ever created (ids are creation order)."""

    def __init__(self) -> None:
        self.parent = np.empty(1024, dtype=np.int64)
        self.machine = np.empty(1024, dtype=np.int64)
        self.size = 0

    def add(self, parent: int, machines: np.ndarray) -> np.ndarray:
        k = machines.size
        if self.size + k > self.parent.size:
            grow = max(self.parent.size * 2, self.size + k)
            self.parent = np.resize(self.parent, grow)
            self.machine = np.resize(self.machine, grow)
        ids = np.arange(self.size, self.size + k)
        self.parent[ids] = parent
        self.machine[ids] = machines
        self.size += k
        return ids

    def path(self, node: int, depth: int) -> np.ndarray:
        out = np.empty(depth, dtype=np.int64)
        for d in range(depth - 1, -1, -1):
            out[d] = self.machine[node]
            node = int(self.parent[node])
        return out


def _children(etc_o: np.ndarray, min_etc_suffix: np.ndarray, r: np.ndarray,
              depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ready vectors, g and f of the ``m`` children of a node (vectorised over children).

    Child ``j`` raises only ``r[j]`` (by ``etc[t, j]``), so an unmapped task's least completion
    time changes only if ``j`` was its best machine; then it becomes
    ``min(second least CT, CT on j + etc[t, j])``. Hence, with ``b`` the least CTs under the
    parent's ready times and ``c`` the best machines, ``mmct(child j)`` is the larger of
    ``max b[u] over c[u] != j`` and ``max min(second[u], b[u] + etc[t, j]) over c[u] == j``.
    """
    n, m = etc_o.shape
    row = etc_o[depth]
    ready = np.tile(r, (m, 1))
    diag = np.arange(m)
    ready[diag, diag] += row
    g = ready.max(axis=1)
    rest = etc_o[depth + 1:]
    k = rest.shape[0]
    if k == 0:
        return ready, g, g.copy()
    ct = rest + r  # completion times under the parent's ready times
    col = ct.argmin(axis=1)
    rows = np.arange(k)
    best = ct[rows, col]
    if m > 1:
        ct[rows, col] = np.inf
        second = ct.min(axis=1)
    else:
        second = np.full(k, np.inf)
    raised = np.minimum(second, best + row[col])
    group_best = np.full(m, -np.inf)
    np.maximum.at(group_best, col, best)
    group_raised = np.full(m, -np.inf)
    np.maximum.at(group_raised, col, raised)
    # max of group_best over the other machines: the top value, or the runner-up at its argmax
    top = int(np.argmax(group_best))
    others = np.full(m, group_best[top])
    if m > 1:
        others[top] = np.max(np.delete(group_best, top))
    else:
        others[top] = -np.inf
    mmct = np.maximum(others, group_raised)
    h1 = np.maximum(0.0, mmct - g)
    smet = min_etc_suffix[depth + 1]
    sdma = m * g - ready.sum(axis=1)
    h2 = np.maximum(0.0, (smet - sdma) / m)
    return ready, g, g + np.maximum(h1, h2)


def _prune(o_ready: np.ndarray, o_f: np.ndarray, o_depth: np.ndarray, o_id: np.ndarray,
           size: int, limit: int) -> int:
    """Delete the worst open nodes (largest f; ties: shallower, then newer) down to ``limit``:
    the kept nodes past ``limit`` move into the deleted ones' slots (the open list's order
    does not matter: every choice is by f, depth and id)."""
    fs = o_f[:size]
    kth = np.partition(fs, limit - 1)[limit - 1]
    keep = fs <= kth
    extra = int(keep.sum()) - limit
    if extra > 0:  # too many nodes tie at f == kth: drop the shallowest, then newest, of them
        ties = np.flatnonzero(fs == kth)
        worst = ties[np.lexsort((-o_id[ties], o_depth[ties]))[:extra]]
        keep[worst] = False
    holes = np.flatnonzero(~keep[:limit])
    movers = limit + np.flatnonzero(keep[limit:])
    for column in (o_ready, o_f, o_depth, o_id):
        column[holes] = column[movers]
    return limit


#: Default expansion budget per task (``max_expansions = EXPANSIONS_PER_TASK * tasks``).
EXPANSIONS_PER_TASK = 10


#: The named task orders of :func:`task_order`.
ORDERS = ("index", "largest_first", "random")


def task_order(etc: np.ndarray, order: object,
               rng: np.random.Generator | None = None) -> np.ndarray:
    """The fixed order A* maps tasks in: ``"index"`` (0, 1, ...), ``"largest_first"``
    (decreasing least ETC, ties by index), ``"random"`` (a permutation drawn from ``rng``,
    default ``numpy.random.default_rng(0)``: the 2023 IRMaSim thesis' A*, its §3.6.2) or an
    explicit permutation of the tasks."""
    n = etc.shape[0]
    if order is None or (isinstance(order, str) and order == "index"):
        return np.arange(n, dtype=np.int64)
    if isinstance(order, str):
        if order == "largest_first":
            return np.lexsort((np.arange(n), -etc.min(axis=1))).astype(np.int64)
        if order == "random":
            return (np.random.default_rng(0) if rng is None else rng).permutation(n)
        raise ConfigError(f"astar: unknown order {order!r} ({', '.join(ORDERS)})")
    seq = np.asarray(order, dtype=np.int64)
    if seq.shape != (n,) or not np.array_equal(np.sort(seq), np.arange(n)):
        raise ConfigError("astar: order must be a permutation of the tasks")
    return seq


#: A node's expansion: (its state vector, its depth) -> the state vectors of its ``m``
#: children (one row each), their ``f`` and the completion time of the task each maps.
Expand = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray, np.ndarray]]


#: How the search keeps its tree small: ``open`` keeps the ``node_limit`` best open nodes;
#: ``tree`` (the 2023 IRMaSim thesis' rule, its §3.6.2 and §4.5) counts every vertex ever
#: created and, once there are ``node_limit`` of them, prunes the open node of largest ``f``
#: for each new vertex, so the open list shrinks by one per expansion and the search reaches
#: a leaf by itself.
PRUNE_RULES = ("open", "tree")


@dataclass(frozen=True)
class Search:
    """Bounds of one search: open nodes kept (or vertices, by ``prune``), expansions
    (``None``: unbounded), deadline (a ``time.perf_counter`` value, ``None``: none)."""

    node_limit: int
    max_expansions: int | None
    deadline: float | None
    prune: str = "open"

    def spent(self, expansions: int) -> bool:
        return ((self.max_expansions is not None and expansions >= self.max_expansions)
                or (self.deadline is not None and time.perf_counter() > self.deadline))


def search(root: np.ndarray, n: int, m: int, expand: Expand,
           bounds: Search) -> tuple[np.ndarray, dict[str, object]]:
    """Best-first search from ``root`` (a state vector) to depth ``n`` (see the module
    docstring): the machine of each task in the search's order, and what the search did."""
    tree = _Tree()
    cap = bounds.node_limit + m
    o_ready = np.empty((cap, root.size))
    o_f = np.empty(cap)
    o_depth = np.empty(cap, dtype=np.int64)
    o_id = np.empty(cap, dtype=np.int64)
    o_ready[0], o_f[0], o_depth[0] = root, 0.0, 0
    o_id[0] = int(tree.add(-1, np.array([-1]))[0])
    size, expansions, pruned, created = 1, 0, 0, 0
    complete = True

    def best_open(k: int) -> int:
        fmin = o_f[:k].min()
        cand = np.flatnonzero(o_f[:k] == fmin)
        if cand.size > 1:
            deepest = o_depth[cand].max()
            cand = cand[o_depth[cand] == deepest]
            cand = cand[np.argmin(o_id[cand])] if cand.size > 1 else cand[0]
            return int(cand)
        return int(cand[0])

    while True:
        pos = best_open(size)
        depth = int(o_depth[pos])
        node, r = int(o_id[pos]), o_ready[pos].copy()
        if depth == n:
            break
        if bounds.spent(expansions):
            complete = False
            while depth < n:  # greedy dive: keep the best child (least f, then least CT)
                states, f, ct = expand(r, depth)
                j = int(np.lexsort((np.arange(m), ct, f))[0])
                r = states[j]
                node = int(tree.add(node, np.array([j]))[0])
                depth += 1
            break
        # remove the expanded node (move the last open node into its slot)
        size -= 1
        if pos != size:
            o_ready[pos] = o_ready[size]
            o_f[pos] = o_f[size]
            o_depth[pos] = o_depth[size]
            o_id[pos] = o_id[size]
        c_ready, c_f, _ = expand(r, depth)
        ids = tree.add(node, np.arange(m))
        o_ready[size:size + m] = c_ready
        o_f[size:size + m] = c_f
        o_depth[size:size + m] = depth + 1
        o_id[size:size + m] = ids
        size += m
        expansions += 1
        if bounds.prune == "tree":
            keep, created = _tree_keep(size, c_f, created, bounds.node_limit)
        else:
            keep = bounds.node_limit
        if size > keep:
            pruned += size - keep
            size = _prune(o_ready, o_f, o_depth, o_id, size, keep)
    return tree.path(node, n), {"node_limit": bounds.node_limit, "expansions": expansions,
                                "nodes": tree.size, "pruned": pruned,
                                "complete_search": complete}


def _tree_keep(size: int, child_f: np.ndarray, created: int,
               node_limit: int) -> tuple[int, int]:
    """The ``tree`` rule after an expansion: how many open nodes stay, and the vertices
    created so far. Children that cannot be (``f = inf``: the task does not fit the machine)
    are not vertices and go; each new vertex past ``node_limit`` prunes one open node; at
    least one open node stays (the thesis' search then dives to a leaf)."""
    made = int(np.isfinite(child_f).sum())
    over = max(0, min(made, created + made - node_limit))
    return max(1, size - (child_f.size - made) - over), created + made


def bounds(n: int, node_limit: int, max_expansions: int | None,
           time_limit: float | None, began: float, prune: str = "open") -> Search:
    """The search's bounds, checked: ``max_expansions`` -1 means ``EXPANSIONS_PER_TASK ×
    n`` under the ``open`` rule and unbounded under ``tree`` (which reaches a leaf by
    itself), ``None`` unbounded."""
    if node_limit < 1:
        raise ConfigError(f"astar: node_limit must be at least 1, got {node_limit}")
    if prune not in PRUNE_RULES:
        raise ConfigError(f"astar: prune must be one of {', '.join(PRUNE_RULES)}, "
                          f"got {prune!r}")
    if max_expansions is not None and max_expansions < 0:
        max_expansions = EXPANSIONS_PER_TASK * n if prune == "open" else None
    return Search(node_limit, max_expansions,
                  None if time_limit is None else began + float(time_limit), prune)


def astar(etc: object, ready: object = None, node_limit: int = 1024,
          order: object = "index", max_expansions: int | None = -1,
          time_limit: float | None = None, rng: np.random.Generator | None = None,
          prune: str = "open") -> Mapping:
    """A* search with a bounded open list (see the module docstring).

    ``max_expansions``: -1 (default) means ``EXPANSIONS_PER_TASK × tasks`` (unbounded with
    ``prune="tree"``); ``None`` means unbounded (a true A* when ``node_limit`` is large
    enough never to prune). ``prune``: :data:`PRUNE_RULES`; ``order``: :func:`task_order`.
    """
    began = time.perf_counter()
    arr = as_etc(etc)
    r0 = as_ready(ready, arr.shape[1])
    n, m = arr.shape
    limits = bounds(n, node_limit, max_expansions, time_limit, began, prune)
    seq = task_order(arr, order, rng)
    etc_o = np.ascontiguousarray(arr[seq])
    min_etc = etc_o.min(axis=1) if n else np.zeros(0)
    suffix = np.concatenate((np.cumsum(min_etc[::-1])[::-1], [0.0]))

    def expand(r: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        states, _, f = _children(etc_o, suffix, r, depth)
        return states, f, r + etc_o[depth]

    path, info = search(r0, n, m, expand, limits)
    assign = np.empty(n, dtype=np.int64)
    assign[seq] = path
    return make_mapping("astar", arr, assign, r0, sequence=seq,
                        seconds=time.perf_counter() - began, info=info)
