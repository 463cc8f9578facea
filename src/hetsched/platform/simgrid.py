"""SimGrid platform XML (version 4, as Batsim reads it): every compute host becomes a node.

Hosts come from ``<host id speed core pstate>`` and from ``<cluster>``/``<cabinet>``
(``prefix`` + N + ``suffix`` for every N of ``radical``, e.g. ``"0-99,200-250"``; a cluster's
``<prop>`` elements are every host's), anywhere under ``<zone>``/``<AS>`` nesting. ``speed``
is a list of pstate speeds with SimGrid's units (``f``, ``kf`` … ``Yf``, ``flops`` …
``yottaflops``; a plain number is flop/s); a node runs at the speed of the host's initial
pstate (``pstate``, default 0), one core per ``core``. Batsim's roles: the host with
``<prop id="role" value="master">`` (or named ``master_host``, Batsim's default master) and
``storage`` hosts are not compute nodes (see :func:`_masters`). Hosts' state and speed
profiles become failures and reservations (:mod:`hetsched.platform.simgrid_availability`).
Links, routes and every other element are ignored (links with one note, which runs report as
an input warning).

Power is SimGrid's host energy plugin, whose ``wattage_per_state`` gives per pstate
``Idle:AllCores`` or ``Idle:Epsilon:AllCores`` (Epsilon = Idle when absent): a host with no
busy core draws Idle, one with ``b`` of its ``k`` cores busy ``Epsilon + (b / k)(AllCores -
Epsilon)``. That is hetsched's processor model with ``idle = Idle``, ``static = Epsilon`` and
``dynamic_per_core = (AllCores - Epsilon) / k``. ``wattage_off`` is checked but unused:
hetsched's nodes never switch off. A host without ``wattage_per_state`` has no power model.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from hetsched.errors import InputError
from hetsched.limits import MAX_CORES_PER_NODE, MAX_NODES, MAX_POWER_W, MAX_SPEED, MIN_SPEED
from hetsched.parsing import parse_float, parse_int, quote
from hetsched.platform.model import Node, NodeType, Platform
from hetsched.platform.simgrid_availability import host_availability
from hetsched.xmldoc import attribute, integer

#: SimGrid's speed units, in flop/s.
SPEED_UNITS = {"": 1.0, "f": 1.0, "flops": 1.0}
for _exp, (_short, _long) in enumerate(
        (("k", "kilo"), ("M", "mega"), ("G", "giga"), ("T", "tera"), ("P", "peta"),
         ("E", "exa"), ("Z", "zetta"), ("Y", "yotta")), start=1):
    SPEED_UNITS[f"{_short}f"] = SPEED_UNITS[f"{_long}flops"] = 10.0 ** (3 * _exp)

#: Elements holding zones or hosts, walked into.
CONTAINERS = ("zone", "AS")
#: Elements defining a set of hosts by radical.
HOST_SETS = ("cluster", "cabinet")
#: Batsim's roles of hosts, and its default master host name.
ROLES = ("compute_node", "master", "storage")
MASTER_HOST = "master_host"

#: The note of a platform with links (:attr:`Platform.notes`).
LINKS_IGNORED = "links and routes are ignored (hetsched models no network)"

_NUMBER_AND_UNIT = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(.*)")


@dataclass(frozen=True)
class Host:
    """The hosts one element declares: a ``<host>``, or a cluster's hosts (parsed once)."""

    names: tuple[str, ...]
    speeds: tuple[float, ...]
    cores: int
    pstate: int
    props: dict[str, str]
    record: str
    cluster: str | None = None


def simgrid_platform(root: ET.Element, path: Path) -> Platform:
    """The compute hosts of a SimGrid platform document (``root`` is its ``<platform>``)."""
    _check_version(root, path)
    try:
        hosts = list(_hosts(root, path, [0]))
    except RecursionError:
        raise InputError(path, "zones nested too deeply") from None
    _check_unique(hosts, path)
    masters = _masters(hosts, path)
    types: dict[tuple, NodeType] = {}
    nodes: list[Node] = []
    for host in hosts:
        names = [n for n in host.names if n not in masters]
        if names and _role(host, path) != "storage":
            node_type = _node_type(host, path, types)
            cluster = host.cluster or "cluster0"
            first = len(nodes)
            nodes.extend(Node(first + i, name, node_type, cluster)
                         for i, name in enumerate(names))
    if not nodes:
        raise InputError(path, "no compute host (every host is Batsim's master or storage)",
                         record="<platform>")
    links = any(True for _ in root.iter("link"))
    found = host_availability(root, path, {name for host in hosts for name in host.names},
                              {node.name: node for node in nodes})
    return Platform(path.stem, tuple(nodes), str(path), reservations=tuple(found.reservations),
                    failures=tuple(found.failures),
                    notes=((LINKS_IGNORED,) if links else ()) + tuple(found.notes))


