"""A failure trace read from a file, for a platform of any format (the run option
``failures``).

Two forms: a native platform file (``.json``, ``.yaml``, ``.yml``: what ``hetsched generate
failures`` writes), of which only the ``failures`` list is read; or a CSV file (``.csv``) with
the header ``node,start,end`` and one failure a line: the node by name, its start and its
repair in seconds (``end`` empty: never repaired). Nodes are named as the run's platform names
them. Every problem is a one-line :class:`~hetsched.errors.InputError` naming the file, the
record and the field: an unknown node, a negative or non-finite time, an end not after the
start.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from hetsched.documents import STRUCTURED_SUFFIXES, read_structured
from hetsched.errors import InputError, did_you_mean
from hetsched.fileio import ForeignModel, validate
from hetsched.files import read_text
from hetsched.limits import MAX_TIME
from hetsched.parsing import parse_float, quote
from hetsched.platform.model import Failure, Platform
from hetsched.platform.native import FailureSpec, failures_of

#: The CSV form's columns, in this order.
CSV_COLUMNS = ("node", "start", "end")


class _Trace(ForeignModel):
    """What a failure trace reads of a native platform file: its ``failures`` (the rest of
    the file, whatever it holds, is not read)."""

    failures: list[FailureSpec]


def read_failure_trace(path: str | Path, platform: Platform) -> tuple[Failure, ...]:
    """The failures ``path`` lists, on the nodes of ``platform``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_failures(path, platform)
    if suffix in STRUCTURED_SUFFIXES:
        return failures_of(validate(_Trace, read_structured(path), path).failures,
                           platform.nodes, path)
    raise InputError(path, "a failure trace is a .csv file (node,start,end) or a native "
                           "platform file (.json, .yaml, .yml) with a failures list")


def _csv_failures(path: Path, platform: Platform) -> tuple[Failure, ...]:
    rows = list(csv.reader(read_text(path).splitlines()))
    if not rows or [cell.strip() for cell in rows[0]] != list(CSV_COLUMNS):
        raise InputError(path, f"the first line must be the header {','.join(CSV_COLUMNS)}",
                         record="line 1")
    by_name = {node.name: node.index for node in platform.nodes}
    failures = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        record = f"line {line}"
        if len(row) != len(CSV_COLUMNS):
            raise InputError(path, f"{len(row)} fields, not {len(CSV_COLUMNS)} "
                                   f"({','.join(CSV_COLUMNS)})", record=record)
        name, start_text, end_text = (cell.strip() for cell in row)
        if name not in by_name:
            raise InputError(path, f"unknown node {quote(name)}"
                                   f"{did_you_mean(name, list(by_name))}",
                             record=record, field="node")
        start = _time(start_text, path, record, "start")
        end = math.inf if end_text == "" else _time(end_text, path, record, "end")
        if end <= start:
            raise InputError(path, f"ends at {end:g}, not after its start {start:g}",
                             record=record, field="end")
        failures.append(Failure(by_name[name], start, end))
    return tuple(failures)


def _time(text: str, path: Path, record: str, field: str) -> float:
    """A time in seconds: a finite number in ``[0, MAX_TIME]``."""
    value = parse_float(text)
    if value is None or not (math.isfinite(value) and 0 <= value <= MAX_TIME):
        raise InputError(path, f"{quote(text)} is not a time in seconds (a finite number from "
                               f"0 to {MAX_TIME:g})", record=record, field=field)
    return value + 0.0  # (-0.0 as 0.0)
