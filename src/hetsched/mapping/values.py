"""The numbers of mapping inputs (ETC matrices, task graphs, published optima): one check of
each kind, shared by their readers, each failure a one-line :class:`InputError` naming the
file, the record and the field."""

from __future__ import annotations

import math
from pathlib import Path

from hetsched.errors import InputError
from hetsched.limits import MAX_ETC
from hetsched.parsing import parse_float, parse_int, quote


def check_time(value: float, shown: str, path: Path, record: str | None, field: str | None,
               what: str = "ETC value") -> float:
    """``value`` (written ``shown`` in the file) as a run time or a communication cost:
    finite, not negative, at most :data:`~hetsched.limits.MAX_ETC`; ``-0`` is read as 0."""
    if not math.isfinite(value):
        raise InputError(path, f"not a finite number: {quote(shown)}", record=record,
                         field=field)
    if value < 0:
        raise InputError(path, f"negative {what} {shown}", record=record, field=field)
    if value > MAX_ETC:
        raise InputError(path, f"{what} {shown} is too large (at most {MAX_ETC:g})",
                         record=record, field=field)
    return value + 0.0


def parse_time(text: str, path: Path, record: str | None, field: str | None,
               what: str = "ETC value") -> float:
    """A time written as text: a plain decimal number, then :func:`check_time`."""
    value = parse_float(text)
    if value is None:
        raise InputError(path, f"not a number: {quote(text)}", record=record, field=field)
    return check_time(value, text, path, record, field, what)


def whole_number(text: str, path: Path, record: str | None, field: str,
                 minimum: int = 1) -> int:
    """A count or an id written as text: a plain integer, at least ``minimum``."""
    number = parse_int(text)
    if number is None:
        raise InputError(path, f"not a whole number: {quote(text)}", record=record, field=field)
    if number < minimum:
        raise InputError(path, f"must be at least {minimum}, got {number}", record=record,
                         field=field)
    return number
