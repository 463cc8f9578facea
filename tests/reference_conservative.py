"""The straightforward conservative backfilling the incremental one must match: hetsched's
implementation before compression became incremental (a dense profile, rows of times by
nodes in numpy, rebuilt from the running jobs and compressed whole at every early end, every
reservation searched again). Tests compare schedules and searches against it. It holds cores,
memory and disk, each job's share of a node as ``resources.share`` gives it."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from hetsched.schedulers.backfill import Backfilling, estimated_duration
from hetsched.sim.protocol import Decision, Events, Start, WakeUp
from hetsched.schedulers.placement import Allocation, place
from hetsched.sim.resources import capacity, share
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


class Profile:
    """Rows of free cores, memory and disk (``columns``: one array each, times by nodes)."""

    def __init__(self, times: list[float], columns: list[np.ndarray]) -> None:
        self.times = times
        self.columns = columns

    @staticmethod
    def of_running(view: ClusterView) -> "Profile":
        """Free resources now, then after each estimated end of a running job."""
        runs = list(view.running.values())
        ends = [view.estimated_end(run) for run in runs]
        times = sorted(set(ends) | {view.now})
        shape = (len(times), len(view.free_cores))
        columns = [np.zeros(shape, dtype=np.int64), np.zeros(shape), np.zeros(shape)]
        for column, free in zip(columns, (view.free_cores, view.free_mem, view.free_disk)):
            column[0] = free
        for run, end in zip(runs, ends):
            row = times.index(end)
            for column, amounts in zip(columns, _amounts(run.job, run.allocation)):
                for node, amount in amounts:
                    column[row, node] += amount
        return Profile(times, [np.cumsum(column, axis=0) for column in columns])

    def advance(self, now: float) -> None:
        """Forget rows that ended before ``now``; the first row starts at ``now``."""
        first = bisect.bisect_right(self.times, now) - 1
        if first > 0:
            del self.times[:first]
            self.columns = [column[first:] for column in self.columns]
        self.times[0] = now

    def _row_at(self, t: float) -> int:
        """Index of the row starting exactly at ``t`` (split a row if needed)."""
        row = bisect.bisect_right(self.times, t) - 1
        if self.times[row] == t:
            return row
        self.times.insert(row + 1, t)
        self.columns = [np.insert(column, row + 1, column[row], axis=0)
                        for column in self.columns]
        return row + 1

    def reserve(self, job: Job, start: float, end: float, allocation: Allocation) -> None:
        """Take ``allocation`` over ``[start, end)``."""
        self._book(job, start, end, allocation, -1)

    def release(self, job: Job, start: float, end: float, allocation: Allocation) -> None:
        """Give back what :meth:`reserve` took."""
        self._book(job, start, end, allocation, 1)

    def holds(self, job: Job, start: float, end: float, allocation: Allocation) -> bool:
        """Whether ``allocation`` fits over ``[start, end)`` in what is left."""
        first, last = self._rows(start, end)
        nodes, counts = _columns(allocation)
        room = capacity(job, *(column[first:last, nodes] for column in self.columns))
        return bool(np.all(room >= counts))

    def _rows(self, start: float, end: float) -> tuple[int, int]:
        """Rows covering ``[start, end)``, inserting boundaries as needed (none if end <= start)."""
        first = self._row_at(start)
        return first, self._row_at(end) if end > start else first

    def _book(self, job: Job, start: float, end: float, allocation: Allocation,
              sign: int) -> None:
        first, last = self._rows(start, end)
        for column, amounts in zip(self.columns, _amounts(job, allocation)):
            for node, amount in amounts:
                column[first:last, node] += sign * amount

    def window_min(self, row: int, durations: np.ndarray) -> list[np.ndarray]:
        """Per node, the least free cores, memory and disk over ``[times[row], times[row] +
        d_n)``."""
        ends = np.searchsorted(self.times, self.times[row] + durations, side="left")
        last = int(ends.max())
        if last <= row + 1 or np.all(ends == last):
            span = slice(row, max(last, row + 1))
            return [column[span].min(axis=0) for column in self.columns]
        least = [column[row].copy() for column in self.columns]
        for r in range(row + 1, last):
            open_ = ends > r
            for low, column in zip(least, self.columns):
                np.minimum(low, np.where(open_, column[r], low), out=low)
        return least

    def earliest(self, job: Job, durations: np.ndarray, key: np.ndarray | None,
                 rng: np.random.Generator,
                 before: float | None = None) -> tuple[float, Allocation] | None:
        """The earliest start and allocation of ``job`` lasting ``durations[n]`` on node n;
        with ``before``, only starts earlier than it are searched (``None`` if there is none).

        Multi-node jobs are checked over their longest possible duration (conservative).
        """
        last = len(self.times) if before is None else bisect.bisect_left(self.times, before)
        spans = durations if job.nodes == 1 else np.full_like(durations, durations.max())
        cap = capacity(job, *(column[:last] for column in self.columns))
        room = cap.sum(axis=1) if job.nodes == 0 else cap.max(axis=1)
        for row in np.flatnonzero(room >= (job.ntasks if job.nodes == 0 else _min_per_node(job))):
            allocation = place(job, *self.window_min(int(row), spans), key, rng)
            if allocation is not None:
                return self.times[row], allocation
        if before is None:
            raise AssertionError(f"job {job.id} fits nowhere even when the cluster is empty")
        return None


def _columns(allocation: Allocation) -> tuple[list[int], np.ndarray]:
    return [node for node, _ in allocation], np.array([count for _, count in allocation])


def _amounts(job: Job, allocation: Allocation) -> list[list[tuple[int, float]]]:
    """What ``job`` holds on each node of ``allocation``: cores, memory and disk."""
    return [list(allocation),
            [(node, share(job.memory_mb, count, job.ntasks)) for node, count in allocation],
            [(node, share(job.disk_mb, count, job.ntasks)) for node, count in allocation]]


def _min_per_node(job: Job) -> int:
    """The fewest tasks a placement of ``job`` needs on one of its nodes."""
    return job.ntasks if job.nodes == 1 else 1 if job.nodes == 0 else -(-job.ntasks // job.nodes)


@dataclass(frozen=True, slots=True)
class _Booking:
    """A reservation: ``allocation`` from ``start`` for the estimated ``duration``."""

    start: float
    allocation: Allocation
    duration: float

    @property
    def end(self) -> float:
        return self.start + self.duration


class ReferenceConservative(Backfilling):
    """Conservative backfilling that re-plans from scratch at every early end."""

    name = "conservative-reference"

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.profile: Profile | None = None
        self.reserved: dict[int, _Booking] = {}
        self.expected_end: dict[int, float] = {}

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        if self.profile is None:  # the first call, maybe on a fork with jobs already pending
            self.profile = Profile.of_running(self.view)
            arrived = tuple(self.view.pending.values())
        elif self._must_replan(now, events):
            self._compress(now)
            arrived = events.arrived
        else:
            self.profile.advance(now)
            arrived = events.arrived
        for job in arrived:
            self._reserve(job)
        yield from self._start_due(now)

    def _must_replan(self, now: float, events: Events) -> bool:
        """Re-plan unless the projection still holds: no early end, no overrun."""
        for job in events.finished:
            expected = self.expected_end.pop(job.index, None)  # None: started before reset
            if expected is None or now < expected - 1e-9 * max(1.0, abs(now)):
                return True
        return any(run.est_end < now for run in self.view.running.values())

    def _by_start(self) -> list[tuple[int, _Booking]]:
        return sorted(self.reserved.items(), key=lambda item: (item[1].start, item[0]))

    def _compress(self, now: float) -> None:
        """Re-project from the running jobs, keep every reservation that still fits where it
        is (an overrun may push some: they take the earliest slot left, in queue order), then
        move each job, in order of start, to its earliest slot before its own, all others still
        booked. It keeps its slot when there is none, so no reservation ever moves later."""
        view = self.view
        self.profile = profile = Profile.of_running(view)
        pushed = []
        for index, booking in self._by_start():
            job = view.pending[index]
            if booking.start < now:
                booking = _Booking(now, booking.allocation, booking.duration)
            if profile.holds(job, booking.start, booking.end, booking.allocation):
                profile.reserve(job, booking.start, booking.end, booking.allocation)
                self.reserved[index] = booking
            else:
                pushed.append(job)
        for job in pushed:
            self._reserve(job)
        for index, booking in self._by_start():
            if booking.start > now:
                job = view.pending[index]
                profile.release(job, booking.start, booking.end, booking.allocation)
                if not self._reserve(job, before=booking.start):
                    profile.reserve(job, booking.start, booking.end, booking.allocation)

    def _reserve(self, job: Job, before: float | None = None) -> bool:
        """Book ``job`` at its earliest slot (only one earlier than ``before``, if given);
        whether it found one."""
        assert self.profile is not None
        found = self.profile.earliest(job, self.view.speed.estimates(job),
                                      self.nodes.key(self.view), self.rng, before)
        if found is None:
            return False
        start, allocation = found
        booking = _Booking(start, allocation, estimated_duration(self.view, job, allocation))
        self.profile.reserve(job, booking.start, booking.end, allocation)
        self.reserved[job.index] = booking
        return True

    def _start_due(self, now: float) -> Iterator[Decision]:
        """Start the reservations that are due; wake up when the next one is."""
        view = self.view
        for index, booking in list(self.reserved.items()):
            if booking.start > now:
                continue
            job = view.pending[index]
            if all(view.fits(job, node, count) for node, count in booking.allocation):
                del self.reserved[index]
                self.expected_end[index] = now + booking.duration
                yield Start(job, booking.allocation)
        upcoming = [b.start for b in self.reserved.values() if b.start > now]
        if upcoming:
            yield WakeUp(min(upcoming))
