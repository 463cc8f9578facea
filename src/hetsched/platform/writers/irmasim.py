"""Writing IRMaSim's ``platform.json``: one platform of clusters of node groups, each node type
with its processors (one processor type per processor, ``<type>.p<i>``). Power is IRMaSim's
per processor: ``static_power = static``, ``dynamic_power = dynamic_per_core``, ``min_power =
idle / static`` (the reader's ``idle = min_power · static_power`` read backwards). IRMaSim's
reader names the platform after the file and gives it the ``irmasim`` contention model."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.platform.writers import (PlatformWriter, platform_losses, renamed_nodes,
                                       type_losses)
from hetsched.platform.writers.native import clusters

FMT = "IRMaSim JSON"


def _processor(t: NodeType, p: Processor) -> dict[str, Any]:
    record: dict[str, Any] = {"cores": p.cores, "clock_rate": t.clock_ghz,
                              "dpflops_per_cycle": t.ops_per_cycle}
    if t.has_power:
        record |= {"static_power": p.static_w, "dynamic_power": p.dynamic_w_per_core,
                   "min_power": p.idle_w / p.static_w if p.static_w else 0.0}
    if math.isfinite(p.mem_bw_gbs):
        record["mem_bw"] = p.mem_bw_gbs
    return record | dict(p.params)


def irmasim_document(platform: Platform) -> dict[str, Any]:
    groups = [{"id": c["name"], "nodes": [{"type": g["type"], "number": g["count"]}
                                          for g in c["nodes"]]} for c in clusters(platform)]
    nodes, processors = {}, {}
    for t in platform.node_types:
        names = [f"{t.name}.p{i}" for i in range(len(t.processors))]
        processors |= {n: _processor(t, p) for n, p in zip(names, t.processors)}
        nodes[t.name] = {"processors": [{"type": n, "number": 1} for n in names]}
        if math.isfinite(t.memory_mb):
            nodes[t.name]["memory"] = {"capacity": t.memory_mb / 1024}
    return {"platform": {platform.name: {"clusters": groups}}, "node": nodes,
            "processor": processors}


def _unmatched_bandwidth(t: NodeType) -> bool:
    """IRMaSim's node bandwidth is its processors' sum (when all give one)."""
    total = sum(p.mem_bw_gbs for p in t.processors)
    return t.mem_bw_gbs != total and not (math.isinf(t.mem_bw_gbs) and math.isinf(total))


def losses(platform: Platform) -> list[str]:
    return (type_losses(platform, FMT, {
        "on-demand nodes": lambda t: t.on_demand,
        "a disk size": lambda t: math.isfinite(t.disk_mb),
        "an hourly price": lambda t: t.hourly_price != 0,
        "a boot time": lambda t: t.boot_time != 0,
        "oversubscription": lambda t: t.oversubscription != 1,
        "idle power without static power": lambda t: any(
            p.idle_w and not p.static_w for p in t.processors),
        "a bandwidth other than their processors' sum": _unmatched_bandwidth})
        + renamed_nodes(platform, FMT)
        + platform_losses(platform, FMT, contention="irmasim"))


def write_irmasim(platform: Platform, path: Path) -> Path:
    doc = irmasim_document(platform)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


WRITER = PlatformWriter("irmasim", ".json", write_irmasim, losses, "IRMaSim platform JSON")
