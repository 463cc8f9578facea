"""The discrete-event engine. It owns all state; schedulers only answer with decisions.

A run is a loop of :meth:`Simulation.advance` (to the next instant at which the scheduler must
decide), :meth:`Simulation.apply` (its decisions) and, at the end, :meth:`Simulation.finish`.
:meth:`Simulation.run` is that loop with a scheduler; :meth:`Simulation.fork` copies the whole
mutable state so that a copy can be advanced under another policy.
"""

from __future__ import annotations

import heapq
import math
import time as wallclock
import weakref
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from hetsched.errors import ConfigError, InputError, SchedulerError
from hetsched.models.speed import rate as task_rate
from hetsched.platform.model import Failure, Platform
from hetsched.sim.booking_decisions import BookingDecisions
from hetsched.sim.bookings import Bookings
from hetsched.sim.protocol import (Decision, Dequeue, Enqueue, Events, Reject, Reserve,
                                   Scheduler, Start, WakeUp, run_name)
from hetsched.models import contention as models
from hetsched.sim.checks import check_run
from hetsched.models.contention import ContentionModel, Group
from hetsched.sim.dependencies import Dependencies
from hetsched.options import check_max_attempts, check_on_failure, check_walltime
from hetsched.sim.events import (AVAILABILITY, BOOKED, BOOT, FAILURE, FINISH, KILL,
                                 POWER_ON, RELEASE, REPAIR, SHARE_END, SUBMIT, Availability,
                                 EventQueue)
from hetsched.sim.failures import Failures
from hetsched.sim.interruptions import Interruptions
from hetsched.sim.jobs import (ALIVE, FAILED, FINISHED, HELD, KILLED, PENDING, QUEUED,
                               REJECTED, JobTable)
from hetsched.sim.rates import changed_rates, early_ends, node_wide, rerated
from hetsched.sim.reservations import Reservations
from hetsched.sim.resources import allocation_problem, infeasibility
from hetsched.sim.result import SimResult, TimeSeries
from hetsched.sim.run_end import RunEnd
from hetsched.sim.state import ClusterState, RunningJob, Share
from hetsched.sim.view import ClusterView
from hetsched.sim.what_if import WhatIf
from hetsched.workload.model import Job, Workload

ProgressCallback = Callable[[int, int], None]

#: A running job's ``version`` holds its attempt above this bit (the rate changes below), so
#: that no event of a killed attempt applies to the next one.
ATTEMPT_SHIFT = 32


_new = tuple.__new__
_new_object = object.__new__


class Step(NamedTuple):
    """What :meth:`Simulation.advance` returns: the instant and what happened then."""

    now: float
    events: Events


