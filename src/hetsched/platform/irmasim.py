"""IRMaSim platform JSON: sections ``platform`` → clusters → nodes ``[{type, number}]``,
``node`` (node types: processors ``[{type, number}]``, memory ``{capacity}`` in GB) and
``processor`` (cores, clock_rate GHz, dpflops_per_cycle, static_power of the whole processor,
dynamic_power per busy core, min_power: the idle fraction of static_power).

Node and processor types missing from the file are looked up, as IRMaSim does, in a platform
library: a directory holding ``node_types.json`` / ``processor_types.json`` (IRMaSim's names;
``nodes.json`` / ``processors.json`` are accepted too), or a dict ``{"node": ..., "processor":
...}``. Without an explicit library the file's own directory is searched.

Each processor stays a processor of the node type (per-processor power and contention).
Power, as IRMaSim's modelV1 computes it: ``static_power`` is the whole processor's; a processor
with at least one busy core draws ``static_power + dynamic_power * busy_cores``, an idle one
``min_power * static_power``. The contention parameters ``b, c, da, db, dc, dd`` of a
processor are kept for the IRMaSim contention model, which IRMaSim platforms use by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from hetsched.errors import InputError
from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.fileio import ForeignModel, validate
from hetsched.limits import MAX_CORES_PER_NODE
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.platform.native import nodes_from_groups
from hetsched.models.contention import PROCESSOR_PARAMETERS
from hetsched.quantities import (ClockGhz, Coefficient, Cores, Count, MemoryGb, OpsPerCycle,
                                 PositiveBandwidth, Watts)

INF = float("inf")

#: IRMaSim's library files of node and processor types (Batsim's JSON platforms and the
#: platform generator read them too).
NODE_TYPES, PROCESSOR_TYPES = "node_types.json", "processor_types.json"
#: Library file names per section, IRMaSim's first.
LIBRARY_NAME = "<library>"  # where entries given as a dict (not files) come from
LIBRARY_FILES = {"node": (NODE_TYPES, "nodes.json"),
                 "processor": (PROCESSOR_TYPES, "processors.json")}


class NodeGroup(ForeignModel):
    type: str
    number: Count = 1


class ClusterSpec(ForeignModel):
    id: str = "cluster0"
    nodes: list[NodeGroup] = Field(min_length=1)


#: The IRMaSim platform model read here: node types of processors. (IRMaSim's modelV1_1 and
#: modelV2 describe nodes without processors, with other power and speed rules.)
MODEL = "modelV1"


class PlatformSpec(ForeignModel):
    clusters: list[ClusterSpec] = Field(min_length=1)
    model_name: str = MODEL


class ProcessorGroup(ForeignModel):
    type: str
    number: Cores = 1


class MemorySpec(ForeignModel):
    capacity: MemoryGb | None = None


class NodeSpec(ForeignModel):
    processors: list[ProcessorGroup] = Field(min_length=1)
    memory: MemorySpec = MemorySpec()


class ProcessorSpec(ForeignModel):
    cores: Cores
    clock_rate: ClockGhz
    dpflops_per_cycle: OpsPerCycle
    static_power: Watts = 0.0
    dynamic_power: Watts = 0.0
    min_power: Watts = 0.0
    power: Watts | None = None
    mem_bw: PositiveBandwidth | None = None
    b: Coefficient | None = None
    c: Coefficient | None = None
    da: Coefficient | None = None
    db: Coefficient | None = None
    dc: Coefficient | None = None
    dd: Coefficient | None = None

    def processor(self, hdeeprm: bool = False) -> Processor:
        """The processor; with ``hdeeprm``, its power from ``power`` as HDeepRM's pstates give
        it (:mod:`hetsched.platform.batsim_json`)."""
        params = tuple((name, getattr(self, name)) for name in PROCESSOR_PARAMETERS
                       if getattr(self, name) is not None)
        tdp = self.power or 0.0
        idle, static, dynamic = ((0.05 * tdp, 0.15 * tdp, 0.85 * tdp / self.cores) if hdeeprm
                                 else (self.min_power * self.static_power, self.static_power,
                                       self.dynamic_power))
        return Processor(cores=self.cores, idle_w=idle, static_w=static,
                         dynamic_w_per_core=dynamic,
                         mem_bw_gbs=INF if self.mem_bw is None else self.mem_bw, params=params)

    def has_power(self, hdeeprm: bool = False) -> bool:
        """Whether the file gives this processor's power (IRMaSim does not use the TDP
        ``power``; HDeepRM's form uses only that)."""
        if hdeeprm:
            return self.power is not None
        return bool({"static_power", "dynamic_power"} & self.model_fields_set)


