"""Fake ds-sim servers on loopback for the protocol tests (the real server is not shipped).

``EmulatedProtocolServer`` speaks ds-sim's newline protocol on top of hetsched's emulated
server, so a live client run can be compared with an in-process emulation. ``ScriptedServer``
answers from a fixed script, to misbehave on purpose.
"""

from __future__ import annotations

import socket
import select
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hetsched.dssim.records import JobnOrder, JobRequest
from hetsched.dssim.server import EmulatedServer


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


class EmulatedProtocolServer(FakeServer):
    """ds-sim's protocol in front of an :class:`EmulatedServer`."""

    def __init__(self, server: EmulatedServer, order: JobnOrder = JobnOrder.CURRENT) -> None:
        super().__init__()
        self.server = server
        self.order = order
        self.current: JobRequest | None = None

    def serve(self) -> None:
        handlers: dict[str, Callable[[list[str]], None]] = {
            "HELO": lambda a: self.send("OK"), "AUTH": lambda a: self.send("OK"),
            "REDY": self.redy, "GETS": self.gets, "LSTJ": self.lstj, "SCHD": self.schd,
            "ENQJ": self.enqj, "DEQJ": self.deqj}
        while (words := self.recv().split()) != ["QUIT"]:
            handlers[words[0]](words[1:])
        self.send("QUIT")

    def redy(self, args: list[str]) -> None:
        event = self.server.next_event()
        if event.job is not None:
            self.current = event.job
            self.send(event.job.line(event.kind, self.order))
        elif event.kind == "JCPL":
            self.send(f"JCPL {event.time} 0 unknown 0")
        else:
            self.send(event.kind)

    def data(self, lines: list[str]) -> None:
        self.send(f"DATA {len(lines)} 124")
        assert self.recv() == "OK"
        if lines:
            self.send("\n".join(lines))
            assert self.recv() == "OK"
        self.send(".")

    def gets(self, args: list[str]) -> None:
        if args[0] == "All":
            records = [s.record() for s in self.server.servers]
        else:
            job = JobRequest(-1, 0, *map(int, args[1:4]), 0)
            records = (self.server.capable if args[0] == "Capable" else self.server.available)(job)
        self.data([r.line() for r in records])

    def lstj(self, args: list[str]) -> None:
        record = self.server._server(args[0], int(args[1])).record()
        self.data([f"{j.id} {2 if j.running else 1} 0 {j.start} {j.estimate} 1 1 1"
                   for j in self.server.jobs_on(record)])

    def schd(self, args: list[str]) -> None:
        assert self.current is not None and int(args[0]) == self.current.id
        self.server.schedule(self.current, (args[1], int(args[2])))
        self.send("OK")

    def enqj(self, args: list[str]) -> None:
        assert self.current is not None
        self.server.enqueue(self.current)
        self.send("OK")

    def deqj(self, args: list[str]) -> None:
        self.server.dequeue(int(args[1]))
        self.send("OK")
