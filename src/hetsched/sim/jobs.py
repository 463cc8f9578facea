"""The per-job state of a run, in one object the engine changes and a fork copies.

Each job has a state (:class:`~hetsched.sim.result.JobState`), a start and an end (NaN until
they happen), an allocation, an energy, a count of parents not finished yet and, once it ends
otherwise than finished, a reason. They are kept per chunk of :data:`CHUNK` jobs, shared by
copies until written (:class:`~hetsched.sim.shared.SharedParts`), so that
:meth:`JobTable.copy` costs O(jobs / CHUNK) and each holder copies a chunk only when it first
changes a job of it. The pending jobs, the jobs in local queues, the counts of submitted
and ended jobs and the jobs requeued after a failure (few: a dict, so that runs without
failures pay nothing) complete the table.
"""

from __future__ import annotations

import math
from itertools import chain

import numpy as np

from hetsched.sim.resources import Allocation
from hetsched.sim.result import JobState, Requeued
from hetsched.sim.shared import SharedParts
from hetsched.workload.model import Job

# plain ints for the hot paths (an enum member lookup costs more than the comparison)
PENDING, QUEUED, RUNNING, FINISHED, REJECTED, HELD, KILLED, FAILED = (
    int(s) for s in (JobState.PENDING, JobState.QUEUED, JobState.RUNNING, JobState.FINISHED,
                     JobState.REJECTED, JobState.HELD, JobState.KILLED, JobState.FAILED))
ALIVE = frozenset((PENDING, QUEUED, RUNNING, HELD))

CHUNK_BITS = 9
CHUNK = 1 << CHUNK_BITS  # jobs per chunk
_IN_CHUNK = CHUNK - 1


class _Chunk:
    """The columns of :data:`CHUNK` consecutive jobs (fewer in the last chunk)."""

    __slots__ = ("state", "start", "end", "allocation", "energy", "unmet", "reason")

    def __init__(self, unmet: list[int]) -> None:
        n = len(unmet)
        self.state = [PENDING] * n
        self.start = [math.nan] * n
        self.end = [math.nan] * n
        self.allocation: list[Allocation | None] = [None] * n
        self.energy = [0.0] * n
        self.unmet = unmet
        self.reason: list[str | None] = [None] * n

    def copy(self) -> "_Chunk":
        other = _Chunk.__new__(_Chunk)
        for name in _Chunk.__slots__:
            setattr(other, name, getattr(self, name).copy())
        return other


