"""The cluster model: node types, nodes and the platform that holds them (immutable)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

#: Memory and disk are counted in whole KB (1/1024 MB, rounded down): node sizes here, a job's
#: share of a node in :func:`hetsched.sim.resources.share`. Sums and differences of such
#: amounts are exact in floating point up to 2**43 MB (beyond ``limits.MAX_MEMORY_MB``), so
#: what is free never depends on the order in which jobs took and gave back their shares.
KB_PER_MB = 1024
#: ``hourly_price = SECONDS_PER_HOUR · price``.
SECONDS_PER_HOUR = 3600.0


def whole_kb(mb: float) -> float:
    """``mb`` rounded down to a whole KB (unlimited stays unlimited)."""
    return math.floor(mb * KB_PER_MB) / KB_PER_MB if mb < math.inf else mb


@dataclass(frozen=True, slots=True)
class Processor:
    """One processor (socket) of a node: its cores, power and memory system.

    Power: ``idle_w`` while none of its cores is busy, otherwise ``static_w +
    dynamic_w_per_core * busy_cores``. ``mem_bw_gbs`` is its peak memory bandwidth (DESiDE's
    BWmax). ``params`` holds contention-model parameters by name (IRMaSim's ``b, c, da, db, dc,
    dd``); a model looks up the ones it needs with :meth:`param`.
    """

    cores: int
    idle_w: float = 0.0
    static_w: float = 0.0
    dynamic_w_per_core: float = 0.0
    mem_bw_gbs: float = float("inf")
    params: tuple[tuple[str, float], ...] = ()

    def param(self, name: str, default: float) -> float:
        for key, value in self.params:
            if key == name:
                return value
        return default

    @property
    def full_power_w(self) -> float:
        return self.static_w + self.dynamic_w_per_core * self.cores


@dataclass(frozen=True, slots=True)
class NodeType:
    """A kind of node. Speed per core = clock_ghz * 1e9 * ops_per_cycle ops/s.

    A node type is made of ``processors`` (sockets); without them it has one processor holding
    every core and the node's power figures. Power is per processor (IRMaSim's convention): a
    processor draws ``idle_w`` when none of its cores is busy, otherwise ``static_w +
    dynamic_w_per_core * busy_cores``; the node-level ``idle_w``/``static_w`` are the sums over
    its processors. ``oversubscription`` is how many runnable threads a core may hold (1: none;
    k > 1: up to k threads per core, sharing it: R threads on C cores each progress at C/R).
    Memory and disk are in MB, bandwidth in GB/s. ``hourly_price`` is the rental rate per
    hour and :attr:`price` the same per second (``hourly_price / 3600``): one figure, two units.
    ``on_demand`` nodes (ds-sim's servers) are off until a job is started on them; they then
    boot for ``boot_time`` seconds, the job holding its resources meanwhile and starting when
    the node is up, and are charged from boot completion to their last job's end. Other nodes
    are up and charged for the whole run.

    ``has_power`` says whether the power figures are known (a power model). The loaders set it
    from the file: a native node type without ``power``, an IRMaSim processor without
    ``static_power``/``dynamic_power`` and every ds-sim server type have none. Left ``None``, it
    is true when any power figure is non-zero. Energy is reported only for platforms whose
    node types all have a power model (:attr:`Platform.has_power_model`).
    """

    name: str
    cores: int
    clock_ghz: float
    ops_per_cycle: float = 1.0
    memory_mb: float = float("inf")
    mem_bw_gbs: float = float("inf")
    idle_w: float = 0.0
    static_w: float = 0.0
    dynamic_w_per_core: float = 0.0
    hourly_price: float = 0.0
    boot_time: float = 0.0
    on_demand: bool = False
    disk_mb: float = float("inf")
    has_power: bool | None = None
    processors: tuple[Processor, ...] = ()
    oversubscription: int = 1

    def __post_init__(self) -> None:
        if not self.processors:
            object.__setattr__(self, "processors", (Processor(
                self.cores, self.idle_w, self.static_w, self.dynamic_w_per_core,
                self.mem_bw_gbs),))
        elif sum(p.cores for p in self.processors) != self.cores:
            raise ValueError(f"node type '{self.name}': its processors have "
                             f"{sum(p.cores for p in self.processors)} cores, not {self.cores}")
        if self.has_power is None:
            known = any(w != 0 for w in (self.idle_w, self.static_w, self.dynamic_w_per_core))
            object.__setattr__(self, "has_power", known)

    @property
    def speed(self) -> float:
        """Operations per second of one core."""
        return self.clock_ghz * 1e9 * self.ops_per_cycle

    @property
    def price(self) -> float:
        """The rental price of a node of this type per second (co-allocation's ``c_i``)."""
        return self.hourly_price / SECONDS_PER_HOUR

    @staticmethod
    def of_processors(name: str, clock_ghz: float, processors: tuple[Processor, ...],
                      **others: object) -> "NodeType":
        """A node type whose cores, power figures and (unless given) memory bandwidth are its
        processors' sums; the node-level ``dynamic_w_per_core`` is the per-core average."""
        cores = sum(p.cores for p in processors)
        others.setdefault("mem_bw_gbs", sum(p.mem_bw_gbs for p in processors))
        return NodeType(
            name=name, cores=cores, clock_ghz=clock_ghz,
            idle_w=sum(p.idle_w for p in processors),
            static_w=sum(p.static_w for p in processors),
            dynamic_w_per_core=sum(p.dynamic_w_per_core * p.cores for p in processors) / cores,
            processors=processors, **others)  # type: ignore[arg-type]

    @property
    def full_power_w(self) -> float:
        """Power with every core busy."""
        return sum(p.full_power_w for p in self.processors)

    @property
    def slots(self) -> int:
        """Threads the node can run at once: cores times its oversubscription."""
        return self.cores * self.oversubscription


@dataclass(frozen=True, slots=True)
class Node:
    """One node: its position in :attr:`Platform.nodes` (``index``), its name, its type and
    the cluster it belongs to."""

    index: int
    name: str
    type: NodeType
    cluster: str = "cluster0"

    @property
    def price(self) -> float:
        """The node's rental price per second (its type's: no format gives a node its own)."""
        return self.type.price


@dataclass(frozen=True, slots=True)
class Availability:
    """From ``time`` on, ``cores`` of ``node``'s cores may run jobs (0: the whole node is
    unavailable, e.g. maintenance or a reservation by other users; the node's core count:
    fully available again, e.g. after a boot). Jobs already running are not stopped: a node
    whose running jobs hold more cores than it now has takes no new work until they leave."""

    time: float
    node: int
    cores: int


@dataclass(frozen=True, slots=True)
class Reservation:
    """``cores`` of ``node``'s cores held from ``start`` to ``end`` (``math.inf``: for good) by
    something else than the run's jobs (maintenance, other owners' bookings), known in advance:
    the engine starts no job whose reserved time would need them (docs/model.md, node
    availability). Overlapping reservations of a node add up."""

    node: int
    start: float
    end: float
    cores: int


@dataclass(frozen=True, slots=True)
class Failure:
    """``node`` fails at ``start`` and is repaired at ``end`` (``math.inf``: never): its cores
    go away, unannounced (no scheduler or start rule foresees it), and the jobs running there
    then are killed (docs/model.md, node availability)."""

    node: int
    start: float
    end: float


@dataclass(frozen=True)
class Platform:
    """An ordered set of nodes. Node ``index`` is its position; the order is the file's order.

    ``contention`` names the contention model runs use by default (``none``, ``irmasim``,
    ``deside``; see :mod:`hetsched.models.contention`) and ``contention_params`` its
    platform-wide parameters (e.g. DESiDE's ``remote_fraction`` and ``latency_ratio``).
    ``availability`` lists low-level changes of node availability every run applies when they
    are due (no start foresees them); ``reservations`` the cores held in advance over
    intervals, which the engine's start rule foresees (a native file's ``downtime`` and
    ``reservations``); ``failures`` the node failures no one foresees (a native file's
    ``failures``).
    ``notes`` are what the loader left out of the file (e.g. a SimGrid platform's links), which
    runs report as input warnings. ``companions`` are the other files the loader took node or
    processor types from (IRMaSim's and Batsim's catalogues): with ``source`` they make the
    platform.
    """

    name: str
    nodes: tuple[Node, ...]
    source: str = "<memory>"
    contention: str = "none"
    contention_params: tuple[tuple[str, float], ...] = ()
    availability: tuple[Availability, ...] = ()
    reservations: tuple[Reservation, ...] = ()
    failures: tuple[Failure, ...] = ()
    notes: tuple[str, ...] = ()
    companions: tuple[str, ...] = ()
    arrays: "PlatformArrays" = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "arrays", PlatformArrays.of(self.nodes))

    @cached_property
    def node_types(self) -> tuple[NodeType, ...]:
        """The platform's node types, each once, in the order of their first node."""
        seen: dict[str, NodeType] = {}
        for node in self.nodes:
            seen.setdefault(node.type.name, node.type)
        return tuple(seen.values())

    @cached_property
    def layout(self) -> "ProcessorLayout":
        """Every processor of the platform in one flat numbering."""
        return ProcessorLayout.of(self.nodes)

    @cached_property
    def slowest_speed(self) -> float:
        """The lowest core speed (ops/s): the speed a job's ``req_time`` is an estimate at."""
        return float(self.arrays.speed.min())

    @cached_property
    def has_on_demand(self) -> bool:
        """Whether some node is off until a job needs it (:attr:`NodeType.on_demand`)."""
        return any(t.on_demand for t in self.node_types)

    @property
    def has_power_model(self) -> bool:
        """Whether every node type has a power model, so the platform's energy is known."""
        return all(t.has_power for t in self.node_types)

    @property
    def total_cores(self) -> int:
        """The cores of every node."""
        return int(self.arrays.cores.sum())

    @property
    def max_node_cores(self) -> int:
        """The cores of the largest node."""
        return int(self.arrays.cores.max())

    @cached_property
    def max_node_slots(self) -> int:
        """The most threads one node can run at once (cores times oversubscription)."""
        return int(self.arrays.slots.max())

    @staticmethod
    def from_counts(name: str, types_and_counts: list[tuple[NodeType, int]],
                    cluster: str = "cluster0", source: str = "<memory>") -> "Platform":
        """Build a platform with ``count`` nodes of each type, named ``<type>-<k>``."""
        nodes: list[Node] = []
        for node_type, count in types_and_counts:
            for k in range(count):
                nodes.append(Node(len(nodes), f"{node_type.name}-{k}", node_type, cluster))
        return Platform(name, tuple(nodes), source)


@dataclass(frozen=True)
class PlatformArrays:
    """Per-node numpy columns, so policies can select nodes without Python loops. Memory and
    disk sizes are in whole KB (:func:`whole_kb`), as the engine counts them."""

    cores: np.ndarray
    slots: np.ndarray
    speed: np.ndarray
    memory_mb: np.ndarray
    disk_mb: np.ndarray
    mem_bw_gbs: np.ndarray
    idle_w: np.ndarray
    static_w: np.ndarray
    dynamic_w_per_core: np.ndarray
    full_power_w: np.ndarray
    price: np.ndarray

    @staticmethod
    def of(nodes: tuple[Node, ...]) -> "PlatformArrays":
        def column(getter, dtype=float) -> np.ndarray:
            values = np.array([getter(n.type) for n in nodes], dtype=dtype)
            values.setflags(write=False)
            return values

        return PlatformArrays(
            cores=column(lambda t: t.cores, np.int64),
            slots=column(lambda t: t.slots, np.int64),
            speed=column(lambda t: t.speed),
            memory_mb=column(lambda t: whole_kb(t.memory_mb)),
            disk_mb=column(lambda t: whole_kb(t.disk_mb)),
            mem_bw_gbs=column(lambda t: t.mem_bw_gbs),
            idle_w=column(lambda t: t.idle_w),
            static_w=column(lambda t: t.static_w),
            dynamic_w_per_core=column(lambda t: t.dynamic_w_per_core),
            full_power_w=column(lambda t: t.full_power_w),
            price=column(lambda t: t.price),
        )


@dataclass(frozen=True)
class ProcessorLayout:
    """Every processor of the platform in one flat numbering: node ``n`` owns processors
    ``first[n] .. first[n] + count[n] - 1``, in its node type's order."""

    first: tuple[int, ...]
    count: tuple[int, ...]
    node: tuple[int, ...]
    cores: tuple[int, ...]
    idle_w: tuple[float, ...]
    static_w: tuple[float, ...]
    dynamic_w_per_core: tuple[float, ...]

    @staticmethod
    def of(nodes: tuple[Node, ...]) -> "ProcessorLayout":
        procs = [(n.index, p) for n in nodes for p in n.type.processors]
        first, total = [], 0
        for n in nodes:
            first.append(total)
            total += len(n.type.processors)
        return ProcessorLayout(
            first=tuple(first), count=tuple(len(n.type.processors) for n in nodes),
            node=tuple(i for i, _ in procs), cores=tuple(p.cores for _, p in procs),
            idle_w=tuple(p.idle_w for _, p in procs), static_w=tuple(p.static_w for _, p in procs),
            dynamic_w_per_core=tuple(p.dynamic_w_per_core for _, p in procs))