@dataclass
class Catalogue:
    """Raw entries of one section (``node`` or ``processor``) and the file each came from."""

    section: str
    entries: dict[str, Any] = field(default_factory=dict)
    origin: dict[str, Path] = field(default_factory=dict)

    def add(self, entries: Any, path: Path) -> None:
        for key, entry in require_mapping(entries, path, f"section '{self.section}'").items():
            name = str(key)
            if not name.startswith("_"):  # "_doc" entries of library files
                self.entries[name] = entry
                self.origin[name] = path


def load_irmasim_platform(path: str | Path, library: str | Path | Mapping[str, Any] | None = None,
                          platform_name: str | None = None) -> Platform:
    """Read an IRMaSim platform file; ``library`` gives node/processor types it lacks."""
    path = Path(path)
    return irmasim_platform_from_data(read_structured(path), path, library, platform_name)


def irmasim_platform_from_data(data: Any, path: Path,
                               library: str | Path | Mapping[str, Any] | None = None,
                               platform_name: str | None = None,
                               hdeeprm: bool = False) -> Platform:
    """The platform; ``hdeeprm``: HDeepRM's power from the processors' ``power`` and no
    contention model (:mod:`hetsched.platform.batsim_json`)."""
    doc = require_mapping(data, path)
    name, raw_platform = _pick_platform(doc, path, platform_name)
    spec = validate(PlatformSpec, raw_platform, path, record=f"platform '{name}'")
    if spec.model_name != MODEL and not hdeeprm:
        raise InputError(path, f"'{spec.model_name}' is not read: hetsched reads IRMaSim's "
                               f"{MODEL} platforms (node types of processors)",
                         record=f"platform '{name}'", field="model_name")
    nodes, processors = _catalogues(doc, path, library)
    groups = typed_groups(spec.clusters, lambda j, cluster: cluster.id,
                          lambda kind, where: _node_type(kind, nodes, processors, path,
                                                         f"platform '{name}'", where, hdeeprm))
    used = {str(file) for catalogue in (nodes, processors) for file in catalogue.origin.values()
            if file != path and file.name != LIBRARY_NAME}
    return Platform(file_stem(path), nodes_from_groups(groups, path, "number"), str(path),
                    contention="none" if hdeeprm else "irmasim", companions=tuple(sorted(used)))


def _pick_platform(doc: Mapping[str, Any], path: Path,
                   wanted: str | None) -> tuple[str, Any]:
    platforms = require_mapping(doc.get("platform"), path, "section 'platform'")
    if wanted is not None:
        if wanted not in platforms:
            raise InputError(path, f"no platform '{wanted}' (found: "
                                   f"{', '.join(map(str, platforms))})",
                             field="platform")
        return wanted, platforms[wanted]
    if len(platforms) != 1:
        raise InputError(path, f"expected exactly one platform, found {len(platforms)} "
                               f"({', '.join(map(str, platforms))}); choose one by name",
                         field="platform")
    name = next(iter(platforms))
    return name, platforms[name]


