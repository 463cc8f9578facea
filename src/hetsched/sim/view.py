"""The read-only window a scheduler has on the simulation."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

import numpy as np

from hetsched.errors import SchedulerError
from hetsched.models.speed import SpeedModel
from hetsched.platform.model import Platform
from hetsched.sim.bookings import Booking, Bookings
from hetsched.sim.jobs import JobTable
from hetsched.sim.ondemand import ACTIVE, BOOTING, IDLE, INACTIVE
from hetsched.sim.reservations import Piece, Reservations
from hetsched.sim.resources import capacities, capacity, fits
from hetsched.sim.state import ClusterState, RunningJob
from hetsched.workload.model import Job


class _Submitted(Sequence[Job]):
    """The first ``known`` jobs of ``jobs``, read in place."""

    def __init__(self, jobs: Sequence[Job], known: int) -> None:
        self._jobs, self._known = jobs, known

    def __len__(self) -> int:
        return self._known

    def __getitem__(self, item):  # type: ignore[no-untyped-def]
        if isinstance(item, slice):
            return tuple(self._jobs[i] for i in range(*item.indices(self._known)))
        if not -self._known <= item < self._known:
            raise IndexError("job index out of range")
        return self._jobs[item % self._known]


def _readonly(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class Projector(Protocol):
    """What answers :meth:`ClusterView.project`: the run
    (:class:`~hetsched.sim.engine.Simulation`), which the view cannot import (the run imports
    the view)."""

    horizon: float | None

    def project(self, node: int, starts: Sequence[Job] = ()) -> dict[int, float]: ...


class ClusterView:
    """Live, read-only access to the engine's state (arrays reflect every change).

    ``free_slots`` counts the threads a node can still take (its available cores times its
    oversubscription, minus the threads running there); ``busy_cores`` the cores running at
    least one thread. ``free_cores`` and ``total_free_cores``, the names of earlier versions
    (a slot is a core without oversubscription), are aliases of ``free_slots`` and
    ``total_free_slots``."""

    def __init__(self, platform: Platform, state: ClusterState, jobs: JobTable,
                 clock: list[float], workload: Sequence[Job],
                 projector: Callable[[], Projector | None],
                 reservations: Reservations | None = None,
                 bookings: Bookings | None = None) -> None:
        self.platform = platform
        """The platform (``platform.arrays``: one numpy column per node attribute)."""
        self._reservations = reservations or Reservations(platform, ())
        self._bookings = Bookings() if bookings is None else bookings
        # reservations or bookings to check (read on every placement: a plain bool; the run
        # sets it on its first booking)
        self._reserved = bool(self._reservations) or bool(self._bookings)
        self._workload = workload
        self._projector = projector  # the run's what-if, held weakly (the run owns the view)
        self.speed = SpeedModel(platform)
        """Jobs' run times and estimates on the platform's nodes."""
        self._state = state
        self._clock = clock
        self._jobs = jobs
        self.pending: Mapping[int, Job] = MappingProxyType(jobs.pending)
        """Submitted jobs not yet started nor placed in a local queue, in submission order."""
        self.free_slots = _readonly(state.free_slots)
        """Per node: the threads it can still take now (its available cores times its
        oversubscription, less the threads running there)."""
        self.free_cores = self.free_slots
        """Alias of :attr:`free_slots` (its name in earlier versions)."""
        self.free_mem = _readonly(state.free_mem)
        """Per node: the memory not held by running jobs (MB)."""
        self.free_disk = _readonly(state.free_disk)
        """Per node: the disk not held by running jobs (MB)."""
        self.used_mem = _readonly(state.used_mem)
        """Per node: the memory running jobs hold (MB)."""
        self.used_mem_bw = _readonly(state.used_mem_bw)
        """Per node: the memory bandwidth its running tasks use (GB/s)."""
        self.busy_cores = _readonly(state.busy_cores)
        """Per node: the cores running at least one thread."""
        self.node_index = _readonly(np.arange(len(platform.nodes)))
        """``0, 1, ..., n - 1``: the node indexes, for masks and ``np.where``."""

    @property
    def now(self) -> float:
        """The current simulated time (s)."""
        return self._clock[0]

    @property
    def horizon(self) -> float | None:
        """The run's horizon (when it stops: s), ``None`` without one: what a policy that plans
        ahead may bound its search with."""
        projector = self._projector()
        return None if projector is None else projector.horizon

    @property
    def all_submitted(self) -> bool:
        """Whether every job of the workload has been submitted (none is still to come). A
        policy that reads it knows a little of the future; a model of a server that knows its
        job list may need it (ds-sim examines its global queue only then)."""
        return self._jobs.all_submitted

    @property
    def submitted(self) -> Sequence[Job]:
        """Every job submitted so far, in submission order: those waiting for their parents
        (held) too, so a policy can plan a workflow ahead (a static plan, HEFT's). A view of
        the workload, not a copy: ``len`` costs nothing, a slice copies only itself."""
        return _Submitted(self._workload, self._jobs.known)

    def ended(self, job: Job) -> bool:
        """Whether ``job`` (submitted) has ended: finished, killed, failed or rejected (also
        when a parent's end rejected it without its ever being released)."""
        return not self._jobs.alive_at(job.index)

    @property
    def total_free_slots(self) -> int:
        """Free slots over the whole platform, kept as a count: ``free_slots`` summed, a node
        whose availability shrank below the threads it runs (negative ``free_slots``)
        counting 0."""
        return self._state.total_free

    total_free_cores = total_free_slots

    @property
    def overcommitted(self) -> bool:
        """Whether some node's availability shrank below the threads it runs (its
        ``free_slots`` negative): ``free_slots`` is never below 0 otherwise."""
        return bool(self._state.short)

    @property
    def running(self) -> Mapping[int, RunningJob]:
        """The running jobs, by job index."""
        return MappingProxyType(self._state.running)

    def running_on(self, node: int) -> Mapping[int, RunningJob]:
        """The jobs running on ``node``, by job index."""
        return MappingProxyType(self._state.jobs_on(node))

    def node_state(self, node: int) -> str:
        """``inactive`` (an on-demand node not started yet), ``booting``, ``idle`` or
        ``active`` (some job holds it)."""
        state = self._state
        if node in state.booting:
            return BOOTING
        if state.is_off(node):
            return INACTIVE
        return ACTIVE if state.jobs_on(node) else IDLE

    def up_since(self, node: int) -> float:
        """When ``node`` came (or, booting, will come) up: its boot completion for an
        on-demand node (NaN while inactive), the run's start for the others. Jobs started on
        a booting node hold their resources and start at this time (their ``start``)."""
        return self._state.up_since[node]

    @property
    def bookings(self) -> Mapping[int, Booking]:
        """The windows booked (``Reserve``) whose jobs have not started, by job index."""
        return MappingProxyType(self._bookings.by_job)

    def local_queue(self, node: int) -> tuple[Job, ...]:
        """The jobs waiting in ``node``'s local queue (``Enqueue``), first first."""
        return tuple(self._state.local_queues.get(node, ()))

    def local_queue_length(self, node: int) -> int:
        """How many jobs wait in ``node``'s local queue."""
        return len(self._state.local_queues.get(node, ()))

    def estimated_end(self, run: RunningJob) -> float:
        """Estimated end of a running job; a job past its estimate is expected to end now."""
        return max(run.est_end, self.now)

    def first_processor(self, node: int) -> int:
        """The global index of ``node``'s first processor (``RunningJob.shares`` name
        processors by global index)."""
        return self._state.layout.first[node]

    def processor_threads(self, node: int) -> tuple[int, ...]:
        """Threads running on each processor of ``node`` (in its node type's order)."""
        layout = self._state.layout
        first = layout.first[node]
        return tuple(self._state.threads[first:first + layout.count[node]])

    def fits(self, job: Job, node: int, cores: int | None = None) -> bool:
        """Whether ``cores`` (default: all tasks of ``job``) fit on ``node`` right now and,
        beside the reservations and bookings, until the job's reserved end there
        (:meth:`free_slots_for`)."""
        state = self._state
        k = job.ntasks if cores is None else cores
        return fits(job, k, node, state.free_slots, state.free_mem, state.free_disk) and (
            not self._reserved or k <= self._room(job, node))

    def free_slots_for(self, job: Job, longest: bool = False) -> np.ndarray:
        """``free_slots``, less on each node what reservations ahead take before ``job``'s
        reserved end there: its start (after the node's boot, if it must boot) plus its
        estimate on that node, or for a job of several nodes its longest estimate on any node
        (its end on any allocation). What a policy places ``job`` with; ``free_slots`` itself
        on a platform without reservations. ``longest``: the longest estimate on every node,
        for a policy that may place a one-node job's tasks on several nodes."""
        if not self._reserved:
            return self.free_slots
        free = self._state.free_slots.copy()
        spanning = self._spanning_end(job) if job.nodes != 1 or longest else None
        for node in {*self._reservations.steps, *self._bookings.on_node}:
            until = self._end_on(job, node) if spanning is None else spanning
            free[node] = min(free[node], self._room_until(node, until))
        return free

    def _room(self, job: Job, node: int) -> int:
        """The slots ``node`` keeps free from now to ``job``'s reserved end there."""
        return self._room_until(node, self._end_on(job, node) if job.nodes == 1
                                else self._spanning_end(job))

    def _end_on(self, job: Job, node: int) -> float:
        """A one-node job's reserved end on ``node``: its start there (after a boot) plus its
        estimate there."""
        return self.start_time(node) + self.speed.estimate(job, node)

    def _spanning_end(self, job: Job) -> float:
        """The reserved end of a job that may span nodes, on any allocation: its longest
        estimate after the last boot any node needs."""
        latest = max(map(self.start_time, range(len(self.platform.nodes)))) \
            if self.platform.has_on_demand else self.now
        return latest + float(self.speed.estimates(job).max())

    def _room_until(self, node: int, until: float) -> int:
        """The slots ``node`` keeps free from now to ``until``."""
        state, now = self._state, self.now
        return self._reservations.room(node, now, until, int(state.free_slots[node]),
                                       state.jobs_on(node),
                                       self._bookings.pieces(node, now, until))

    def reserved_ahead(self, until: float = math.inf) -> dict[int, list[Piece]]:
        """Per node with reservations still to change or bookings, the slots they take after
        now beyond those they hold now (``free_slots`` counts those), as ``(start, end,
        slots)`` pieces (negative slots: given back when a reservation in force ends; a booking
        is one piece over its window, from now once due); what a policy's own
        projection of free resources subtracts. Only the pieces that begin before ``until``:
        a projection then holds until that time."""
        now, bookings = self.now, self._bookings
        ahead = {node: self._reservations.ahead(node, now, until)
                 + bookings.pieces(node, now, until)
                 for node in {*self._reservations.steps, *bookings.on_node}}
        return {node: pieces for node, pieces in sorted(ahead.items()) if pieces}

    def start_time(self, node: int) -> float:
        """When a job started on ``node`` now would start: now, or at the node's boot
        completion (an on-demand node booting, or off: now plus its boot time)."""
        return self._state.start_time(node, self.now)

    def free_intervals(self, node: int, t0: float, t1: float) -> list[Piece]:
        """``node``'s free slots over ``[t0, t1)`` (from now at the earliest), as ``(start,
        end, free slots)`` pieces: its free slots now, less what reservations and bookings
        take as they begin, plus what running jobs give back at their estimated ends (one past
        its estimate is expected to end now) and reservations and bookings as they end."""
        state, now = self._state, self.now
        until = max(t1, now)
        pieces = self._reservations.profile(node, now, until, int(state.free_slots[node]),
                                            state.jobs_on(node),
                                            self._bookings.pieces(node, now, until))
        return [(max(a, t0), b, free) for a, b, free in pieces if b > t0 and a < t1]

    def project(self, node: int, starts: Sequence[Job] = ()) -> dict[int, float]:
        """What-if on ``node``: the predicted end (by job index) of every job running there and
        of each job of ``starts`` if it started there now with all its tasks, under the run's
        rules, the scheduler starting nothing else (:meth:`Simulation.project
        <hetsched.sim.engine.Simulation.project>`). Costs a step per job ending on the node,
        not a fork of the run, where the node's jobs depend on no other node."""
        projector = self._projector()
        if projector is None:
            raise SchedulerError("project(): the run this view belongs to is gone")
        return projector.project(node, starts)

    def fit_mask(self, job: Job, cores: int | None = None) -> np.ndarray:
        """Boolean mask of nodes where ``cores`` (default: all tasks) of ``job`` fit now and,
        beside the reservations, until its reserved end (:meth:`fits`)."""
        k = job.ntasks if cores is None else cores
        state = self._state
        return capacity(job, self.free_slots_for(job), state.free_mem, state.free_disk) >= k

    def fit_matrix(self, jobs: Sequence[Job],
                   cores: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """:meth:`fit_mask` of each of ``jobs`` at once: a boolean array of shape
        ``(len(jobs), nodes)`` whose row ``i`` holds the nodes where ``cores[i]`` (default: all
        its tasks) of ``jobs[i]`` fit now and, beside the reservations and bookings, until its
        reserved end there (:meth:`fits`, pair by pair). One numpy computation over every pair
        (an action mask over the first pending jobs and the nodes), not a call per pair; with
        reservations or bookings, :meth:`free_slots_for` per job first."""
        k = np.array([job.ntasks for job in jobs]) if cores is None else np.asarray(cores)
        if k.ndim != 1 or len(k) != len(jobs):
            raise SchedulerError(f"fit_matrix(): {k.size} core counts for {len(jobs)} jobs")
        state = self._state
        slots = np.array([self.free_slots_for(job) for job in jobs]) \
            if self._reserved and jobs else state.free_slots
        return capacities(jobs, slots, state.free_mem, state.free_disk) >= k[:, None]
