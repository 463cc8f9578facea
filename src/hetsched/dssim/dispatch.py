"""The client loop of live mode: ask a ds-sim server for the next event, answer it with the
algorithm, until NONE. (Simulations run the same algorithms on the engine, where each event
is a call of :class:`~hetsched.dssim.scheduler.DsSimScheduler`.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from hetsched.dssim.algorithms import Algorithm, Servers, Target
from hetsched.dssim.records import JobRequest

#: Event kinds a ds-sim server sends in answer to REDY.
JOB_EVENTS = ("JOBN", "JOBP")
OTHER_EVENTS = ("JCPL", "RESF", "RESR", "CHKQ", "NONE")


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    time: int
    job: JobRequest | None = None


class Server(Servers, Protocol):
    """A ds-sim server as the client sees it."""

    def next_event(self) -> Event:
        """REDY: the next simulation event."""

    def schedule(self, job: JobRequest, target: Target) -> None:
        """SCHD job to the server ``target``."""

    def enqueue(self, job: JobRequest) -> None:
        """ENQJ GQ: put the job just received into the global queue."""

    def dequeue(self, position: int) -> None:
        """DEQJ GQ position: resubmit a job of the global queue."""

    def quit(self) -> None:
        """QUIT: end the session."""


def dispatch(server: Server, algorithm: Algorithm) -> int:
    """Answer events until the server says NONE; returns the number of jobs dispatched.

    Jobs (JOBN/JOBP) go where the algorithm says, or to the global queue if it says none;
    CHKQ takes the head of the global queue back (it is resubmitted as a job event); other
    events need no answer.
    """
    dispatched = 0
    while (event := server.next_event()).kind != "NONE":
        if event.job is not None:
            target = algorithm.choose(event.job, server, event.time)
            if target is None:
                server.enqueue(event.job)
            else:
                server.schedule(event.job, target)
                dispatched += 1
        elif event.kind == "CHKQ":
            server.dequeue(0)
    server.quit()
    return dispatched
