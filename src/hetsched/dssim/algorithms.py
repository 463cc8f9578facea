"""ds-sim dispatching algorithms, one implementation each, written against :class:`Servers`
(the questions a ds-sim client may ask: GETS Capable/Avail, LSTJ). Two sides answer those
questions: the engine, in simulations (:mod:`hetsched.dssim.servers`), and a real ds-sim
server over its socket protocol (:mod:`hetsched.dssim.client`). Definitions: docs/dssim.md."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple, Protocol

from hetsched.dssim.records import JobRequest, ServerRecord

from hetsched.platform.dssim import ServerType


class ListedJob(NamedTuple):
    """One LSTJ record of a server: a job running (state 2) or waiting (state 1) there."""

    id: int
    running: bool
    start: int
    estimate: int


class Servers(Protocol):
    """What an algorithm may ask. Records come in GETS order (type by core count, then id)."""

    types: tuple[ServerType, ...]

    def capable(self, job: JobRequest) -> list[ServerRecord]: ...

    def available(self, job: JobRequest) -> list[ServerRecord]: ...

    def jobs_on(self, record: ServerRecord) -> list[ListedJob]: ...


Target = tuple[str, int]
"""Where a job goes: (server type name, server id)."""


class Algorithm(ABC):
    """Chooses a server for each job; ``None`` sends it to the global queue (``queues``)."""

    name: ClassVar[str]
    description: ClassVar[str]
    queues: ClassVar[bool] = False

    @abstractmethod
    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        """The server for ``job`` at time ``now``."""


def _target(record: ServerRecord) -> Target:
    return record.type, record.id


def largest_type(types: Sequence[ServerType]) -> ServerType:
    """The first type with the most cores."""
    return max(types, key=lambda t: t.cores)


class AllToLargest(Algorithm):
    name = "atl"
    description = "ds-sim ATL: every job to server 0 of the largest type"

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        return largest_type(servers.types).name, 0


class LargestRoundRobin(Algorithm):
    name = "lrr"
    description = "ds-sim LRR: jobs round robin over the servers of the largest type"

    def __init__(self) -> None:
        self.sent = 0

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        big = largest_type(servers.types)
        self.sent += 1
        return big.name, (self.sent - 1) % big.limit


class FirstCapable(Algorithm):
    name = "fc"
    description = "ds-sim FC: the first capable server (GETS Capable), whatever its load"

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        return _target(servers.capable(job)[0])


class FirstAvailable(Algorithm):
    name = "fafc"
    description = ("ds-sim FAFC: the first server of GETS Avail (room now, no waiting jobs), "
                   "else the first capable one")

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        available = servers.available(job)
        return _target(available[0] if available else servers.capable(job)[0])


Key = Callable[[ServerRecord], int]
Rule = Callable[[Sequence[ServerRecord], Key], ServerRecord | None]


def first(records: Sequence[ServerRecord], key: Key) -> ServerRecord | None:
    return records[0] if records else None


def best(records: Sequence[ServerRecord], key: Key) -> ServerRecord | None:
    """Smallest key; the first such record on ties."""
    return min(records, key=key, default=None)


def worst(records: Sequence[ServerRecord], key: Key) -> ServerRecord | None:
    """Largest key; the first such record on ties."""
    return max(records, key=key, default=None)


class Fit(Algorithm):
    """First/best/worst fit on fitness = available cores - job cores, among capable servers
    with room for the job now (any state; a booting server counts with what remains after the
    jobs that start at boot). With none: the queue variants send the job to the global queue;
    the others apply the same rule to the servers' full capacity. The improved variants skip
    servers that have both running and waiting jobs."""

    rule: ClassVar[Rule]
    improved: ClassVar[bool] = False

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        capable = servers.capable(job)
        candidates = [r for r in capable if r.has_room(job)
                      and not (self.improved and r.waiting and r.running)]
        chosen = type(self).rule(candidates, lambda r: r.cores - job.cores)
        if chosen is None and not self.queues:
            capacity = {t.name: t.cores for t in servers.types}
            chosen = type(self).rule(capable, lambda r: capacity[r.type] - job.cores)
        return None if chosen is None else _target(chosen)


def _fit(name: str, rule: Rule, queues: bool = False, improved: bool = False,
         text: str = "") -> type[Fit]:
    attrs = {"name": name, "rule": rule, "queues": queues, "improved": improved,
             "description": text}
    return type(name.upper(), (Fit,), attrs)


_FALLBACK = "; if none, the same on full capacity"
_QUEUE = "; if none, to the global queue"
_IMPROVED = "; skips servers with both running and waiting jobs"
FITS: tuple[type[Fit], ...] = (
    _fit("ff", first, text="ds-sim FF: first capable server with room now" + _FALLBACK),
    _fit("bf", best, text="ds-sim BF: least available cores left over" + _FALLBACK),
    _fit("wf", worst, text="ds-sim WF: most available cores left over" + _FALLBACK),
    _fit("ffq", first, queues=True, text="ds-sim FFQ: FF" + _QUEUE),
    _fit("bfq", best, queues=True, text="ds-sim BFQ: BF" + _QUEUE),
    _fit("wfq", worst, queues=True, text="ds-sim WFQ: WF" + _QUEUE),
    _fit("iff", first, improved=True, text="improved FF" + _IMPROVED),
    _fit("ibf", best, improved=True, text="improved BF" + _IMPROVED),
    _fit("iwf", worst, improved=True, text="improved WF" + _IMPROVED),
)


class LeastWaitingTime(Algorithm):
    """The capable server where the job is expected to start first, from what a client can
    see: the remaining boot time (a whole boot for an inactive server) if the server has room
    and no waiting jobs; otherwise that plus the estimated run times of its waiting jobs (EJWT)
    plus the time until its first running job is expected to end. Ties: GETS order."""

    name = "lwt"
    description = "least estimated waiting time (boot, waiting jobs' estimates, running ends)"

    def choose(self, job: JobRequest, servers: Servers, now: int) -> Target | None:
        boot = {t.name: t.boot_time for t in servers.types}
        capable = servers.capable(job)
        waits = [self._wait(r, job, servers, now, boot[r.type]) for r in capable]
        return _target(capable[waits.index(min(waits))])

    @staticmethod
    def _wait(record: ServerRecord, job: JobRequest, servers: Servers, now: int,
              boot_time: int) -> int:
        ready = boot_time if record.state == "inactive" else max(0, record.start - now)
        if record.has_room(job) and not record.waiting:
            return ready
        listed = servers.jobs_on(record)
        queued = sum(j.estimate for j in listed if not j.running)
        ends = [j.start + j.estimate - now for j in listed if j.running]
        return ready + queued + max(0, min(ends, default=0))


ALGORITHMS: dict[str, Callable[[], Algorithm]] = {
    cls.name: cls for cls in (AllToLargest, LargestRoundRobin, FirstCapable, FirstAvailable,
                              *FITS, LeastWaitingTime)}
"""Every algorithm by name, in the order they are listed."""