class JobTable(SharedParts[_Chunk]):
    """Every job's state, by job index, in chunks; ``pending`` (submitted, neither started nor
    queued, in the order they became pending) and ``queued_on`` (the node of each job in a
    local queue); ``known`` jobs submitted so far of ``expected`` in all (a fork expects no
    more), ``done`` ended while the run went on; ``requeued``: the jobs a failure killed and
    sent back to pending (``on_failure="requeue"``), by index."""

    __slots__ = ("pending", "queued_on", "known", "expected", "done", "requeued")

    def __init__(self, parent_count: list[int]) -> None:
        super().__init__([_Chunk(parent_count[lo:lo + CHUNK])
                          for lo in range(0, len(parent_count), CHUNK)])
        self.pending: dict[int, Job] = {}
        self.queued_on: dict[int, int] = {}
        self.known = 0
        self.expected = len(parent_count)
        self.done = 0
        self.requeued: dict[int, Requeued] = {}

    def copy(self) -> "JobTable":
        """An independent copy; the chunks are shared until either table changes one."""
        other = JobTable.__new__(JobTable)
        self.share(other)
        other.pending = self.pending.copy()
        other.queued_on = self.queued_on.copy()
        other.known, other.expected, other.done = self.known, self.expected, self.done
        other.requeued = self.requeued.copy()  # (its values are immutable)
        return other

    @property
    def all_submitted(self) -> bool:
        return self.known == self.expected

    # ---- changes (the engine's; start and end are on every job's path) --------------------
    def start(self, index: int, at: float, allocation: Allocation) -> None:
        """Job ``index`` runs (or holds its nodes) from ``at`` on ``allocation``."""
        chunk = self.mine[index >> CHUNK_BITS] or self.writable(index >> CHUNK_BITS)
        i = index & _IN_CHUNK
        chunk.state[i] = RUNNING
        chunk.start[i] = at
        chunk.allocation[i] = allocation

    def end(self, index: int, state: int, at: float, energy: float) -> None:
        """Job ``index`` ended at ``at`` in ``state`` (finished or killed), using ``energy``."""
        chunk = self.mine[index >> CHUNK_BITS] or self.writable(index >> CHUNK_BITS)
        i = index & _IN_CHUNK
        chunk.state[i] = state
        chunk.end[i] = at
        chunk.energy[i] += energy  # (a requeued job's killed attempts' energy is in already)
        self.done += 1

    def requeue(self, index: int, at: float, cores: int, energy: float) -> None:
        """The attempt of job ``index`` on ``cores`` was killed at ``at`` after using
        ``energy``: the job is pending again, with no start or allocation (its work is lost;
        the energy stays the job's)."""
        chunk = self.writable(index >> CHUNK_BITS)
        i = index & _IN_CHUNK
        start = chunk.start[i]
        attempt = (start, at, chunk.allocation[i])
        before = self.requeued.get(index)
        self.requeued[index] = Requeued(1, start, (at - start) * cores, (attempt,)) \
            if before is None else Requeued(before.killed + 1, before.first_start,
                                            before.work_lost + (at - start) * cores,
                                            (*before.attempts, attempt))
        chunk.state[i] = PENDING
        chunk.start[i] = math.nan
        chunk.allocation[i] = None
        chunk.energy[i] += energy

    def attempts(self, index: int) -> int:
        """How many times job ``index`` was started so far (the current attempt counted)."""
        before = self.requeued.get(index)
        started = not math.isnan(self.parts[index >> CHUNK_BITS].start[index & _IN_CHUNK])
        return (before.killed if before is not None else 0) + started

    def reject(self, index: int, reason: str) -> None:
        """Job ``index`` will not run, for ``reason``."""
        self.set_state(index, REJECTED)
        self.set_reason(index, reason)
        self.done += 1

    def set_state(self, index: int, state: int) -> None:
        self.writable(index >> CHUNK_BITS).state[index & _IN_CHUNK] = state

    def set_reason(self, index: int, reason: str) -> None:
        self.writable(index >> CHUNK_BITS).reason[index & _IN_CHUNK] = reason

    def unhold(self, index: int) -> None:
        """Job ``index``, which held nodes still booting, never began: it is pending again (no
        start, no allocation; no attempt counted)."""
        chunk = self.writable(index >> CHUNK_BITS)
        i = index & _IN_CHUNK
        chunk.state[i] = PENDING
        chunk.start[i] = math.nan
        chunk.allocation[i] = None

    def unstart(self, index: int) -> None:
        """Job ``index`` held nodes still booting when the run ended: it never began (queued,
        no start)."""
        chunk = self.writable(index >> CHUNK_BITS)
        chunk.state[index & _IN_CHUNK] = QUEUED
        chunk.start[index & _IN_CHUNK] = math.nan

    def parent_done(self, index: int) -> int:
        """One more parent of job ``index`` finished; how many it still waits for."""
        unmet = self.writable(index >> CHUNK_BITS).unmet
        unmet[index & _IN_CHUNK] -= 1
        return unmet[index & _IN_CHUNK]

    # ---- reading --------------------------------------------------------------------------
    def state(self, index: int) -> int:
        return self.parts[index >> CHUNK_BITS].state[index & _IN_CHUNK]

    def reason(self, index: int) -> str | None:
        return self.parts[index >> CHUNK_BITS].reason[index & _IN_CHUNK]

    def start_time(self, index: int) -> float:
        """When job ``index`` (its last attempt) started (NaN while it has not)."""
        return self.parts[index >> CHUNK_BITS].start[index & _IN_CHUNK]

    def end_time(self, index: int) -> float:
        """When job ``index`` ended (NaN while it has not)."""
        return self.parts[index >> CHUNK_BITS].end[index & _IN_CHUNK]

    def alive_at(self, index: int) -> bool:
        """Whether job ``index`` has not ended (pending, queued, running or held)."""
        return self.state(index) in ALIVE

    def unmet(self, index: int) -> int:
        """How many parents job ``index`` still waits for."""
        return self.parts[index >> CHUNK_BITS].unmet[index & _IN_CHUNK]

    def alive(self) -> list[int]:
        """The jobs not ended (pending, queued, running or held), by index."""
        return np.flatnonzero(np.isin(self.states(), list(ALIVE))).tolist()

    def states(self) -> np.ndarray:
        return self._array("state", np.int8)

    def starts(self) -> np.ndarray:
        return self._array("start", float)

    def ends(self) -> np.ndarray:
        return self._array("end", float)

    def energies(self) -> np.ndarray:
        return self._array("energy", float)

    def allocations(self) -> list[Allocation | None]:
        return self._column("allocation")

    def reasons(self) -> dict[int, str]:
        """The reasons given, by job index (a chunk without one is not walked: a run's
        jobs mostly finish)."""
        return {(number << CHUNK_BITS) + i: reason
                for number, chunk in enumerate(self.parts)
                if chunk.reason.count(None) != len(chunk.reason)
                for i, reason in enumerate(chunk.reason) if reason is not None}

    def _array(self, name: str, dtype: type) -> np.ndarray:
        """A column as numpy's, read from the chunks without a list of it all."""
        columns = [getattr(chunk, name) for chunk in self.parts]
        return np.fromiter(chain.from_iterable(columns), dtype, sum(map(len, columns)))

    def _column(self, name: str) -> list:
        return list(chain.from_iterable(getattr(chunk, name) for chunk in self.parts))
