"""Live mode: a real ds-sim server over its socket protocol, asked the same questions
(:class:`~hetsched.dssim.algorithms.Servers`) as the engine answers in simulations, so
:func:`~hetsched.dssim.dispatch.dispatch` drives it with the same algorithm classes."""

from __future__ import annotations

from pathlib import Path

from hetsched.dssim.algorithms import ALGORITHMS, ListedJob, Target
from hetsched.dssim.dispatch import JOB_EVENTS, Event, dispatch
from hetsched.dssim.protocol import Connection
from hetsched.dssim.records import (JobnOrder, JobRequest, ProtocolError, ServerRecord,
                                    can_ever_run, fields_of, integer)
from hetsched.errors import ConfigError
from hetsched.limits import MAX_INT32
from hetsched.options import check_number
from hetsched.parsing import quote
from hetsched.platform.dssim import ServerType, read_config

#: Fields of the events that carry a time, and which field is the time.
_RESOURCE_EVENT = (("serverType", "serverID", "time"), "time")
_TIMED_EVENTS = {"JCPL": (("endTime", "jobID", "serverType", "serverID"), "endTime"),
                 "RESF": _RESOURCE_EVENT, "RESR": _RESOURCE_EVENT}
#: LSTJ record fields and their least values (state: 1 waiting, 2 running; startTime -1 while
#: waiting). Some servers leave out submitTime.
_LSTJ_FIELDS = {"jobID": 0, "state": 1, "submitTime": 0, "startTime": -1, "estRunTime": 0,
                "cores": 1, "memory": 0, "disk": 0}
_RUNNING = 2


class RemoteServer:
    """A ds-sim server at the other end of ``connection``.

    Server types (GETS order, capacities) are learnt from ``GETS All`` before the first
    decision, when every server is still inactive and shows its full capacity. Boot times and
    rates are not part of the protocol: they come from the ``ds-system.xml`` the server
    writes, if given (``system``), and are 0 otherwise.
    """

    def __init__(self, connection: Connection, order: JobnOrder = JobnOrder.CURRENT,
                 system: Path | None = None) -> None:
        self.connection = connection
        self.order = order
        self.system = system
        self.now = 0
        self._types: tuple[ServerType, ...] | None = None

    def handshake(self, user: str) -> None:
        self.connection.expect("HELO", "OK")
        self.connection.expect(f"AUTH {user}", "OK")

    # ---- questions ---------------------------------------------------------------------------
    @property
    def types(self) -> tuple[ServerType, ...]:
        if self._types is None:
            self._types = self._learn_types()
        return self._types

    def _learn_types(self) -> tuple[ServerType, ...]:
        known = {t.name: t for t in read_config(self.system).types} if self.system else {}
        seen: dict[str, list[ServerRecord]] = {}
        for record in self._gets("GETS All"):
            seen.setdefault(record.type, []).append(record)
        if not seen:
            raise ProtocolError("ds-sim server answered 'GETS All' with no servers")
        return tuple(ServerType(name, len(group), known[name].boot_time if name in known else 0,
                                known[name].hourly_rate if name in known else 0.0,
                                group[0].cores, group[0].memory, group[0].disk)
                     for name, group in seen.items())

    def capable(self, job: JobRequest) -> list[ServerRecord]:
        request = f"GETS Capable {job.cores} {job.memory} {job.disk}"
        records = self._known(request)
        if not records:  # next_event checked that some type can run the job
            able = next(t.name for t in self.types if can_ever_run(t, job))
            raise ProtocolError(f"ds-sim server answered {request!r} with no servers, though "
                                f"server type {able!r} can run job {job.id}")
        return records

    def available(self, job: JobRequest) -> list[ServerRecord]:
        return self._known(f"GETS Avail {job.cores} {job.memory} {job.disk}")

    def jobs_on(self, record: ServerRecord) -> list[ListedJob]:
        lines = self.connection.records(f"LSTJ {record.type} {record.id}")
        return [_listed(line) for line in lines]

    def _gets(self, request: str) -> list[ServerRecord]:
        return [ServerRecord.parse(line) for line in self.connection.records(request)]

    def _known(self, request: str) -> list[ServerRecord]:
        """The records of ``request``, all of server types learnt at the start."""
        names = {t.name for t in self.types}
        records = self._gets(request)
        unknown = next((r for r in records if r.type not in names), None)
        if unknown is not None:
            raise ProtocolError(f"ds-sim server reported unknown server type {unknown.type!r} "
                                f"(known: {', '.join(sorted(names))})")
        return records

    # ---- events and actions ------------------------------------------------------------------
    def next_event(self) -> Event:
        reply = self.connection.ask("REDY")
        kind = (reply.split() or [""])[0]
        if kind in JOB_EVENTS:
            job = JobRequest.parse(reply, self.order)
            self._check_runnable(job, reply)
            self.now = job.submit
            return Event(kind, self.now, job)
        if kind in _TIMED_EVENTS:
            self.now = _event_time(kind, reply)
            return Event(kind, self.now)
        if kind in ("CHKQ", "NONE"):
            return Event(kind, self.now)
        raise ProtocolError(f"unexpected message from the ds-sim server: {quote(reply)}")

    def _check_runnable(self, job: JobRequest, reply: str) -> None:
        """Some server type can hold ``job`` (cores, memory and disk), or no algorithm could
        place it."""
        if any(can_ever_run(t, job) for t in self.types):
            return
        where = f"ds-sim server sent {quote(reply)}, job {job.id}"
        for field in ("cores", "memory", "disk"):
            most = max(getattr(t, field) for t in self.types)
            if getattr(job, field) > most:
                raise ProtocolError(f"{where}, field '{field}': {getattr(job, field)} is more "
                                    f"than any server type has ({most}); no server can run it")
        raise ProtocolError(f"{where}: no server type has {job.cores} cores, {job.memory} MB "
                            f"memory and {job.disk} MB disk together; no server can run it")

    def schedule(self, job: JobRequest, target: Target) -> None:
        self.connection.expect(f"SCHD {job.id} {target[0]} {target[1]}", "OK")

    def enqueue(self, job: JobRequest) -> None:
        self.connection.expect("ENQJ GQ", "OK")

    def dequeue(self, position: int) -> None:
        self.connection.expect(f"DEQJ GQ {position}", "OK")

    def quit(self) -> None:
        self.connection.expect("QUIT", "QUIT")
        self.connection.close()


