"""A SimGrid platform's host profiles as hetsched's node availability (docs/formats.md).

Where profiles come from: a ``<host>``'s (or ``<peer>``'s) ``state_file`` and ``speed_file``
(``availability_file``, its deprecated name, when there is no ``speed_file``), files resolved
relative to the platform file; and ``<trace id>`` elements (a ``file``, or the profile written
inside, looping every ``periodicity`` seconds when that is > 0) connected to a host by
``<trace_connect kind="HOST_AVAIL" | "SPEED" trace element>`` (``kind`` required: SimGrid's
DTD and parser disagree on its default). Profiles of links are ignored with the links. A
``<cluster>`` carries no profile in SimGrid 4 (its ``state_file``/``availability_file`` were
removed): one found there is refused.

What they become, per compute host:

- **state profile** (0: off, 1: on; any other value refused): each off period is a
  :class:`~hetsched.platform.model.Failure`, unannounced (SimGrid turns the host off and what
  runs there dies, as Batsim's machine failures);
- **speed profile** (a factor of the host's speed, >= 0): each period at 0 is a
  :class:`~hetsched.platform.model.Reservation` of all the node's cores, known in advance
  (the host computes nothing then); other factors than 0 and 1 are not modelled (hetsched's
  speeds do not change over time): the platform's notes say so, host by host.

A looping profile is followed over its first periods only
(:data:`~hetsched.platform.simgrid_profiles.MAX_PERIODS`), with a note; profiles of hosts that
are not compute nodes (Batsim's master and storage hosts) are ignored, with a note.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hetsched.errors import InputError
from hetsched.parsing import parse_float, quote
from hetsched.platform.model import Failure, Node, Reservation
from hetsched.platform.simgrid_profiles import (MAX_PERIODS, Profile, parse_profile,
                                                 read_profile, spans, unrolled_to)
from hetsched.xmldoc import attribute

#: ``<trace_connect>`` kinds of host profiles, and the profile each sets.
HOST_KINDS = {"HOST_AVAIL": "state", "SPEED": "speed"}
#: Its kinds of link profiles (ignored, as links are).
LINK_KINDS = ("LINK_AVAIL", "BANDWIDTH", "LATENCY")
#: The attributes of a host naming its profile files, by profile (first found wins).
FILE_ATTRIBUTES = {"state": ("state_file",), "speed": ("speed_file", "availability_file")}
#: Shown hosts in a note.
SHOWN = 3


@dataclass
class HostAvailability:
    """What the profiles of a platform's hosts give: failures, reservations and notes."""

    failures: list[Failure] = field(default_factory=list)
    reservations: list[Reservation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def host_availability(root: ET.Element, path: Path, hosts: set[str],
                      nodes: Mapping[str, Node]) -> HostAvailability:
    """The failures and reservations the profiles of ``root``'s ``hosts`` (every host name)
    give the compute ``nodes`` (by host name), and the notes on what is left out."""
    profiles = _profiles(root, path, hosts)
    found = HostAvailability()
    scaled: list[str] = []
    looping: dict[str, float] = {}
    ignored = sorted(name for name in profiles if name not in nodes)
    for name, kinds in profiles.items():
        node = nodes.get(name)
        for kind, profile in kinds.items():
            _check_values(profile, kind)
            if node is None:
                continue
            until = unrolled_to(profile)
            if until is not None:
                looping[name] = min(until, looping.get(name, until))
            end = until if until is not None else float("inf")
            off = spans(profile, 0.0, end)
            if kind == "state":
                found.failures += [Failure(node.index, s, e) for s, e in off]
            else:
                found.reservations += [Reservation(node.index, s, e, node.type.cores)
                                       for s, e in off]
                if any(v not in (0.0, 1.0) for _, v in profile.events):
                    scaled.append(name)
    found.failures.sort(key=lambda f: (f.node, f.start))
    found.reservations.sort(key=lambda r: (r.node, r.start))
    if scaled:
        found.notes.append(f"the speed profiles of host(s) {_names(scaled)} scale their speed "
                           "by factors other than 0 and 1: ignored (hetsched's speeds do not "
                           "change over time)")
    if looping:
        found.notes.append(f"the profiles of host(s) {_names(sorted(looping))} repeat: followed "
                           f"for their first {MAX_PERIODS} periods only (to t = "
                           f"{min(looping.values()):g} s at the earliest), not beyond")
    if ignored:
        found.notes.append(f"the profiles of host(s) {_names(ignored)} are ignored (not compute "
                           "nodes)")
    return found


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _profiles(root: ET.Element, path: Path, hosts: set[str]) -> dict[str, dict[str, Profile]]:
    """Each host's profiles by kind (``state``, ``speed``), from its attributes and from
    ``<trace_connect>``."""
    traces = {trace.get("id", ""): trace for trace in root.iter("trace")}
    profiles: dict[str, dict[str, Profile]] = {}
    for element in root.iter():
        if element.tag in ("host", "peer"):
            name = element.get("id", "")
            for kind, names in FILE_ATTRIBUTES.items():
                given = next((a for a in names if element.get(a)), None)
                if given is not None:
                    file = path.parent / element.get(given, "")
                    _add(profiles, name, kind, read_profile(file), path,
                         f"<{element.tag} id='{name}'>", given)
        elif element.tag in ("cluster", "cabinet"):
            _refuse_cluster_profiles(element, path)
    for connect in root.iter("trace_connect"):
        record = f"<trace_connect trace='{connect.get('trace', '')}'>"
        kind = attribute(connect, "kind", path, record)
        if kind in LINK_KINDS:
            continue
        if kind not in HOST_KINDS:
            raise InputError(path, f"unknown kind {quote(kind)} (known: HOST_AVAIL, SPEED, "
                             f"{', '.join(LINK_KINDS)})", record=record, field="kind")
        trace_id = attribute(connect, "trace", path, record)
        host = attribute(connect, "element", path, record)
        if trace_id not in traces:
            raise InputError(path, f"no <trace> with id {quote(trace_id)}", record=record,
                             field="trace")
        if host not in hosts:
            raise InputError(path, f"no host named {quote(host)}", record=record,
                             field="element")
        _add(profiles, host, HOST_KINDS[kind], _trace(traces[trace_id], path), path, record,
             "trace")
    return profiles


def _add(profiles: dict[str, dict[str, Profile]], host: str, kind: str, profile: Profile,
         path: Path, record: str, field_name: str) -> None:
    mine = profiles.setdefault(host, {})
    if kind in mine:
        raise InputError(path, f"host '{host}' already has a {kind} profile", record=record,
                         field=field_name)
    mine[kind] = profile


def _trace(trace: ET.Element, path: Path) -> Profile:
    """A ``<trace>``'s profile: its file's (whose periodicity SimGrid ignores), else the one
    written inside it."""
    record = f"<trace id='{trace.get('id', '')}'>"
    if trace.get("file"):
        return read_profile(path.parent / trace.get("file", ""))
    text = trace.get("periodicity", "0").strip()
    periodicity = parse_float(text)
    if periodicity is None or not 0 <= periodicity < float("inf"):
        raise InputError(path, f"must be a number of seconds >= 0, got {quote(text)}",
                         record=record, field="periodicity")
    return parse_profile(trace.text or "", str(path), periodicity, record)


def _refuse_cluster_profiles(element: ET.Element, path: Path) -> None:
    for name in ("state_file", "speed_file", "availability_file"):
        if element.get(name):
            raise InputError(path, "SimGrid 4 gives a cluster no profile: connect one to each "
                             "host with <trace_connect>", record=f"<{element.tag} "
                             f"id='{element.get('id', '')}'>", field=name)


def _check_values(profile: Profile, kind: str) -> None:
    """A state profile's values are 0 or 1; a speed profile's are >= 0."""
    for (_, value), line in zip(profile.events, profile.lines):
        bad = value not in (0.0, 1.0) if kind == "state" else value < 0
        if bad:
            rule = "0 (off) or 1 (on)" if kind == "state" else "a speed factor >= 0"
            raise InputError(profile.source, f"a {kind} profile's value must be {rule}, got "
                             f"{value!r}", record=profile.where(line), field="value")
