"""Bookings (the ``Reserve`` decision), a part of :class:`~hetsched.sim.engine.Simulation`: a
window booked for a job, checked against the reservations and the other bookings, and its start
when due (:mod:`hetsched.sim.bookings` holds the booked windows)."""

from __future__ import annotations

import math

from hetsched.errors import SchedulerError
from hetsched.sim.bookings import Booking
from hetsched.sim.events import BOOKED, POWER_ON
from hetsched.sim.jobs import QUEUED
from hetsched.sim.protocol import Reserve
from hetsched.sim.resources import allocation_problem
from hetsched.workload.model import Job


class BookingDecisions:
    """The engine's rules for bookings (mixed into :class:`~hetsched.sim.engine.Simulation`,
    whose state they read and change)."""

    def _overlap(self, job: Job, nodes: list[int], cores: list[int], now: float,
                 since: float | None = None, exclude: int = -1) -> str | None:
        """Why ``job`` cannot start on ``nodes`` now (or, booked, from ``since``) beside the
        reservations and the bookings (its tasks must fit there until its reserved end: its
        start, after any boot, plus its estimate), or ``None``."""
        state = self.state
        up = max([state.start_time(node, now) for node in nodes]) if self._on_demand else now
        until = max(up, since or now) + self._times_on(job, nodes)[1]
        for node, count in zip(nodes, cores):
            room = self.reservations.room(node, now, until, int(state.free_slots[node]),
                                          state.jobs_on(node),
                                          self.bookings.pieces(node, now, until, exclude),
                                          since)
            if count > room:
                return (f"would overlap a reservation: {count} task(s) on node {node} until "
                        f"its reserved end {until:g}, where reservations, bookings and running "
                        f"jobs leave {max(room, 0)} slot(s) free from {since or now:g}")
        return None

    def _reserve(self, decision: Reserve, now: float) -> None:
        """Book ``decision``'s window, checked (:mod:`hetsched.sim.bookings`)."""
        job, start = decision.job, decision.start
        pairs = tuple([(int(n), int(c)) for n, c in decision.allocation])
        nodes, cores = [n for n, _ in pairs], [c for _, c in pairs]
        if not (isinstance(start, (int, float)) and now <= start < math.inf):
            raise SchedulerError(f"{self._name}: cannot book job '{job.id}' from {start!r}: "
                                 f"a window starts now ({now:g}) or later")
        self._take_pending(job, "book")
        a = self.platform.arrays
        problem = allocation_problem(job, nodes, cores, a.slots, a.memory_mb, a.disk_mb,
                                     decision.any_nodes) or self._overlap(job, nodes, cores, now,
                                                                          start)
        if problem:
            raise SchedulerError(f"{self._name}: booking of job '{job.id}' from {start:g} "
                                 f"{problem}")
        self.bookings.add(Booking(job, pairs, float(start), self._times_on(job, nodes)[1],
                                  decision.any_nodes))
        self._reserved = self.view._reserved = True
        self.jobs.set_state(job.index, QUEUED)
        self.events.push(float(start), BOOKED, job.index)
        if self._on_demand:
            for node in nodes:  # up by the window's start (at once if too late for that)
                if self.state.is_off(node):
                    at = start - self.platform.nodes[node].type.boot_time
                    if at > now:
                        self.events.push(at, POWER_ON, node)
                    else:
                        self._power_on(node, now)

    def _start_booked(self, booking: Booking, now: float) -> None:
        """Start ``booking``'s job now if its allocation is free (beside the other bookings),
        else let it wait for its nodes (:meth:`_drain` tries again as they change)."""
        job, state = booking.job, self.state
        nodes, cores = [n for n, _ in booking.allocation], [c for _, c in booking.allocation]
        if allocation_problem(job, nodes, cores, state.free_slots, state.free_mem,
                              state.free_disk, booking.any_nodes) or self._overlap(
                job, nodes, cores, now, exclude=job.index):
            self._waiting.add(job.index)
            return
        self.bookings.remove(job.index)
        self._waiting.discard(job.index)
        self._start(job, booking.allocation, now, booking.any_nodes, checked=True)
        self._booked_started.append(job)
