"""Projected free resources over time, for backfilling.

Rows are time intervals ``[times[r], times[r+1])`` (the last one open-ended); ``cores[r, n]``
and ``mem[r, n]`` are what node ``n`` is expected to have free during row ``r``. Running jobs
release their resources at their estimated end (a job past its estimate is expected to end
now); reservations subtract resources over their estimated duration.
"""

from __future__ import annotations

import bisect

import numpy as np

from hetsched.schedulers.placement import Allocation, place
from hetsched.sim.resources import capacity, share
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


class Profile:
    def __init__(self, times: list[float], cores: np.ndarray, mem: np.ndarray) -> None:
        self.times = times
        self.cores = cores
        self.mem = mem

    @staticmethod
    def of_running(view: ClusterView) -> "Profile":
        """Free resources now, then after each estimated end of a running job."""
        runs = list(view.running.values())
        ends = [view.estimated_end(run) for run in runs]
        times = sorted(set(ends) | {view.now})
        shape = (len(times), len(view.free_cores))
        cores, mem = np.zeros(shape, dtype=np.int64), np.zeros(shape)
        cores[0], mem[0] = view.free_cores, view.free_mem
        if runs:
            row_of = np.searchsorted(times, ends)
            sizes = [run.node_index.size for run in runs]
            rows = np.repeat(row_of, sizes)
            nodes = np.concatenate([run.node_index for run in runs])
            counts = np.concatenate([run.cores for run in runs])
            np.add.at(cores, (rows, nodes), counts)
            np.add.at(mem, (rows, nodes), [share(run.job.memory_mb, count, run.job.ntasks)
                                           for run in runs for _, count in run.allocation])
        return Profile(times, np.cumsum(cores, axis=0), np.cumsum(mem, axis=0))

    def advance(self, now: float) -> None:
        """Forget rows that ended before ``now``; the first row starts at ``now``."""
        first = bisect.bisect_right(self.times, now) - 1
        if first > 0:
            del self.times[:first]
            self.cores = self.cores[first:]
            self.mem = self.mem[first:]
        self.times[0] = now

    def _row_at(self, t: float) -> int:
        """Index of the row starting exactly at ``t`` (split a row if needed)."""
        row = bisect.bisect_right(self.times, t) - 1
        if self.times[row] == t:
            return row
        self.times.insert(row + 1, t)
        self.cores = np.insert(self.cores, row + 1, self.cores[row], axis=0)
        self.mem = np.insert(self.mem, row + 1, self.mem[row], axis=0)
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
        room = capacity(job, self.cores[first:last, nodes], self.mem[first:last, nodes])
        return bool(np.all(room >= counts))

    def _rows(self, start: float, end: float) -> tuple[int, int]:
        """Rows covering ``[start, end)``, inserting boundaries as needed (none if end <= start)."""
        first = self._row_at(start)
        return first, self._row_at(end) if end > start else first

    def _book(self, job: Job, start: float, end: float, allocation: Allocation,
              sign: int) -> None:
        first, last = self._rows(start, end)
        nodes, counts = _columns(allocation)
        self.cores[first:last, nodes] += sign * counts
        if job.memory_mb:
            memory = [share(job.memory_mb, count, job.ntasks) for count in counts.tolist()]
            self.mem[first:last, nodes] += sign * np.array(memory)

    def window_min(self, row: int, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per node, the least free cores / memory over ``[times[row], times[row] + d_n)``."""
        ends = np.searchsorted(self.times, self.times[row] + durations, side="left")
        last = int(ends.max())
        if last <= row + 1 or np.all(ends == last):
            span = slice(row, max(last, row + 1))
            return self.cores[span].min(axis=0), self.mem[span].min(axis=0)
        cores, mem = self.cores[row].copy(), self.mem[row].copy()
        for r in range(row + 1, last):
            open_ = ends > r
            np.minimum(cores, np.where(open_, self.cores[r], cores), out=cores)
            np.minimum(mem, np.where(open_, self.mem[r], mem), out=mem)
        return cores, mem

    def earliest(self, job: Job, durations: np.ndarray, key: np.ndarray | None,
                 rng: np.random.Generator,
                 before: float | None = None) -> tuple[float, Allocation] | None:
        """The earliest start and allocation of ``job`` lasting ``durations[n]`` on node n;
        with ``before``, only starts earlier than it are searched (``None`` if there is none).

        Multi-node jobs are checked over their longest possible duration (conservative).
        """
        last = len(self.times) if before is None else bisect.bisect_left(self.times, before)
        spans = durations if job.nodes == 1 else np.full_like(durations, durations.max())
        cap = capacity(job, self.cores[:last], self.mem[:last])
        room = cap.sum(axis=1) if job.nodes == 0 else cap.max(axis=1)
        for row in np.flatnonzero(room >= (job.ntasks if job.nodes == 0 else _min_per_node(job))):
            cores, mem = self.window_min(int(row), spans)
            allocation = place(job, cores, mem, key, rng)
            if allocation is not None:
                return self.times[row], allocation
        if before is None:
            raise AssertionError(f"job {job.id} fits nowhere even when the cluster is empty")
        return None


def _columns(allocation: Allocation) -> tuple[list[int], np.ndarray]:
    return [node for node, _ in allocation], np.array([count for _, count in allocation])


def _min_per_node(job: Job) -> int:
    """The fewest tasks a placement of ``job`` needs on one of its nodes."""
    return job.ntasks if job.nodes == 1 else 1 if job.nodes == 0 else -(-job.ntasks // job.nodes)


def first_fit_time(view: ClusterView, job: Job, key: np.ndarray | None,
                   rng: np.random.Generator) -> tuple[float, Allocation, np.ndarray, np.ndarray]:
    """Earliest projected time ``job`` can start, its allocation then, and the free cores and
    memory projected at that time. Walks estimated ends in order and stops at the first fit,
    so it costs only as many releases as the job needs."""
    cores, mem = view.free_cores.copy(), view.free_mem.copy()
    runs = sorted(view.running.values(), key=view.estimated_end)
    i = 0
    t = view.now
    while True:
        while i < len(runs) and view.estimated_end(runs[i]) <= t:
            for node, count in runs[i].allocation:
                cores[node] += count
                mem[node] += share(runs[i].job.memory_mb, count, runs[i].job.ntasks)
            i += 1
        allocation = place(job, cores, mem, key, rng)
        if allocation is not None:
            return t, allocation, cores, mem
        if i == len(runs):
            raise AssertionError(f"job {job.id} fits nowhere even when the cluster is empty")
        t = view.estimated_end(runs[i])
