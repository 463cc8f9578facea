"""Writing a SimGrid (version 4.1) platform as Batsim reads it: a ``<zone>`` holding Batsim's
master host and one ``<host>`` per node, with its speed in flop/s (``f``), ``core``, the
``node_type`` property (the reader names node types after it) and, for a node type with a
power model, SimGrid's ``wattage_per_state`` ``Idle:Epsilon:AllCores`` = ``idle : static :
static + dynamic_per_core · cores``, which :mod:`hetsched.platform.simgrid` reads back to the
same power model (``dynamic_per_core = (AllCores − Epsilon) / cores``, equal up to one
rounding). SimGrid's host is one processor with no memory.

A cluster other than ``cluster0`` whose nodes are one run of one node type, named a common
prefix and consecutive numbers, becomes a ``<cluster>`` (its ``radical`` the numbers; ``bw``
and ``lat``, which SimGrid requires and hetsched ignores, are placeholders: hetsched models no
network), so cluster and node names survive; other nodes are ``<host>``s in ``cluster0``.

A node's failures become its state profile (:mod:`hetsched.platform.simgrid_availability`):
a ``<trace>`` written inline, ``start 0`` and ``end 1`` per failure (overlapping failures of
a node joined: the node is down while any is in force), connected to the host by
``<trace_connect kind="HOST_AVAIL">``, which the reader turns back into the same failures.
Its reservations of all its cores become its speed profile the same way (``kind="SPEED"``),
which the reader turns back into reservations of the whole node (overlapping or touching
ones joined); a reservation of part of a node has no such form (a loss, reported)."""

from __future__ import annotations

import math
from collections import Counter
import re
from pathlib import Path
from xml.sax.saxutils import quoteattr

from hetsched.platform.model import Node, NodeType, Platform, Reservation
from hetsched.platform.writers import (PlatformWriter, platform_losses, type_losses)

FMT = "SimGrid XML"


_NUMBERED = re.compile(r"(.*?)(0|[1-9][0-9]*)")


