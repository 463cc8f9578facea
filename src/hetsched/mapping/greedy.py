"""The list heuristics of Braun et al. (JPDC 61, 2001) and Maheswaran et al. (JPDC 59, 1999).

Every function takes an ETC matrix (tasks × machines) and optional machine ready times and
returns a :class:`~hetsched.mapping.core.Mapping`. Conventions shared by all of them:

- ``CT[i, j] = etc[i, j] + r[j]`` is the completion time of task ``i`` if it were mapped next
  on machine ``j``, ``r`` being machine ``j``'s current ready time (initially ``ready``;
  mapping task ``i`` on ``j`` does ``r[j] += etc[i, j]``, in mapping order);
- **ties always go to the lowest index** (machine, or task where a task is chosen);
- decisions use float64 and these running sums; the reported makespan and flowtime are then
  recomputed from the assignment alone (see :mod:`hetsched.mapping.core`).
"""

from __future__ import annotations

import math
import time

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping


def _prepare(etc: object, ready: object) -> tuple[np.ndarray, np.ndarray]:
    arr = as_etc(etc)
    return arr, as_ready(ready, arr.shape[1])


def _immediate(name: str, etc: object, ready: object, choose) -> Mapping:
    """Map tasks in index order; ``choose(i, row, r)`` gives the machine of task ``i``."""
    began = time.perf_counter()
    etc, ready0 = _prepare(etc, ready)
    r = ready0.copy()
    n = etc.shape[0]
    assign = np.empty(n, dtype=np.int64)
    for i in range(n):
        j = choose(i, etc[i], r)
        assign[i] = j
        r[j] += etc[i, j]
    return make_mapping(name, etc, assign, ready0, seconds=time.perf_counter() - began)


def olb(etc: object, ready: object = None) -> Mapping:
    """Opportunistic Load Balancing: each task, in index order, goes to the machine that is
    ready first (least ``r[j]``), whatever its ETC there."""
    return _immediate("olb", etc, ready, lambda i, row, r: int(np.argmin(r)))


def met(etc: object, ready: object = None) -> Mapping:
    """Minimum Execution Time: each task, in index order, goes to the machine with its least
    ETC, whatever that machine's load."""
    return _immediate("met", etc, ready, lambda i, row, r: int(np.argmin(row)))


def mct(etc: object, ready: object = None) -> Mapping:
    """Minimum Completion Time: each task, in index order, goes to the machine with its least
    completion time ``etc[i, j] + r[j]``."""
    return _immediate("mct", etc, ready, lambda i, row, r: int(np.argmin(row + r)))


def kpb_count(machines: int, percent: float) -> int:
    """How many machines KPB considers: ``floor(k·m/100)``, at least 1, at most m."""
    return int(min(machines, max(1, math.floor(percent * machines / 100.0 + 1e-9))))


def kpb(etc: object, ready: object = None, percent: float = 20.0) -> Mapping:
    """k-Percent Best: each task, in index order, is mapped by MCT restricted to its
    ``kpb_count(m, k)`` machines of least ETC (ties in ETC: lower machine index)."""
    if not 0 < percent <= 100:
        raise ConfigError(f"kpb: percent must be in (0, 100], got {percent}")
    arr, _ = _prepare(etc, ready)
    k = kpb_count(arr.shape[1], percent)

    def choose(i: int, row: np.ndarray, r: np.ndarray) -> int:
        best = np.argsort(row, kind="stable")[:k]
        best.sort()  # candidates in machine order, so CT ties go to the lowest index
        return int(best[np.argmin(row[best] + r[best])])

    result = _immediate("kpb", arr, ready, choose)
    result.info.update(percent=percent, machines_considered=k)
    return result


def swa(etc: object, ready: object = None, low: float = 0.49, high: float = 0.6) -> Mapping:
    """Switching Algorithm (Maheswaran et al. 1999): MCT and MET in turn, driven by the load
    balance index ``pi = min_j r[j] / max_j r[j]`` (0 when every ``r[j]`` is 0).

    Start in MCT mode (the paper's initial ``pi = 0``). After each task: in MCT mode switch to
    MET once ``pi >= high``; in MET mode switch back to MCT once ``pi <= low``.
    """
    if not 0 <= low < high <= 1:
        raise ConfigError(f"swa: need 0 <= low < high <= 1, got low={low}, high={high}")
    began = time.perf_counter()
    arr, ready0 = _prepare(etc, ready)
    r = ready0.copy()
    n = arr.shape[0]
    assign = np.empty(n, dtype=np.int64)
    use_mct = True
    switches = 0
    met_tasks = 0
    for i in range(n):
        row = arr[i]
        if use_mct:
            j = int(np.argmin(row + r))
        else:
            j = int(np.argmin(row))
            met_tasks += 1
        assign[i] = j
        r[j] += row[j]
        top = r.max()
        pi = r.min() / top if top > 0 else 0.0
        if use_mct and pi >= high:
            use_mct, switches = False, switches + 1
        elif not use_mct and pi <= low:
            use_mct, switches = True, switches + 1
    return make_mapping("swa", arr, assign, ready0, seconds=time.perf_counter() - began,
                        info={"low": low, "high": high, "switches": switches,
                              "met_tasks": met_tasks})