class Simulation(WhatIf, BookingDecisions, Interruptions, RunEnd):
    """One run of ``workload`` on ``platform``, driven by ``scheduler`` (:meth:`run`) or step
    by step by the caller (:meth:`advance` / :meth:`apply` / :meth:`finish`).

    Options: ``seed`` feeds the scheduler's generator and, independently, the contention
    model's (:func:`model_generator`); ``horizon`` stops the clock (jobs not
    done then are reported unfinished); ``strict`` turns a never-fitting job into an error
    instead of a rejection; ``contention`` names a contention model (``none``, ``irmasim``,
    ``deside``; default: the platform's) or gives one; ``per_event`` makes :meth:`advance`
    return after every single event instead of once per instant (so does a scheduler whose
    ``per_event`` is set); ``availability`` lists changes of node availability
    (:class:`~hetsched.sim.events.Availability`) beyond the platform's own
    (``Platform.availability``), applied when due (no start foresees them, unlike the
    platform's ``reservations``: :mod:`hetsched.sim.reservations`); ``failures`` lists node
    failures beyond the platform's own (``Platform.failures``; :mod:`hetsched.sim.failures`:
    the jobs on a failed node are killed); ``on_failure`` is what becomes of them: ``kill``
    (the default) ends them, state ``FAILED``; ``requeue`` sends them back to pending, to run
    again from scratch, until ``max_attempts`` attempts (``None``: no limit) were killed;
    ``walltime`` is the walltime rule: ``kill`` ends a job still running ``Job.walltime``
    seconds after its start (state ``KILLED``), ``ignore`` lets it run, ``auto`` (the
    default) kills for Batsim workloads (``metadata["format"]``) only; ``timeseries=False``
    records no time series
    (the result's is ``None``): up to a tenth quicker, for runs whose series nobody reads (a
    sweep's).

    Its parts live in modules of their own: what-if (:class:`~hetsched.sim.what_if.WhatIf`),
    bookings (:class:`~hetsched.sim.booking_decisions.BookingDecisions`), failures and
    walltimes (:class:`~hetsched.sim.interruptions.Interruptions`) and the end of a run
    (:class:`~hetsched.sim.run_end.RunEnd`); this module holds the events, the decisions and
    the jobs' life cycle.
    """

    def __init__(self, platform: Platform, workload: Workload,
                 scheduler: Scheduler | None = None, *, seed: int = 0,
                 horizon: float | None = None, strict: bool = False,
                 contention: str | ContentionModel | None = None,
                 progress: ProgressCallback | None = None, timeseries: bool = True,
                 per_event: bool = False, availability: Iterable[Availability] = (),
                 walltime: str = "auto", failures: Iterable[Failure] = (),
                 on_failure: str = "kill", max_attempts: int | None = None) -> None:
        self.platform = platform
        self.workload = workload
        self.scheduler = scheduler
        self.seed, self.horizon = check_run(workload, seed, horizon)
        if scheduler is not None:
            scheduler.check(platform, workload)
        self.strict = strict
        rule = check_walltime(walltime)
        self.kills = rule == "kill" or (rule == "auto"
                                        and workload.metadata.get("format") == "batsim")
        self.requeues = check_on_failure(on_failure) == "requeue"
        self.max_attempts = check_max_attempts(max_attempts)
        self.progress = progress
        self.record_timeseries = timeseries
        self.asked_per_event = per_event
        self.per_event = per_event or (scheduler is not None and scheduler.per_event)
        self.contention, self.contention_name = _contention_model(platform, workload,
                                                                  contention, self.seed)
        # a node-wide model re-rates a node when one of a job's shares there ends early
        self._share_ends = self.contention is not None and node_wide(self.contention)
        self.deps = Dependencies.of(workload)
        self._speed = platform.arrays.speed.tolist()
        self._types = [node.type.name for node in platform.nodes]  # what an ETC row names
        self._on_demand = platform.has_on_demand  # a start may have to boot nodes
        self._one_processor_each = all(c == 1 for c in platform.layout.count)
        self._never: dict[tuple[int, int, float, float, tuple[str, ...]], str | None] = {}
        self._one_node: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
        n = len(workload.jobs)
        self.t0 = workload.jobs[0].submit if n else 0.0
        # what a step changes, each part copied by a fork with its own copy()
        self.state = ClusterState(platform, self.t0)
        self.jobs = JobTable(self.deps.parent_count.tolist())
        self.events = EventQueue(workload.jobs)
        self.series = TimeSeries()
        self.clock = [self.t0]
        self.dirty: set[int] = set()  # processors whose threads changed this instant
        self.reservations = Reservations(platform, platform.reservations)
        self._reserved = bool(self.reservations)  # (read on every start: a plain bool)
        self.bookings = Bookings()  # the windows booked by Reserve, not started yet
        self._waiting: set[int] = set()  # booked jobs whose window began, not started yet
        self._booked_started: list[Job] = []  # booked jobs started at this instant
        self.view = ClusterView(platform, self.state, self.jobs, self.clock, workload.jobs,
                                weakref.ref(self), self.reservations, self.bookings)
        """The run's read-only view: what the scheduler reads, and a stepping caller too."""
        self._times_on = self.view.speed.times_on
        self.fresh: set[int] = set()  # jobs started this instant (their finish not pushed)
        self.last_end = self.t0
        self.stopped = False
        self.interrupted = False
        self.forked = False
        self.open = False
        self.started = False
        self._rng: np.random.Generator | None = np.random.default_rng(self.seed)
        self._rng_state: dict | None = None  # a fork's generator, until it needs one
        self.wall = 0.0
        changes = (*platform.availability, *availability)
        for change in changes:
            self._check_availability(change)
        if self.reservations:
            changes = tuple(self.reservations.changes(platform, changes))
        for change in changes:
            self.events.push(change.time, AVAILABILITY, change.node, change.cores)
        self.failures = Failures(platform, (*platform.failures, *failures), changes)
        for failure in self.failures.failures:
            self.events.push(failure.start, FAILURE, failure.node)
            if failure.end < math.inf:
                self.events.push(failure.end, REPAIR, failure.node)
        self._last_change: dict[int, float] = {}  # each node's last availability change
        for change in changes:
            self._last_change[change.node] = max(change.time,
                                                 self._last_change.get(change.node, -math.inf))
        self.events.push_submission()

    # ---- stepping -------------------------------------------------------------------------
    def advance(self) -> Step | None:
        """Run to the next instant at which something happened (or, with ``per_event``, the
        next event) and return it; ``None`` once the run is over (no event left, or the next
        one lies beyond the horizon)."""
        began = wallclock.perf_counter()
        step = self._advance()
        self.wall += wallclock.perf_counter() - began
        return step

    def apply(self, decisions: Iterable[Decision] | None) -> None:
        """Apply decisions now, each as soon as it is produced (a generator sees the state
        changed by its earlier decisions)."""
        if not self.open:
            raise SchedulerError(f"{self._name}: decisions can only be applied after advance() "
                                 "returned an instant")
        began = wallclock.perf_counter()
        self._apply(decisions)
        self.wall += wallclock.perf_counter() - began

    def _advance(self) -> Step | None:
        self._begin()
        events = self._next()
        return None if events is None else _new(Step, (self.clock[0], events))

    def _next(self) -> Events | None:
        """Close the open instant, then handle the events of the next instant at which
        something happened: what did (at ``self.clock[0]``), or ``None`` once the run is
        over."""
        self._close_instant()  # (may push finishes: the instant's rates are known now)
        heap = self.events.heap
        while heap:
            t = heap[0][0]
            if self.horizon is not None and t > self.horizon:
                self.stopped = True
                break
            self.clock[0] = t
            events = self._pop_instant(t)
            if events is not None:
                return events
        return None

    def _apply(self, decisions: Iterable[Decision] | None) -> None:
        now = self.clock[0]
        pending, start = self.jobs.pending, self._start
        try:
            decisions = iter(decisions or ())
        except TypeError:
            raise SchedulerError(f"{self._name}: decide() returned {decisions!r}, not an "
                                 "iterable of decisions (or None)") from None
        for decision in decisions:
            kind = type(decision)
            if kind is Start:
                job = decision.job
                if pending.pop(job.index, None) is None:
                    self._not_pending(job, "start")
                start(job, decision.allocation, now, decision.any_nodes)
            elif kind is Enqueue:
                self._enqueue(decision, now)
            elif kind is Dequeue:
                self._dequeue(decision.job)
            elif kind is WakeUp:
                self._wake_at(decision.time, now)
            elif kind is Reject:
                self._take_pending(decision.job, "reject")
                self._reject(decision.job, decision.reason)
            elif kind is Reserve:
                self._reserve(decision, now)
            else:
                raise SchedulerError(f"{self._name}: unknown decision {decision!r}")

    def finish(self) -> SimResult:
        """End the run and return its result. Called before the events ran out, it stops the
        run at the current time (jobs still alive end unfinished, with the reason)."""
        self._begin()
        self._close_instant()
        if self.events.next_time() < math.inf and not self.stopped:
            self.stopped = self.interrupted = True
        t_end = max(self.horizon or self.clock[0], self.clock[0]) if self.stopped \
            else self.last_end
        self._close(t_end)
        return self._result(t_end)

    def run(self) -> SimResult:
        """Run to the end under the scheduler."""
        if self.scheduler is None:
            raise ConfigError("Simulation.run() needs a scheduler")
        began = wallclock.perf_counter()
        self._begin()
        decide, apply, next_events, clock = self.scheduler.decide, self._apply, self._next, \
            self.clock
        while (events := next_events()) is not None:
            apply(decide(clock[0], events))
        self.wall += wallclock.perf_counter() - began
        return self.finish()

    def fork(self, scheduler: Scheduler | None = None,
             keep_future: bool = False) -> "Simulation":
        """An independent copy of the whole mutable state, sharing the immutable platform,
        workload and running-job records (and, until either changes them, the per-job state,
        the time series and each node's running jobs). It knows only the jobs submitted so
        far, unless ``keep_future``: then it keeps everything the run still has ahead (the
        submissions to come, failures, availability changes, wake-ups, bookings), so that it
        runs on exactly as this run would (a checkpoint). Its scheduler, if given, is reset
        on the copy with a copy of this run's generator; it reports no progress."""
        other = object.__new__(Simulation)
        other.__dict__.update(self.__dict__)  # the options and the immutable inputs
        other.state = self.state.copy()
        other.jobs = self.jobs.copy()
        if keep_future:
            other.events = self.events.copy()
        else:
            other.jobs.expected = other.jobs.known  # no submission is still to come
            other.events = self.events.without_submission()
            other.forked = True  # (the jobs it never sees end "submitted after the fork")
        other.series = self.series.copy()
        other.clock = [self.clock[0]]
        other.dirty = set(self.dirty)
        other.bookings = self.bookings.copy()
        other._waiting, other._booked_started = set(self._waiting), []
        other.view = ClusterView(self.platform, other.state, other.jobs, other.clock,
                                 self.workload.jobs, weakref.ref(other), self.reservations,
                                 other.bookings)
        other.view._reserved = self._reserved
        other.fresh = set(self.fresh)
        other._rng, other._rng_state = None, self._generator_state()
        other.scheduler = scheduler
        other.per_event = self.asked_per_event or (scheduler is not None and scheduler.per_event)
        other.progress = None
        other.wall = 0.0
        if scheduler is not None:
            scheduler.reset(other.view, other.rng)
        return other

    @property
    def known(self) -> int:
        """How many jobs have been submitted so far."""
        return self.jobs.known

    @property
    def rng(self) -> np.random.Generator:
        """The generator the scheduler draws from (a fork's is made when first needed: one
        without a scheduler draws nothing)."""
        if self._rng is None:
            assert self._rng_state is not None
            self._rng = np.random.default_rng(0)  # any seed: its state is replaced
            self._rng.bit_generator.state = self._rng_state
        return self._rng

    def _generator_state(self) -> dict:
        """The generator's state now (what a fork's generator starts from)."""
        return self._rng.bit_generator.state if self._rng is not None else self._rng_state

    @property
    def _name(self) -> str:
        return run_name(self.scheduler) if self.scheduler is not None else "caller"

    def _begin(self) -> None:
        if not self.started:
            self.started = True
            if self.scheduler is not None:
                self.scheduler.reset(self.view, self.rng)

    # ---- events ---------------------------------------------------------------------------
    def _check_availability(self, change: Availability) -> None:
        cores = self.platform.nodes[change.node].type.cores \
            if 0 <= change.node < len(self.platform.nodes) else -1
        if not math.isfinite(change.time) or not 0 <= change.cores <= cores:
            raise ConfigError(f"availability change {change}: needs a finite time, a node "
                              f"index and 0..{max(cores, 0)} cores")

    def _pop_instant(self, t: float) -> Events | None:
        """Handle the events due at ``t`` (only the first one with ``per_event``); what
        happened, or ``None`` when nothing the scheduler must hear of did."""
        finished: list[Job] = []
        released: list[Job] = []
        submitted: list[Job] = []
        available: list[int] = []
        booted: tuple[int, ...] = ()  # only on-demand platforms have boots
        woken = False
        touched: set[int] = set()
        heap, running, jobs = self.events.heap, self.state.running, self.workload.jobs
        while heap and heap[0][0] == t:
            _, kind, _, index, version = heapq.heappop(heap)
            if kind == FINISH:
                run = running.get(index)
                if run is not None and run.version == version:
                    self._finish(run, t)
                    finished.append(run.job)
                    if self.jobs.queued_on or self._waiting:
                        touched.update([node for node, _ in run.allocation])
                    if self.per_event:
                        break
                continue
            if touched:  # every finish of the instant is in: start the local-queue heads
                self._drain(touched, t)
                touched.clear()
            if kind == SUBMIT:
                self.events.push_submission()
                self.jobs.known += 1
                if self._admit(jobs[index]):
                    submitted.append(jobs[index])
            elif kind == AVAILABILITY:
                if not self.failures.down(index, t):  # else it applies at the repair
                    self.state.set_available(index, version)
                    self._drain((index,), t)
                available.append(index)
            elif kind == FAILURE:
                killed, requeued = self._fail(index, t)
                finished.extend(killed)
                submitted.extend(requeued)  # pending again, as if submitted now
                available.append(index)
            elif kind == REPAIR:
                if not self.failures.down(index, t):  # no other failure of it in force
                    self.state.set_available(index, self.failures.capacity(index, t))
                    self._drain((index,), t)
                available.append(index)
            elif kind == POWER_ON:
                self._power_on(index, t)
            elif kind == BOOKED:
                booking = self.bookings.by_job.get(index)
                if booking is not None and booking.start == t:  # (else cancelled or moved)
                    self._start_booked(booking, t)
            elif kind == RELEASE:
                self.jobs.set_state(index, PENDING)
                self.jobs.pending[index] = jobs[index]
                released.append(jobs[index])
            elif kind == KILL:
                run = running.get(index)
                if run is None or run.version >> ATTEMPT_SHIFT != version >> ATTEMPT_SHIFT:
                    continue  # it ended before its walltime (or this attempt was killed)
                self._kill(run, t)
                finished.append(run.job)
                if self.per_event:
                    break
                continue
            elif kind == BOOT:
                for run in self.state.booted(index):  # threads placed now the node is up
                    self._run(replace(run, shares=self._shares(run.job, run.allocation, t)), t)
                booted += (index,)
            elif kind == SHARE_END:
                self._share_ended(index, version, t)
            else:
                self.events.wakes.discard(t)
                woken = True
            if self.per_event and (released or submitted or available or woken or booted):
                break
        if touched:
            self._drain(touched, t)
        started: tuple[Job, ...] = ()
        if self._booked_started:
            started, self._booked_started = tuple(self._booked_started), []
        if not (finished or submitted or released or available or woken or booted or started):
            if self.dirty:  # only shares ended: their nodes' new rates start now all the same
                self._rerate(t)
            return None
        self.open = True
        # Events(...) without the NamedTuple's Python __new__ (once per instant)
        return _new(Events, (tuple(submitted) if submitted else (),
                             tuple(finished) if finished else (), woken,
                             tuple(released) if released else (),
                             tuple(available) if available else (), booted, started))

    def _close_instant(self) -> None:
        """What follows the decisions of an instant: rates of the nodes that changed, then
        the time-series row."""
        if not self.open:
            return
        self.open = False
        now = self.clock[0]
        if self.dirty:
            self._rerate(now)
        if self.record_timeseries:
            state = self.state
            held = state.held_count  # started on a booting node: waiting, not running yet
            waiting = len(self.jobs.pending) + len(self.jobs.queued_on) + held + len(
                self.bookings.by_job)
            self.series.append(now, waiting,
                               len(state.running) - held, state.total_busy_cores,
                               state.total_power)

    def _admit(self, job: Job) -> bool:
        """A submitted job becomes pending (True), waits for its parents, or is rejected."""
        jobs = self.jobs
        if job.parents and jobs.state(job.index) == REJECTED:
            return False  # a parent was rejected before it arrived
        # what infeasibility() reads of a job (an ETC row: the types it names)
        shape = (job.ntasks, job.nodes, job.job_memory_mb, job.job_disk_mb,
                 job.etc and tuple(name for name, _ in job.etc))
        if shape not in self._never:
            self._never[shape] = infeasibility(job, self.platform)
        reason = self._never[shape]
        if reason is not None:
            if self.strict:
                raise InputError(self.workload.source, reason, record=f"job '{job.id}'")
            self._reject(job, reason)
            return False
        if job.parents and jobs.unmet(job.index):
            jobs.set_state(job.index, HELD)
            return False
        jobs.pending[job.index] = job
        return True

    # ---- decisions ------------------------------------------------------------------------
    def _take_pending(self, job: Job, what: str) -> None:
        if self.jobs.pending.pop(job.index, None) is None:
            self._not_pending(job, what)

    def _not_pending(self, job: Job, what: str) -> None:
        raise SchedulerError(f"{self._name}: cannot {what} job '{job.id}': it is not pending")

    def _enqueue(self, decision: Enqueue, now: float) -> None:
        job, node = decision.job, int(decision.node)
        if job.nodes != 1 or not 0 <= node < len(self.platform.nodes):
            raise SchedulerError(f"{self._name}: cannot queue job '{job.id}' on node "
                                 f"{node}: local queues take single-node jobs on valid nodes")
        a = self.platform.arrays
        if allocation_problem(job, [node], [job.ntasks], a.slots, a.memory_mb, a.disk_mb):
            raise SchedulerError(f"{self._name}: job '{job.id}' queued on node "
                                 f"{node}, which can never hold it (cores, memory or disk)")
        self._take_pending(job, "queue")
        self.jobs.set_state(job.index, QUEUED)
        self.state.queue(node).append(job)
        self.jobs.queued_on[job.index] = node
        self._drain((node,), now)

    def _dequeue(self, job: Job) -> None:
        """Out of its local queue, or its booking cancelled: back to pending, keeping the
        pending jobs in submission order."""
        jobs = self.jobs
        node = jobs.queued_on.pop(job.index, None)
        if job.index in self.bookings.by_job:
            self.bookings.remove(job.index)
            self._waiting.discard(job.index)
        elif node is None:
            raise SchedulerError(f"{self._name}: cannot dequeue job '{job.id}': "
                                 f"it waits in no local queue and has no booking")
        else:
            queue = self.state.local_queues[node]
            queue.remove(job)
            if not queue:
                del self.state.local_queues[node]
        jobs.set_state(job.index, PENDING)
        items = sorted([*jobs.pending.items(), (job.index, job)])
        jobs.pending.clear()
        jobs.pending.update(items)

    def _wake_at(self, at: float, now: float) -> None:
        """Wake-ups in the past, or already asked for, are ignored. One at ``now`` comes after
        every event still due now (its kind is handled last)."""
        if at >= now:
            self.events.push_wake(at)

    def _drain(self, nodes: Iterable[int], now: float) -> None:
        """Start the booked jobs waiting for ``nodes`` (in booking order) that fit now, then
        the local-queue heads that fit there (in node order)."""
        if self._waiting:
            nodes = set(nodes)
            for booking in self.bookings.waiting_on(self._waiting, nodes):
                self._start_booked(booking, now)
        if not self.jobs.queued_on:
            return
        for node in sorted(nodes):
            queue = self.state.local_queues.get(node)
            if not queue:
                continue
            while queue and self.state.fits(node, queue[0].ntasks, queue[0]) and not (
                    self._reserved and self._overlap(queue[0], [node], [queue[0].ntasks], now)):
                job = queue.popleft()
                del self.jobs.queued_on[job.index]
                self._start(job, ((node, job.ntasks),), now, checked=True)
            if not queue:
                del self.state.local_queues[node]

    # ---- job life cycle -------------------------------------------------------------------
    def _start(self, job: Job, allocation: Iterable[tuple[int, int]], now: float,
               any_nodes: bool = False, checked: bool = False) -> None:
        """Start ``job`` on ``allocation`` (checked first unless the engine itself just found
        that it fits: ``checked``)."""
        if type(allocation) is tuple and len(allocation) == 1:  # the common case, quicker
            (node, count), = allocation
            pair = int(node), int(count)
            pairs = self._one_node.get(pair)  # one tuple per (node, count): jobs keep it
            if pairs is None:
                pairs = self._one_node[pair] = (pair,)
            node, count = pair
            nodes, cores = [node], [count]
        else:
            pairs = tuple([(int(n), int(c)) for n, c in allocation])
            nodes = [n for n, _ in pairs]
            cores = [c for _, c in pairs]
        state = self.state
        problem = None if checked else allocation_problem(
            job, nodes, cores, state.free_slots, state.free_mem, state.free_disk, any_nodes)
        if self._reserved and not (checked or problem):
            problem = self._overlap(job, nodes, cores, now)
        if problem:
            raise SchedulerError(f"{self._name}: start of job '{job.id}' {problem}")
        wait = self._boot_wait(nodes, now) if self._on_demand else -1
        at = now if wait < 0 else state.up_since[wait]
        # RunningJob(...) without the dataclass's Python __init__ (once per job)
        run = _new_object(RunningJob)
        run.job, run.allocation, run.start = job, pairs, at
        requeued = self.jobs.requeued
        # a requeued job's attempt: versions no event of its killed attempts carries
        run.version = requeued[job.index].killed << ATTEMPT_SHIFT \
            if requeued and job.index in requeued else 0
        duration, guess = self._times_on(job, nodes)
        run.est_end = at + guess
        run.end = at + duration
        self.jobs.start(job.index, at, pairs)
        if wait < 0:
            run.shares = self._shares(job, pairs, at)
            self._run(run, now)
        else:
            run.shares = ()
            state.hold(run, wait)

    def _run(self, run: RunningJob, now: float) -> None:
        """``run``'s threads start now: they take their cores and its end is scheduled."""
        self.state.occupy(run, now)
        if self.contention is None:
            nodes = run.allocation
            self.events.push_finish(run.end, nodes[0][0] if len(nodes) == 1 else
                                    min(node for node, _ in nodes), run.job.index,
                                    run.version)
        else:  # its finish event is pushed once the instant's rates are known
            self.dirty.update(share.processor for share in run.shares)
            self.fresh.add(run.job.index)
        if self.kills and run.job.walltime is not None:
            limit = run.start + run.job.walltime
            if self.contention is not None or limit < run.end:  # else it ends first
                self.events.push(limit, KILL, run.job.index, run.version)

    def _power_on(self, node: int, now: float) -> None:
        """Boot ``node`` now if it is off (it is up after its boot time)."""
        if self.state.is_off(node):
            up = now + self.platform.nodes[node].type.boot_time
            self.state.boot(node, up)
            self.events.push(up, BOOT, node)

    def _boot_wait(self, nodes: list[int], now: float) -> int:
        """Boot the switched-off nodes among ``nodes``; the node whose boot a job started on
        them waits for (the last one up), or -1 when every node is up."""
        state = self.state
        wait = -1
        for node in nodes:
            self._power_on(node, now)
            if node in state.booting and (wait < 0 or state.up_since[node] > state.up_since[wait]):
                wait = node
        return wait

    def _shares(self, job: Job, pairs: tuple[tuple[int, int], ...],
                now: float) -> tuple[Share, ...]:
        """The job's threads per processor of each node, at uncontended rates."""
        layout, ops, speed, types = self.state.layout, job.req_ops, self._speed, self._types
        shares = []
        if self.contention is None and self._one_processor_each:  # the common case, hot
            first = layout.first
            for node, count in pairs:  # Share(...) without the dataclass's Python __init__
                share = _new_object(Share)
                share.node, share.processor, share.threads = node, first[node], count
                share.remaining, share.since = ops, now
                share.rate = task_rate(job, speed[node], types[node])
                share.group = None
                shares.append(share)
            return tuple(shares)
        for node, count in pairs:
            rate = task_rate(job, speed[node], types[node])
            shares.extend([Share(node=node, processor=proc, threads=threads, remaining=ops,
                                 rate=rate, since=now,
                                 group=Group(job, proc - layout.first[node], threads, ops / rate)
                                 if self.contention is not None else None)
                           for proc, threads in self.state.assign(node, count)])
        return tuple(shares)

    def _finish(self, run: RunningJob, now: float, end_state: int = FINISHED) -> None:
        index = run.job.index
        self.state.release(run, now)
        self.jobs.end(index, end_state, now, self._job_energy(run, now))
        self.last_end = now
        if self.contention is not None:
            self.dirty.update(share.processor for share in run.shares)
        if self.progress is not None:
            self._report_progress()
        if not self.deps.children or end_state != FINISHED:
            return
        jobs = self.jobs
        for child in self.deps.children.get(index, ()):
            if not jobs.parent_done(child) and jobs.state(child) == HELD:
                self.events.push(now, RELEASE, child)

    def _share_ended(self, index: int, version: int, now: float) -> None:
        """A share of a running job has done its work before the job's end (an event pushed
        by :meth:`_rerate` under a node-wide model; stale once the job's rates changed): its
        processors are marked, so that its node is re-rated now without it."""
        run = self.state.running.get(index)
        if run is not None and run.version == version:
            self.dirty.update(share.processor for share in run.shares if share.end() == now)

    def _job_energy(self, run: RunningJob, now: float) -> float:
        """Dynamic power of the job's cores plus its core-share of each processor's static
        power, over its run time."""
        layout = self.state.layout
        dynamic, static, cores = layout.dynamic_w_per_core, layout.static_w, layout.cores
        watts = 0.0
        for share in run.shares:
            proc = share.processor
            watts += (dynamic[proc] + static[proc] / cores[proc]) * share.threads
        return watts * (now - run.start)

    def _reject(self, job: Job, reason: str) -> None:
        self.jobs.reject(job.index, reason)
        self._report_progress()
        self._reject_descendants(job.index)

    def _reject_descendants(self, ancestor: int) -> None:
        workload, jobs = self.workload.jobs, self.jobs
        for index, parent in self.deps.descendants(ancestor):
            if jobs.state(index) in ALIVE:
                jobs.pending.pop(index, None)
                what = "killed" if jobs.state(parent) in (KILLED, FAILED) else "rejected"
                jobs.reject(index, f"parent '{workload[parent].id}' was {what}: "
                                   f"{jobs.reason(parent)}")
                self._report_progress()

    def _report_progress(self) -> None:
        if self.progress is not None:
            self.progress(self.jobs.done, len(self.workload.jobs))

    def _rerate(self, now: float) -> None:
        """New rates for the jobs on the processors (or nodes) whose threads changed at
        ``now``; a job whose rates did not change keeps its finish event."""
        assert self.contention is not None
        rates = changed_rates(self.state, self.contention, self._speed, self.dirty, now)
        self.dirty.clear()
        fresh, self.fresh = self.fresh, set()
        for index in sorted(rates.keys() | fresh):
            run = self.state.running[index]
            if index in rates:
                run = rerated(run, rates[index], now)
                self.state.store(run)
            self.events.push_finish(run.end, min(node for node, _ in run.allocation), index,
                                    run.version)
            if self._share_ends:
                for end in early_ends(run, now):
                    self.events.push(end, SHARE_END, index, run.version)

