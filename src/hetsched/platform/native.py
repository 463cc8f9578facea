"""hetsched's own platform format (JSON or YAML); see ``docs/formats.md``.

```yaml
name: small
node_types:
  - {name: fast, cores: 8, clock_ghz: 3.0, memory_gb: 64,
     power: {idle: 20, static: 50, dynamic_per_core: 10}}
clusters:
  - {name: c0, nodes: [{type: fast, count: 2}]}
```
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from hetsched.errors import ConfigError, InputError, did_you_mean
from hetsched.documents import file_stem, read_structured
from hetsched.fileio import StrictModel, check_unique, record_namer, validate
from hetsched.limits import MAX_CORES_PER_NODE, MAX_NODES, MAX_OVERSUBSCRIPTION
from hetsched.platform.model import (SECONDS_PER_HOUR, Node, NodeType, Platform, Processor,
                                     Failure, Reservation)
from hetsched.platform.reservations import from_downtime, overbooked
from hetsched.models.contention import PROCESSOR_PARAMETERS
from hetsched.quantities import (ClockGhz, Coefficient, Cores, Count, MemoryGb, OpsPerCycle,
                                 PositiveBandwidth, Price, PricePerSecond, Seconds, Watts)

INF = float("inf")


class PowerSpec(StrictModel):
    idle: Watts = 0.0
    static: Watts = 0.0
    dynamic_per_core: Watts = 0.0


class ProcessorSpec(StrictModel):
    cores: Cores
    power: PowerSpec | None = None
    mem_bw_gbs: PositiveBandwidth | None = None
    contention: dict[str, Coefficient] = {}

    def processor(self) -> Processor:
        power = self.power or PowerSpec()
        return Processor(cores=self.cores, idle_w=power.idle, static_w=power.static,
                         dynamic_w_per_core=power.dynamic_per_core,
                         mem_bw_gbs=INF if self.mem_bw_gbs is None else self.mem_bw_gbs,
                         params=tuple(self.contention.items()))


class NodeTypeSpec(StrictModel):
    name: str = Field(min_length=1)
    cores: Cores
    clock_ghz: ClockGhz
    ops_per_cycle: OpsPerCycle = 1.0
    memory_gb: MemoryGb | None = None
    disk_gb: MemoryGb | None = None
    mem_bw_gbs: PositiveBandwidth | None = None
    power: PowerSpec | None = None
    hourly_price: Price | None = None
    price: PricePerSecond | None = None
    boot_time: Seconds = 0.0
    on_demand: bool = False
    count: Count | None = None
    oversubscription: Annotated[int, Field(ge=1, le=MAX_OVERSUBSCRIPTION)] = 1
    processors: list[ProcessorSpec] | None = Field(None, min_length=1)

    def node_type(self, path: Path) -> NodeType:
        if self.processors is not None:
            return self._with_processors(path)
        power = self.power or PowerSpec()
        return NodeType(
            name=self.name, cores=self.cores, clock_ghz=self.clock_ghz,
            mem_bw_gbs=INF if self.mem_bw_gbs is None else self.mem_bw_gbs,
            idle_w=power.idle, static_w=power.static, dynamic_w_per_core=power.dynamic_per_core,
            has_power=self.power is not None, **self._common(path))

    def _common(self, path: Path) -> dict[str, Any]:
        """The node type's fields that do not depend on its processors."""
        return {"ops_per_cycle": self.ops_per_cycle,
                "memory_mb": INF if self.memory_gb is None else self.memory_gb * 1024,
                "disk_mb": INF if self.disk_gb is None else self.disk_gb * 1024,
                "hourly_price": self._hourly_price(path), "boot_time": self.boot_time,
                "on_demand": self.on_demand, "oversubscription": self.oversubscription}

    def _hourly_price(self, path: Path) -> float:
        """``hourly_price``, or ``price`` (per second) times 3600; both must then agree (to
        a relative 1e-9: an hourly price written from a per-second one may be off by a
        rounding)."""
        if self.price is None:
            return self.hourly_price or 0.0
        hourly = self.price * SECONDS_PER_HOUR
        if self.hourly_price is not None and not math.isclose(hourly, self.hourly_price,
                                                              rel_tol=1e-9):
            raise InputError(path, f"{self.price:g} per second is {hourly:g} per hour, not "
                                   f"the hourly_price {self.hourly_price:g}: give one of them",
                             record=f"node type '{self.name}'", field="price")
        return self.hourly_price if self.hourly_price is not None else hourly

    def _with_processors(self, path: Path) -> NodeType:
        assert self.processors is not None
        record = f"node type '{self.name}'"
        if sum(p.cores for p in self.processors) != self.cores:
            raise InputError(path, f"its processors have {sum(p.cores for p in self.processors)}"
                                   f" cores, not {self.cores}", record=record, field="processors")
        if self.power is not None:
            raise InputError(path, "give the power of each processor, not of the node, when "
                                   "the node lists its processors", record=record, field="power")
        powered = [p.power is not None for p in self.processors]
        if any(powered) and not all(powered):
            i = powered.index(False)
            raise InputError(path, "give the power of every processor or of none",
                             record=record, field=f"processors[{i}].power")
        for i, proc in enumerate(self.processors):
            for key in proc.contention:
                if key not in PROCESSOR_PARAMETERS:
                    hint = did_you_mean(key, list(PROCESSOR_PARAMETERS))
                    raise InputError(path, f"unknown contention parameter '{key}'{hint} "
                                           f"(known: {', '.join(PROCESSOR_PARAMETERS)})",
                                     record=record, field=f"processors[{i}].contention")
        return NodeType.of_processors(
            self.name, self.clock_ghz, tuple(p.processor() for p in self.processors),
            **({} if self.mem_bw_gbs is None else {"mem_bw_gbs": self.mem_bw_gbs}),
            has_power=all(p.power is not None for p in self.processors), **self._common(path))


