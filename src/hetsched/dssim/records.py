"""What a ds-sim scheduling algorithm sees: job requests and server records, exactly as the
ds-sim protocol carries them (JOBN fields, GETS records), with their text forms."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hetsched.errors import HetschedError


class ProtocolError(HetschedError):
    """The ds-sim server sent something this client cannot follow, or went away."""


class JobnOrder(str, Enum):
    """Field order of JOBN/JOBP after the command word."""

    CURRENT = "current"   # jobID submitTime cores memory disk estRuntime (ds-sim 2024 and later)
    LEGACY = "legacy"     # submitTime jobID estRuntime cores memory disk (before 2024)


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
    def parse(fields: list[str], order: JobnOrder) -> "JobRequest":
        """From the six integer fields after ``JOBN``/``JOBP``."""
        if len(fields) != 6 or not all(_is_int(f) for f in fields):
            raise ProtocolError(f"malformed job message fields: {' '.join(fields)!r}")
        v = [int(f) for f in fields]
        if order is JobnOrder.LEGACY:
            return JobRequest(id=v[1], submit=v[0], cores=v[3], memory=v[4], disk=v[5],
                              estimate=v[2])
        return JobRequest(id=v[0], submit=v[1], cores=v[2], memory=v[3], disk=v[4],
                          estimate=v[5])

    def line(self, kind: str, order: JobnOrder) -> str:
        """The JOBN/JOBP message carrying this job."""
        if order is JobnOrder.LEGACY:
            values = (self.submit, self.id, self.estimate, self.cores, self.memory, self.disk)
        else:
            values = (self.id, self.submit, self.cores, self.memory, self.disk, self.estimate)
        return " ".join([kind, *map(str, values)])


@dataclass(frozen=True, slots=True)
class ServerType:
    """A server type of the configuration: capacity, how many, boot time, hourly rate."""

    name: str
    limit: int
    boot_time: int
    hourly_rate: float
    cores: int
    memory: int
    disk: int

    def can_ever_run(self, job: JobRequest) -> bool:
        return self.cores >= job.cores and self.memory >= job.memory and self.disk >= job.disk


@dataclass(frozen=True, slots=True)
class ServerRecord:
    """One GETS record: ``type id state startTime cores memory disk #waiting #running``.

    ``cores``/``memory``/``disk`` are what is available now (capacity minus the jobs running
    or about to start at boot); ``start`` is the boot completion time (-1 when inactive).
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
        parts = line.split()
        if len(parts) < 9 or not all(_is_int(p) for p in (parts[1], *parts[3:9])):
            raise ProtocolError(f"malformed server record {line!r}")
        return ServerRecord(parts[0], int(parts[1]), parts[2],
                            *(int(p) for p in parts[3:9]))  # type: ignore[arg-type]

    def line(self) -> str:
        return (f"{self.type} {self.id} {self.state} {self.start} {self.cores} {self.memory} "
                f"{self.disk} {self.waiting} {self.running}")

    def has_room(self, job: JobRequest) -> bool:
        """Enough available cores, memory and disk to take ``job`` now (or at boot)."""
        return self.cores >= job.cores and self.memory >= job.memory and self.disk >= job.disk


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()
