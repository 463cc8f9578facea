"""The speed floor: minimal FCFS and EASY event loops on P identical processors (heapq, no
placement).

What a plain Python event loop needs for the same schedule, so the benchmarks can print
hetsched's time as a ratio to it. ``jobs`` are ``(submit, size, run, req)`` tuples sorted by
submission (``req``: the requested time, what EASY plans with); each function returns the start
times. Both loops have the structure of an event-driven simulator: at each instant, the ends
due then, then the arrivals, then one scheduling pass (ends come before arrivals at the same
time). A running job's estimated end is ``start + req``, or now once it has run past it.
``fcfs_closed_form`` computes the FCFS schedule without events (each job starts after the one
before it), the absolute floor, printed for comparison.
"""

from __future__ import annotations

import heapq
from collections import deque

Jobs = list[tuple[float, int, float, float]]


def fcfs(jobs: Jobs, procs: int) -> list[float]:
    """Strict FCFS: the oldest waiting job starts once enough processors are free."""
    return _loop(jobs, procs, backfill=False)


def easy(jobs: Jobs, procs: int) -> list[float]:
    """EASY backfilling: the queue head starts when it fits, else it reserves the earliest time
    it will fit (its shadow time); a later job starts now if it fits and ends, by its
    request, by the shadow time, or uses only processors the head will not need then."""
    return _loop(jobs, procs, backfill=True)


def fcfs_closed_form(jobs: Jobs, procs: int) -> list[float]:
    """The FCFS schedule without an event loop: each job starts at its submission, after the
    job before it started, once enough earlier jobs have ended."""
    ends: list[tuple[float, int]] = []
    free, clock, starts = procs, 0.0, []
    for submit, size, run, _ in jobs:
        clock = max(clock, submit)
        while ends and (ends[0][0] <= clock or free < size):
            end, back = heapq.heappop(ends)
            clock, free = max(clock, end), free + back
        starts.append(clock)
        free -= size
        heapq.heappush(ends, (clock + run, size))
    return starts


def _loop(jobs: Jobs, procs: int, backfill: bool) -> list[float]:
    starts = [0.0] * len(jobs)
    ends: list[tuple[float, int, int]] = []      # (real end, size, job)
    planned: dict[int, float] = {}               # running job -> start + req
    queue: deque[int] = deque()
    free, nxt = procs, 0
    while nxt < len(jobs) or ends:
        now = min(ends[0][0] if ends else float("inf"),
                  jobs[nxt][0] if nxt < len(jobs) else float("inf"))
        while ends and ends[0][0] == now:
            _, size, job = heapq.heappop(ends)
            free += size
            del planned[job]
        while nxt < len(jobs) and jobs[nxt][0] == now:
            queue.append(nxt)
            nxt += 1
        free = _schedule(jobs, queue, planned, ends, starts, free, now, backfill)
    return starts


def _schedule(jobs, queue, planned, ends, starts, free, now, backfill) -> int:
    def start(job: int) -> None:
        _, size, run, req = jobs[job]
        starts[job] = now
        planned[job] = now + req
        heapq.heappush(ends, (now + run, size, job))

    while queue and jobs[queue[0]][1] <= free:
        job = queue.popleft()
        start(job)
        free -= jobs[job][1]
    if not queue or not backfill:
        return free
    need, shadow, extra = jobs[queue[0]][1], now, free
    for end, job in sorted((max(e, now), j) for j, e in planned.items()):
        extra += jobs[job][1]
        if extra >= need:
            shadow = end
            break
    extra -= need
    for job in list(queue)[1:]:
        _, size, _, req = jobs[job]
        if size <= free and (now + req <= shadow or size <= extra):
            if now + req > shadow:
                extra -= size
            queue.remove(job)
            start(job)
            free -= size
    return free
