"""What a ds-sim scheduling algorithm sees: job requests and server records, exactly as the
ds-sim protocol carries them (JOBN fields, GETS records), with their text forms."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, NamedTuple

from hetsched.errors import HetschedError
from hetsched.limits import MAX_INT32
from hetsched.parsing import parse_int, quote

if TYPE_CHECKING:
    from hetsched.platform.dssim import ServerType

#: What ds-server sends as a server's state in GETS records.
SERVER_STATES = ("inactive", "booting", "idle", "active", "unavailable")


class ProtocolError(HetschedError):
    """The ds-sim server sent something this client cannot follow, or went away."""


def integer(text: str, field: str, where: str, low: int = 0, high: int = MAX_INT32) -> int:
    """``text`` (field ``field`` of what ``where`` describes) as an integer from ``low`` to
    ``high`` (ds-server holds ids, times, resources and counts in C ints); anything else is a
    one-line :class:`ProtocolError`."""
    value = parse_int(text)
    if value is None:
        problem = "is not an integer"
    elif not low <= value <= high:
        problem = f"is out of range ({low} to {high})"
    else:
        return value
    raise ProtocolError(f"{where}, field '{field}': {quote(text)} {problem}")


def fields_of(line: str, count: int, names: str, where: str) -> list[str]:
    """The whitespace-separated fields of ``line``, at least ``count`` of them (``names``)."""
    parts = line.split()
    if len(parts) < count:
        raise ProtocolError(f"{where}: expected at least {count} fields ({names}), "
                            f"got {len(parts)}")
    return parts


class JobnOrder(str, Enum):
    """Field order of JOBN/JOBP after the command word."""

    CURRENT = "current"   # jobID submitTime cores memory disk estRuntime (ds-sim 2024 and later)
    LEGACY = "legacy"     # submitTime jobID estRuntime cores memory disk (before 2024)

    @property
    def fields(self) -> tuple[str, ...]:
        """The protocol's names of the six fields, in this order."""
        if self is JobnOrder.LEGACY:
            return ("submitTime", "jobID", "estRuntime", "cores", "memory", "disk")
        return ("jobID", "submitTime", "cores", "memory", "disk", "estRuntime")


#: JobRequest attribute of each JOBN field, and the least value ds-server could send.
_JOB_FIELDS = {"jobID": ("id", 0), "submitTime": ("submit", 0), "cores": ("cores", 1),
               "memory": ("memory", 0), "disk": ("disk", 0), "estRuntime": ("estimate", 0)}


@dataclass(frozen=True, slots=True)
class JobRequest:
    """A job as the scheduler sees it: requirements and the user's run-time estimate only."""

    id: int
    submit: int
    cores: int
    memory: int
    disk: int
    estimate: int

    @staticmethod
    def parse(message: str, order: JobnOrder) -> "JobRequest":
        """From a whole ``JOBN``/``JOBP`` message; every field checked (an id, times and
        resources ds-server could send: cores at least 1, nothing negative or beyond a C int).
        """
        where = f"ds-sim server sent {quote(message)}"
        kind, *texts = message.split() or [""]
        if len(texts) != 6:
            raise ProtocolError(f"{where}: expected 6 fields after {kind or 'nothing'} "
                                f"({' '.join(order.fields)}), got {len(texts)}")
        text = dict(zip(order.fields, texts))
        where += f", job {integer(text['jobID'], 'jobID', where)}"
        values = {attr: integer(text[name], name, where, low)
                  for name, (attr, low) in _JOB_FIELDS.items()}
        return JobRequest(**values)

    def line(self, kind: str, order: JobnOrder) -> str:
        """The JOBN/JOBP message carrying this job."""
        values = (getattr(self, _JOB_FIELDS[name][0]) for name in order.fields)
        return " ".join([kind, *map(str, values)])


def covers(cores: float, memory: float, disk: float, job: JobRequest) -> bool:
    """ds-sim's fit rule, whole jobs: the cores, memory and disk given hold ``job``'s."""
    return cores >= job.cores and memory >= job.memory and disk >= job.disk


def can_ever_run(server: ServerType, job: JobRequest) -> bool:
    """Whether a server of this type, idle, holds ``job``."""
    return covers(server.cores, server.memory, server.disk, job)


class ServerRecord(NamedTuple):
    """One GETS record: ``type id state startTime cores memory disk #waiting #running``.

    ``cores``/``memory``/``disk`` are what is available now (capacity minus the jobs running
    or about to start at boot); ``start`` is the boot completion time (-1 when inactive). A
    named tuple: simulations build one per server for each GETS, so it must be cheap.
    """

    type: str
    id: int
    state: str
    start: int
    cores: int
    memory: int
    disk: int
    waiting: int
    running: int

    @staticmethod
    def parse(line: str) -> "ServerRecord":
        """From a GETS record (failure statistics after the ninth field are ignored)."""
        where = f"ds-sim server sent GETS record {quote(line)}"
        parts = fields_of(line, 9, "type id state startTime cores memory disk #waiting "
                                   "#running", where)
        if parts[2] not in SERVER_STATES:
            raise ProtocolError(f"{where}, field 'state': {quote(parts[2])} is not a server "
                                f"state ({', '.join(SERVER_STATES)})")
        numbers = [integer(text, name, where, -1 if name == "startTime" else 0)
                   for name, text in zip(_RECORD_NUMBERS, parts[3:9])]
        return ServerRecord(parts[0], integer(parts[1], "id", where), parts[2], *numbers)

    def line(self) -> str:
        return (f"{self.type} {self.id} {self.state} {self.start} {self.cores} {self.memory} "
                f"{self.disk} {self.waiting} {self.running}")

    def has_room(self, job: JobRequest) -> bool:
        """Enough available cores, memory and disk to take ``job`` now (or at boot)."""
        return covers(self.cores, self.memory, self.disk, job)


#: The integer fields of a GETS record after the state (startTime is -1 until a server boots).
_RECORD_NUMBERS = ("startTime", "cores", "memory", "disk", "#waiting", "#running")
