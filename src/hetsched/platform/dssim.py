"""Reading a ds-sim configuration (server types, and how jobs are made) as a platform. Bad
input gives one line naming the file, the record and the problem. (Its job list:
:mod:`hetsched.workload.dssim`; the ds-sim algorithms: :mod:`hetsched.dssim`.)"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from hetsched.errors import ConfigError, InputError
from hetsched.limits import MAX_CORES_PER_NODE, MAX_INT32, MAX_NODES, MAX_PRICE
from hetsched.parsing import parse_float, quote
from hetsched.platform.model import NodeType, Platform
from hetsched.platform.native import nodes_from_groups
from hetsched.xmldoc import attribute, int_attribute, read_xml

#: Node speed of ds-sim servers (ops/s): ds-sim has no speeds, so run time = work / 1e9.
SPEED = 1e9

#: Each integer attribute's range: ds-sim's C ints, and hetsched's limits.
_SERVER_FIELDS = {"limit": (1, MAX_NODES), "bootupTime": (0, MAX_INT32),
                  "cores": (1, MAX_CORES_PER_NODE), "memory": (0, MAX_INT32),
                  "disk": (0, MAX_INT32)}


@dataclass(frozen=True, slots=True)
class ServerType:
    """A server type of the configuration: capacity, how many, boot time, hourly rate."""

    name: str
    limit: int
    boot_time: int
    hourly_rate: float
    cores: int
    memory: int
    disk: int


@dataclass(frozen=True)
class DsSimConfig:
    """What hetsched takes from a configuration: server types (in ds-sim's order, by core
    count) and where jobs come from: a job list file, or ds-sim's random generator."""

    path: Path
    types: tuple[ServerType, ...]
    job_file: Path | None
    seed: int | None


def _rate(path: Path, element: ET.Element, record: str) -> float:
    text = attribute(element, "hourlyRate", path, record)
    value = parse_float(text)
    if value is None or not 0 <= value <= MAX_PRICE:
        raise InputError(path, f"must be a number from 0 to {MAX_PRICE:g}, got {quote(text)}",
                         record=record, field="hourlyRate")
    return value + 0.0  # -0 -> 0


def _server_type(path: Path, element: ET.Element, number: int) -> ServerType:
    name = element.get("type")
    record = f"server {number}" + (f" ('{name}')" if name else "")
    if not name:
        raise InputError(path, "missing attribute", record=record, field="type")
    limit, boot, cores, memory, disk = (int_attribute(element, f, path, record, bounds)
                                        for f, bounds in _SERVER_FIELDS.items())
    return ServerType(name, limit, boot, _rate(path, element, record), cores, memory, disk)


def read_config(path: str | Path, root: ET.Element | None = None) -> DsSimConfig:
    """A ds-sim configuration (or the ``ds-system.xml`` a ds-sim server writes); ``root``: its
    root element when the file was read already."""
    path = Path(path)
    root = read_xml(path) if root is None else root
    if root.tag not in ("config", "system"):
        raise InputError(path, f"not a ds-sim configuration: the root element is <{root.tag}>, "
                               "expected <config>")
    elements = list(root.iter("server"))
    if not elements:
        raise InputError(path, "no <server> elements: a ds-sim configuration needs server types",
                         record="<servers>")
    types = [_server_type(path, e, i + 1) for i, e in enumerate(elements)]
    seen: set[str] = set()
    for name in (t.name for t in types):
        if name in seen:
            raise InputError(path, f"server type '{name}' is defined twice", record="<servers>")
        seen.add(name)
    jobs = root.find("jobs")
    job_file = jobs.get("file") if jobs is not None else None
    seed = (int_attribute(root, "randomSeed", path, f"<{root.tag}>", (0, MAX_INT32))
            if "randomSeed" in root.attrib else None)
    return DsSimConfig(path, tuple(sorted(types, key=lambda t: t.cores)),
                       path.parent / job_file if job_file else None, seed)


def config_platform(path: str | Path, root: ET.Element | None = None) -> Platform:
    """The servers of a configuration as a hetsched platform, in ds-sim's server order
    (``root``: as :func:`read_config`)."""
    config = read_config(path, root)
    groups = [("cluster0", NodeType(t.name, t.cores, clock_ghz=SPEED / 1e9, memory_mb=t.memory,
                                    hourly_price=t.hourly_rate, boot_time=t.boot_time,
                                    on_demand=True, disk_mb=t.disk, has_power=False), t.limit)
              for t in config.types]
    nodes = nodes_from_groups(groups, config.path, "limit")
    return Platform(config.path.stem, nodes, str(config.path))


def server_types(platform: Platform) -> tuple[ServerType, ...]:
    """The ds-sim server types behind a platform: one per node type, in node order. Every node
    type needs a finite memory and disk size (a ds-sim configuration's servers, or native node
    types given ``memory_gb`` and ``disk_gb``)."""
    counts: dict[str, int] = {}
    for node in platform.nodes:
        counts[node.type.name] = counts.get(node.type.name, 0) + 1
    for t in platform.node_types:
        for what, size in (("memory", t.memory_mb), ("disk", t.disk_mb)):
            if not math.isfinite(size):
                raise ConfigError(f"ds-sim algorithms need a ds-sim platform, whose servers have "
                                  f"memory and disk sizes (a configuration XML, or native node "
                                  f"types with memory_gb and disk_gb); {platform.source}: node "
                                  f"type '{t.name}' has no {what} size")
    return tuple(ServerType(t.name, counts[t.name], int(t.boot_time), t.hourly_price, t.cores,
                            int(t.memory_mb), int(t.disk_mb)) for t in platform.node_types)
