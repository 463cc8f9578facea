"""The engine's events: one heap of typed events, in a documented deterministic order.

An entry is ``(time, kind, seq, job, version)``. Simultaneous events are handled by kind, in
this order: boot completions (an on-demand node comes up and the jobs held for it start, so
that everything else at that instant sees it up), finishes, share ends (one share of a running
job has done its work before the job's end: under a node-wide contention model its node is
re-rated then; the scheduler does not hear of it), walltime kills (so a job that ends exactly
at its walltime finishes), node failures (a job that ends exactly when its node fails
finishes), node repairs, node availability changes, power-ons (an on-demand node booted
ahead of a booking, so that it is up when the window begins), booked starts (a window a
scheduler booked begins: its job starts on the resources just freed, before anything new is
decided),
releases (jobs whose last parent just finished), submissions, wake-ups (so one asked for the
current instant comes after everything else due then). Simultaneous finishes go by node (the
lowest node of each job), then in the order they were scheduled: a finish's ``seq`` carries
its node above the scheduling sequence (:meth:`EventQueue.push_finish`). Events of the other
kinds keep the order in which they were scheduled (``seq``), so submissions keep the
workload's order. ``version`` lets the engine discard a finish or share-end event made stale
by a rate change.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from enum import IntEnum
from typing import TYPE_CHECKING

from hetsched.platform.model import Availability

if TYPE_CHECKING:
    from hetsched.workload.model import Job

__all__ = ["Availability", "EventQueue", "Kind"]


class Kind(IntEnum):
    BOOT = 0
    FINISH = 1
    SHARE_END = 2
    KILL = 3
    FAILURE = 4
    REPAIR = 5
    AVAILABILITY = 6
    POWER_ON = 7
    BOOKED = 8
    RELEASE = 9
    SUBMIT = 10
    WAKE = 11


# plain ints in the heap: tuples of ints compare faster than tuples of enum members
(BOOT, FINISH, SHARE_END, KILL, FAILURE, REPAIR, AVAILABILITY, POWER_ON, BOOKED, RELEASE,
 SUBMIT, WAKE) = (int(k) for k in Kind)


Entry = tuple[float, int, int, int, int]

#: A finish's ``seq`` is ``node << _NODE_SHIFT | seq``: node first, then scheduling order.
_NODE_SHIFT = 40


class EventQueue:
    """A heap of :data:`Entry`. Of the submissions of ``jobs`` (in workload order) only the next
    one is on the heap: :meth:`push_submission` pushes it when the one before is popped.
    ``wakes``: the times of the wake-ups on the heap."""

    __slots__ = ("heap", "seq", "wakes", "_jobs", "_cursor", "_submission")

    def __init__(self, jobs: Sequence[Job] = ()) -> None:
        self.heap: list[Entry] = []
        self.seq = 0
        self.wakes: set[float] = set()
        self._jobs = jobs
        self._cursor = 0  # the next job to submit
        self._submission: Entry | None = None  # the one on the heap

    def push(self, time: float, kind: int, job: int = -1, version: int = 0) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (time, kind, self.seq, job, version))

    def push_finish(self, time: float, node: int, job: int, version: int) -> None:
        """``job``'s end, ordered among simultaneous ends by ``node`` then scheduling order."""
        self.seq += 1
        heapq.heappush(self.heap, (time, FINISH, node << _NODE_SHIFT | self.seq, job, version))

    def push_wake(self, time: float) -> None:
        """A wake-up at ``time``, unless one is already asked for then."""
        if time not in self.wakes:
            self.wakes.add(time)
            self.push(time, WAKE)

    def push_submission(self) -> None:
        """The next job's submission, if a job is left."""
        self._submission = None
        if self._cursor < len(self._jobs):
            self.seq += 1
            self._submission = entry = (self._jobs[self._cursor].submit, SUBMIT, self.seq,
                                        self._cursor, 0)
            heapq.heappush(self.heap, entry)
            self._cursor += 1

    def next_time(self) -> float:
        return self.heap[0][0] if self.heap else float("inf")

    def copy(self) -> "EventQueue":
        """An independent copy that submits the same jobs as this queue still will (a fork
        that keeps the future): the heap copied; the jobs, immutable, shared."""
        other = EventQueue.__new__(EventQueue)
        other.heap = self.heap.copy()
        other.seq = self.seq
        other.wakes = self.wakes.copy()
        other._jobs, other._cursor, other._submission = self._jobs, self._cursor, \
            self._submission
        return other

    def without_submission(self) -> "EventQueue":
        """A copy that submits no more jobs (a fork knows only the jobs submitted so far): the
        heap copied, its submission taken out."""
        other = self.copy()
        other._cursor, other._submission = len(self._jobs), None
        if self._submission is not None:
            _remove(other.heap, other.heap.index(self._submission))
        return other


def _remove(heap: list[Entry], i: int) -> None:
    """Take entry ``i`` out of ``heap``: the last entry takes its place and moves up or down
    to where the heap order wants it (O(log n), where heapify would be O(n))."""
    entry = heap.pop()
    if i == len(heap):
        return
    while i > 0 and entry < heap[(i - 1) >> 1]:  # up, past larger parents
        heap[i] = heap[(i - 1) >> 1]
        i = (i - 1) >> 1
    size = len(heap)
    while (child := 2 * i + 1) < size:  # down, below smaller children
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if not heap[child] < entry:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = entry
