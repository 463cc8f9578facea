"""Writing a SimGrid (version 4.1) platform as Batsim reads it: a ``<zone>`` holding Batsim's
master host and one ``<host>`` per node, with its speed in flop/s (``f``), ``core``, the
``node_type`` property (the reader names node types after it) and, for a node type with a
power model, SimGrid's ``wattage_per_state`` ``Idle:Epsilon:AllCores`` = ``idle : static :
static + dynamic_per_core · cores``, which :mod:`hetsched.platform.simgrid` reads back to the
same power model (``dynamic_per_core = (AllCores − Epsilon) / cores``, equal up to one
rounding). SimGrid's host is one processor with no memory."""

from __future__ import annotations

import math
from pathlib import Path
from xml.sax.saxutils import quoteattr

from hetsched.platform.model import NodeType, Platform
from hetsched.platform.writers import (PlatformWriter, platform_losses, type_losses)

FMT = "SimGrid XML"


def _host(name: str, t: NodeType) -> str:
    props = [("node_type", t.name)]
    if t.has_power:
        props.append(("wattage_per_state", f"{t.idle_w!r}:{t.static_w!r}:{t.full_power_w!r}"))
    inner = "".join(f"\n      <prop id={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props)
    return (f"    <host id={quoteattr(name)} speed=\"{t.speed!r}f\" core=\"{t.cores}\">"
            f"{inner}\n    </host>")


def write_simgrid(platform: Platform, path: Path) -> Path:
    hosts = [_host(n.name, n.type) for n in platform.nodes]
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
    other = sorted({n.cluster for n in platform.nodes} - {"cluster0"})
    if other:
        lines.append(f"nodes are in clusters {', '.join(other[:3])}: {FMT} hosts are in "
                     "cluster0")
    if "master_host" in {n.name for n in platform.nodes}:
        lines.append(f"a node is named master_host: {FMT} needs the name for Batsim's master")
    return lines + platform_losses(platform, FMT, contention="none")


WRITER = PlatformWriter("simgrid", ".xml", write_simgrid, losses,
                        "SimGrid/Batsim platform XML (version 4.1)")
