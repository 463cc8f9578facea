"""Heterogeneous platforms made from a processor catalogue (HDeepRM's: real Xeon and Opteron
parts and node types of real machines), as native platform documents (``docs/formats.md``).

- **By counts**: ``"Mandos Node=4,Zorg Node*8=4"``: ``count`` nodes of each catalogue node
  type, ``*K`` putting K sockets of the node type's processor on the board instead of the
  catalogue's number (the node-centric study's 8-socket Zorg board).
- **By heterogeneity level**: the IRMaSim thesis' recipe (``CLOCK_BANDS``, used by
  :mod:`hetsched.experiments.batch_mapping`): single-core nodes, each band's clocks drawn
  uniformly with ``numpy.random.default_rng(seed)`` band by band, rounded to MHz; a total
  other than 16 scales every band's count (32: twice each, the legacy realistic study's
  platforms).
  Each node takes the power of one core of the catalogue processor whose core speed (clock
  × DP flops per cycle, Gflop/s) is nearest its clock (the study's cores do one operation per
  cycle), so power grows with speed as in real parts (HDeepRM's placeholder entries, such as
  ``Example``, left out).

Power, per processor, from the catalogue's ``power`` P (0.75 × TDP), with the convention of
the node-centric study's platform (``experiments/data/node_centric_16.yaml``): P with every
core busy (static 0.5 P plus 0.5 P / cores per busy core), 0.3 P with no core busy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.documents import read_structured, require_mapping
from hetsched.errors import ConfigError, InputError, did_you_mean, option_name
from hetsched.fileio import validate
from hetsched.limits import MAX_NODES
from hetsched.parsing import parse_int
from hetsched.platform.irmasim import NODE_TYPES, PROCESSOR_TYPES, NodeSpec, ProcessorSpec

#: The power convention: fractions of the catalogue's power P.
IDLE, STATIC, DYNAMIC = 0.3, 0.5, 0.5
#: The IRMaSim thesis' clock bands per heterogeneity level (its batch mapping study): (nodes,
#: lowest GHz, highest GHz).
CLOCK_BANDS: dict[str, tuple[tuple[int, float, float], ...]] = {
    "low": ((6, 1.0, 5.0), (5, 5.01, 7.5), (3, 7.51, 10.0), (2, 10.0, 12.5)),
    "high": ((4, 1.0, 10.0), (4, 10.01, 20.0), (4, 20.0, 30.0), (4, 30.0, 40.0)),
}
#: Catalogue file names in a directory: HDeepRM's shared copies, then IRMaSim's library names.
CATALOGUE_FILES = ((f"hdeeprm_{NODE_TYPES}", f"hdeeprm_{PROCESSOR_TYPES}"),
                   (NODE_TYPES, PROCESSOR_TYPES))
#: HDeepRM's placeholder processors (for its own tests), not real parts: never chosen by
#: nearest speed.
PLACEHOLDERS = ("Example", "Basic", "Basic+", "Test0_0", "Test0_1", "TestMem")


@dataclass(frozen=True)
class Catalogue:
    """Raw node and processor types and the files they come from."""

    node_file: Path
    nodes: dict[str, Any]
    processor_file: Path
    processors: dict[str, Any]

    def processor(self, name: str, record: str) -> ProcessorSpec:
        if name not in self.processors:
            raise InputError(self.node_file, f"unknown processor type '{name}' (not in "
                                             f"{self.processor_file.name})", record=record)
        spec = validate(ProcessorSpec, self.processors[name], self.processor_file,
                        record=f"processor '{name}'")
        if spec.power is None:
            raise InputError(self.processor_file, "no power: the generator needs it",
                             record=f"processor '{name}'", field="power")
        return spec

    def node(self, name: str) -> NodeSpec:
        if name not in self.nodes:
            hint = did_you_mean(name, list(self.nodes))
            raise ConfigError(f"unknown node type '{name}' in {self.node_file}{hint}")
        return validate(NodeSpec, self.nodes[name], self.node_file, record=f"node type '{name}'")


def read_catalogue(path: Path) -> Catalogue:
    """A directory holding the node and processor type files, or a node types file whose
    processor types file is beside it (``node`` replaced by ``processor`` in its name)."""
    if path.is_dir():
        pair = next(((path / n, path / p) for n, p in CATALOGUE_FILES
                     if (path / n).is_file()), None)
        if pair is None:
            raise InputError(path, "no catalogue: expected " + " or ".join(
                n for n, _ in CATALOGUE_FILES) + " in the directory")
        node_file, processor_file = pair
    else:
        node_file = path
        processor_file = path.with_name(path.name.replace("node", "processor"))
    entries = [{k: v for k, v in require_mapping(read_structured(f), f).items()
                if not str(k).startswith("_")} for f in (node_file, processor_file)]
    return Catalogue(node_file, entries[0], processor_file, entries[1])


def parse_counts(nodes: str) -> list[tuple[str, int | None, int]]:
    """``"Mandos Node=4,Zorg Node*8=4"`` -> ``[("Mandos Node", None, 4), ("Zorg Node", 8, 4)]``."""
    groups = []
    for part in (p.strip() for p in nodes.split(",") if p.strip()):
        name, _, count_text = part.rpartition("=")
        name, star, sockets_text = name.partition("*")
        count, sockets = parse_int(count_text.strip()), parse_int(sockets_text.strip())
        if (not name.strip() or count is None or not 1 <= count <= MAX_NODES
                or (star and (sockets is None or not 1 <= sockets <= 4096))):
            raise ConfigError(f"{option_name('nodes')}: expected TYPE=COUNT or "
                              f"TYPE*SOCKETS=COUNT (count 1 to {MAX_NODES}), got '{part}'")
        groups.append((name.strip(), sockets if star else None, count))
    if not groups:
        raise ConfigError(f"{option_name('nodes')}: no node type given")
    return groups


def processor_entry(spec: ProcessorSpec) -> dict[str, Any]:
    """A native processor with the power convention."""
    power = spec.power or 0.0
    entry: dict[str, Any] = {"cores": spec.cores}
    if spec.mem_bw is not None:
        entry["mem_bw_gbs"] = spec.mem_bw
    entry["power"] = {"idle": IDLE * power, "static": STATIC * power,
                      "dynamic_per_core": DYNAMIC * power / spec.cores}
    return entry


def by_counts(catalogue: Catalogue, groups: list[tuple[str, int | None, int]],
              name: str) -> dict[str, Any]:
    """A native platform document with the given numbers of catalogue node types."""
    types: dict[str, dict[str, Any]] = {}
    nodes = []
    for type_name, sockets, count in groups:
        key = type_name if sockets is None else f"{type_name}*{sockets}"
        if key not in types:
            types[key] = _node_type(catalogue, type_name, sockets, key)
        nodes.append({"type": key, "count": count})
    if sum(count for _, _, count in groups) > MAX_NODES:
        raise ConfigError(f"{option_name('nodes')}: more than {MAX_NODES} nodes in all")
    return {"name": name, "node_types": list(types.values()),
            "clusters": [{"name": "cluster0", "nodes": nodes}]}


def _node_type(catalogue: Catalogue, type_name: str, sockets: int | None,
               key: str) -> dict[str, Any]:
    spec = catalogue.node(type_name)
    record = f"node type '{type_name}'"
    if sockets is not None and len({g.type for g in spec.processors}) > 1:
        raise ConfigError(f"{option_name('nodes')}: '{key}': node type '{type_name}' has "
                          "processors of several types; *SOCKETS needs one")
    refs = ([(spec.processors[0].type, sockets)] if sockets is not None
            else [(g.type, g.number) for g in spec.processors])
    procs = [catalogue.processor(proc, record) for proc, n in refs for _ in range(n)]
    if len({(p.clock_rate, p.dpflops_per_cycle) for p in procs}) > 1:
        raise InputError(catalogue.node_file, "processors of different clock_rate or "
                                              "dpflops_per_cycle in one node are not supported",
                         record=record, field="processors")
    entry: dict[str, Any] = {"name": key, "cores": sum(p.cores for p in procs),
                             "clock_ghz": procs[0].clock_rate,
                             "ops_per_cycle": procs[0].dpflops_per_cycle}
    if spec.memory.capacity is not None:
        entry["memory_gb"] = spec.memory.capacity
    entry["processors"] = [processor_entry(p) for p in procs]
    return entry


def by_heterogeneity(catalogue: Catalogue, level: str, nodes_total: int, seed: int,
                     name: str) -> dict[str, Any]:
    """The thesis' low or high heterogeneity recipe with ``nodes_total`` single-core nodes."""
    import numpy as np

    bands = CLOCK_BANDS[level]
    base = sum(count for count, _, _ in bands)
    if nodes_total % base:
        raise ConfigError(f"{option_name('nodes_total')}: the {level} heterogeneity recipe has "
                          f"{base} nodes in {len(bands)} bands; give a multiple of {base}, got "
                          f"{nodes_total}")
    rng = np.random.default_rng(seed)
    clocks = [round(float(c), 3) for count, low, high in bands
              for c in rng.uniform(low, high, size=count * nodes_total // base)]
    processors = [catalogue.processor(p, f"processor '{p}'") for p in catalogue.processors
                  if p not in PLACEHOLDERS]
    if not processors:
        raise InputError(catalogue.processor_file, "no processor type to take power from")
    types = []
    for i, clock in enumerate(clocks):
        nearest = min(processors, key=lambda p: abs(p.clock_rate * p.dpflops_per_cycle - clock))
        power = (nearest.power or 0.0) / nearest.cores
        types.append({"name": f"n{i}", "cores": 1, "clock_ghz": clock,
                      "power": {"idle": IDLE * power, "static": STATIC * power,
                                "dynamic_per_core": DYNAMIC * power}})
    return {"name": name, "node_types": types}
