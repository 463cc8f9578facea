"""The scheduler interface: what a policy is told, what it may read, what it may answer.

A scheduler is called once per distinct event time with the events of that instant
(jobs submitted, jobs finished, whether a wake-up it asked for fired) and a read-only
:class:`~hetsched.sim.view.ClusterView`. It answers with an iterable of decisions. The engine
applies each decision as soon as it is produced, so a scheduler written as a generator sees
the state already updated by its previous decisions (free cores, pending jobs).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Union

import numpy as np

from hetsched.workload.model import Job

if TYPE_CHECKING:
    from hetsched.platform.model import Platform
    from hetsched.sim.result import SimResult
    from hetsched.sim.view import ClusterView
    from hetsched.workload.model import Workload


class Start(NamedTuple):
    """Start ``job`` now on ``allocation``: pairs ``(node index, cores on that node)``.

    ``any_nodes`` lifts the job's node count: its tasks may go to any nodes in any numbers
    (IRMaSim's Minimal manager places tasks that way, ignoring the job's ``nodes``).
    """

    job: Job
    allocation: tuple[tuple[int, int], ...]
    any_nodes: bool = False

    @staticmethod
    def on(job: Job, node: int) -> "Start":
        """All tasks of ``job`` on one node."""
        return Start(job, ((int(node), job.ntasks),))


class Enqueue(NamedTuple):
    """Append ``job`` to ``node``'s local FIFO queue; the engine starts it there when it fits
    and every job ahead of it has started."""

    job: Job
    node: int


class Dequeue(NamedTuple):
    """Take ``job`` back out of the local queue it waits in (it becomes pending again)."""

    job: Job


class WakeUp(NamedTuple):
    """Call the scheduler again at ``time`` even if nothing else happens."""

    time: float


class Reject(NamedTuple):
    job: Job
    reason: str


Decision = Union[Start, Enqueue, Dequeue, WakeUp, Reject]


class Events(NamedTuple):
    """What happened at the current instant: jobs ``submitted`` (now pending), jobs
    ``finished``, whether a wake-up fired, jobs ``released`` (pending now that their last
    parent finished) and nodes whose availability changed (``available``)."""

    submitted: tuple[Job, ...] = ()
    finished: tuple[Job, ...] = ()
    woken: bool = False
    released: tuple[Job, ...] = ()
    available: tuple[int, ...] = ()

    @property
    def arrived(self) -> tuple[Job, ...]:
        """The jobs that became pending now: submitted ones, then released ones."""
        return self.submitted + self.released if self.released else self.submitted


class Scheduler(ABC):
    """Base of every policy. Subclasses set ``name`` and implement :meth:`decide`."""

    name: ClassVar[str] = "scheduler"
    description: ClassVar[str] = ""

    def reset(self, view: "ClusterView", rng: np.random.Generator) -> None:
        """Called once before a simulation; keep references to ``view`` and ``rng`` here."""
        self.view = view
        self.rng = rng

    @abstractmethod
    def decide(self, now: float, events: Events) -> Iterable[Decision]:
        """Answer the events of instant ``now`` with decisions (read state from ``self.view``)."""


class OwnDriver(ABC):
    """A policy that needs its own simulation driver instead of the event engine, because it
    reproduces another simulator's semantics exactly (ds-sim's server model, see
    docs/dssim.md). :func:`hetsched.sim.engine.simulate` hands such a policy the whole run."""

    name: ClassVar[str] = "driven"
    description: ClassVar[str] = ""

    @abstractmethod
    def simulate(self, platform: "Platform", workload: "Workload", *, seed: int = 0,
                 horizon: float | None = None, strict: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> "SimResult":
        """Run ``workload`` on ``platform`` and return the same result the engine would."""
