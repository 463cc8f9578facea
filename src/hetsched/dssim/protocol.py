"""ds-sim's socket protocol, newline-terminated mode (ds-server -n): one message per line."""

from __future__ import annotations

import socket
import time
from collections import deque

from hetsched.dssim.records import ProtocolError, integer
from hetsched.parsing import quote

#: Longest line accepted from the server (a GETS answer of thousands of records is many lines).
MAX_LINE = 1 << 20
#: Most records accepted in one DATA answer: ds-server's job limit (MAX_JOB_CNT), which bounds
#: an LSTJ; a GETS lists at most 100 server types of 1000 servers.
MAX_RECORDS = 1_000_000
#: Bytes asked of the socket at a time.
_CHUNK = 65536


class Connection:
    """A line-based conversation with a ds-sim server; every failure is a ProtocolError.

    ``timeout`` (seconds, None for no limit) bounds the whole wait for each complete line, not
    each read: a server that trickles bytes without a newline fails as one that is silent.
    :meth:`limit_to` bounds the whole conversation as well (a server that never ends the run).
    """

    def __init__(self, sock: socket.socket, where: str, timeout: float | None = None) -> None:
        self.sock = sock
        self.where = where
        self.timeout = timeout
        self.deadline: float | None = None  # time.monotonic() at which the conversation ends
        self.limit = 0.0
        self.lines: deque[bytes] = deque()
        self.partial = b""
        self.last_sent = ""

    @staticmethod
    def open(host: str, port: int, timeout: float | None = 60.0) -> "Connection":
        where = f"{host}:{port}"
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except (OSError, UnicodeError) as err:  # UnicodeError: a host name IDNA cannot encode
            problem = err.strerror if isinstance(err, OSError) and err.strerror else err
            raise ProtocolError(f"cannot connect to a ds-sim server at {where}: "
                                f"{problem}") from None
        return Connection(sock, where, timeout)

    def send(self, message: str) -> None:
        try:
            self.sock.settimeout(self.timeout)
            self.sock.sendall(message.encode() + b"\n")
        except OSError as err:
            raise ProtocolError(f"ds-sim server at {self.where} went away while sending "
                                f"{message!r}: {err.strerror or err}") from None
        self.last_sent = message

    def receive(self, awaited: str | None = None) -> str:
        """The next line; ``awaited`` says what it is, for errors (default: the answer to
        the last message sent)."""
        awaited = awaited or f"the answer to {self.last_sent!r}"
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if self.deadline is not None:
            if time.monotonic() >= self.deadline:
                raise self._over()
            deadline = self.deadline if deadline is None else min(deadline, self.deadline)
        while not self.lines:
            self._read(awaited, deadline)
        return self.lines.popleft().decode(errors="replace").rstrip("\r")

    def _read(self, awaited: str, deadline: float | None) -> None:
        """Read what the socket has (waiting until ``deadline``) into complete lines."""
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timed_out(awaited)
            self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(_CHUNK)
        except TimeoutError:
            raise self._timed_out(awaited) from None
        except OSError as err:
            raise ProtocolError(f"ds-sim server at {self.where} failed while the client waited "
                                f"for {awaited}: {err.strerror or err}") from None
        if not chunk:
            raise ProtocolError(f"ds-sim server at {self.where} closed the connection before "
                                f"sending {awaited}")
        *complete, self.partial = (self.partial + chunk).split(b"\n")
        if any(len(line) > MAX_LINE for line in (*complete, self.partial)):
            raise ProtocolError(f"ds-sim server at {self.where} sent a line longer than "
                                f"{MAX_LINE} bytes in {awaited} (is it in newline mode, "
                                f"ds-server -n?)")
        self.lines.extend(complete)

    def limit_to(self, seconds: float) -> None:
        """End the conversation with an error ``seconds`` from now, whatever the server does."""
        self.limit, self.deadline = seconds, time.monotonic() + seconds

    def _over(self) -> ProtocolError:
        return ProtocolError(f"the ds-sim server at {self.where} did not end the run (NONE) "
                             f"within the deadline of {self.limit:g} s (--deadline)")

    def _timed_out(self, awaited: str) -> ProtocolError:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return self._over()
        got = f" ({len(self.partial)} bytes without a newline so far)" if self.partial else ""
        return ProtocolError(f"timed out after {self.timeout:g} s waiting for {awaited} from "
                             f"the ds-sim server at {self.where}{got}")

    def ask(self, message: str) -> str:
        self.send(message)
        return self.receive()

    def expect(self, message: str, *answers: str) -> str:
        """Send ``message``; the reply must be one of ``answers``."""
        reply = self.ask(message)
        if reply not in answers:
            raise ProtocolError(f"ds-sim server answered {message!r} with {quote(reply)} "
                                f"(expected {' or '.join(map(repr, answers))})")
        return reply

    def records(self, request: str) -> list[str]:
        """A DATA exchange (GETS, LSTJ): ``DATA n len``, OK, n lines, OK, ``.``."""
        reply = self.ask(request)
        header = reply.split()
        where = f"ds-sim server answered {request!r} with {quote(reply)}"
        if len(header) not in (2, 3) or header[0] != "DATA":
            raise ProtocolError(f"{where} (expected 'DATA nRecs recLen')")
        count = integer(header[1], "nRecs", where, high=MAX_RECORDS)
        self.send("OK")
        lines = [self.receive(f"record {i + 1} of {count} answering {request!r}")
                 for i in range(count)]
        if lines:
            self.send("OK")
        end = self.receive(f"the '.' ending the answer to {request!r}")
        if end != ".":
            raise ProtocolError(f"ds-sim server ended the answer to {request!r} with "
                                f"{quote(end)} (expected '.')")
        return lines

    def close(self) -> None:
        self.sock.close()
