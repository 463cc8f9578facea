"""The read-only window a scheduler has on the simulation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

import numpy as np

from hetsched.errors import SchedulerError
from hetsched.models.speed import SpeedModel
from hetsched.platform.model import Platform
from hetsched.sim.jobs import JobTable
from hetsched.sim.ondemand import ACTIVE, BOOTING, IDLE, INACTIVE
from hetsched.sim.resources import capacity, fits
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
                 projector: Callable[[], Projector | None]) -> None:
        self.platform = platform
        self._workload = workload
        self._projector = projector  # the run's what-if, held weakly (the run owns the view)
        self.speed = SpeedModel(platform)
        self._state = state
        self._clock = clock
        self._jobs = jobs
        self.pending: Mapping[int, Job] = MappingProxyType(jobs.pending)
        """Submitted jobs not yet started nor placed in a local queue, in submission order."""
        self.free_slots = _readonly(state.free_slots)
        self.free_cores = self.free_slots
        self.free_mem = _readonly(state.free_mem)
        self.free_disk = _readonly(state.free_disk)
        self.used_mem = _readonly(state.used_mem)
        self.used_mem_bw = _readonly(state.used_mem_bw)
        self.busy_cores = _readonly(state.busy_cores)
        self.node_index = _readonly(np.arange(len(platform.nodes)))

    @property
    def now(self) -> float:
        return self._clock[0]

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

    @property
    def total_free_slots(self) -> int:
        """Free slots over the whole platform, kept as a count: ``free_slots`` summed, a node
        whose availability shrank below the threads it runs (negative ``free_slots``)
        counting 0."""
        return self._state.total_free

    total_free_cores = total_free_slots

    @property
    def running(self) -> Mapping[int, RunningJob]:
        return MappingProxyType(self._state.running)

    def running_on(self, node: int) -> Mapping[int, RunningJob]:
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

    def local_queue(self, node: int) -> tuple[Job, ...]:
        return tuple(self._state.local_queues.get(node, ()))

    def local_queue_length(self, node: int) -> int:
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
        """Whether ``cores`` (default: all tasks of ``job``) fit on ``node`` right now."""
        state = self._state
        return fits(job, job.ntasks if cores is None else cores, node, state.free_slots,
                    state.free_mem, state.free_disk)

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
        """Boolean mask of nodes where ``cores`` (default: all tasks) of ``job`` fit now."""
        k = job.ntasks if cores is None else cores
        state = self._state
        return capacity(job, state.free_slots, state.free_mem, state.free_disk) >= k
