"""Where a job's tasks go, given free resources and a node preference (pure numpy).

``key`` ranks nodes (lower is preferred, ties by node index); ``None`` means uniformly random.
A caller whose key never changes may also pass ``order``, the nodes sorted by it (stable), to
skip ranking on every call. Works on any free-cores/free-memory/free-disk arrays, so
backfilling can place jobs on projected future states with the same rules as placement now.
"""

from __future__ import annotations

import numpy as np

from hetsched.sim.resources import Allocation, capacity, even_split
from hetsched.workload.model import Job

#: Up to this many nodes, a Python scan (of the preference order, for a maximum...) is quicker
#: than numpy's per-call overhead (about 1 us against 3 on 20 nodes).
SCAN_NODES = 64


def largest(values: np.ndarray) -> int:
    """``values.max()`` of an integer array, as an int (a Python scan on few nodes)."""
    return max(values.tolist()) if values.size <= SCAN_NODES else int(values.max())


def positive_total(values: np.ndarray) -> int:
    """The sum of the positive values of an integer array (a Python scan on few nodes)."""
    if values.size <= SCAN_NODES:
        return sum([value for value in values.tolist() if value > 0])
    return int(np.maximum(values, 0).sum())


def _ranked(usable: np.ndarray, key: np.ndarray | None, rng: np.random.Generator,
            order: np.ndarray | None) -> np.ndarray:
    """The usable nodes (a mask), most preferred first."""
    if order is not None:
        return order[usable[order]]
    candidates = np.flatnonzero(usable)
    if key is None:
        return rng.permutation(candidates)
    return candidates[np.argsort(key[candidates], kind="stable")]


def _best(candidates: np.ndarray, key: np.ndarray | None, rng: np.random.Generator) -> int:
    if key is None:
        return int(rng.choice(candidates))
    return int(candidates[np.argmin(key[candidates])])


def place(job: Job, free_slots: np.ndarray, free_mem: np.ndarray, free_disk: np.ndarray,
          key: np.ndarray | None, rng: np.random.Generator, allowed: np.ndarray | None = None,
          order: np.ndarray | None = None) -> Allocation | None:
    """An allocation of ``job`` on the preferred nodes where it fits, or ``None``.

    ``allowed`` optionally masks the nodes that may be used; ``order`` is ``key``'s ranking
    of the nodes when the caller has it.
    """
    cap = capacity(job, free_slots, free_mem, free_disk)
    if job.nodes == 1:
        if order is not None and cap.size <= SCAN_NODES:
            node = _first_fit(job.ntasks, cap.tolist(),
                              None if allowed is None else allowed.tolist(), order.tolist())
            return None if node is None else ((node, job.ntasks),)
        fit = cap >= job.ntasks
        if allowed is not None:
            fit &= allowed
        node = choose_node(fit, key, rng, order)
        return None if node is None else ((node, job.ntasks),)
    if job.spread:
        return _spread(job.ntasks, cap, key, rng, allowed, order)
    return _exact_nodes(job, cap, key, rng, allowed, order)


def choose_node(fit: np.ndarray, key: np.ndarray | None, rng: np.random.Generator,
                order: np.ndarray | None = None) -> int | None:
    """The preferred node of the mask ``fit`` (``None`` if it is empty): where a one-node job
    goes among the nodes that can take it."""
    if order is not None:  # the first fitting node in preference order
        if fit.size <= SCAN_NODES:  # the mask as room for 0 or 1 task per node
            return _first_fit(1, fit.tolist(), None, order.tolist())
        node = int(order[fit[order].argmax()])
        return node if fit[node] else None
    if key is not None:  # the preferred fitting node without building the candidates
        node = int(np.where(fit, key, np.inf).argmin())
        if fit[node]:
            return node
    candidates = np.flatnonzero(fit)  # none fits, or the fitting ones have key +inf
    return _best(candidates, key, rng) if candidates.size else None


def _spread(ntasks: int, cap: np.ndarray, key: np.ndarray | None, rng: np.random.Generator,
            allowed: np.ndarray | None, order: np.ndarray | None) -> Allocation | None:
    """Fill the preferred nodes first, taking all they can give, until every task is placed."""
    if order is not None and cap.size <= SCAN_NODES:
        return _spread_scan(ntasks, cap.tolist(), None if allowed is None else allowed.tolist(),
                            order.tolist())
    usable = cap > 0 if allowed is None else (cap > 0) & allowed
    if cap[usable].sum() < ntasks:
        return None
    ranked = _ranked(usable, key, rng, order)
    taken = cap[ranked]
    filled = np.cumsum(taken)
    last = int(np.searchsorted(filled, ntasks))
    counts = taken[: last + 1].copy()
    counts[last] -= int(filled[last]) - ntasks
    return tuple(zip(ranked[: last + 1].tolist(), counts.tolist()))


def _first_fit(ntasks: int, cap: list[int], allowed: list[bool] | None,
               order: list[int]) -> int | None:
    """:func:`choose_node` on few nodes, from the tasks each can take, as a Python scan."""
    for node in order:
        if cap[node] >= ntasks and (allowed is None or allowed[node]):
            return node
    return None


def _spread_scan(ntasks: int, cap: list[int], allowed: list[bool] | None,
                 order: list[int]) -> Allocation | None:
    """:func:`_spread` on few nodes, as a Python scan of the preference order."""
    allocation = []
    for node in order:
        room = cap[node]
        if room > 0 and (allowed is None or allowed[node]):
            taken = room if room < ntasks else ntasks
            allocation.append((node, taken))
            ntasks -= taken
            if not ntasks:
                return tuple(allocation)
    return None


def _exact_nodes(job: Job, cap: np.ndarray, key: np.ndarray | None, rng: np.random.Generator,
                 allowed: np.ndarray | None, order: np.ndarray | None) -> Allocation | None:
    """Exactly ``job.nodes`` nodes, in preference order, each given what it can hold: the
    ``extra`` larger shares go to the first preferred nodes that can take them."""
    base, extra = even_split(job)
    fit = cap >= base
    if allowed is not None:
        fit &= allowed
    if np.count_nonzero(fit) < job.nodes or np.count_nonzero(cap[fit] > base) < extra:
        return None
    allocation = []
    small_left = job.nodes - extra
    for node in _ranked(fit, key, rng, order).tolist():
        if extra and cap[node] > base:
            allocation.append((node, base + 1))
            extra -= 1
        elif small_left:
            allocation.append((node, base))
            small_left -= 1
        if not extra and not small_left:
            return tuple(allocation)
    raise AssertionError("unreachable: counts were checked above")