def _event_time(kind: str, reply: str) -> int:
    """The time of a JCPL (``endTime jobID serverType serverID``) or RESF/RESR (``serverType
    serverID time``)."""
    names, time_field = _TIMED_EVENTS[kind]
    where = f"ds-sim server sent {quote(reply)}"
    parts = fields_of(reply, 1 + len(names), " ".join((kind, *names)), where)
    return integer(parts[1 + names.index(time_field)], time_field, where)


def _listed(line: str) -> ListedJob:
    """An LSTJ record: ``jobID state [submitTime] startTime estRunTime cores memory disk``."""
    where = f"ds-sim server sent LSTJ record {quote(line)}"
    parts = line.split()
    if len(parts) not in (7, 8):
        raise ProtocolError(f"{where}: expected 8 fields ({' '.join(_LSTJ_FIELDS)}), "
                            f"got {len(parts)}")
    names = [n for n in _LSTJ_FIELDS if len(parts) == 8 or n != "submitTime"]
    v = {n: integer(text, n, where, _LSTJ_FIELDS[n], _RUNNING if n == "state" else MAX_INT32)
         for n, text in zip(names, parts)}
    return ListedJob(v["jobID"], v["state"] == _RUNNING, v["startTime"], v["estRunTime"])


def _check_options(port: int, user: str, timeout: float | None,
                   deadline: float | None) -> None:
    if not 1 <= port <= 65535:
        raise ConfigError(f"port must be from 1 to 65535, got {port}")
    if not (user.isprintable() and user and " " not in user):
        raise ConfigError(f"user name must be printable text without spaces, got {user!r}")
    if timeout is not None:
        check_number("timeout", timeout, positive=True)
    if deadline is not None:
        check_number("deadline", deadline, positive=True)


def run_client(algorithm: str, host: str = "127.0.0.1", port: int = 50000,
               order: JobnOrder = JobnOrder.CURRENT, user: str = "hetsched",
               system: Path | None = None, timeout: float | None = 60.0,
               deadline: float | None = None) -> int:
    """Connect, dispatch every job of a live ds-sim run with ``algorithm``, quit. Returns the
    number of jobs dispatched. ``timeout`` bounds the wait for each message, ``deadline`` the
    whole run, for a server that never sends NONE (None: no limit).
    """
    _check_options(port, user, timeout, deadline)
    if system is not None:
        read_config(system)  # a bad file is reported before connecting
    server = RemoteServer(Connection.open(host, port, timeout), order, system)
    if deadline is not None:
        server.connection.limit_to(deadline)
    try:
        server.handshake(user)
        return dispatch(server, ALGORITHMS[algorithm]())
    finally:
        server.connection.close()
