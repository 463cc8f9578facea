"""The list heuristics of Braun et al. (JPDC 61, 2001) and Maheswaran et al. (JPDC 59, 1999).

Every function takes an ETC matrix (tasks × machines) and optional machine ready times and
returns a :class:`~hetsched.mapping.core.Mapping`. Conventions shared by all of them:

- ``CT[i, j] = etc[i, j] + r[j]`` is the completion time of task ``i`` if it were mapped next
  on machine ``j``, ``r`` being machine ``j``'s current ready time (initially ``ready``;
  mapping task ``i`` on ``j`` does ``r[j] += etc[i, j]``, in mapping order);
- **ties always go to the lowest index** (machine, or task where a task is chosen);
- decisions use float64 and these running sums; the reported makespan and flowtime are then
  recomputed from the assignment alone (see :mod:`hetsched.mapping.core`).

Each heuristic is written once, over a :class:`~hetsched.mapping.machines.MachineState`
(``*_on`` functions returning a :class:`Plan`): the public functions run them on the classic
ready-time model, the simulator's batch schedulers on multi-core nodes with FIFO queues. There
``CT[i, j]`` is the task's completion time under that model, and a machine a task can never use
has ``etc = inf``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping
from hetsched.mapping.machines import MachineState, ReadyTimes


@dataclass
class Plan:
    """What a list heuristic decided: ``assignment[i]`` is the machine of task ``i``;
    ``sequence`` the order tasks were mapped in (per machine, the order they queue in)."""

    assignment: np.ndarray
    sequence: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)


def _immediate_on(state: MachineState, choose: Callable[[int, MachineState], int]) -> Plan:
    """Map tasks in index order; ``choose(i, state)`` gives the machine of task ``i``."""
    n = state.etc.shape[0]
    assign = np.empty(n, dtype=np.int64)
    for i in range(n):
        assign[i] = j = choose(i, state)
        state.commit(i, j)
    return Plan(assign, np.arange(n, dtype=np.int64))


def _ct_row(i: int, state: MachineState) -> np.ndarray:
    return state.completion(np.array([i]))[0]


def olb_on(state: MachineState) -> Plan:
    """Opportunistic Load Balancing: each task, in index order, goes to the machine that is
    ready first for it, whatever its ETC there."""
    def choose(i: int, s: MachineState) -> int:
        return int(np.argmin(np.where(np.isfinite(s.etc[i]), s.ready(i), np.inf)))
    return _immediate_on(state, choose)


def met_on(state: MachineState) -> Plan:
    """Minimum Execution Time: each task, in index order, goes to the machine with its least
    ETC, whatever that machine's load."""
    return _immediate_on(state, lambda i, s: int(np.argmin(s.etc[i])))


def mct_on(state: MachineState) -> Plan:
    """Minimum Completion Time: each task, in index order, goes to the machine with its least
    completion time."""
    return _immediate_on(state, lambda i, s: int(np.argmin(_ct_row(i, s))))


def kpb_count(machines: int, percent: float) -> int:
    """How many machines KPB considers: ``floor(k·m/100)``, at least 1, at most m."""
    return int(min(machines, max(1, math.floor(percent * machines / 100.0 + 1e-9))))


def kpb_on(state: MachineState, percent: float = 20.0) -> Plan:
    """k-Percent Best: each task, in index order, is mapped by MCT restricted to its
    ``kpb_count(m, k)`` machines of least ETC (ties in ETC: lower machine index)."""
    if not 0 < percent <= 100:
        raise ConfigError(f"kpb: percent must be in (0, 100], got {percent}")
    k = kpb_count(state.etc.shape[1], percent)

    def choose(i: int, s: MachineState) -> int:
        best = np.argsort(s.etc[i], kind="stable")[:k]
        best.sort()  # candidates in machine order, so CT ties go to the lowest index
        return int(best[np.argmin(_ct_row(i, s)[best])])

    plan = _immediate_on(state, choose)
    plan.info.update(percent=percent, machines_considered=k)
    return plan


def swa_on(state: MachineState, low: float = 0.49, high: float = 0.6) -> Plan:
    """Switching Algorithm (Maheswaran et al. 1999): MCT and MET in turn, driven by the load
    balance index ``pi = min_j r[j] / max_j r[j]`` (0 when every ``r[j]`` is 0), ``r`` being
    the machines' loads.

    Start in MCT mode (the paper's initial ``pi = 0``). After each task: in MCT mode switch to
    MET once ``pi >= high``; in MET mode switch back to MCT once ``pi <= low``.
    """
    if not 0 <= low < high <= 1:
        raise ConfigError(f"swa: need 0 <= low < high <= 1, got low={low}, high={high}")
    n = state.etc.shape[0]
    assign = np.empty(n, dtype=np.int64)
    use_mct, switches, met_tasks = True, 0, 0
    for i in range(n):
        if use_mct:
            j = int(np.argmin(_ct_row(i, state)))
        else:
            j = int(np.argmin(state.etc[i]))
            met_tasks += 1
        assign[i] = j
        state.commit(i, j)
        loads = state.loads()
        top = loads.max()
        pi = loads.min() / top if top > 0 else 0.0
        if use_mct and pi >= high:
            use_mct, switches = False, switches + 1
        elif not use_mct and pi <= low:
            use_mct, switches = True, switches + 1
    return Plan(assign, np.arange(n, dtype=np.int64),
                {"low": low, "high": high, "switches": switches, "met_tasks": met_tasks})


