"""Batsim's external events (its ``--events`` files) as changes of node availability.

A file holds one JSON object a line, in any order (Batsim sorts them by ``timestamp``; blank
lines are skipped here). Batsim 4 acts on two types, each naming machines by an interval set
of Batsim's machine ids (``"0-4 6 8"``):

- ``{"timestamp": 10, "type": "machine_unavailable", "resources": "0-4 6"}``: the machines
  take no new job from then on; **jobs already running there are not killed** (Batsim's
  documentation; a scheduler that wants them killed kills them);
- ``{"timestamp": 20, "type": "machine_available", "resources": "2-4"}``: they take jobs
  again.

So they are neither failures (nothing is killed) nor reservations (nothing foresees them):
they are hetsched's low-level set-points, :class:`~hetsched.platform.model.Availability`
``(time, node, 0)`` and ``(time, node, cores)``, applied when due; a node whose running jobs
hold more than it has takes no new work until they leave (docs/model.md). Batsim 5 forwards
only ``generic`` events, whose ``data`` string its documentation uses for the same two
types (``{"type": "generic", "timestamp": 10, "data": "{\\"type\\":
\\"machine_unavailable\\", \\"resources\\": \\"0-4 6 8\\"}"}``): they are read the same way.
Events of other types (a user's own, forwarded to Batsim's scheduler) have no counterpart in
hetsched: they are counted in one note of the platform, reported as an input warning.

Batsim numbers its compute machines in SimGrid's host order, which is by name (SimGrid sorts
``get_all_hosts`` by name): machine ``k`` is the ``k``-th node in the order of the nodes'
names (``host10`` before ``host2``), not in the platform file's order.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from hetsched.errors import InputError
from hetsched.files import read_text
from hetsched.limits import MAX_TIME
from hetsched.parsing import parse_int, quote
from hetsched.platform.model import Availability, Platform

#: The event types that change availability, and whether the machines are available after.
TYPES = {"machine_unavailable": False, "machine_available": True}


def with_batsim_events(platform: Platform, path: Path) -> Platform:
    """``platform`` with the availability changes of the Batsim events file ``path`` after
    its own (and a note counting the events of other types, if any)."""
    changes, others = batsim_events(path, platform)
    notes = platform.notes
    if others:
        notes += (f"{path}: {others} event(s) of other types than machine_unavailable and "
                  "machine_available ignored (hetsched's schedulers hear of no external "
                  "event)",)
    return replace(platform, availability=platform.availability + changes, notes=notes)


def batsim_events(path: Path, platform: Platform) -> tuple[tuple[Availability, ...], int]:
    """The availability changes of the events file ``path`` on ``platform`` (in time order,
    simultaneous ones in file order), and how many events were of other types."""
    machines = sorted(platform.nodes, key=lambda node: node.name)
    timed: list[tuple[float, int, Availability]] = []
    others = 0
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        record = f"line {number}"
        event = _object(line, path, record)
        time = _timestamp(event, path, record)
        kind, resources = _kind(event, path, record)
        if kind not in TYPES:
            others += 1
            continue
        for machine in _interval_set(resources, len(machines), path, record):
            node = machines[machine]
            cores = node.type.cores if TYPES[kind] else 0
            timed.append((time, len(timed), Availability(time, node.index, cores)))
    timed.sort(key=lambda item: item[:2])
    return tuple(change for _, _, change in timed), others


def _object(text: str, path: Path, record: str, field: str | None = None) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        problem = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
        raise InputError(path, f"not JSON: {problem}", record=record, field=field) from None
    if not isinstance(value, dict):
        raise InputError(path, "not a JSON object", record=record, field=field)
    return value


def _timestamp(event: dict[str, Any], path: Path, record: str) -> float:
    value = event.get("timestamp")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or \
            not (math.isfinite(value) and 0 <= value <= MAX_TIME):
        raise InputError(path, f"must be a time from 0 to {MAX_TIME:g} s, got "
                         f"{quote(json.dumps(value))}", record=record, field="timestamp")
    return float(value)


def _kind(event: dict[str, Any], path: Path, record: str) -> tuple[str, Any]:
    """The event's type and resources (a Batsim 5 ``generic`` event: those of its ``data``,
    when it holds a JSON object of a type of :data:`TYPES`)."""
    kind = event.get("type")
    if not isinstance(kind, str):
        raise InputError(path, "missing or not text", record=record, field="type")
    data = event.get("data")
    if kind == "generic" and isinstance(data, str) and data.lstrip().startswith("{"):
        inner = _object(data, path, record, "data")
        if inner.get("type") in TYPES:
            return inner["type"], inner.get("resources")
    return kind, event.get("resources")


def _interval_set(text: Any, count: int, path: Path, record: str) -> list[int]:
    """Batsim's interval set (``"0-4 6 8"``) as machine ids, each below ``count``."""
    if not isinstance(text, str) or not text.split():
        raise InputError(path, "missing: an interval set of machine ids such as '0-4 6 8'",
                         record=record, field="resources")
    ids: list[int] = []
    for part in text.split():
        low_text, _, high_text = part.partition("-")
        low, high = parse_int(low_text), parse_int(high_text or low_text)
        if low is None or high is None or not 0 <= low <= high < count:
            raise InputError(path, f"{quote(part)} is not a machine id or range a-b of the "
                             f"platform's {count} machines (0 to {count - 1})", record=record,
                             field="resources")
        ids.extend(range(low, high + 1))
    return ids