def _catalogues(doc: Mapping[str, Any], path: Path,
                library: str | Path | Mapping[str, Any] | None) -> tuple[Catalogue, Catalogue]:
    catalogues = (Catalogue("node"), Catalogue("processor"))
    for catalogue in catalogues:
        if isinstance(library, Mapping):
            if catalogue.section in library:
                catalogue.add(library[catalogue.section], Path(LIBRARY_NAME))
        else:
            folder = Path(library) if library is not None else path.parent
            if library is not None and not folder.is_dir():
                raise InputError(folder, "platform library is not a directory")
            for name in reversed(LIBRARY_FILES[catalogue.section]):
                lib_file = folder / name
                if lib_file.is_file() and (library is not None or catalogue.section not in doc):
                    catalogue.add(read_structured(lib_file), lib_file)
        if catalogue.section in doc:  # the platform file's own definitions win
            catalogue.add(doc[catalogue.section], path)
    return catalogues


def typed_groups(clusters: Sequence[Any], cluster_name: Callable[[int, Any], str],
                 node_type: Callable[[str, str], NodeType]) -> list[tuple[str, NodeType, int]]:
    """``(cluster, node type, count)`` for each node group of ``clusters`` (IRMaSim's and
    Batsim's layout: ``clusters[j].nodes[i]`` = ``{type, number}``), each type built once by
    ``node_type(name, where)``."""
    types: dict[str, NodeType] = {}
    groups = []
    for j, cluster in enumerate(clusters):
        for i, group in enumerate(cluster.nodes):
            if group.type not in types:
                types[group.type] = node_type(group.type, f"clusters[{j}].nodes[{i}].type")
            groups.append((cluster_name(j, cluster), types[group.type], group.number))
    return groups


def _node_type(name: str, nodes: Catalogue, processors: Catalogue, path: Path,
               record: str, where: str, hdeeprm: bool = False) -> NodeType:
    if name not in nodes.entries:
        raise InputError(path, f"unknown node type '{name}' (not in the file's 'node' section "
                               "nor in a platform library)", record=record, field=where)
    node_path = nodes.origin[name]
    spec = validate(NodeSpec, nodes.entries[name], node_path, record=f"node type '{name}'")
    procs = []
    for i, group in enumerate(spec.processors):
        if group.type not in processors.entries:
            raise InputError(node_path, f"unknown processor type '{group.type}' (not in the "
                                        "file's 'processor' section nor in a platform library)",
                             record=f"node type '{name}'", field=f"processors[{i}].type")
        proc = validate(ProcessorSpec, processors.entries[group.type],
                        processors.origin[group.type], record=f"processor '{group.type}'")
        procs.append((proc, group.number))
    return _combine(name, procs, node_path, spec.memory.capacity, hdeeprm)


def _combine(name: str, procs: list[tuple[ProcessorSpec, int]], path: Path,
             capacity_gb: float | None, hdeeprm: bool = False) -> NodeType:
    """One node type from its processors (all must share clock rate and flops per cycle)."""
    first = procs[0][0]
    for proc, _ in procs[1:]:
        if (proc.clock_rate, proc.dpflops_per_cycle) != (first.clock_rate,
                                                         first.dpflops_per_cycle):
            raise InputError(path, "processors of different clock_rate or dpflops_per_cycle "
                                   "in one node are not supported",
                             record=f"node type '{name}'", field="processors")
    cores = sum(p.cores * n for p, n in procs)
    if cores > MAX_CORES_PER_NODE:
        raise InputError(path, f"{cores} cores in all, more than the limit of "
                               f"{MAX_CORES_PER_NODE} per node", record=f"node type '{name}'",
                         field="processors")
    return NodeType.of_processors(
        name, first.clock_rate,
        tuple(p.processor(hdeeprm) for p, n in procs for _ in range(n)),
        ops_per_cycle=first.dpflops_per_cycle,
        memory_mb=INF if capacity_gb is None else capacity_gb * 1024,
        has_power=all(p.has_power(hdeeprm) for p, _ in procs))
