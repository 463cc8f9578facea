"""Conservative backfilling's reservations, kept in the orders it needs them: by job, in the
order they were first made (the order due ones start in), with a heap of their starts (to find
the due ones and the next one), and the one-node jobs without memory or disk by node and start (what
is freed on a node can only help such a job there if it starts after the freed time does).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from dataclasses import dataclass

from hetsched.schedulers.placement import Allocation
from hetsched.sim.resources import even_split
from hetsched.workload.model import Job


@dataclass(frozen=True, slots=True)
class Booking:
    """A reservation of ``job``: ``allocation`` from ``start`` for the estimated ``duration``,
    until ``end``; ``per_node`` is the fewest tasks the job puts on any node it uses, and no
    window of a start before this one reaches past ``reach`` (no estimate exceeds
    ``req_time``). ``home`` is the node of a one-node job without memory or disk (else -1): its own
    booking leaves it all it needs there from ``start`` on."""

    job: Job
    start: float
    allocation: Allocation
    duration: float
    end: float
    per_node: int
    reach: float
    home: int

    @staticmethod
    def of(job: Job, start: float, allocation: Allocation, duration: float) -> "Booking":
        per_node = job.ntasks if job.nodes == 1 else 1 if job.spread else \
            even_split(job)[0]
        home = allocation[0][0] if job.nodes == 1 and not job.takes_space else -1
        return Booking(job, start, allocation, duration, start + duration, per_node,
                       start + job.req_time, home)


class Reservations:
    def __init__(self) -> None:
        self.booked: dict[int, Booking] = {}  # by job, in the order first booked
        self.others: dict[int, Booking] = {}  # the ones with memory or disk or on several nodes
        self._first: dict[int, int] = {}
        self._count = itertools.count()
        self._starts: list[tuple[float, int]] = []  # a heap; moved or started ones linger
        # node -> sorted (start, tasks, estimate, req_time, job) of one-node jobs without
        # memory or disk
        self.on_node: dict[int, list[tuple[float, int, float, float, int]]] = {}

    def book(self, index: int, booking: Booking) -> None:
        """Book a job, or move its booking (it keeps its place in the order)."""
        old = self.booked.get(index)
        if old is None:
            self._first[index] = next(self._count)
        else:
            self._unindex(index, old)
        self.booked[index] = booking
        heapq.heappush(self._starts, (booking.start, index))
        if booking.home < 0:
            self.others[index] = booking
            return
        bisect.insort(self.on_node.setdefault(booking.home, []), _entry(index, booking))

    def remove(self, index: int) -> Booking:
        booking = self.booked.pop(index)
        del self._first[index]
        self._unindex(index, booking)
        return booking

    def _unindex(self, index: int, booking: Booking) -> None:
        if booking.home < 0:
            del self.others[index]
            return
        on = self.on_node[booking.home]
        del on[bisect.bisect_left(on, _entry(index, booking))]
        if not on:
            del self.on_node[booking.home]

    def due(self, now: float) -> list[int]:
        """The jobs whose booking starts by ``now`` (taken off the heap of starts)."""
        starts, due = self._starts, []
        while starts and starts[0][0] <= now:
            start, index = heapq.heappop(starts)
            if self._current(start, index):
                due.append(index)
        return due

    def first_booked(self, jobs: set[int]) -> list[int]:
        """``jobs`` in the order they were first booked."""
        return sorted(jobs, key=self._first.__getitem__)

    def next_start(self) -> float | None:
        """The earliest start still ahead on the heap, if any."""
        starts = self._starts
        while starts and not self._current(*starts[0]):
            heapq.heappop(starts)
        return starts[0][0] if starts else None

    def _current(self, start: float, index: int) -> bool:
        booking = self.booked.get(index)
        return booking is not None and booking.start == start


def _entry(index: int, booking: Booking) -> tuple[float, int, float, float, int]:
    return booking.start, booking.per_node, booking.duration, booking.job.req_time, index
