"""What a simulation produces: per-job outcomes, per-node integrals and a time series."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from hetsched.platform.model import Failure, Platform
from hetsched.sim.shared import SharedParts
from hetsched.workload.model import Workload


class JobState(IntEnum):
    PENDING = 0
    QUEUED = 1
    RUNNING = 2
    FINISHED = 3
    REJECTED = 4
    UNFINISHED = 5
    HELD = 6  # submitted, waiting for its parents (never an end state)
    KILLED = 7  # reached its walltime (the engine's walltime rule)
    FAILED = 8  # killed by a failure of one of its nodes


#: An attempt a failure killed: its start, its kill time and its ``(node, tasks)`` pairs.
KilledAttempt = tuple[float, float, tuple[tuple[int, int], ...]]


class Requeued(NamedTuple):
    """A job whose attempts failures killed and requeued (``on_failure="requeue"``): how many
    (``killed``), when the first began (``first_start``), the core-seconds they ran
    (``work_lost``: Σ (kill time − attempt start) × cores) and each of them, in order
    (``attempts``: what the Gantt chart draws)."""

    killed: int
    first_start: float
    work_lost: float
    attempts: tuple[KilledAttempt, ...] = ()


Row = tuple[float, int, int, int, float]
#: A full block of rows as numpy columns (:data:`TimeSeries.FIELDS`' order).
Columns = tuple[np.ndarray, ...]


class TimeSeries:
    """One row per time at which something happened (after the scheduler answered; when it
    is called several times at one time, per event or woken at the same instant, the state
    after the last call): ``time, queued, running, busy_cores, power_w``, also as columns
    (lists). ``power_w`` means nothing for a result without energy (``SimResult.has_energy``).

    Rows are kept in blocks of :attr:`BLOCK` rows shared by copies until written
    (:class:`~hetsched.sim.shared.SharedParts`): only the last block is ever written, so a
    copy (a fork's) costs the same at any length. A full block is kept as numpy columns
    (40 bytes a row instead of about 150 as tuples: a million-job run has two million rows)
    when each value is of its column's type, as the engine's are."""

    BLOCK = 512
    FIELDS = ("time", "queued", "running", "busy_cores", "power_w")
    #: Each column's type, as the engine gives its values.
    TYPES = (float, int, int, int, float)

    def __init__(self) -> None:
        self._blocks: SharedParts[list[Row] | Columns] = SharedParts([[]])
        self._tail: list[Row] | None = self._blocks.parts[-1]  # type: ignore[assignment]

    def append(self, time: float, queued: int, running: int, busy: int, power: float) -> None:
        """A row for ``time``; it replaces the last row if that one has the same time."""
        row = (time, queued, running, busy, power)
        tail = self._tail
        if tail is None:  # the last block is shared with a copy
            blocks = self._blocks
            tail = self._tail = blocks.writable(len(blocks.parts) - 1)  # type: ignore
        if tail and tail[-1][0] == time:
            tail[-1] = row
        elif len(tail) == self.BLOCK:
            blocks = self._blocks
            blocks.parts[-1] = blocks.mine[-1] = self._compact(tail)  # (this holder's own)
            self._tail = [row]
            blocks.append(self._tail)
        else:
            tail.append(row)

    @classmethod
    def _compact(cls, rows: list[Row]) -> list[Row] | Columns:
        """A full block as numpy columns, or as it is if a value is not of its column's
        type (a time given as an int would not read back the same)."""
        columns = list(zip(*rows))
        if any(set(map(type, column)) != {kind} for column, kind in zip(columns, cls.TYPES)):
            return rows
        return tuple(np.array(column, kind) for column, kind in zip(columns, cls.TYPES))

    def copy(self) -> "TimeSeries":
        other = TimeSeries.__new__(TimeSeries)
        other._blocks = self._blocks.copy()
        other._tail = self._tail = None  # neither holder owns the last block now
        return other

    def rows(self) -> list[Row]:
        return [row for block in self._blocks.parts for row in
                (block if type(block) is list else zip(*(c.tolist() for c in block)))]

    def column(self, name: str) -> list:
        i = self.FIELDS.index(name)
        values: list = []
        for block in self._blocks.parts:
            values.extend([row[i] for row in block] if type(block) is list
                          else block[i].tolist())
        return values

    def blocks(self) -> Iterator[list[list]]:
        """The columns of the rows (lists, :attr:`FIELDS`' order), a block at a time."""
        for block in self.column_blocks():
            yield [column.tolist() for column in block] if type(block) is tuple else block

    def column_blocks(self) -> Iterator[Columns | list[list]]:
        """The columns of the rows a block at a time: a full block's numpy columns as kept
        (each value of its column's type), any other's as lists."""
        for block in self._blocks.parts:
            if type(block) is not list:
                yield block
            elif block:
                yield [list(column) for column in zip(*block)]

    time = property(lambda self: self.column("time"))
    queued = property(lambda self: self.column("queued"))
    running = property(lambda self: self.column("running"))
    busy_cores = property(lambda self: self.column("busy_cores"))
    power_w = property(lambda self: self.column("power_w"))

    def __len__(self) -> int:
        return (len(self._blocks.parts) - 1) * self.BLOCK + len(self._blocks.parts[-1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimeSeries) and self.rows() == other.rows()


@dataclass
class SimResult:
    """Outcome of one run. Times in seconds; ``start``/``end`` are NaN where they never happened.

    ``t0``/``t_end`` bound the accounting window: first submission to last job end (or the
    horizon when the run was cut there). Node energies integrate power over that window.
    ``node_charged_seconds`` is how long each node is rented; ``None`` means every node for the
    whole window (always-on nodes). Drivers with on-demand nodes (ds-sim) set it per node.
    ``job_energy_j`` and ``node_energy_j`` are ``None`` when energy was not measured: the
    platform has no power model (:attr:`Platform.has_power_model`), or the driver has none.
    ``contention`` names the contention model the run used (``None``: the driver has none).
    ``timeseries`` is ``None`` for a run made without one (the engine's ``timeseries=False``).
    ``failures`` are the node failures of the run (the platform's and those given to the
    engine), as reports draw them.
    ``requeued``: the jobs a failure killed and sent back to pending (``on_failure="requeue"``),
    by index; ``start``, ``end`` and ``allocation`` are a job's last attempt's (NaN/``None``
    for a job pending again when the run ended), ``job_energy_j`` counts every attempt.
    """

    platform: Platform
    workload: Workload
    scheduler: str
    seed: int
    state: np.ndarray
    start: np.ndarray
    end: np.ndarray
    allocation: list[tuple[tuple[int, int], ...] | None]
    reason: dict[int, str]
    job_energy_j: np.ndarray | None
    node_energy_j: np.ndarray | None
    node_busy_core_seconds: np.ndarray
    node_busy_seconds: np.ndarray
    t0: float
    t_end: float
    timeseries: TimeSeries | None
    wall_seconds: float = 0.0
    horizon: float | None = None
    node_charged_seconds: np.ndarray | None = None
    contention: str | None = None
    failures: tuple[Failure, ...] = ()
    requeued: dict[int, Requeued] = field(default_factory=dict)

    @property
    def has_energy(self) -> bool:
        return self.node_energy_j is not None

    @property
    def attempts(self) -> np.ndarray:
        """How many times each job was started: its killed and requeued attempts, plus one
        if it started again (0: never started)."""
        attempts = (~np.isnan(self.start)).astype(np.int64)
        for index, requeued in self.requeued.items():
            attempts[index] += requeued.killed
        return attempts

    @property
    def first_start(self) -> np.ndarray:
        """When each job's first attempt started (its ``start`` unless it was requeued)."""
        first = self.start.copy()
        for index, requeued in self.requeued.items():
            first[index] = requeued.first_start
        return first

    def count(self, state: JobState) -> int:
        return int(np.count_nonzero(self.state == state))

    def ended_in(self, state: JobState) -> np.ndarray:
        """Which jobs ended in ``state`` as the metrics and ``summary.json`` count them:
        ``UNFINISHED`` leaves out the jobs the horizon cut before their submission
        (:attr:`not_submitted`, counted apart)."""
        chosen = self.state == state
        return chosen & ~self.not_submitted if state == JobState.UNFINISHED else chosen

    @property
    def not_submitted(self) -> np.ndarray:
        """Which jobs the horizon cut before their submission: ``UNFINISHED``, submitted
        after it (the scheduler never saw them)."""
        if self.horizon is None:
            return np.zeros(len(self.state), dtype=bool)
        submit = np.fromiter((job.submit for job in self.workload.jobs), float,
                             len(self.workload.jobs))
        return (self.state == JobState.UNFINISHED) & (submit > self.horizon)

    @property
    def makespan_cut(self) -> bool:
        """Whether the horizon ended the run with jobs not done: ``t_end`` is the horizon (or
        the first submission, for a horizon before it), not the last job's end, and the
        makespan is a lower bound."""
        return (self.horizon is not None and self.t_end == max(self.horizon, self.t0)
                and bool((self.state == JobState.UNFINISHED).any()))
