"""Numbers and values written as text: strict parsing (ASCII digits only; Python's ``float``
and ``int`` also take ``1_000``, ``' 12'`` or other scripts' digits such as ``'١'``), and
quoting a value in a one-line error message."""

from __future__ import annotations

import re

#: A number: ASCII digits with an optional sign, point and exponent.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)

def parse_float(text: str) -> float | None:
    """``text`` as a float, ``None`` if it is not a plain decimal number. ``nan`` and ``inf``
    are returned as such (and overflow such as ``1e400`` gives ``inf``): callers reject
    non-finite values with their own message."""
    if _DECIMAL.fullmatch(text) or _NON_FINITE.fullmatch(text):
        return float(text)
    return None


def parse_int(text: str) -> int | None:
    """``text`` as an int, ``None`` if it is not a plain integer or has more than 30 digits
    (far out of any range hetsched accepts; Python refuses to convert beyond 4300)."""
    return int(text) if _INTEGER.fullmatch(text) and len(text) <= 30 else None


def parse_number(text: str) -> int | float | None:
    """``text`` as an int when it is a plain integer, else as a float (:func:`parse_float`'s
    rules), ``None`` if it is neither."""
    number = parse_int(text)
    return parse_float(text) if number is None else number


def quote(text: str) -> str:
    """``text`` quoted as an error message shows it, long values shortened."""
    shown = repr(text)
    return shown[:37] + "...'" if len(shown) > 40 else shown
