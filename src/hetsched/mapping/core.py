"""The result type of every mapping heuristic and the exact evaluation of an assignment.

An *ETC matrix* (expected time to compute) has one row per task and one column per machine:
``etc[i, j]`` is the run time of task ``i`` alone on machine ``j``. Machine ``j`` is free from
``ready[j]`` on (default 0). A *mapping* gives every task exactly one machine.

Evaluation (one definition for every heuristic, so the same assignment always gives the same
numbers, bit for bit):

- ``loads[j] = ready[j] + S_j`` where ``S_j`` is the float64 sum of ``etc[i, j]`` over the
  tasks mapped to ``j``, added in increasing task index (``np.bincount`` with weights);
- ``makespan = max_j loads[j]``;
- ``flowtime`` = sum over tasks of their completion times when each machine runs its tasks
  shortest first (SPT: increasing ``etc[i, j]``, ties by lower task index), starting at
  ``ready[j]``. SPT minimises the flowtime of a fixed assignment, so the flowtime is a property
  of the assignment alone, whatever order a heuristic happened to map the tasks in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hetsched.errors import ConfigError

FloatArray = np.ndarray
IntArray = np.ndarray


def as_etc(etc: Any) -> FloatArray:
    """``etc`` as a C-contiguous float64 (tasks × machines) array, checked: 2-D, at least one
    machine, finite and non-negative. Raises :class:`ConfigError` otherwise."""
    arr = np.ascontiguousarray(np.asarray(etc, dtype=np.float64))
    if arr.ndim != 2:
        raise ConfigError(f"an ETC matrix must be 2-D (tasks × machines), got shape {arr.shape}")
    if arr.shape[1] < 1:
        raise ConfigError("an ETC matrix needs at least one machine (column)")
    if not np.all(np.isfinite(arr)):
        raise ConfigError("the ETC matrix has a non-finite value (NaN or infinity)")
    if arr.size and arr.min() < 0:
        raise ConfigError("the ETC matrix has a negative value")
    return arr


def as_ready(ready: Any, machines: int) -> FloatArray:
    """Machine ready times as a float64 vector of length ``machines`` (``None``: zeros)."""
    if ready is None:
        return np.zeros(machines, dtype=np.float64)
    arr = np.array(ready, dtype=np.float64).reshape(-1)
    if arr.shape != (machines,):
        raise ConfigError(f"ready times: expected {machines} values (one per machine), "
                          f"got {arr.size}")
    if not np.all(np.isfinite(arr)) or (arr.size and arr.min() < 0):
        raise ConfigError("ready times must be finite and non-negative")
    return arr


def machine_loads(etc: FloatArray, assignment: IntArray, ready: FloatArray) -> FloatArray:
    """Finish time of every machine: ``ready[j] + sum of etc[i, j] over tasks i on j``."""
    n, m = etc.shape
    if n == 0:
        return ready.copy()
    work = np.bincount(assignment, weights=etc[np.arange(n), assignment], minlength=m)
    return ready + work


def flowtime(etc: FloatArray, assignment: IntArray, ready: FloatArray) -> float:
    """Sum of task completion times, each machine running its tasks shortest first (SPT)."""
    n, m = etc.shape
    if n == 0:
        return 0.0
    cost = etc[np.arange(n), assignment]
    # machine, then ETC, then task index (lexsort: last key is the primary one)
    order = np.lexsort((np.arange(n), cost, assignment))
    counts = np.bincount(assignment, minlength=m)
    total = 0.0
    start = 0
    for j in range(m):
        stop = start + int(counts[j])
        if stop > start:
            total += float(np.sum(ready[j] + np.cumsum(cost[order[start:stop]])))
        start = stop
    return total


def spt_order(etc: FloatArray, assignment: IntArray) -> tuple[IntArray, ...]:
    """Per machine, its tasks shortest first (ties: lower task index)."""
    n, m = etc.shape
    cost = etc[np.arange(n), assignment]
    order = np.lexsort((np.arange(n), cost, assignment))
    bounds = np.concatenate(([0], np.cumsum(np.bincount(assignment, minlength=m))))
    return tuple(order[bounds[j]:bounds[j + 1]] for j in range(m))


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, copy=True)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class Mapping:
    """A complete mapping of tasks to machines and its measures.

    ``assignment[i]`` is the machine of task ``i``. ``order[j]`` lists the tasks of machine
    ``j`` in the order the heuristic mapped them (list heuristics: their mapping sequence;
    heuristics without one — metaheuristics, exact solvers — increasing task index).
    ``loads[j]`` is the finish time of machine ``j`` (see the module docstring);
    ``lower_bound`` is a proven lower bound on the optimal makespan when the heuristic computed
    one (``None`` otherwise); ``info`` holds heuristic-specific facts (iterations, gap, ...).
    """

    heuristic: str
    assignment: IntArray
    order: tuple[IntArray, ...]
    loads: FloatArray
    makespan: float
    flowtime: float
    seconds: float = 0.0
    lower_bound: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def tasks(self) -> int:
        return int(self.assignment.shape[0])

    @property
    def machines(self) -> int:
        return int(self.loads.shape[0])

    def gap(self, bound: float | None = None) -> float | None:
        """Relative distance of the makespan above ``bound`` (default: ``lower_bound``)."""
        bound = self.lower_bound if bound is None else bound
        if bound is None or bound <= 0:
            return None
        return self.makespan / bound - 1.0


def make_mapping(heuristic: str, etc: FloatArray, assignment: Any, ready: FloatArray,
                 sequence: Any = None, seconds: float = 0.0, lower_bound: float | None = None,
                 info: dict[str, Any] | None = None) -> Mapping:
    """Build a :class:`Mapping`, checking that every task has exactly one valid machine.

    ``sequence`` is the order the tasks were mapped in (default: increasing index).
    """
    n, m = etc.shape
    assign = np.asarray(assignment, dtype=np.int64).reshape(-1)
    if assign.shape != (n,):
        raise ConfigError(f"{heuristic}: assignment has {assign.size} entries for {n} tasks")
    if n and (assign.min() < 0 or assign.max() >= m):
        raise ConfigError(f"{heuristic}: assignment names a machine outside 0..{m - 1}")
    if sequence is None:
        seq = np.arange(n, dtype=np.int64)
    else:
        seq = np.asarray(sequence, dtype=np.int64).reshape(-1)
        if seq.shape != (n,) or not np.array_equal(np.sort(seq), np.arange(n)):
            raise ConfigError(f"{heuristic}: the mapping sequence is not a permutation of tasks")
    on = assign[seq]
    order = tuple(_frozen(seq[on == j]) for j in range(m))
    loads = machine_loads(etc, assign, ready)
    makespan = float(loads.max()) if m else 0.0
    return Mapping(heuristic=heuristic, assignment=_frozen(assign), order=order,
                   loads=_frozen(loads), makespan=makespan,
                   flowtime=flowtime(etc, assign, ready), seconds=float(seconds),
                   lower_bound=lower_bound, info=dict(info or {}))
