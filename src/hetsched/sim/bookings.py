"""The windows schedulers booked (``Reserve`` decisions) and the engine honours.

A booking holds its allocation's slots over its window ``[start, start + duration)``, the
duration being the job's estimate on the allocation (its reserved end, as for the platform's
reservations). Until the job starts it is a reservation like the platform's: no other start
may take the slots (the engine's start rule and the view's ``fits``/``free_slots_for``/
``free_intervals``/``reserved_ahead`` count it), and other bookings must fit beside it. At its
start the engine starts the job itself; if its slots are not free then (a job running past its
estimate, a failed node), the job starts as soon as they are, its window moving with it
(:meth:`Booking.window`). Memory and disk are checked when the job starts, not booked.
"""

from __future__ import annotations

from typing import NamedTuple

from hetsched.sim.reservations import Piece
from hetsched.workload.model import Job


class Booking(NamedTuple):
    """``job`` booked on ``allocation`` (pairs ``(node, slots)``) from ``start`` for
    ``duration`` seconds."""

    job: Job
    allocation: tuple[tuple[int, int], ...]
    start: float
    duration: float
    any_nodes: bool = False

    @property
    def end(self) -> float:
        return self.start + self.duration

    def window(self, now: float) -> tuple[float, float]:
        """The window it holds seen from ``now``: from its start, or from now once due."""
        start = max(self.start, now)
        return start, start + self.duration


class Bookings:
    """The bookings of a run not started yet, by job index and by node (a fork copies them)."""

    __slots__ = ("by_job", "on_node")

    def __init__(self) -> None:
        self.by_job: dict[int, Booking] = {}
        self.on_node: dict[int, dict[int, Booking]] = {}

    def __bool__(self) -> bool:
        return bool(self.by_job)

    def copy(self) -> "Bookings":
        other = Bookings()
        other.by_job = self.by_job.copy()
        other.on_node = {node: held.copy() for node, held in self.on_node.items()}
        return other

    def add(self, booking: Booking) -> None:
        index = booking.job.index
        self.by_job[index] = booking
        for node, _ in booking.allocation:
            self.on_node.setdefault(node, {})[index] = booking

    def remove(self, index: int) -> Booking:
        booking = self.by_job.pop(index)
        for node, _ in booking.allocation:
            held = self.on_node[node]
            del held[index]
            if not held:
                del self.on_node[node]
        return booking

    def pieces(self, node: int, now: float, until: float, exclude: int = -1) -> list[Piece]:
        """The slots the bookings on ``node`` (but job ``exclude``'s) take, as ``(start, end,
        slots)`` pieces seen from ``now``, those that begin before ``until``."""
        pieces = []
        for index, booking in self.on_node.get(node, {}).items():
            start, end = booking.window(now)
            if start < until and index != exclude:
                pieces.append((start, end, sum(c for n, c in booking.allocation if n == node)))
        return pieces

    def waiting_on(self, jobs: set[int], nodes: set[int]) -> list[Booking]:
        """The bookings of ``jobs`` that use one of ``nodes``, in the order they were made."""
        return [b for b in self.by_job.values() if b.job.index in jobs
                and any(node in nodes for node, _ in b.allocation)]
