"""The scheduler interface: what a policy is told, what it may read, what it may answer.

A scheduler is called once per distinct event time with the events of that instant
(jobs submitted, jobs finished, whether a wake-up it asked for fired), or once per event if
it sets ``per_event``, and a read-only :class:`~hetsched.sim.view.ClusterView`. It answers
with an iterable of decisions. The engine applies each decision as soon as it is produced,
so a scheduler written as a generator sees the state already updated by its previous
decisions (free cores, pending jobs).
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Union

import numpy as np

from hetsched.workload.model import Job

if TYPE_CHECKING:
    from hetsched.platform.model import Platform
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
    """Call the scheduler again at ``time`` even if nothing else happens. At the current time:
    again at this instant, once every event still due now has been handled."""

    time: float


class Reject(NamedTuple):
    """``job`` will not run: it ends ``rejected``, with ``reason`` in its record."""

    job: Job
    reason: str


class Reserve(NamedTuple):
    """Book ``allocation`` (pairs ``(node, slots)``) for ``job`` from ``start`` (now or later)
    for its estimate on that allocation; the engine starts the job then, and lets no other
    start or booking take those slots meanwhile (:mod:`hetsched.sim.bookings`). ``Dequeue``
    cancels a booking not started yet (the job is pending again). ``any_nodes``: as for
    :class:`Start`."""

    job: Job
    allocation: tuple[tuple[int, int], ...]
    start: float
    any_nodes: bool = False


Decision = Union[Start, Enqueue, Dequeue, WakeUp, Reject, Reserve]


class Events(NamedTuple):
    """What happened at the current instant: jobs ``submitted`` (now pending), jobs
    ``finished``, whether a wake-up fired, jobs ``released`` (pending now that their last
    parent finished), nodes whose availability changed (``available``), on-demand nodes
    that finished booting (``booted``; the jobs held for them have started) and jobs whose
    booked window began (``started``: the engine started them, :class:`Reserve`)."""

    submitted: tuple[Job, ...] = ()
    finished: tuple[Job, ...] = ()
    woken: bool = False
    released: tuple[Job, ...] = ()
    available: tuple[int, ...] = ()
    booted: tuple[int, ...] = ()
    started: tuple[Job, ...] = ()

    @property
    def arrived(self) -> tuple[Job, ...]:
        """The jobs that became pending now: submitted ones, then released ones."""
        return self.submitted + self.released if self.released else self.submitted


class Scheduler(ABC):
    """Base of every policy. Subclasses set ``name`` and implement :meth:`decide`.

    The contract (scikit-learn's for estimators): the options are ``__init__``'s named
    arguments, stored unchanged as attributes of the same names (:meth:`get_params` reads
    them back); the run state is created in :meth:`reset`, so one object can run twice, be
    cloned (:meth:`clone`) and be pickled (hold no lambdas). ``aliases`` maps other names of
    options that keep working, in specs (``easy:node=...``) and as keywords
    (``EasyBackfill(node=...)``), to their names; ``spec`` is what
    runs call the scheduler (set by :func:`hetsched.schedulers.create`; ``None``: its
    ``name``). :func:`hetsched.testing.check_scheduler` checks all of it.

    ``per_event``: the engine calls :meth:`decide` after every single event instead of once
    per instant (a model whose decisions depend on the order of simultaneous events, such as
    ds-sim's client, which answers each completion and each submission in turn).
    """

    name: ClassVar[str] = "scheduler"
    """What the scheduler is called: its class's own, else the name
    :func:`~hetsched.schedulers.create` gives it."""
    description: ClassVar[str] = ""
    """One line for ``hetsched schedulers``."""
    per_event: ClassVar[bool] = False
    """Whether :meth:`decide` is called after every single event (see above)."""
    aliases: ClassVar[Mapping[str, str]] = {}
    """Other names of options -> their names (see above)."""
    spec: str | None = None
    """What runs call the scheduler (see above)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.aliases and "__init__" in vars(cls):
            cls.__init__ = _taking_aliases(cls.__init__, cls.aliases)  # type: ignore[method-assign]

    def check(self, platform: "Platform", workload: "Workload") -> None:
        """Refuse inputs this policy cannot run (raise a one-line ``ConfigError``), before
        the run starts. Every input is accepted by default."""

    def reset(self, view: "ClusterView", rng: np.random.Generator) -> None:
        """Called once before a simulation; keep references to ``view`` and ``rng`` here."""
        self.view = view
        self.rng = rng

    @abstractmethod
    def decide(self, now: float, events: Events) -> Iterable[Decision]:
        """Answer the events of instant ``now`` with decisions (read state from ``self.view``)."""

    def get_params(self) -> dict[str, object]:
        """The options as given (aliases resolved): ``type(self)(**get_params())`` builds an
        equal scheduler, not yet reset."""
        names = option_names(type(self))
        if names is None:
            raise TypeError(f"{type(self).__name__}.__init__ takes **kwargs: get_params() "
                            "needs its options named")
        missing = [n for n in names if not hasattr(self, n)]
        if missing:
            raise TypeError(f"{type(self).__name__} does not store its option "
                            f"'{missing[0]}' as self.{missing[0]} (get_params() reads it there)")
        return {n: getattr(self, n) for n in names}

    def clone(self) -> "Scheduler":
        """A new scheduler with the same options and names, not yet reset."""
        other = type(self)(**self.get_params())
        for key in ("name", "spec"):
            if key in vars(self):
                setattr(other, key, vars(self)[key])
        return other


def _taking_aliases(init: Callable[..., None],
                    aliases: Mapping[str, str]) -> Callable[..., None]:
    """``init`` taking each option under its other names too (its signature, which
    :func:`option_names` reads, stays the one written)."""
    @functools.wraps(init)
    def __init__(self: Scheduler, *args: object, **kwargs: object) -> None:
        for other, name in aliases.items():
            if other in kwargs:
                if name in kwargs:
                    raise TypeError(f"{type(self).__name__}() got '{other}' and '{name}', "
                                    "two names of one option")
                kwargs[name] = kwargs.pop(other)
        init(self, *args, **kwargs)
    return __init__


def option_names(factory: Callable[..., object]) -> list[str] | None:
    """The options ``factory`` (a scheduler class or a function) takes by name; ``None`` when
    it takes ``**kwargs`` (any)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def has_own_name(cls: type) -> bool:
    """Whether ``cls`` or one of its bases below :class:`Scheduler` sets ``name`` itself."""
    return any("name" in vars(base) for base in cls.__mro__
               if base is not Scheduler and issubclass(base, Scheduler))


def run_name(scheduler: Scheduler) -> str:
    """What a run calls ``scheduler`` (``SimResult.scheduler``, errors): its ``spec``, else
    its ``name``."""
    return getattr(scheduler, "spec", None) or scheduler.name
