"""SimGrid's profiles (trace files): a resource's value over time, as ``date value`` lines.

The syntax is SimGrid's deterministic one (its ``ProfileBuilder``): one ``date value`` pair a
line, dates absolute (seconds from the start, never negative, never decreasing), blank lines
and lines starting with ``#`` or ``%`` skipped; ``LOOPAFTER d`` makes the pattern start over
``d`` seconds after its last date (period: last date + d), ``PERIODICITY p`` every ``p``
seconds (the two are exclusive); an inline ``<trace periodicity="p">`` loops as
``PERIODICITY p`` when ``p > 0``. Iteration ``k`` (from 0) puts each date ``t`` at
``t + k · period``. SimGrid's stochastic profiles (``STOCHASTIC``, ``NORM``, ``UNIF``,
``EXP``, ``DET``) are refused: hetsched's inputs are deterministic.

A looping profile is unrolled over its first :data:`MAX_PERIODS` periods, and never beyond
:data:`~hetsched.limits.MAX_TIME`; the reader notes it (:func:`unrolled_to`). A period of 0
(``LOOPAFTER 0`` after a last date of 0) is refused rather than looped forever.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hetsched.errors import InputError
from hetsched.files import read_text
from hetsched.limits import MAX_TIME
from hetsched.parsing import parse_float, quote

#: Periods of a looping profile unrolled (beyond them, the profile is not modelled).
MAX_PERIODS = 1000
#: SimGrid's words of stochastic profiles, refused.
STOCHASTIC_WORDS = {"STOCHASTIC", "DET", "NORM", "NORMAL", "GAUSS", "GAUSSIAN", "UNIF",
                    "UNIFORM", "EXP", "EXPONENTIAL"}


@dataclass(frozen=True)
class Profile:
    """One iteration's ``(date, value)`` events, where they were read (``source``: the file;
    ``record``: the ``<trace>`` holding the text, if any; ``lines``: each event's line) and
    the period after which they repeat (``None``: once)."""

    source: str
    events: tuple[tuple[float, float], ...]
    lines: tuple[int, ...]
    period: float | None = None
    record: str | None = None

    def where(self, line: int) -> str:
        """The record of an error about ``line``."""
        return f"{self.record}, line {line}" if self.record else f"line {line}"


def read_profile(path: Path) -> Profile:
    """The profile file ``path`` (a missing or unreadable file: one-line error)."""
    return parse_profile(read_text(path), str(path))


def parse_profile(text: str, source: str, periodicity: float = 0.0,
                  record: str | None = None) -> Profile:
    """The profile written in ``text`` (``source``, and ``record`` before the line number,
    name it in errors); ``periodicity > 0`` loops it so, as an inline ``<trace>`` does."""
    events: list[tuple[float, float]] = []
    lines: list[int] = []
    loop_after: float | None = None
    given_period: float | None = periodicity if periodicity > 0 else None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{record}, line {number}" if record else f"line {number}"
        if not line or line[0] in "#%":
            continue
        words = line.split()
        if words[0] in ("LOOPAFTER", "PERIODICITY"):
            value = _number(words, 1, source, where, words[0], 2)
            if value < 0 or (words[0] == "PERIODICITY" and value == 0):
                raise InputError(source, f"must be a number of seconds "
                                 f"{'>= 0' if words[0] == 'LOOPAFTER' else '> 0'}, got "
                                 f"{quote(words[1])}", record=where, field=words[0])
            if words[0] == "LOOPAFTER":
                loop_after = value
            else:
                given_period = value
            continue
        if words[0] in STOCHASTIC_WORDS:
            raise InputError(source, f"stochastic profiles are not supported (only 'date "
                             f"value' lines): {quote(line)}", record=where, field="date")
        date = _number(words, 0, source, where, "date", 2)
        value = _number(words, 1, source, where, "value", 2)
        if date < 0 or date > MAX_TIME:
            raise InputError(source, f"must be from 0 to {MAX_TIME:g} s, got {quote(words[0])}",
                             record=where, field="date")
        if events and date < events[-1][0]:
            raise InputError(source, f"dates must not decrease: {words[0]} after "
                             f"{events[-1][0]!r}", record=where, field="date")
        events.append((date, value))
        lines.append(number)
    return Profile(source, tuple(events), tuple(lines),
                   _period(events, loop_after, given_period, source, record), record)


def _number(words: list[str], i: int, source: str, where: str, field: str,
            count: int) -> float:
    """Word ``i`` of a line of ``count`` words, as a finite number."""
    if len(words) != count:
        raise InputError(source, f"expected {count} words ('date value', 'LOOPAFTER d' or "
                         f"'PERIODICITY p'), got {len(words)}: {quote(' '.join(words))}",
                         record=where, field=field)
    value = parse_float(words[i])
    if value is None or not math.isfinite(value):
        raise InputError(source, f"not a finite number: {quote(words[i])}", record=where,
                         field=field)
    return value


def _period(events: list[tuple[float, float]], loop_after: float | None,
            periodicity: float | None, source: str, record: str | None) -> float | None:
    """How often the events repeat (``None``: they do not), by SimGrid's rules."""
    if loop_after is None and periodicity is None:
        return None
    where = record or "<profile>"
    if loop_after is not None and periodicity is not None:
        raise InputError(source, "give LOOPAFTER or PERIODICITY, not both", record=where,
                         field="LOOPAFTER")
    last = events[-1][0] if events else 0.0
    if periodicity is not None and periodicity < last:
        raise InputError(source, f"PERIODICITY {periodicity!r} is shorter than the last date "
                         f"{last!r}", record=where, field="PERIODICITY")
    period = periodicity if periodicity is not None else last + (loop_after or 0.0)
    if period <= 0:
        raise InputError(source, "a looping profile needs a period > 0 (its last date plus "
                         "LOOPAFTER is 0)", record=where, field="LOOPAFTER")
    return period


def unrolled(profile: Profile) -> Iterator[tuple[float, float, int]]:
    """Every ``(date, value, line)`` of the profile in time order, a looping one over its
    first :data:`MAX_PERIODS` periods and up to :data:`~hetsched.limits.MAX_TIME`."""
    repeats = 1 if profile.period is None else MAX_PERIODS
    for k in range(repeats):
        shift = k * profile.period if profile.period is not None else 0.0
        for (date, value), line in zip(profile.events, profile.lines):
            if date + shift > MAX_TIME:
                return
            yield date + shift, value, line


def unrolled_to(profile: Profile) -> float | None:
    """The time up to which :func:`unrolled` follows a looping profile (``None``: one that
    does not loop, followed for good)."""
    if profile.period is None:
        return None
    return min(MAX_PERIODS * profile.period, MAX_TIME)


def spans(profile: Profile, value_of: float,
          until: float = math.inf) -> list[tuple[float, float]]:
    """The intervals ``[start, end)`` over which the profile's value is ``value_of`` (the
    value before the first date is not it; the last interval of a profile that stays so ends
    at ``until``: ``math.inf`` for one that does not loop), merged where they meet; empty
    ones (a value changed twice at one date) left out."""
    spans: list[tuple[float, float]] = []
    begin: float | None = None
    for date, value, _ in unrolled(profile):
        if value == value_of and begin is None:
            begin = date
        elif value != value_of and begin is not None:
            if date > begin:
                spans.append((begin, date))
            begin = None
    if begin is not None and until > begin:
        spans.append((begin, until))
    merged: list[tuple[float, float]] = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