class NodeGroupSpec(StrictModel):
    type: str
    count: Count


class ClusterSpec(StrictModel):
    name: str = Field(min_length=1)
    nodes: list[NodeGroupSpec] = Field(min_length=1)


class DowntimeSpec(StrictModel):
    """A node (by name) with only ``cores`` cores available from ``start`` to ``end``
    (maintenance, a reservation by other users); without ``end``, for good. Where downtimes
    of a node overlap, the fewer available cores hold."""

    node: str
    start: Seconds
    end: Seconds | None = None
    cores: Annotated[int, Field(ge=0, le=MAX_CORES_PER_NODE)] = 0


class ReservationSpec(StrictModel):
    """``cores`` of a node (by name; default: all of them) held from ``start`` to ``end``
    (other owners' bookings, maintenance; without ``end``, for good). Overlapping
    reservations add up."""

    node: str
    start: Seconds
    end: Seconds | None = None
    cores: Cores | None = None


class FailureSpec(StrictModel):
    """A node (by name) that fails at ``start``, unannounced, and is repaired at ``end``
    (without ``end``, never): the jobs running there are killed."""

    node: str
    start: Seconds
    end: Seconds | None = None


class PlatformSpec(StrictModel):
    name: str | None = Field(None, min_length=1)
    node_types: list[NodeTypeSpec] = Field(min_length=1)
    clusters: list[ClusterSpec] | None = Field(None, min_length=1)
    contention: Literal["none", "irmasim", "deside", "deside_stochastic"] = "none"
    contention_params: dict[str, Coefficient] = {}
    downtime: list[DowntimeSpec] = []
    reservations: list[ReservationSpec] = []
    failures: list[FailureSpec] = []


def load_native_platform(path: str | Path) -> Platform:
    """Read a native platform file (``.json``, ``.yaml`` or ``.yml``)."""
    path = Path(path)
    return native_platform_from_data(read_structured(path), path)


def native_platform_from_data(data: Any, path: Path) -> Platform:
    """Build a platform from an already parsed native document read from ``path``."""
    raw = data if isinstance(data, dict) else {}
    records = {"node_types": record_namer(raw.get("node_types"), "name", "node type", "node_types"),
               "clusters": record_namer(raw.get("clusters"), "name", "cluster", "clusters")}
    spec = validate(PlatformSpec, data, path, records=records)
    types = _node_types(spec, path)
    groups = _groups(spec, path, types)
    nodes = nodes_from_groups(groups, path)
    _check_contention(spec, path)
    return Platform(spec.name or file_stem(path), nodes, str(path),
                    contention=spec.contention,
                    contention_params=tuple(spec.contention_params.items()),
                    reservations=_reservations(spec, nodes, path),
                    failures=failures_of(spec.failures, nodes, path),
                    notes=_idle_boot_times(spec))


def _idle_boot_times(spec: PlatformSpec) -> tuple[str, ...]:
    """A note for each node type given a boot time it never uses (only on-demand nodes
    boot)."""
    return tuple(f"node type '{t.name}': boot_time is used only by on-demand nodes "
                 "(on_demand: true); it has no effect here"
                 for t in spec.node_types if t.boot_time and not t.on_demand)


def _check_contention(spec: PlatformSpec, path: Path) -> None:
    """The platform's model accepts its parameters (checked now, not when a run starts)."""
    from hetsched.models.contention import create

    try:
        create(spec.contention, spec.contention_params)
    except ConfigError as error:
        raise InputError(path, str(error), field="contention_params") from None