def _check_version(root: ET.Element, path: Path) -> None:
    version = parse_float(root.get("version", "4"))
    if version is None or not 4 <= version < 5:
        raise InputError(path, f"SimGrid platform version {quote(root.get('version', ''))} "
                               "is not supported (version 4 files only)",
                         record="<platform>", field="version")


def _hosts(element: ET.Element, path: Path, count: list[int]):
    """Every host under ``element``, in document order; ``count`` holds how many so far,
    checked against the node limit before a cluster's hosts are made."""
    for child in element:
        if child.tag in CONTAINERS:
            yield from _hosts(child, path, count)
        elif child.tag in ("host", "peer"):
            count[0] += 1
            _check_count(count[0], path, f"<{child.tag} id='{child.get('id', '')}'>", "id")
            yield host_of(child, path, (attribute(child, "id", path, f"<{child.tag}>"),),
                          _props(child, path))
        elif child.tag in HOST_SETS:
            yield from _host_set(child, path, count)
        elif child.tag == "include":
            raise InputError(path, "<include> is not supported: give the whole platform in "
                                   "one file", record="<include>", field="file")


def _host_set(element: ET.Element, path: Path, count: list[int]):
    record = f"<{element.tag} id='{element.get('id', '')}'>"
    ranges = parse_radical(attribute(element, "radical", path, record), path, record)
    count[0] += sum(high - low + 1 for low, high in ranges)
    _check_count(count[0], path, record, "radical")
    prefix, suffix = element.get("prefix", ""), element.get("suffix", "")
    names = tuple(f"{prefix}{number}{suffix}" for low, high in ranges
                  for number in range(low, high + 1))
    yield host_of(element, path, names, _props(element, path), record, element.get("id"))


def _check_count(count: int, path: Path, record: str, field: str) -> None:
    if count > MAX_NODES:
        raise InputError(path, f"brings the platform to {count} hosts, more than the limit "
                               f"of {MAX_NODES}", record=record, field=field)


def parse_radical(text: str, path: Path, record: str) -> list[tuple[int, int]]:
    """``"0-99,200-250"`` as inclusive ranges."""
    ranges = []
    for part in text.split(","):
        low_text, _, high_text = part.strip().partition("-")
        low = parse_int(low_text.strip())
        high = parse_int(high_text.strip()) if high_text else low
        if low is None or high is None or not 0 <= low <= high:
            raise InputError(path, f"not a radical range such as '0-99,200-250': {quote(part)}",
                             record=record, field="radical")
        ranges.append((low, high))
    return ranges


def host_of(element: ET.Element, path: Path, names: tuple[str, ...], props: dict[str, str],
          record: str | None = None, cluster: str | None = None) -> Host:
    record = record or f"<host id='{names[0]}'>"
    speeds = tuple(parse_speed(s, path, record) for s in
                   attribute(element, "speed", path, record).split(","))
    cores = integer(element.get("core", "1").strip(), path, record, "core",
                    (1, MAX_CORES_PER_NODE))
    pstate = integer(element.get("pstate", "0").strip(), path, record, "pstate",
                     (0, len(speeds) - 1))
    return Host(names, speeds, cores, pstate, props, record, cluster)


def parse_speed(text: str, path: Path, record: str) -> float:
    """One speed with its unit, in flop/s."""
    match = _NUMBER_AND_UNIT.fullmatch(text.strip())
    unit = match.group(2).strip() if match else ""
    if match is None or unit not in SPEED_UNITS:
        raise InputError(path, f"not a speed such as '1.5Gf' (units: f, kf, Mf, Gf, Tf, Pf, "
                               f"Ef, Zf, Yf or flops, kiloflops, ...): {quote(text.strip())}",
                         record=record, field="speed")
    value = float(match.group(1)) * SPEED_UNITS[unit]
    if not 0 <= value <= MAX_SPEED:
        raise InputError(path, f"must be from 0 to {MAX_SPEED:g} flop/s, got "
                               f"{quote(text.strip())}", record=record, field="speed")
    return value


