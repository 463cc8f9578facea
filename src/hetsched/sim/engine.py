"""The discrete-event engine. It owns all state; schedulers only answer with decisions."""

from __future__ import annotations

import heapq
import math
import time as wallclock
from collections.abc import Callable, Iterable
from typing import Protocol

import numpy as np

from hetsched.errors import InputError, SchedulerError
from hetsched.platform.model import Platform
from hetsched.schedulers.base import (Decision, Dequeue, Enqueue, Events, OwnDriver, Reject,
                                      Scheduler, Start, WakeUp)
from hetsched.schedulers.placement import capacity, even_split
from hetsched.sim.checks import check_run
from hetsched.sim.feasibility import infeasibility
from hetsched.sim.result import JobState, SimResult, TimeSeries
from hetsched.sim.state import ClusterState, RunningJob
from hetsched.sim.view import ClusterView
from hetsched.workload.model import SPREAD, Job, Workload

_FINISH, _WAKE = 0, 1


class ContentionModel(Protocol):
    """Slow-down factors (0 < f <= 1) of the jobs running on one node, given its state.

    Called after every change on that node; a job's rate is ``ipc * min_n(speed_n * f_n)``.
    """

    def factors(self, node: int, state: ClusterState) -> dict[int, float]: ...


ProgressCallback = Callable[[int, int], None]