def _min_max(name: str, etc: object, ready: object, largest: bool) -> Mapping:
    """Min-min (``largest=False``) and Max-min (``largest=True``).

    Every step: for each unmapped task its least completion time ``b[i] = min_j CT[i, j]``
    (machine: ``argmin``, lowest index on ties); pick the task with the least (Min-min) or the
    largest (Max-min) ``b[i]`` (lowest task index on ties); map it on its machine; update that
    machine's ready time. Vectorised: only column ``j`` of CT changes (it increases), so only
    the rows whose best machine was ``j`` need their minimum recomputed.
    """
    began = time.perf_counter()
    arr, ready0 = _prepare(etc, ready)
    n, m = arr.shape
    r = ready0.copy()
    ct = arr + r
    best = ct.min(axis=1)
    where = ct.argmin(axis=1)
    unmapped = np.ones(n, dtype=bool)
    done_key = -np.inf if largest else np.inf
    key = best.copy()
    assign = np.empty(n, dtype=np.int64)
    sequence = np.empty(n, dtype=np.int64)
    for step in range(n):
        t = int(key.argmax() if largest else key.argmin())
        j = int(where[t])
        assign[t] = j
        sequence[step] = t
        unmapped[t] = False
        key[t] = done_key
        r[j] += arr[t, j]
        ct[:, j] = arr[:, j] + r[j]
        rows = np.flatnonzero(unmapped & (where == j))
        if rows.size:
            sub = ct[rows]
            col = sub.argmin(axis=1)
            where[rows] = col
            key[rows] = sub[np.arange(rows.size), col]
    return make_mapping(name, arr, assign, ready0, sequence=sequence,
                        seconds=time.perf_counter() - began)


def min_min(etc: object, ready: object = None) -> Mapping:
    """Min-min: repeatedly map the task with the least minimum completion time."""
    return _min_max("min_min", etc, ready, largest=False)


def max_min(etc: object, ready: object = None) -> Mapping:
    """Max-min: repeatedly map the task with the largest minimum completion time."""
    return _min_max("max_min", etc, ready, largest=True)


def duplex(etc: object, ready: object = None) -> Mapping:
    """Duplex: Min-min and Max-min, keep the smaller makespan (tie: Min-min)."""
    began = time.perf_counter()
    a = min_min(etc, ready)
    b = max_min(etc, ready)
    pick = b if b.makespan < a.makespan else a
    return Mapping("duplex", pick.assignment, pick.order, pick.loads, pick.makespan,
                   pick.flowtime, seconds=time.perf_counter() - began,
                   info={"chosen": pick.heuristic, "min_min": a.makespan,
                         "max_min": b.makespan})


def sufferage(etc: object, ready: object = None) -> Mapping:
    """Sufferage (Maheswaran et al. 1999), in passes over the unmapped tasks.

    In a pass, with the ready times ``r`` fixed at their value at the start of the pass, each
    unmapped task ``i`` (in index order) has a best machine ``j_i`` (least CT, lowest index on
    ties) and a sufferage ``s_i`` = second least CT − least CT (0 with a single machine). The
    task is tentatively given ``j_i``; if another task already holds ``j_i`` tentatively, the
    one with the larger sufferage keeps it — the newcomer replaces the holder only when its
    sufferage is strictly larger — and the loser stays unmapped. At the end of the pass the
    tentative assignments are committed and the ready times updated.

    Equivalently (and so computed here, vectorised): each machine gets, among the tasks whose
    best machine it is, the one of largest sufferage, lowest task index on ties.
    """
    began = time.perf_counter()
    arr, ready0 = _prepare(etc, ready)
    n, m = arr.shape
    r = ready0.copy()
    left = np.arange(n, dtype=np.int64)
    assign = np.empty(n, dtype=np.int64)
    sequence: list[np.ndarray] = []
    passes = 0
    while left.size:
        passes += 1
        ct = arr[left] + r
        where = ct.argmin(axis=1)
        if m > 1:
            two = np.partition(ct, 1, axis=1)
            suff = two[:, 1] - two[:, 0]
        else:
            suff = np.zeros(left.size)
        # group by machine; within it largest sufferage first, then lowest task index
        order = np.lexsort((left, -suff, where))
        first = np.ones(order.size, dtype=bool)
        first[1:] = where[order[1:]] != where[order[:-1]]
        win = np.sort(order[first])  # positions in `left`, increasing task index
        tasks = left[win]
        machines = where[win]
        assign[tasks] = machines
        r[machines] += arr[tasks, machines]  # one task per machine: no repeated index
        sequence.append(tasks)
        keep = np.ones(left.size, dtype=bool)
        keep[win] = False
        left = left[keep]
    seq = np.concatenate(sequence) if sequence else np.empty(0, dtype=np.int64)
    return make_mapping("sufferage", arr, assign, ready0, sequence=seq,
                        seconds=time.perf_counter() - began, info={"passes": passes})