def _props(element: ET.Element, path: Path) -> dict[str, str]:
    props = {}
    for prop in element.findall("prop"):
        key = attribute(prop, "id", path, f"<{element.tag} id='{element.get('id', '')}'>")
        props[key] = prop.get("value", "")
    return props


def _check_unique(hosts: list[Host], path: Path) -> None:
    seen: set[str] = set()
    for host in hosts:
        for name in host.names:
            if name in seen:
                raise InputError(path, f"host '{name}' is defined twice", record=host.record)
            seen.add(name)


def _masters(hosts: list[Host], path: Path) -> set[str]:
    """Batsim's master: the hosts with the role, else the host named ``master_host`` (its
    ``--master-host`` default), else the one host whose name starts so (a cluster of one host
    with prefix ``master_host``, as Batsim's ``cluster_locality_*.xml`` have)."""
    by_role = {n for h in hosts if _role(h, path) == "master" for n in h.names}
    named = {n for h in hosts for n in h.names if n == MASTER_HOST}
    prefixed = {n for h in hosts for n in h.names if n.startswith(MASTER_HOST)}
    return by_role or named or (prefixed if len(prefixed) == 1 else set())


def _role(host: Host, path: Path) -> str:
    role = host.props.get("role") or "compute_node"  # Batsim: an empty role is a compute node
    if role not in ROLES:
        raise InputError(path, f"unknown Batsim role {quote(role)} (known: compute_node, "
                               "master, storage)", record=host.record, field="role")
    return role


def _node_type(host: Host, path: Path, types: dict[tuple, NodeType]) -> NodeType:
    """The host's node type: one per distinct speed, cores and power, named after the first
    cluster or host that has it."""
    speed = compute_speed(host, path)
    power = host_power(host, path)
    key = (speed, host.cores, power)
    if key not in types:
        base = host.props.get("node_type") or host.cluster or host.names[0]
        taken = {t.name for t in types.values()}
        name, k = base, 2
        while name in taken:
            name, k = f"{base}-{k}", k + 1
        idle, epsilon, full = power or (0.0, 0.0, 0.0)
        types[key] = NodeType(name, host.cores, clock_ghz=speed / 1e9, idle_w=idle,
                              static_w=epsilon, dynamic_w_per_core=(full - epsilon) / host.cores,
                              has_power=power is not None)
    return types[key]


def compute_speed(host: Host, path: Path) -> float:
    """The speed of a compute host: that of its initial pstate, at least :data:`MIN_SPEED`."""
    speed = host.speeds[host.pstate]
    if speed < MIN_SPEED:
        raise InputError(path, f"a compute host needs a speed of at least {MIN_SPEED:g} flop/s "
                               f"in its initial pstate {host.pstate}, got {speed:g}",
                         record=host.record, field="speed")
    return speed


def host_power(host: Host, path: Path) -> tuple[float, float, float] | None:
    """(Idle, Epsilon, AllCores) of the host's initial pstate, or ``None`` without a table."""
    if "wattage_off" in host.props:
        _watts(host.props["wattage_off"], path, host.record, "wattage_off")
    text = host.props.get("wattage_per_state")
    if text is None:
        return None
    states = text.split(",")
    if states and not states[-1].strip():  # a trailing comma, as in some of Batsim's files
        states.pop()
    if len(states) <= host.pstate:
        raise InputError(path, f"{len(states)} wattage entries: none for the initial pstate "
                               f"{host.pstate}", record=host.record, field="wattage_per_state")
    tables = [parse_wattages(s, path, host.record) for s in states]
    return tables[host.pstate]


def parse_wattages(text: str, path: Path, record: str) -> tuple[float, float, float]:
    values = [_watts(v, path, record, "wattage_per_state") for v in text.split(":")]
    if len(values) not in (2, 3):
        raise InputError(path, f"each pstate needs 'Idle:AllCores' or 'Idle:Epsilon:AllCores', "
                               f"got {quote(text.strip())}", record=record,
                         field="wattage_per_state")
    if len(values) == 2:
        values.insert(1, values[0])
    idle, epsilon, full = values
    return idle, epsilon, full


def _watts(text: str, path: Path, record: str, field: str) -> float:
    value = parse_float(text.strip())
    if value is None or not math.isfinite(value) or not 0 <= value <= MAX_POWER_W:
        raise InputError(path, f"must be a number of watts from 0 to {MAX_POWER_W:g}, got "
                               f"{quote(text.strip())}", record=record, field=field)
    return value