class Simulation:
    """One run of ``workload`` on ``platform`` under ``scheduler``.

    Options: ``seed`` feeds the scheduler's generator; ``horizon`` stops the clock (jobs not
    done then are reported unfinished); ``strict`` turns a never-fitting job into an error
    instead of a rejection; ``contention`` makes progress rates depend on co-runners.
    """

    def __init__(self, platform: Platform, workload: Workload, scheduler: Scheduler, *,
                 seed: int = 0, horizon: float | None = None, strict: bool = False,
                 contention: ContentionModel | None = None,
                 progress: ProgressCallback | None = None, timeseries: bool = True) -> None:
        self.platform = platform
        self.workload = workload
        self.scheduler = scheduler
        self.seed, self.horizon = check_run(workload, seed, horizon)
        self.strict = strict
        self.contention = contention
        self.progress = progress
        self.record_timeseries = timeseries
        n = len(workload.jobs)
        t0 = workload.jobs[0].submit if n else 0.0
        self.state = ClusterState(platform, t0)
        self.pending: dict[int, Job] = {}
        self.clock = [t0]
        self.view = ClusterView(platform, self.state, self.pending, self.clock)
        self.heap: list[tuple[float, int, int, int, int]] = []
        self.seq = 0
        self.wakeups: set[float] = set()
        self.job_state = np.full(n, JobState.PENDING, dtype=np.int8)
        self.start_t = np.full(n, np.nan)
        self.end_t = np.full(n, np.nan)
        self.alloc: list[tuple[tuple[int, int], ...] | None] = [None] * n
        self.reason: dict[int, str] = {}
        self.job_energy = np.zeros(n)
        self.series = TimeSeries()
        self.done = 0
        self.queued_locally = 0
        self.queued_on: dict[int, int] = {}

    # ---- the loop -------------------------------------------------------------------------
    def run(self) -> SimResult:
        began = wallclock.perf_counter()
        jobs = self.workload.jobs
        n = len(jobs)
        self.scheduler.reset(self.view, np.random.default_rng(self.seed))
        next_sub = 0
        last_end = self.clock[0]
        cut = False
        while True:
            t_sub = jobs[next_sub].submit if next_sub < n else math.inf
            t = min(t_sub, self.heap[0][0] if self.heap else math.inf)
            if t == math.inf:
                break
            if self.horizon is not None and t > self.horizon:
                cut = True
                break
            self.clock[0] = t
            finished, woken = self._pop_events(t)
            if finished:
                last_end = t
            submitted = []
            while next_sub < n and jobs[next_sub].submit == t:
                job = jobs[next_sub]
                next_sub += 1
                if self._admit(job):
                    submitted.append(job)
            if submitted or finished or woken:
                events = Events(tuple(submitted), tuple(finished), woken)
                self._apply(self.scheduler.decide(t, events), t)
            if self.record_timeseries:
                self._record(t)
        t_end = max(self.horizon, self.clock[0]) if cut else last_end
        self._close(t_end, cut)
        return self._result(t_end, wallclock.perf_counter() - began)

    def _pop_events(self, t: float) -> tuple[list[Job], bool]:
        finished: list[Job] = []
        woken = False
        touched: set[int] = set()
        while self.heap and self.heap[0][0] == t:
            _, _, kind, job_index, version = heapq.heappop(self.heap)
            if kind == _WAKE:
                self.wakeups.discard(t)
                woken = True
                continue
            run = self.state.running.get(job_index)
            if run is None or run.version != version:
                continue
            self._finish(run, t)
            finished.append(run.job)
            if self.queued_locally or self.contention is not None:
                touched.update(run.nodes)
        for node in sorted(touched):
            self._drain_local_queue(node, t)
        if touched and self.contention is not None:
            self._rerate(touched, t)
        return finished, woken

    def _admit(self, job: Job) -> bool:
        reason = infeasibility(job, self.platform)
        if reason is None:
            self.pending[job.index] = job
            return True
        if self.strict:
            raise InputError(self.workload.source, reason, record=f"job '{job.id}'")
        self._reject(job, reason)
        return False

    # ---- decisions ------------------------------------------------------------------------
    def _apply(self, decisions: Iterable[Decision] | None, now: float) -> None:
        for decision in decisions or ():
            kind = type(decision)
            if kind is Start:
                self._take_pending(decision.job, "start")
                self._start(decision.job, decision.allocation, now, decision.any_nodes)
            elif kind is Enqueue:
                self._enqueue(decision, now)
            elif kind is Dequeue:
                self._dequeue(decision.job)
            elif kind is WakeUp:
                self._wake_at(decision.time, now)
            elif kind is Reject:
                self._take_pending(decision.job, "reject")
                self._reject(decision.job, decision.reason)
            else:
                raise SchedulerError(f"{self.scheduler.name}: unknown decision {decision!r}")

    def _take_pending(self, job: Job, what: str) -> None:
        if self.pending.pop(job.index, None) is None:
            raise SchedulerError(
                f"{self.scheduler.name}: cannot {what} job '{job.id}': it is not pending")

    def _enqueue(self, decision: Enqueue, now: float) -> None:
        job, node = decision.job, int(decision.node)
        if job.nodes != 1 or not 0 <= node < len(self.platform.nodes):
            raise SchedulerError(f"{self.scheduler.name}: cannot queue job '{job.id}' on node "
                                 f"{node}: local queues take single-node jobs on valid nodes")
        a = self.platform.arrays
        if capacity(job, a.cores[node:node + 1], a.memory_mb[node:node + 1])[0] < job.ntasks:
            raise SchedulerError(f"{self.scheduler.name}: job '{job.id}' queued on node "
                                 f"{node}, which can never hold it (cores or memory)")
        self._take_pending(job, "queue")
        self.job_state[job.index] = JobState.QUEUED
        self.state.local_queues[node].append(job)
        self.queued_on[job.index] = node
        self.queued_locally += 1
        self._drain_local_queue(node, now)

    def _dequeue(self, job: Job) -> None:
        """Back to pending, keeping the pending jobs in submission order."""
        node = self.queued_on.pop(job.index, None)
        if node is None:
            raise SchedulerError(f"{self.scheduler.name}: cannot dequeue job '{job.id}': "
                                 f"it waits in no local queue")
        self.state.local_queues[node].remove(job)
        self.queued_locally -= 1
        self.job_state[job.index] = JobState.PENDING
        items = sorted([*self.pending.items(), (job.index, job)])
        self.pending.clear()
        self.pending.update(items)

    def _wake_at(self, at: float, now: float) -> None:
        """Wake-ups not in the future, or already asked for, are ignored."""
        if at > now and at not in self.wakeups:
            self.wakeups.add(at)
            self._push(at, _WAKE, -1, 0)

    def _drain_local_queue(self, node: int, now: float) -> None:
        queue = self.state.local_queues[node]
        while queue and self.state.fits(node, queue[0].ntasks, queue[0]):
            job = queue.popleft()
            del self.queued_on[job.index]
            self.queued_locally -= 1
            self._start(job, ((node, job.ntasks),), now)

    # ---- job life cycle -------------------------------------------------------------------
    def _check_allocation(self, job: Job, nodes: np.ndarray, cores: np.ndarray,
                          any_nodes: bool = False) -> None:
        """``any_nodes`` (``Start.any_nodes``) lifts the job's node count and even split."""
        if nodes.size == 1 and self._fits_one_node(job, int(nodes[0]), int(cores[0])):
            return  # the common case, checked with scalars
        problem = None
        n_nodes = len(self.platform.nodes)
        if cores.sum() != job.ntasks:
            problem = f"allocates {int(cores.sum())} cores for {job.ntasks} tasks"
        elif nodes.size == 0 or nodes.min() < 0 or nodes.max() >= n_nodes or cores.min() <= 0:
            problem = "has an invalid node index or core count"
        elif np.unique(nodes).size != nodes.size:
            problem = "names a node twice"
        elif not any_nodes and job.nodes != SPREAD and nodes.size != job.nodes:
            problem = f"uses {nodes.size} nodes; the job asks for exactly {job.nodes}"
        elif not any_nodes and job.nodes > 1 and not self._even(job, cores):
            base = even_split(job)[0]
            problem = f"splits its tasks unevenly: each node must get {base} or {base + 1}"
        else:
            room = capacity(job, self.state.free_cores[nodes], self.state.free_mem[nodes])
            short = np.flatnonzero(room < cores)
            if short.size:
                node = int(nodes[short[0]])
                problem = (f"needs {int(cores[short[0]])} cores on node {node}, which has room "
                           f"for {int(room[short[0]])}")
        if problem:
            raise SchedulerError(f"{self.scheduler.name}: start of job '{job.id}' {problem}")

    def _fits_one_node(self, job: Job, node: int, cores: int) -> bool:
        state = self.state
        return (cores == job.ntasks and job.nodes in (1, SPREAD)
                and 0 <= node < len(self.platform.nodes) and cores <= state.free_cores[node]
                and cores * job.mem_mb <= state.free_mem[node])

    @staticmethod
    def _even(job: Job, cores: np.ndarray) -> bool:
        base = even_split(job)[0]
        return bool(np.all((cores == base) | (cores == base + 1)))

    def _start(self, job: Job, allocation: tuple[tuple[int, int], ...], now: float,
               any_nodes: bool = False) -> None:
        allocation = tuple((int(n), int(c)) for n, c in allocation)
        nodes = np.fromiter((n for n, _ in allocation), np.int64, len(allocation))
        cores = np.fromiter((c for _, c in allocation), np.int64, len(allocation))
        self._check_allocation(job, nodes, cores, any_nodes)
        speed = float(self.platform.arrays.speed[nodes].min())
        rate = job.ipc * speed
        est_end = now + self.view.speed.estimate_at_speed(job, speed)
        run = RunningJob(job, allocation, nodes, cores, now, est_end, job.req_ops, rate, now)
        self.state.occupy(run, now)
        self.job_state[job.index] = JobState.RUNNING
        self.start_t[job.index] = now
        self.alloc[job.index] = allocation
        if self.contention is not None:
            self._rerate(run.nodes, now)
        else:
            self._push(now + run.remaining_ops / rate, _FINISH, job.index, 0)

    def _finish(self, run: RunningJob, now: float) -> None:
        job = run.job
        self.state.release(run, now)
        self.job_state[job.index] = JobState.FINISHED
        self.end_t[job.index] = now
        self.job_energy[job.index] = self._job_energy(run, now)
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, len(self.workload.jobs))

    def _job_energy(self, run: RunningJob, now: float) -> float:
        """Dynamic power of the job's cores plus its core-share of each node's static power."""
        a = self.platform.arrays
        nodes, cores = run.node_index, run.cores
        watts = (a.dynamic_w_per_core[nodes] + a.static_w[nodes] / a.cores[nodes]) @ cores
        return float(watts * (now - run.start))

    def _reject(self, job: Job, reason: str) -> None:
        self.job_state[job.index] = JobState.REJECTED
        self.reason[job.index] = reason
        self.done += 1

    def _rerate(self, nodes: Iterable[int], now: float) -> None:
        """Re-derive progress rates of every job on ``nodes`` from the contention model."""
        assert self.contention is not None
        speed = self.platform.arrays.speed
        factors = {node: self.contention.factors(node, self.state) for node in nodes}
        affected = {i: r for node in factors for i, r in self.state.running_on[node].items()}
        for index, run in affected.items():
            run.remaining_ops = max(0.0, run.remaining_ops - run.rate * (now - run.last_update))
            run.last_update = now
            node_rates = []
            for node, _ in run.allocation:
                f = factors[node] if node in factors else self.contention.factors(node, self.state)
                node_rates.append(speed[node] * f.get(index, 1.0))
            run.rate = run.job.ipc * float(min(node_rates))
            run.version += 1
            self._push(run.expected_end(), _FINISH, index, run.version)

    # ---- bookkeeping ----------------------------------------------------------------------
    def _push(self, at: float, kind: int, job_index: int, version: int) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (at, self.seq, kind, job_index, version))

    def _record(self, t: float) -> None:
        queued = len(self.pending) + self.queued_locally
        self.series.append(t, queued, len(self.state.running), self.state.total_busy_cores,
                           self.state.total_power)

    def _close(self, t_end: float, cut: bool) -> None:
        """Close the energy window and mark every job still alive as unfinished, with why."""
        self.state.close(t_end)
        jobs = self.workload.jobs
        for index in np.flatnonzero(self.job_state <= JobState.RUNNING).tolist():
            was = JobState(self.job_state[index])
            self.job_state[index] = JobState.UNFINISHED
            if not cut:
                self.reason[index] = "never started: the scheduler left it waiting"
            elif jobs[index].submit > self.horizon:
                self.reason[index] = "not submitted before the horizon"
            else:
                self.reason[index] = f"{was.name.lower()} at the horizon"

    def _result(self, t_end: float, wall: float) -> SimResult:
        measured = self.platform.has_power_model
        return SimResult(
            platform=self.platform, workload=self.workload, scheduler=self.scheduler.name,
            seed=self.seed, state=self.job_state, start=self.start_t, end=self.end_t,
            allocation=self.alloc, reason=self.reason,
            job_energy_j=self.job_energy if measured else None,
            node_energy_j=self.state.energy_j if measured else None,
            node_busy_core_seconds=self.state.busy_core_seconds,
            node_busy_seconds=self.state.busy_seconds, t0=self.workload.jobs[0].submit
            if self.workload.jobs else 0.0, t_end=t_end, timeseries=self.series,
            wall_seconds=wall, horizon=self.horizon)


def simulate(platform: Platform, workload: Workload, scheduler: Scheduler | OwnDriver,
             **options: object) -> SimResult:
    """Run one simulation (see :class:`Simulation` for the options). A policy that brings its
    own driver (:class:`OwnDriver`) runs there; it accepts the options it documents."""
    if isinstance(scheduler, OwnDriver):
        driven = {k: v for k, v in options.items() if k in _OWN_DRIVER_OPTIONS}
        check_run(workload, driven.get("seed", 0), driven.get("horizon"))
        return scheduler.simulate(platform, workload, **driven)  # type: ignore[arg-type]
    return Simulation(platform, workload, scheduler, **options).run()  # type: ignore[arg-type]


_OWN_DRIVER_OPTIONS = ("seed", "horizon", "strict", "progress")
