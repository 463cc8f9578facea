"""The speed floor: minimal FCFS and EASY loops on P identical processors (heapq, no placement).

What a plain Python event loop needs for the same schedule, so the benchmarks can print
hetsched's time as a ratio to it. ``jobs`` are ``(submit, size, run, req)`` tuples sorted by
submission (``req``: the requested time, what EASY plans with); each function returns the start
times. Ends come before arrivals at the same time; a running job's estimated end is
``start + req``, or now once it has run past it.
"""

from __future__ import annotations

import heapq
from collections import deque


def fcfs(jobs: list[tuple[float, int, float, float]], procs: int) -> list[float]:
    """Strict FCFS: each job starts once it is the oldest waiting and enough processors are
    free."""
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


def easy(jobs: list[tuple[float, int, float, float]], procs: int) -> list[float]:
    """EASY backfilling: the queue head starts when it fits, else it reserves the earliest time
    it will fit (its shadow time); a later job starts now if it fits and ends, by its
    request, by the shadow time, or uses only processors the head will not need then."""
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
        free = _schedule(jobs, queue, planned, ends, starts, free, now)
    return starts


def _schedule(jobs, queue, planned, ends, starts, free, now) -> int:
    def start(job: int) -> None:
        _, size, run, req = jobs[job]
        starts[job] = now
        planned[job] = now + req
        heapq.heappush(ends, (now + run, size, job))

    while queue and jobs[queue[0]][1] <= free:
        job = queue.popleft()
        start(job)
        free -= jobs[job][1]
    if not queue:
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
