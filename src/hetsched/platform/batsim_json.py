"""Batsim's heterogeneous platform JSON, in its two forms: a top-level ``clusters`` list of
``{nodes: [{type, number}]}`` whose node and processor types live in ``node_types.json`` and
``processor_types.json`` beside the file (as Batsim's ``platforms/heterogeneous/`` and
HDeepRM's generators read them).

- **Batsim's form** (``platforms/heterogeneous/``: the file has ``dc_network`` or a cluster
  has ``cluster_network``): a node type lists ``processors: [{type: "CPU", model, number}]``
  and ``memory_gib``; a processor type, under its category (``CPU``, ``GPU``, …), has
  ``nb_cores``, ``core_attributes`` (a SimGrid host's attributes: ``speed`` with its pstates)
  and ``core_properties`` (``wattage_per_state``, ``wattage_off``), numbers written as
  strings. Each core is a one-core SimGrid host, read with the SimGrid loader's rules
  (:mod:`hetsched.platform.simgrid`): a processor of ``n`` cores draws ``n · Idle`` with no
  busy core and ``AllCores - Idle`` more per busy core.
- **HDeepRM's form** (otherwise): the node and processor types of IRMaSim's platform library
  (:mod:`hetsched.platform.irmasim`; HDeepRM's catalogue is ``hdeeprm_*.json`` in the shared
  data). Power from the processor's ``power`` P (0.75 × TDP) as HDeepRM's platform generator
  sets its cores' pstates: 0.05 P when no core of the processor is busy, otherwise 0.15 P
  plus 0.85 P / cores per busy core (its busy cores draw P / cores, its idle ones 15 % of
  that). No contention model.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.errors import InputError
from hetsched.fileio import ForeignModel, validate
from hetsched.parsing import parse_number
from hetsched.platform.irmasim import NODE_TYPES, PROCESSOR_TYPES, typed_groups
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.platform.native import nodes_from_groups
from hetsched.platform.simgrid import compute_speed, host_of, host_power
from hetsched.quantities import Cores, Count, MemoryGb

def _from_text(value: Any) -> Any:
    """Batsim writes its numbers as strings ("2"): a number written so becomes the number."""
    if isinstance(value, str):
        number = parse_number(value.strip())
        return value if number is None else number
    return value


AsNumber = BeforeValidator(_from_text)


class NodeGroup(ForeignModel):
    type: str
    number: Annotated[Count, AsNumber]


class ClusterSpec(ForeignModel):
    nodes: list[NodeGroup] = Field(min_length=1)


class PlatformSpec(ForeignModel):
    clusters: list[ClusterSpec] = Field(min_length=1)


class ProcessorRef(ForeignModel):
    type: str
    model: str
    number: Annotated[Cores, AsNumber]


class NodeSpec(ForeignModel):
    processors: list[ProcessorRef] = Field(min_length=1)
    memory_gib: Annotated[MemoryGb, AsNumber] | None = None


class Prop(ForeignModel):
    id: str
    value: str


class ProcessorSpec(ForeignModel):
    nb_cores: Annotated[Cores, AsNumber]
    core_attributes: dict[str, str]
    core_properties: list[Prop] = []


def batsim_json_platform(data: Any, path: Path) -> Platform:
    """A platform in either form (told apart by Batsim's network keys)."""
    doc = require_mapping(data, path)
    clusters = doc.get("clusters")
    networks = "dc_network" in doc or (isinstance(clusters, list) and any(
        isinstance(c, dict) and "cluster_network" in c for c in clusters))
    if not networks:
        from hetsched.platform.irmasim import irmasim_platform_from_data

        return irmasim_platform_from_data({"platform": {file_stem(path): doc}}, path,
                                          hdeeprm=True)
    spec = validate(PlatformSpec, doc, path)
    nodes = _library(path, NODE_TYPES)
    processors = _library(path, PROCESSOR_TYPES)
    groups = typed_groups(spec.clusters, lambda j, cluster: f"cluster{j}",
                          lambda kind, where: _node_type(kind, nodes, processors, path, where))
    return Platform(file_stem(path), nodes_from_groups(groups, path, "number"), str(path),
                    companions=(str(nodes[0]), str(processors[0])))


def _library(path: Path, name: str) -> tuple[Path, dict[str, Any]]:
    file = path.parent / name
    if not file.is_file():
        raise InputError(file, f"no such file: Batsim's heterogeneous platform '{path.name}' "
                               f"needs its {name} beside it")
    return file, dict(require_mapping(read_structured(file), file))


def _node_type(name: str, nodes: tuple[Path, dict[str, Any]],
               processors: tuple[Path, dict[str, Any]], path: Path, where: str) -> NodeType:
    node_file, entries = nodes
    if name not in entries:
        raise InputError(path, f"unknown node type '{name}' (not in {NODE_TYPES})",
                         field=where)
    record = f"node type '{name}'"
    spec = validate(NodeSpec, entries[name], node_file, record=record)
    procs: list[tuple[float, Processor, bool]] = []
    for i, ref in enumerate(spec.processors):
        procs.extend([_processor(ref, processors, node_file, record, f"processors[{i}]")]
                     * ref.number)
    if len({speed for speed, _, _ in procs}) > 1:
        raise InputError(node_file, "processors of different speeds in one node are not "
                                    "supported", record=record, field="processors")
    return NodeType.of_processors(
        name, procs[0][0] / 1e9, tuple(p for _, p, _ in procs),
        has_power=all(powered for _, _, powered in procs),
        memory_mb=float("inf") if spec.memory_gib is None else spec.memory_gib * 1024)


def _processor(ref: ProcessorRef, processors: tuple[Path, dict[str, Any]], node_file: Path,
               record: str, where: str) -> tuple[float, Processor, bool]:
    """A processor's core speed, the processor, and whether it has a wattage table."""
    file, entries = processors
    category = entries.get(ref.type)
    if not isinstance(category, dict) or ref.model not in category:
        raise InputError(node_file, f"unknown processor '{ref.type}' / '{ref.model}' (not in "
                                    f"{PROCESSOR_TYPES})", record=record, field=where)
    proc_record = f"processor '{ref.model}'"
    spec = validate(ProcessorSpec, category[ref.model], file, record=proc_record)
    core = ET.Element("host", {k: v for k, v in spec.core_attributes.items() if k != "id"})
    if core.get("core", "1") != "1":
        raise InputError(file, "each core is a one-core SimGrid host in this format",
                         record=proc_record, field="core_attributes.core")
    host = host_of(core, file, (f"{ref.model} core",),
                   {p.id: p.value for p in spec.core_properties}, proc_record)
    power = host_power(host, file)
    idle, _, full = power or (0.0, 0.0, 0.0)
    n = spec.nb_cores
    return (compute_speed(host, file), Processor(n, idle_w=n * idle, static_w=n * idle,
                                                 dynamic_w_per_core=full - idle),
            power is not None)