def _min_max_on(state: MachineState, largest: bool) -> Plan:
    """Min-min (``largest=False``) and Max-min (``largest=True``).

    Every step: for each unmapped task its least completion time ``b[i] = min_j CT[i, j]``
    (machine: ``argmin``, lowest index on ties); pick the task with the least (Min-min) or the
    largest (Max-min) ``b[i]`` (lowest task index on ties); map it on its machine. Vectorised:
    only column ``j`` of CT changes (it increases), so only the rows whose best machine was
    ``j`` need their minimum recomputed.
    """
    n = state.etc.shape[0]
    everyone = np.arange(n)
    ct = state.completion()
    where = ct.argmin(axis=1)
    key = ct[everyone, where]
    unmapped = np.ones(n, dtype=bool)
    done_key = -np.inf if largest else np.inf
    assign = np.empty(n, dtype=np.int64)
    sequence = np.empty(n, dtype=np.int64)
    for step in range(n):
        t = int(key.argmax() if largest else key.argmin())
        j = int(where[t])
        assign[t], sequence[step] = j, t
        unmapped[t] = False
        key[t] = done_key
        state.commit(t, j)
        ct[:, j] = state.column(j, everyone)
        rows = np.flatnonzero(unmapped & (where == j))
        if rows.size:
            sub = ct[rows]
            col = sub.argmin(axis=1)
            where[rows] = col
            key[rows] = sub[np.arange(rows.size), col]
    return Plan(assign, sequence)


def min_min_on(state: MachineState) -> Plan:
    """Min-min: repeatedly map the task with the least minimum completion time."""
    return _min_max_on(state, largest=False)


def max_min_on(state: MachineState) -> Plan:
    """Max-min: repeatedly map the task with the largest minimum completion time."""
    return _min_max_on(state, largest=True)


def duplex_on(state: MachineState) -> Plan:
    """Duplex: Min-min and Max-min, keep the one whose machines finish first (tie: Min-min)."""
    return _better_of(state, min_min_on, max_min_on)


def _better_of(state: MachineState, low_rule: Callable[[MachineState], Plan],
               high_rule: Callable[[MachineState], Plan]) -> Plan:
    """Duplex's rule: run both on copies of ``state``, keep the plan whose machines finish
    first (tie: the first, Min-min's), and commit it on ``state``."""
    low, high = state.copy(), state.copy()
    a, b = low_rule(low), high_rule(high)
    a_end, b_end = float(low.loads().max()), float(high.loads().max())
    pick = b if b_end < a_end else a
    for i in pick.sequence:  # replay the choice on the caller's state
        state.commit(int(i), int(pick.assignment[i]))
    pick.info.update(chosen="max_min" if pick is b else "min_min", min_min=a_end,
                     max_min=b_end)
    return pick


def requested_times(state: MachineState) -> np.ndarray:
    """Each task's time on the slowest machine that can run it (its largest finite ETC): the
    thesis' requested time when speeds are consistent and the task fits the slowest machine.
    The batch schedulers pass the jobs' own requested times instead."""
    finite = np.where(np.isfinite(state.etc), state.etc, -np.inf)
    return finite.max(axis=1) if finite.size else np.zeros(state.etc.shape[0])


def _in_order_on(state: MachineState, longest_first: bool,
                 requested: np.ndarray | None) -> Plan:
    """The 2023 IRMaSim thesis' Min-min and Max-min (its §3.3.2, §3.4.2, §4.2-4.3): the tasks
    ordered by requested time (ascending; descending for ``longest_first``; ties by index),
    each in turn on its machine of least completion time (lowest index on ties)."""
    n = state.etc.shape[0]
    key = requested_times(state) if requested is None else np.asarray(requested, float)
    if key.shape != (n,):
        raise ConfigError(f"requested times: need one per task ({n}), got {key.shape}")
    sequence = np.lexsort((np.arange(n), -key if longest_first else key)).astype(np.int64)
    assign = np.empty(n, dtype=np.int64)
    for i in sequence.tolist():
        assign[i] = j = int(np.argmin(_ct_row(i, state)))
        state.commit(i, j)
    return Plan(assign, sequence)


def min_min_sorted_on(state: MachineState, requested: np.ndarray | None = None) -> Plan:
    """The thesis' Min-min: shortest requested time first, each to its least completion
    time."""
    return _in_order_on(state, False, requested)


def max_min_sorted_on(state: MachineState, requested: np.ndarray | None = None) -> Plan:
    """The thesis' Max-min: longest requested time first, each to its least completion
    time."""
    return _in_order_on(state, True, requested)


def duplex_sorted_on(state: MachineState, requested: np.ndarray | None = None) -> Plan:
    """The thesis' Duplex: its Min-min and Max-min, keep the one whose machines finish first
    (tie: Min-min)."""
    return _better_of(state, lambda s: min_min_sorted_on(s, requested),
                      lambda s: max_min_sorted_on(s, requested))