def _props(t: NodeType) -> str:
    props = [("node_type", t.name)]
    if t.has_power:
        props.append(("wattage_per_state", f"{t.idle_w!r}:{t.static_w!r}:{t.full_power_w!r}"))
    return "".join(f"\n      <prop id={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props)


def _host(name: str, t: NodeType) -> str:
    return (f"    <host id={quoteattr(name)} speed=\"{t.speed!r}f\" core=\"{t.cores}\">"
            f"{_props(t)}\n    </host>")


def cluster_run(nodes: list[Node]) -> tuple[str, int, int] | None:
    """(prefix, first, last) when ``nodes`` are one node type named prefix + consecutive
    numbers; else ``None``."""
    matches = [_NUMBERED.fullmatch(n.name) for n in nodes]
    if not all(matches) or len({n.type.name for n in nodes}) != 1:
        return None
    prefixes = {m.group(1) for m in matches}
    numbers = [int(m.group(2)) for m in matches]
    consecutive = numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    return (prefixes.pop(), numbers[0], numbers[-1]) if len(prefixes) == 1 and consecutive \
        else None


def _runs(platform: Platform) -> list[list[Node]]:
    """Runs of consecutive nodes of one cluster, in node order."""
    runs: list[list[Node]] = []
    for node in platform.nodes:
        if runs and runs[-1][0].cluster == node.cluster:
            runs[-1].append(node)
        else:
            runs.append([node])
    return runs


def _clusters(runs: list[list[Node]]) -> set[str]:
    """The clusters written as ``<cluster>``: not cluster0, one run, :func:`cluster_run`."""
    runs_of = Counter(run[0].cluster for run in runs)
    return {run[0].cluster for run in runs if run[0].cluster != "cluster0"
            and runs_of[run[0].cluster] == 1 and cluster_run(run) is not None}


def _elements(platform: Platform) -> list[str]:
    runs = _runs(platform)
    as_cluster = _clusters(runs)
    elements = []
    for nodes in runs:
        if nodes[0].cluster not in as_cluster:
            elements.extend(_host(n.name, n.type) for n in nodes)
            continue
        prefix, first, last = cluster_run(nodes)
        t = nodes[0].type
        elements.append(f"    <cluster id={quoteattr(nodes[0].cluster)} "
                        f"prefix={quoteattr(prefix)} suffix=\"\" radical=\"{first}-{last}\" "
                        f"speed=\"{t.speed!r}f\" core=\"{t.cores}\" bw=\"1GBps\" lat=\"0us\">"
                        f"{_props(t)}\n    </cluster>")
    return elements


def _joined(windows: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of ``windows`` ``(start, end)``, in time order."""
    spans: list[tuple[float, float]] = []
    for start, end in sorted(windows):
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


def _profiles(platform: Platform) -> list[str]:
    """Each node's state profile (its failures) and speed profile (its reservations of the
    whole node), inline, and their connections to the host."""
    kinds = (("state", "HOST_AVAIL", [(f.node, f.start, f.end) for f in platform.failures]),
             ("speed", "SPEED", [(r.node, r.start, r.end) for r in _whole_node(platform)]))
    elements = []
    for suffix, kind, windows in kinds:
        by_node: dict[int, list[tuple[float, float]]] = {}
        for node, start, end in windows:
            by_node.setdefault(node, []).append((start, end))
        for node, spans in sorted(by_node.items()):
            elements.append(_profile(platform.nodes[node].name, suffix, kind, _joined(spans)))
    return elements


def _profile(name: str, suffix: str, kind: str, off: list[tuple[float, float]]) -> str:
    """A host's profile at 0 over each of ``off`` (else 1), inline, and its connection."""
    lines = [f"{start!r} 0\n" + (f"{end!r} 1\n" if end < math.inf else "")
             for start, end in off]
    trace = quoteattr(f"{name}.{suffix}")
    return (f"    <trace id={trace} periodicity=\"0\">\n{''.join(lines)}    </trace>"
            f"\n    <trace_connect kind=\"{kind}\" trace={trace} element={quoteattr(name)}/>")


def _whole_node(platform: Platform) -> list[Reservation]:
    """The reservations that hold all their node's cores (a speed profile at 0)."""
    return [r for r in platform.reservations if r.cores == platform.nodes[r.node].type.cores]


def write_simgrid(platform: Platform, path: Path) -> Path:
    hosts = _elements(platform) + _profiles(platform)
    lines = ['<?xml version="1.0"?>',
             '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">', '  <zone id="AS0" routing="Full">',
             '    <host id="master_host" speed="1Gf">\n      <prop id="role" value="master"/>'
             '\n    </host>', *hosts, "  </zone>", "</platform>", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def losses(platform: Platform) -> list[str]:
    lines = type_losses(platform, FMT, {
        "several processors": lambda t: len(t.processors) > 1,
        "memory": lambda t: math.isfinite(t.memory_mb),
        "a memory bandwidth": lambda t: math.isfinite(t.mem_bw_gbs),
        "a disk size": lambda t: math.isfinite(t.disk_mb),
        "on-demand nodes": lambda t: t.on_demand,
        "an hourly price": lambda t: t.hourly_price != 0,
        "a boot time": lambda t: t.boot_time != 0,
        "oversubscription": lambda t: t.oversubscription != 1,
        "contention parameters": lambda t: any(p.params for p in t.processors),
        "ops_per_cycle other than 1": lambda t: t.ops_per_cycle != 1})
    other = sorted({n.cluster for n in platform.nodes} - {"cluster0"}
                   - _clusters(_runs(platform)))
    if other:
        lines.append(f"clusters {', '.join(other[:3])} are not one run of one node type with "
                     f"numbered names: {FMT} puts their hosts in cluster0")
    if "master_host" in {n.name for n in platform.nodes}:
        lines.append(f"a node is named master_host: {FMT} needs the name for Batsim's master")
    partial = len(platform.reservations) - len(_whole_node(platform))
    if partial:
        lines.append(f"{partial} reservation(s) hold part of a node: {FMT}'s speed profiles "
                     "hold whole nodes")
    return lines + platform_losses(platform, FMT, contention="none", keeps_failures=True,
                                   keeps_reservations=True)


WRITER = PlatformWriter("simgrid", ".xml", write_simgrid, losses,
                        "SimGrid/Batsim platform XML (version 4.1)")
