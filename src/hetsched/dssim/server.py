"""An emulation of the ds-sim server (ds-server) for simulation: server life cycle, per-server
FIFO queues, completions, the global queue and its CHKQ signal, and ds-sim's accounting of
busy and charged time. It answers the client's questions like the real server (GETS
Capable/Avail, LSTJ) and is driven by :func:`hetsched.dssim.dispatch.dispatch`.
Every rule is written down in docs/dssim.md."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hetsched.dssim.algorithms import ListedJob, Target
from hetsched.dssim.dispatch import Event
from hetsched.dssim.records import JobRequest, ServerRecord, ServerType, covers
from hetsched.errors import SchedulerError


@dataclass(slots=True, eq=False)
class Placed:
    """A job on a server. ``start``/``end`` are unknown (None) while it waits behind others."""

    job: JobRequest
    actual: int
    server: "Server"
    start: int | None = None
    end: int | None = None


@dataclass(slots=True, eq=False)
class Server:
    """One server. ``start`` is when it finished (or will finish) booting, -1 if inactive."""

    type: ServerType
    id: int
    index: int
    cores: int
    memory: int
    disk: int
    state: str = "inactive"
    start: int = -1
    waiting: list[Placed] = field(default_factory=list)
    running: list[Placed] = field(default_factory=list)
    accounted_to: int = -1
    busy: int = 0
    last_end: int = -1
    used: bool = False

    def has_room(self, job: JobRequest) -> bool:
        return covers(self.cores, self.memory, self.disk, job)

    def take(self, job: JobRequest, sign: int) -> None:
        self.cores -= sign * job.cores
        self.memory -= sign * job.memory
        self.disk -= sign * job.disk

    def record(self) -> ServerRecord:
        return ServerRecord(self.type.name, self.id, self.state, self.start, self.cores,
                            self.memory, self.disk, len(self.waiting), len(self.running))

    def run(self, placed: Placed) -> None:
        """Into the running list, kept in end-time order (equal ends: arrival order)."""
        if placed in self.waiting:
            self.waiting.remove(placed)
        at = next((i for i, r in enumerate(self.running) if r.end > placed.end),
                  len(self.running))
        self.running.insert(at, placed)

    def account(self, done: Placed) -> None:
        """ds-sim's busy time: the union of the intervals in which some job runs."""
        since = self.accounted_to
        if done.start > since:
            earliest = min([done.start, *(r.start for r in self.running)])
            since = max(earliest, since)
        self.busy += done.end - since
        self.accounted_to = done.end
        self.last_end = max(self.last_end, done.end)


