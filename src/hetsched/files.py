"""Reading an input file safely: it must be a regular file within
:data:`~hetsched.limits.MAX_FILE_BYTES`, readable, and (for text) UTF-8; every problem is a
one-line :class:`~hetsched.errors.InputError`."""

from __future__ import annotations

from pathlib import Path

from hetsched.errors import InputError
from hetsched.limits import MAX_FILE_BYTES


def check_exists(path: Path) -> None:
    """A regular file of at most :data:`~hetsched.limits.MAX_FILE_BYTES` (a device such as
    ``/dev/zero`` or a FIFO would be read without end)."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a file")
    if not path.is_file():
        raise InputError(path, "not a regular file (a device, FIFO or socket)")
    check_size(path, path.stat().st_size)


def check_size(path: Path, size: int, what: str = "the file holds") -> None:
    if size > MAX_FILE_BYTES:
        raise InputError(path, f"{what} more than {MAX_FILE_BYTES:,} bytes, the most hetsched "
                               "reads (limits.MAX_FILE_BYTES)")


def read_bytes(path: Path) -> bytes:
    """The file's bytes, with missing, oversized and unreadable files reported as
    InputError."""
    check_exists(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def read_text(path: Path) -> str:
    """The file's text (UTF-8, a leading byte-order mark dropped)."""
    return decode_text(read_bytes(path), path)


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 bytes as text; a byte-order mark at the start (some editors write one) is
    dropped, so it cannot hide in the first record."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"not UTF-8 text (byte {exc.start})",
                         record=f"line {line}") from None