def sufferage_on(state: MachineState) -> Plan:
    """Sufferage (Maheswaran et al., JPDC 59, 1999), in passes over the unmapped tasks.

    The paper's pseudo-code, with the choices it leaves open fixed as follows (see
    docs/mapping.md, "Sufferage: the rules"):

    - a pass sees the machines as they are at its start: tentative assignments change no
      ready time, so every ``CT`` and sufferage is computed once per pass (paper: ``r`` and
      the ``c`` matrix are updated after the pass);
    - the unmapped tasks are visited in increasing index, displaced tasks included (paper:
      no order given);
    - a task's machine is its least ``CT``, the lowest machine index on equal ``CT`` (paper:
      "the machine that gives the earliest completion time");
    - its sufferage is the second least ``CT`` minus the least, taken over the other machines:
      0 when two machines tie for the least, 0 with a single machine, ``inf`` when no other
      machine can run it (``etc = inf``);
    - it tentatively takes its machine when the machine is free in this pass; otherwise it
      displaces the holder only if the holder's sufferage is strictly less (paper: "is less
      than"), so on equal sufferage the holder — the lower index — keeps it; the loser waits
      for the next pass;
    - at the end of the pass the tentative assignments are committed.

    Equivalently (and so computed here, vectorised): each machine gets, among the tasks whose
    machine it is, the one of largest sufferage, lowest task index on ties.
    """
    n, m = state.etc.shape
    left = np.arange(n, dtype=np.int64)
    assign = np.empty(n, dtype=np.int64)
    sequence: list[np.ndarray] = []
    passes = 0
    while left.size:
        passes += 1
        ct = state.completion(left)
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
        tasks, machines = left[win], where[win]
        assign[tasks] = machines
        for task, machine in zip(tasks.tolist(), machines.tolist()):
            state.commit(task, machine)  # one task per machine: the order does not matter
        sequence.append(tasks)
        keep = np.ones(left.size, dtype=bool)
        keep[win] = False
        left = left[keep]
    seq = np.concatenate(sequence) if sequence else np.empty(0, dtype=np.int64)
    return Plan(assign, seq, {"passes": passes})


#: The list heuristics by name, over any machine model.
LIST_HEURISTICS: dict[str, Callable[[MachineState], Plan]] = {
    "olb": olb_on, "met": met_on, "mct": mct_on, "min_min": min_min_on,
    "max_min": max_min_on, "duplex": duplex_on, "sufferage": sufferage_on, "kpb": kpb_on,
    "swa": swa_on, "min_min_sorted": min_min_sorted_on, "max_min_sorted": max_min_sorted_on,
    "duplex_sorted": duplex_sorted_on,
}
#: The list heuristics that order the tasks by requested time (option ``requested``).
BY_REQUESTED_TIME = ("min_min_sorted", "max_min_sorted", "duplex_sorted")


def _classic(name: str, etc: object, ready: object, **options: Any) -> Mapping:
    """Run list heuristic ``name`` on the classic ready-time model."""
    began = time.perf_counter()
    arr = as_etc(etc)
    ready0 = as_ready(ready, arr.shape[1])
    plan = LIST_HEURISTICS[name](ReadyTimes(arr, ready0), **options)
    return make_mapping(name, arr, plan.assignment, ready0, sequence=plan.sequence,
                        seconds=time.perf_counter() - began, info=plan.info)


def olb(etc: object, ready: object = None) -> Mapping:
    return _classic("olb", etc, ready)


def met(etc: object, ready: object = None) -> Mapping:
    return _classic("met", etc, ready)


def mct(etc: object, ready: object = None) -> Mapping:
    return _classic("mct", etc, ready)


def kpb(etc: object, ready: object = None, percent: float = 20.0) -> Mapping:
    return _classic("kpb", etc, ready, percent=percent)


def swa(etc: object, ready: object = None, low: float = 0.49, high: float = 0.6) -> Mapping:
    return _classic("swa", etc, ready, low=low, high=high)


def min_min(etc: object, ready: object = None) -> Mapping:
    return _classic("min_min", etc, ready)


def max_min(etc: object, ready: object = None) -> Mapping:
    return _classic("max_min", etc, ready)


def duplex(etc: object, ready: object = None) -> Mapping:
    return _classic("duplex", etc, ready)


def sufferage(etc: object, ready: object = None) -> Mapping:
    return _classic("sufferage", etc, ready)


def _by_requested_time(name: str) -> Callable[..., Mapping]:
    """The classic function of the thesis' heuristic ``name`` (requested times: each task's
    largest ETC, :func:`requested_times`)."""
    def run(etc: object, ready: object = None) -> Mapping:
        return _classic(name, etc, ready)
    run.__name__ = run.__qualname__ = name
    run.__doc__ = LIST_HEURISTICS[name].__doc__
    return run


min_min_sorted = _by_requested_time("min_min_sorted")
max_min_sorted = _by_requested_time("max_min_sorted")
duplex_sorted = _by_requested_time("duplex_sorted")
