"""The engine's events: one heap of typed events, in a documented deterministic order.

An entry is ``(time, kind, seq, job, version)``. Simultaneous events are handled by kind, in
this order: boot completions (an on-demand node comes up and the jobs held for it start, so
that everything else at that instant sees it up), finishes, walltime kills (so a job that ends
exactly at its walltime finishes), node availability changes,
releases (jobs whose last parent just finished), submissions, wake-ups (so one asked for the
current instant comes after everything else due then). Simultaneous finishes go by node (the
lowest node of each job), then in the order they were scheduled: a finish's ``seq`` carries
its node above the scheduling sequence (:meth:`EventQueue.push_finish`). Events of the other
kinds keep the order in which they were scheduled (``seq``), so submissions keep the
workload's order. ``version`` lets the engine discard a finish event made stale by a rate
change.
"""

from __future__ import annotations

import heapq
from enum import IntEnum

from hetsched.platform.model import Availability

__all__ = ["Availability", "EventQueue", "Kind"]


class Kind(IntEnum):
    BOOT = 0
    FINISH = 1
    KILL = 2
    AVAILABILITY = 3
    RELEASE = 4
    SUBMIT = 5
    WAKE = 6


# plain ints in the heap: tuples of ints compare faster than tuples of enum members
BOOT, FINISH, KILL, AVAILABILITY, RELEASE, SUBMIT, WAKE = (int(k) for k in Kind)


Entry = tuple[float, int, int, int, int]

#: A finish's ``seq`` is ``node << _NODE_SHIFT | seq``: node first, then scheduling order.
_NODE_SHIFT = 40


class EventQueue:
    """A heap of :data:`Entry`."""

    __slots__ = ("heap", "seq")

    def __init__(self) -> None:
        self.heap: list[Entry] = []
        self.seq = 0

    def push(self, time: float, kind: int, job: int = -1, version: int = 0) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (time, kind, self.seq, job, version))

    def push_finish(self, time: float, node: int, job: int, version: int) -> None:
        """``job``'s end, ordered among simultaneous ends by ``node`` then scheduling order."""
        self.seq += 1
        heapq.heappush(self.heap, (time, FINISH, node << _NODE_SHIFT | self.seq, job, version))

    def next_time(self) -> float:
        return self.heap[0][0] if self.heap else float("inf")

    def pop(self) -> Entry:
        return heapq.heappop(self.heap)

    def without_submissions(self) -> "EventQueue":
        """A copy without the pending submission (a fork knows only the jobs submitted so
        far); copying one list of tuples."""
        other = EventQueue()
        other.seq = self.seq
        other.heap = [e for e in self.heap if e[1] != SUBMIT]
        heapq.heapify(other.heap)
        return other
