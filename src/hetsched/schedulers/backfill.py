"""EASY and conservative backfilling, heterogeneity-aware.

Estimates: a job's run time on node n is ``req_time * slowest_speed / speed_n`` (a job spread
over several nodes runs at its slowest node's pace). A running job past its estimate is
expected to end now: it pushes reservations back, it is never killed.

EASY: the queue head (FCFS) starts if it fits. Otherwise it gets a reservation at the
earliest projected time (the shadow time) at which it fits, on specific nodes chosen by the
node selection. Any other queued job, in queue order, may start now if it fits now and
either ends by estimate no later than the shadow time or only uses resources the
reservation leaves free at the shadow time ("extra" cores, per node).

Conservative: every queued job, in queue order, gets a reservation at the earliest time it
fits without touching earlier reservations; a job starts when its reservation is due. When a
job ends before its estimate the plan is compressed: each reserved job, in order of start,
moves to its earliest slot while all others stay booked, so none ever moves later. A job
running past its estimate pushes back the reservations it now collides with.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from hetsched.schedulers.base import Decision, Events, Scheduler, Start, WakeUp
from hetsched.schedulers.placement import Allocation, place
from hetsched.sim.resources import capacity, share
from hetsched.schedulers.profile import Profile, first_fit_time
from hetsched.schedulers.queue import NodePreference
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


def _duration(view: ClusterView, job: Job, allocation: Allocation) -> float:
    """Estimated run time of ``job`` on ``allocation``: it runs at its slowest node's pace."""
    speed = view.platform.arrays.speed
    slowest = float(speed[allocation[0][0]]) if len(allocation) == 1 else \
        float(speed[[node for node, _ in allocation]].min())
    return view.speed.estimate_at_speed(job, slowest)


def _end(view: ClusterView, job: Job, start: float, allocation: Allocation) -> float:
    return start + _duration(view, job, allocation)


class _Backfilling(Scheduler):
    def __init__(self, node: str = "first") -> None:
        self.nodes = NodePreference(node)

    def _place_now(self, job: Job, allowed: np.ndarray | None = None) -> Allocation | None:
        view = self.view
        return place(job, view.free_cores, view.free_mem, self.nodes.key(view), self.rng, allowed,
                     view.free_disk)


class EasyBackfill(_Backfilling):
    name = "easy"

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        pending = self.view.pending
        while pending:
            head = next(iter(pending.values()))
            if head.ntasks > self.view.total_free_cores:
                break
            allocation = self._place_now(head)
            if allocation is None:
                break
            yield Start(head, allocation)
        if len(pending) < 2:
            return
        shadow, extra_cores, extra_mem = self._reservation(head)
        free = self.view.free_cores
        max_free, total_free = int(free.max()), int(free.sum())
        max_extra = int(extra_cores.max())
        # a one-node job's shortest possible estimate is on the fastest node
        shortest = self.view.platform.slowest_speed / float(self.view.platform.arrays.speed.max())
        for job in list(pending.values())[1:]:
            if total_free == 0:
                return
            if job.ntasks > (max_free if job.nodes == 1 else total_free):
                continue
            if job.nodes == 1 and job.ntasks > max_extra and \
                    now + job.req_time * shortest > shadow:
                continue  # ends after the shadow time on every node, and no node has the extra
            allocation = self._backfill(job, now, shadow, extra_cores, extra_mem)
            if allocation is not None:
                yield Start(job, allocation)
                max_free, total_free = int(free.max()), int(free.sum())
                max_extra = int(extra_cores.max())

    def _reservation(self, head: Job) -> tuple[float, np.ndarray, np.ndarray]:
        """Shadow time of the head, and what the nodes keep free then beyond its needs."""
        shadow, allocation, extra_cores, extra_mem = first_fit_time(
            self.view, head, self.nodes.key(self.view), self.rng)
        for node, count in allocation:
            extra_cores[node] -= count
            extra_mem[node] -= share(head.memory_mb, count, head.ntasks)
        return shadow, extra_cores, extra_mem

    def _backfill(self, job: Job, now: float, shadow: float, extra_cores: np.ndarray,
                  extra_mem: np.ndarray) -> Allocation | None:
        if job.nodes == 1:
            ends_in_time = now + self.view.speed.estimates(job) <= shadow
            allowed = ends_in_time | (capacity(job, extra_cores, extra_mem) >= job.ntasks)
            allocation = self._place_now(job, allowed)
        else:
            allocation = self._place_now(job)
            if allocation is not None and _end(self.view, job, now, allocation) > shadow:
                view = self.view
                allocation = place(job, np.minimum(view.free_cores, extra_cores),
                                   np.minimum(view.free_mem, extra_mem),
                                   self.nodes.key(view), self.rng, free_disk=view.free_disk)
        if allocation is not None and _end(self.view, job, now, allocation) > shadow:
            for node, count in allocation:
                extra_cores[node] -= count
                extra_mem[node] -= share(job.memory_mb, count, job.ntasks)
        return allocation


@dataclass(frozen=True, slots=True)
class _Booking:
    """A reservation: ``allocation`` from ``start`` for the estimated ``duration``."""

    start: float
    allocation: Allocation
    duration: float

    @property
    def end(self) -> float:
        return self.start + self.duration


class ConservativeBackfill(_Backfilling):
    name = "conservative"

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
        booking = _Booking(start, allocation, _duration(self.view, job, allocation))
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
