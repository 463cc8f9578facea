"""Live mode: a real ds-sim server over its socket protocol, seen through the same interface
as the emulated server, so :func:`~hetsched.dssim.dispatch.dispatch` and the same algorithm
classes drive it."""

from __future__ import annotations

from pathlib import Path

from hetsched.dssim.algorithms import ALGORITHMS, ListedJob, Target
from hetsched.dssim.dispatch import JOB_EVENTS, Event, dispatch
from hetsched.dssim.protocol import Connection
from hetsched.dssim.records import (JobnOrder, JobRequest, ProtocolError, ServerRecord,
                                    ServerType)
from hetsched.dssim.xml import read_config


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
        return tuple(ServerType(name, len(group), known[name].boot_time if name in known else 0,
                                known[name].hourly_rate if name in known else 0.0,
                                group[0].cores, group[0].memory, group[0].disk)
                     for name, group in seen.items())

    def capable(self, job: JobRequest) -> list[ServerRecord]:
        return self._known(f"GETS Capable {job.cores} {job.memory} {job.disk}")

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
        kind, *fields = reply.split() or [""]
        if kind in JOB_EVENTS:
            job = JobRequest.parse(fields, self.order)
            self.now = job.submit
            return Event(kind, self.now, job)
        if kind in ("JCPL", "RESF", "RESR"):
            self.now = _event_time(kind, fields, reply)
            return Event(kind, self.now)
        if kind in ("CHKQ", "NONE"):
            return Event(kind, self.now)
        raise ProtocolError(f"unexpected message from the ds-sim server: {reply!r}")

    def schedule(self, job: JobRequest, target: Target) -> None:
        self.connection.expect(f"SCHD {job.id} {target[0]} {target[1]}", "OK")

    def enqueue(self, job: JobRequest) -> None:
        self.connection.expect("ENQJ GQ", "OK")

    def dequeue(self, position: int) -> None:
        self.connection.expect(f"DEQJ GQ {position}", "OK")

    def quit(self) -> None:
        self.connection.expect("QUIT", "QUIT")
        self.connection.close()


def _event_time(kind: str, fields: list[str], reply: str) -> int:
    """JCPL endTime jobID type id; RESF/RESR type id time."""
    text = fields[0] if kind == "JCPL" and fields else fields[2] if len(fields) > 2 else ""
    if not text.isdigit():
        raise ProtocolError(f"malformed {kind} message from the ds-sim server: {reply!r}")
    return int(text)


def _listed(line: str) -> ListedJob:
    """An LSTJ record: ``jobID state [submitTime] startTime estRunTime cores memory disk``."""
    parts = line.split()
    if len(parts) not in (7, 8) or not all(p.lstrip("-").isdigit() for p in parts):
        raise ProtocolError(f"malformed LSTJ record {line!r}")
    start, estimate = (parts[3], parts[4]) if len(parts) == 8 else (parts[2], parts[3])
    return ListedJob(int(parts[0]), parts[1] == "2", int(start), int(estimate))


def run_client(algorithm: str, host: str = "127.0.0.1", port: int = 50000,
               order: JobnOrder = JobnOrder.CURRENT, user: str = "hetsched",
               system: Path | None = None, timeout: float | None = 60.0) -> int:
    """Connect, dispatch every job of a live ds-sim run with ``algorithm``, quit. Returns the
    number of jobs dispatched."""
    if system is not None:
        read_config(system)  # a bad file is reported before connecting
    server = RemoteServer(Connection.open(host, port, timeout), order, system)
    try:
        server.handshake(user)
        return dispatch(server, ALGORITHMS[algorithm]())
    finally:
        server.connection.close()
