"""Writing hetsched's native platform (JSON or YAML): node types (with their processors when
they have more than one, or contention parameters), clusters as runs of consecutive nodes,
the contention model. The format cannot hold node names other than ``<type>-<k>``. Downtime
is written back as the native reader builds it: a change to fewer cores opens one, a
following change of that node back to all its cores closes it."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from hetsched.platform.model import Failure, NodeType, Platform, Processor, Reservation
from hetsched.platform.writers import PlatformWriter, renamed_nodes

FMT = "the native format"


def _power(idle: float, static: float, dynamic: float) -> dict[str, float]:
    return {"idle": idle, "static": static, "dynamic_per_core": dynamic}


def _processor(p: Processor, has_power: bool) -> dict[str, Any]:
    record: dict[str, Any] = {"cores": p.cores}
    if has_power:
        record["power"] = _power(p.idle_w, p.static_w, p.dynamic_w_per_core)
    if math.isfinite(p.mem_bw_gbs):
        record["mem_bw_gbs"] = p.mem_bw_gbs
    if p.params:
        record["contention"] = dict(p.params)
    return record


def node_type_record(t: NodeType) -> dict[str, Any]:
    record: dict[str, Any] = {"name": t.name, "cores": t.cores, "clock_ghz": t.clock_ghz}
    if math.isfinite(t.memory_mb):
        record["memory_gb"] = t.memory_mb / 1024
    if math.isfinite(t.disk_mb):
        record["disk_gb"] = t.disk_mb / 1024
    own = len(t.processors) == 1 and not t.processors[0].params
    if math.isfinite(t.mem_bw_gbs) and (own or t.mem_bw_gbs != sum(
            p.mem_bw_gbs for p in t.processors)):
        record["mem_bw_gbs"] = t.mem_bw_gbs
    if own and t.has_power:
        record["power"] = _power(t.idle_w, t.static_w, t.dynamic_w_per_core)
    if not own:
        record["processors"] = [_processor(p, bool(t.has_power)) for p in t.processors]
    optional = {"ops_per_cycle": (t.ops_per_cycle, 1), "hourly_price": (t.hourly_price, 0),
                "boot_time": (t.boot_time, 0), "on_demand": (t.on_demand, False),
                "oversubscription": (t.oversubscription, 1)}
    return record | {k: v for k, (v, default) in optional.items() if v != default}


def clusters(platform: Platform) -> list[dict[str, Any]]:
    """Runs of consecutive nodes of one cluster and type, grouped by cluster in order."""
    out: list[dict[str, Any]] = []
    for node in platform.nodes:
        if not out or out[-1]["name"] != node.cluster:
            out.append({"name": node.cluster, "nodes": []})
        groups = out[-1]["nodes"]
        if groups and groups[-1]["type"] == node.type.name:
            groups[-1]["count"] += 1
        else:
            groups.append({"type": node.type.name, "count": 1})
    return out


def downtime(platform: Platform) -> tuple[list[dict[str, Any]], int]:
    """The platform's availability changes as native downtime entries, and how many changes
    are not of that form (a restore with no opening change just before it)."""
    entries, stray = [], 0
    changes = list(platform.availability)
    i = 0
    while i < len(changes):
        change = changes[i]
        node = platform.nodes[change.node]
        if change.cores == node.type.cores:
            stray, i = stray + 1, i + 1
            continue
        entry: dict[str, Any] = {"node": node.name, "start": change.time, "cores": change.cores}
        after = changes[i + 1] if i + 1 < len(changes) else None
        closes = (after is not None and after.node == change.node and after.time > change.time
                  and after.cores == node.type.cores)
        if closes:
            entry["end"] = after.time
        entries.append(entry)
        i += 2 if closes else 1
    return entries, stray


def native_document(platform: Platform) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": platform.name}
    if platform.contention != "none":
        doc["contention"] = platform.contention
    if platform.contention_params:
        doc["contention_params"] = dict(platform.contention_params)
    doc["node_types"] = [node_type_record(t) for t in platform.node_types]
    doc["clusters"] = clusters(platform)
    entries = downtime(platform)[0]
    if entries:
        doc["downtime"] = entries
    if platform.reservations:
        doc["reservations"] = [reservation_record(platform, r) for r in platform.reservations]
    if platform.failures:
        doc["failures"] = [failure_record(platform, f) for f in platform.failures]
    return doc


def reservation_record(platform: Platform, reservation: Reservation) -> dict[str, Any]:
    """A reservation as a native ``reservations`` entry (no ``end``: for good)."""
    record: dict[str, Any] = {"node": platform.nodes[reservation.node].name,
                              "start": reservation.start}
    if reservation.end < math.inf:
        record["end"] = reservation.end
    return {**record, "cores": reservation.cores}


def failure_record(platform: Platform, failure: Failure) -> dict[str, Any]:
    """A failure as a native ``failures`` entry (no ``end``: never repaired)."""
    record: dict[str, Any] = {"node": platform.nodes[failure.node].name, "start": failure.start}
    if failure.end < math.inf:
        record["end"] = failure.end
    return record


def losses(platform: Platform) -> list[str]:
    groups_of = Counter(c["name"] for c in clusters(platform))
    split = sorted(n for n, count in groups_of.items() if count > 1)
    return (renamed_nodes(platform, FMT)
        + ([f"cluster(s) {', '.join(split)} are not one run of nodes: {FMT} gathers them"]
           if split else [])
        + ([f"{stray} availability changes restore a node with no downtime before them: "
            f"{FMT} has no place for them"] if (stray := downtime(platform)[1]) else []))


def write_json(platform: Platform, path: Path) -> Path:
    path.write_text(json.dumps(native_document(platform), indent=1) + "\n", encoding="utf-8")
    return path


def write_yaml(platform: Platform, path: Path) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(native_document(platform), sort_keys=False,
                                   default_flow_style=None, width=100), encoding="utf-8")
    return path


WRITER = PlatformWriter("json", ".json", write_json, losses, "hetsched's native platform JSON")
YAML_WRITER = PlatformWriter("yaml", ".yaml", write_yaml, losses,
                             "hetsched's native platform YAML")