class EmulatedServer:
    """ds-server's behaviour for a given set of server types and jobs (with actual run times).

    Jobs are ``(request, actual run time)`` in submission order.
    """

    def __init__(self, types: Sequence[ServerType], jobs: Sequence[tuple[JobRequest, int]],
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.types = tuple(types)
        self.progress = progress
        self.completed = 0
        self.servers: list[Server] = []
        self.by_name: dict[str, list[Server]] = {}
        for server_type in self.types:
            group = [Server(server_type, i, len(self.servers) + i, server_type.cores,
                            server_type.memory, server_type.disk)
                     for i in range(server_type.limit)]
            self.by_name[server_type.name] = group
            self.servers.extend(group)
        self.jobs = list(jobs)
        self.actual = {job.id: actual for job, actual in self.jobs}
        self.now = 0
        self.next_job = 0
        self.to_dispatch: list[tuple[int, JobRequest]] = []
        self.global_queue: list[JobRequest] = []
        self.placed: dict[int, Placed] = {}
        self.ends: list[tuple[int, int, int, Placed]] = []
        self.seq = itertools.count()
        self.completing: list[Placed] = []
        self.booting: set[Server] = set()
        self.emptied: set[Server] = set()
        # ds-server's queue check (HandleREDY): ``checking`` while CHKQ may be sent; the queue
        # length when the last CHKQ was sent, 0 again after each JCPL.
        self.checking = False
        self.checked_length = 0

    # ---- questions (GETS, LSTJ) --------------------------------------------------------------
    def capable(self, job: JobRequest) -> list[ServerRecord]:
        return [s.record() for t in self.types if t.can_ever_run(job) for s in self.by_name[t.name]]

    def available(self, job: JobRequest) -> list[ServerRecord]:
        return [s.record() for s in self.servers if s.has_room(job) and not s.waiting]

    def jobs_on(self, record: ServerRecord) -> list[ListedJob]:
        server = self._server(record.type, record.id)
        return [ListedJob(p.job.id, running, -1 if p.start is None else p.start, p.job.estimate)
                for running, group in ((True, server.running), (False, server.waiting))
                for p in group]

    # ---- events (REDY) -----------------------------------------------------------------------
    def next_event(self) -> Event:
        if self._all_submitted():
            self._update_checking()
        if not self.checking and (
                self.completing or (self.ends and self.ends[0][0] <= self._next_submit())):
            self.checked_length = 0
            return self._complete_next()
        if self.to_dispatch:
            self.now, job = self.to_dispatch[0]
        elif self.next_job < len(self.jobs):
            job = self.jobs[self.next_job][0]
            self.next_job += 1
            self.to_dispatch.append((job.submit, job))
            self.now = job.submit
        elif self.completed == len(self.jobs):
            return Event("NONE", self.now)
        else:
            return self._check_queue()
        self._complete_due()
        self._update_states()
        return Event("JOBN" if job.submit == self.now else "JOBP", self.now, job)

    def _update_checking(self) -> None:
        """Every job submitted: the queue is checked (CHKQ) after a completion (JCPL), and again
        after each CHKQ that took a job out of the queue, until one leaves it as long as it was."""
        if not self.global_queue:
            self.checking = False
        elif not self.checking and self.checked_length == 0:
            self.checking = True
        elif self.checking and self.checked_length == len(self.global_queue):
            self.checking = False

    def _check_queue(self) -> Event:
        if not self.checking and not self.ends and self.checked_length == len(self.global_queue):
            # Nothing runs and the last CHKQ left the queue as it was: ds-server would send CHKQ
            # forever; the emulation ends, leaving those jobs in the queue.
            return Event("NONE", self.now)
        self.checked_length = len(self.global_queue)
        return Event("CHKQ", self.now)

    def _complete_due(self) -> None:
        """Before it sends a job, ds-server completes every job due by now without a JCPL: the
        rest of a batch of same-time completions that a CHKQ interrupted."""
        while self.completing or (self.ends and self.ends[0][0] <= self.now):
            self._complete_next()

    def _all_submitted(self) -> bool:
        return not self.to_dispatch and self.next_job >= len(self.jobs)

    def _next_submit(self) -> float:
        if self.to_dispatch:
            return self.to_dispatch[0][0]
        if self.next_job < len(self.jobs):
            return self.jobs[self.next_job][0].submit
        return float("inf")

    def _complete_next(self) -> Event:
        if not self.completing:
            end = self.ends[0][0]
            batch = []
            while self.ends and self.ends[0][0] == end:
                batch.append(heapq.heappop(self.ends))
            self.completing = [entry[3] for entry in sorted(batch, key=lambda e: e[1:3])]
            self.now = end
            self._finish_boots()
        done = self.completing.pop(0)
        server = done.server
        (server.running if done in server.running else server.waiting).remove(done)
        server.account(done)
        server.take(done.job, -1)
        if not server.running:
            self.emptied.add(server)
        if not self.completing or self.completing[0].server is not server:
            self._start_ready(server)
        self.completed += 1
        if self.progress is not None:
            self.progress(self.completed, len(self.jobs))
        return Event("JCPL", self.now)

    def _start_ready(self, server: Server) -> None:
        """No backfilling: start waiting jobs in order while the first one fits."""
        while server.waiting and server.has_room(server.waiting[0].job):
            self._start(server.waiting[0], self.now)

    def _finish_boots(self) -> None:
        """Booting servers whose boot is over become active; their boot-time jobs run."""
        for server in [s for s in self.booting if s.start <= self.now]:
            self.booting.discard(server)
            server.state = "active"
            for placed in [p for p in server.waiting if p.start is not None]:
                server.run(placed)

    def _update_states(self) -> None:
        self._finish_boots()
        for server in self.emptied:
            if server.state == "active" and not server.running:
                server.state = "idle"
        self.emptied.clear()

    # ---- actions (SCHD, ENQJ, DEQJ) ----------------------------------------------------------
    def schedule(self, job: JobRequest, target: Target) -> None:
        server = self._server(*target)
        if not server.type.can_ever_run(job):
            raise SchedulerError(f"job {job.id} scheduled to {target[0]} {target[1]}, which "
                                 f"can never run it")
        self._take_from_dispatch(job)
        placed = Placed(job, self.actual[job.id], server)
        self.placed[job.id] = placed
        server.used = True
        if server.state == "inactive":
            server.state, server.start = "booting", self.now + server.type.boot_time
            server.accounted_to = server.start
            self.booting.add(server)
            self._at_boot(placed)
        elif server.state == "booting":
            behind_boot_jobs = bool(server.waiting) and server.waiting[-1].start is not None
            if behind_boot_jobs and server.has_room(job):
                self._at_boot(placed)
            else:
                server.waiting.append(placed)
        elif not server.waiting and server.has_room(job):
            self._start(placed, self.now)
            server.state = "active"
        else:
            server.waiting.append(placed)

    def _at_boot(self, placed: Placed) -> None:
        """Holds its resources now and starts when the server has booted."""
        server = placed.server
        placed.start, placed.end = server.start, server.start + placed.actual
        server.waiting.append(placed)
        server.take(placed.job, 1)
        heapq.heappush(self.ends, (placed.end, server.index, next(self.seq), placed))

    def _start(self, placed: Placed, at: int) -> None:
        server = placed.server
        placed.start, placed.end = at, at + placed.actual
        server.take(placed.job, 1)
        server.run(placed)
        heapq.heappush(self.ends, (placed.end, server.index, next(self.seq), placed))

    def enqueue(self, job: JobRequest) -> None:
        self._take_from_dispatch(job)
        self.global_queue.append(job)

    def dequeue(self, position: int) -> None:
        if not 0 <= position < len(self.global_queue):
            raise SchedulerError(f"no job at position {position} of the global queue")
        self.to_dispatch.append((self.now, self.global_queue.pop(position)))

    def quit(self) -> None:
        """Nothing to close: the emulation ends with the dispatch loop."""

    def _take_from_dispatch(self, job: JobRequest) -> None:
        for i, (_, waiting) in enumerate(self.to_dispatch):
            if waiting.id == job.id:
                del self.to_dispatch[i]
                return
        raise SchedulerError(f"job {job.id} is not waiting to be dispatched")

    def _server(self, type_name: str, server_id: int) -> Server:
        group = self.by_name.get(type_name)
        if group is None or not 0 <= server_id < len(group):
            raise SchedulerError(f"no server {type_name} {server_id}")
        return group[server_id]
