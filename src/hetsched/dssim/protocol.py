"""ds-sim's socket protocol, newline-terminated mode (ds-server -n): one message per line."""

from __future__ import annotations

import socket

from hetsched.dssim.records import ProtocolError

#: Longest line accepted from the server (a GETS answer of thousands of records is many lines).
MAX_LINE = 1 << 20


class Connection:
    """A line-based conversation with a ds-sim server; every failure is a ProtocolError."""

    def __init__(self, sock: socket.socket, where: str) -> None:
        self.sock = sock
        self.where = where
        self.buffer = b""
        self.last_sent = ""

    @staticmethod
    def open(host: str, port: int, timeout: float | None = 60.0) -> "Connection":
        where = f"{host}:{port}"
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as err:
            raise ProtocolError(f"cannot connect to a ds-sim server at {where}: "
                                f"{err.strerror or err}") from None
        return Connection(sock, where)

    def send(self, message: str) -> None:
        try:
            self.sock.sendall(message.encode() + b"\n")
        except OSError as err:
            raise ProtocolError(f"ds-sim server at {self.where} went away while sending "
                                f"{message!r}: {err.strerror or err}") from None
        self.last_sent = message

    def receive(self) -> str:
        while b"\n" not in self.buffer:
            try:
                chunk = self.sock.recv(65536)
            except OSError as err:
                raise ProtocolError(f"ds-sim server at {self.where} failed after "
                                    f"{self.last_sent!r}: {err.strerror or err}") from None
            if not chunk:
                raise ProtocolError(f"ds-sim server at {self.where} closed the connection "
                                    f"after {self.last_sent!r}")
            self.buffer += chunk
            if len(self.buffer) > MAX_LINE and b"\n" not in self.buffer:
                raise ProtocolError(f"ds-sim server at {self.where} sent a line longer than "
                                    f"{MAX_LINE} bytes (is it in newline mode, ds-server -n?)")
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    def ask(self, message: str) -> str:
        self.send(message)
        return self.receive()

    def expect(self, message: str, *answers: str) -> str:
        """Send ``message``; the reply must be one of ``answers``."""
        reply = self.ask(message)
        if reply not in answers:
            raise ProtocolError(f"ds-sim server answered {message!r} with {reply!r} "
                                f"(expected {' or '.join(map(repr, answers))})")
        return reply

    def records(self, request: str) -> list[str]:
        """A DATA exchange (GETS, LSTJ): ``DATA n len``, OK, n lines, OK, ``.``."""
        header = self.ask(request).split()
        if len(header) < 2 or header[0] != "DATA" or not header[1].isdigit():
            raise ProtocolError(f"ds-sim server answered {request!r} with {' '.join(header)!r} "
                                f"(expected 'DATA n length')")
        self.send("OK")
        lines = [self.receive() for _ in range(int(header[1]))]
        if lines:
            self.send("OK")
        end = self.receive()
        if end != ".":
            raise ProtocolError(f"ds-sim server ended the answer to {request!r} with {end!r} "
                                f"(expected '.')")
        return lines

    def close(self) -> None:
        self.sock.close()