def model_generator(seed: int) -> np.random.Generator:
    """The contention model's generator in a run of ``seed``: from the first child of the
    seed's ``SeedSequence``, a stream independent of the scheduler's (``default_rng(seed)``)."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def _contention_model(platform: Platform, workload: Workload, chosen: str | ContentionModel |
                      None, seed: int) -> tuple[ContentionModel | None, str]:
    """The model a run uses, bound to the run when it binds (``bind``: its draws), and its
    name; the model is ``None`` when it can never change a rate (the ``none`` model without
    oversubscription, IRMaSim's without memory traffic...): then finish times are fixed at
    start."""
    if chosen is not None and not isinstance(chosen, str):
        model = chosen
    else:
        name = platform.contention if chosen is None else chosen
        params = dict(platform.contention_params) if name == platform.contention else {}
        model = models.create(name, params)
    bind = getattr(model, "bind", None)
    if bind is not None:
        model = bind(platform, workload, model_generator(seed))
    return (None if models.inert(model, platform, workload) else model), model.name


def simulate(platform: Platform, workload: Workload, scheduler: Scheduler,
             **options: object) -> SimResult:
    """Run one simulation (see :class:`Simulation` for the options)."""
    return Simulation(platform, workload, scheduler, **options).run()  # type: ignore[arg-type]
