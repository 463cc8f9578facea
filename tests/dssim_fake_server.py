"""Fake ds-sim servers on loopback for the protocol tests (the real server is not shipped).

``ReplayServer`` plays back the conversation of a ds-sim run on the engine (every event,
GETS/LSTJ answer and decision, recorded by :func:`conversation`), so a live client can be
checked to ask and decide exactly as the simulation did. ``ScriptedServer`` answers from a
fixed script, to misbehave on purpose.
"""

from __future__ import annotations

import socket
import select
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from hetsched.dssim.algorithms import ListedJob
from hetsched.dssim.global_queue import GlobalQueue
from hetsched.dssim.records import JobnOrder, JobRequest, ServerRecord
from hetsched.dssim.scheduler import DsSimScheduler
from hetsched.dssim.servers import ViewServers, request
from hetsched.platform.model import Platform
from hetsched.sim.engine import simulate
from hetsched.workload.model import Job, Workload


class FakeServer(threading.Thread):
    """Accepts one connection on 127.0.0.1 (a free port) and runs ``serve`` on it."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.received: list[str] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        conn, _ = self.listener.accept()
        try:
            with conn, conn.makefile("rwb") as stream:
                self.conn, self.stream = conn, stream
                self.serve()
        except BaseException as err:  # reported to the test through .error
            self.error = err
        self.listener.close()

    def recv(self) -> str:
        line = self.stream.readline().decode().rstrip("\n")
        self.received.append(line)
        return line

    def send(self, message: str) -> None:
        self.stream.write(message.encode() + b"\n")
        self.stream.flush()

    def serve(self) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Drip:
    """A reply that never ends: ``data`` (no newline) every ``interval`` seconds, ``times``
    times, then the connection closes. ``data=b""`` is a server that says nothing."""

    data: bytes = b"x"
    interval: float = 0.05
    times: int = 60

    def play(self, conn: socket.socket) -> None:
        """Stops early when the client hangs up."""
        for _ in range(self.times):
            conn.sendall(self.data)
            readable, _, _ = select.select([conn], [], [], self.interval)
            if readable and not conn.recv(1):
                return


Reply = str | bytes | Drip | None


class ScriptedServer(FakeServer):
    """Answers the n-th message with ``replies[n]``: a line, raw bytes (sent as they are), a
    :class:`Drip`, or ``None`` (closes the connection)."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        super().__init__()
        self.replies = list(replies)

    def serve(self) -> None:
        for reply in self.replies:
            self.recv()
            if reply is None:
                return
            if isinstance(reply, Drip):
                reply.play(self.conn)
            elif isinstance(reply, bytes):
                self.stream.write(reply)
                self.stream.flush()
            else:
                self.send(reply)


Exchange = tuple[str, "str | list[str]"]
"""A message the client must send, and the server's answer: a line, or records sent as DATA."""


class ReplayServer(FakeServer):
    """Plays back a conversation (:func:`conversation`): checks that the client sends each
    expected message and answers it as recorded."""

    def __init__(self, exchanges: Sequence[Exchange]) -> None:
        super().__init__()
        self.exchanges = list(exchanges)

    def serve(self) -> None:
        for expected, answer in self.exchanges:
            got = self.recv()
            assert got == expected, f"client sent {got!r}, expected {expected!r}"
            if isinstance(answer, list):
                self.data(answer)
            else:
                self.send(answer)

    def data(self, lines: list[str]) -> None:
        self.send(f"DATA {len(lines)} 124")
        assert self.recv() == "OK"
        if lines:
            self.send("\n".join(lines))
            assert self.recv() == "OK"
        self.send(".")


class _RecordingServers:
    """The scheduler's GETS/LSTJ answers, recorded as the protocol carries them."""

    def __init__(self, servers: ViewServers, log: list[Exchange]) -> None:
        self.servers, self.log, self.types = servers, log, servers.types
        self.job = -1  # the job being placed

    def node(self, target: tuple[str, int]) -> int:
        self.log.append((f"SCHD {self.job} {target[0]} {target[1]}", "OK"))
        return self.servers.node(target)

    def changed(self, node: int) -> None:
        self.servers.changed(node)

    def capable(self, job: JobRequest) -> list[ServerRecord]:
        return self._gets("Capable", job, self.servers.capable(job))

    def available(self, job: JobRequest) -> list[ServerRecord]:
        return self._gets("Avail", job, self.servers.available(job))

    def _gets(self, what: str, job: JobRequest, records: list[ServerRecord]) -> list[ServerRecord]:
        self.log.append((f"GETS {what} {job.cores} {job.memory} {job.disk}",
                         [r.line() for r in records]))
        return records

    def jobs_on(self, record: ServerRecord) -> list[ListedJob]:
        listed = self.servers.jobs_on(record)
        self.log.append((f"LSTJ {record.type} {record.id}",
                         [f"{j.id} {2 if j.running else 1} 0 {j.start} {j.estimate} 1 1 1"
                          for j in listed]))
        return listed


class _RecordingQueue(GlobalQueue):
    """The global queue, recording what the server sends (JCPL, CHKQ) and the client answers."""

    def __init__(self, log: list[Exchange], now: Callable[[], float]) -> None:
        super().__init__()
        self.log, self.now = log, now

    def completed(self) -> None:
        self.log.append(("REDY", f"JCPL {int(self.now())} 0 unknown 0"))
        super().completed()

    def enqueue(self, job: Job) -> None:
        self.log.append(("ENQJ GQ", "OK"))
        super().enqueue(job)

    def check(self, all_submitted: bool) -> Job | None:
        job = super().check(all_submitted)
        if job is not None:
            self.log += [("REDY", "CHKQ"), ("DEQJ GQ 0", "OK")]
        return job


def conversation(platform: Platform, workload: Workload, algo: str,
                 order: JobnOrder = JobnOrder.CURRENT, user: str = "hetsched") -> list[Exchange]:
    """What ds-server and a client running ``algo`` say to each other, as the engine's run of
    the ds-sim scheduler has it (every event, question and answer, and decision)."""
    log: list[Exchange] = [("HELO", "OK"), (f"AUTH {user}", "OK")]

    class Recording(DsSimScheduler):
        def reset(self, view, rng) -> None:
            super().reset(view, rng)
            self.queue = _RecordingQueue(log, lambda: view.now)
            self.all = [r.line() for r in self.servers.capable(JobRequest(-1, 0, 1, 0, 0, 0))]
            self.servers = _RecordingServers(self.servers, log)  # type: ignore[assignment]

        def _dispatch(self, job: Job, now: float):
            # a JOBP carries the time it is offered: the client takes its clock from the job
            offered = replace(request(job), submit=int(now))
            log.append(("REDY", offered.line("JOBN" if job.submit == now else "JOBP", order)))
            if self.all:  # the client learns the server types after its first job
                log.append(("GETS All", self.all))
                self.all = []
            self.servers.job = int(job.id)
            yield from super()._dispatch(job, now)

    simulate(platform, workload, Recording(algo))
    return [*log, ("REDY", "NONE"), ("QUIT", "QUIT")]