def _reservations(spec: PlatformSpec, nodes: tuple[Node, ...],
                  path: Path) -> tuple[Reservation, ...]:
    """Each node's downtime as the equivalent reservations, then the file's reservations;
    together they may not take a node beyond its cores."""
    by_name = {node.name: node for node in nodes}
    windows: dict[Node, list[tuple[float, float, int]]] = {}
    for i, down in enumerate(spec.downtime):
        record = f"downtime[{i}]"
        node, end = _window(down, by_name, path, record)
        if down.cores > node.type.cores:
            raise InputError(path, f"{down.cores} cores left available, but node "
                                   f"'{node.name}' has {node.type.cores}", record=record,
                             field="cores")
        windows.setdefault(node, []).append((down.start, end, down.cores))
    held = [part for node, parts in windows.items()
            for part in from_downtime(node.index, node.type.cores, parts)]
    first = len(held)  # downtime alone never takes more cores than a node has
    for i, booking in enumerate(spec.reservations):
        record = f"reservations[{i}]"
        node, end = _window(booking, by_name, path, record)
        cores = node.type.cores if booking.cores is None else booking.cores
        held.append(Reservation(node.index, booking.start, end, cores))
    over = overbooked(held, [node.type.cores for node in nodes])
    if over is not None:
        node = nodes[held[over].node]
        raise InputError(path, f"reserves more cores of node '{node.name}' than its "
                               f"{node.type.cores} (with the downtime and reservations that "
                               "overlap it)", record=f"reservations[{over - first}]",
                         field="cores")
    return tuple(held)


def failures_of(specs: list[FailureSpec], nodes: tuple[Node, ...],
                path: Path) -> tuple[Failure, ...]:
    """The failures a native ``failures`` list gives on ``nodes`` (named ``failures[i]`` in
    errors), checked: known nodes, ends after starts."""
    by_name = {node.name: node for node in nodes}
    return tuple(Failure(node.index, failure.start, end) for i, failure in enumerate(specs)
                 for node, end in [_window(failure, by_name, path, f"failures[{i}]")])


def _window(spec: DowntimeSpec | ReservationSpec | FailureSpec, by_name: dict[str, Node],
            path: Path, record: str) -> tuple[Node, float]:
    """The node a downtime, reservation or failure names and its end (``math.inf`` without
    one), checked: a known node, an end after the start."""
    node = _node(spec.node, by_name, path, record)
    end = math.inf if spec.end is None else spec.end
    _check_window(spec.start, end, path, record)
    return node, end


def _node(name: str, by_name: dict[str, Node], path: Path, record: str) -> Node:
    node = by_name.get(name)
    if node is None:
        hint = did_you_mean(name, list(by_name))
        raise InputError(path, f"unknown node '{name}'{hint}", record=record, field="node")
    return node


def _check_window(start: float, end: float, path: Path, record: str) -> None:
    if end <= start:
        raise InputError(path, f"ends at {end:g}, not after its start {start:g}", record=record,
                         field="end")


def _node_types(spec: PlatformSpec, path: Path) -> dict[str, NodeType]:
    check_unique([t.name for t in spec.node_types], path, "node type", "name")
    if spec.clusters is not None:
        for t in spec.node_types:
            if t.count is not None:
                raise InputError(path, "a node type's count is only allowed when 'clusters' "
                                       "is absent (give counts in clusters[].nodes)",
                                 record=f"node type '{t.name}'", field="count")
    return {t.name: t.node_type(path) for t in spec.node_types}


def _groups(spec: PlatformSpec, path: Path,
            types: dict[str, NodeType]) -> list[tuple[str, NodeType, int]]:
    """(cluster, node type, count) in file order."""
    if spec.clusters is None:
        return [("cluster0", types[t.name], t.count or 1) for t in spec.node_types]
    check_unique([c.name for c in spec.clusters], path, "cluster", "name")
    groups = []
    for cluster in spec.clusters:
        for i, group in enumerate(cluster.nodes):
            if group.type not in types:
                raise InputError(path, f"unknown node type '{group.type}' (known: "
                                       f"{', '.join(types)})",
                                 record=f"cluster '{cluster.name}'", field=f"nodes[{i}].type")
            groups.append((cluster.name, types[group.type], group.count))
    return groups


def nodes_from_groups(groups: list[tuple[str, NodeType, int]], path: Path,
                      count_field: str = "count") -> tuple[Node, ...]:
    """Nodes in order, named ``<type>-<k>`` with one counter per type over the platform; at
    most :data:`~hetsched.limits.MAX_NODES` of them (checked before any is made; an error
    names the group, by its node type and ``count_field``, that goes over)."""
    total = 0
    for _, node_type, count in groups:
        total += count
        if total > MAX_NODES:
            raise InputError(path, f"brings the platform to {total} nodes, more than the limit "
                                   f"of {MAX_NODES}", record=f"node type '{node_type.name}'",
                             field=count_field)
    counters: Counter[str] = Counter()
    nodes: list[Node] = []
    for cluster, node_type, count in groups:
        for _ in range(count):
            k = counters[node_type.name]
            counters[node_type.name] += 1
            nodes.append(Node(len(nodes), f"{node_type.name}-{k}", node_type, cluster))
    return tuple(nodes)
