"""IRMaSim workload JSON::

    {"jobs": [{"id": "j1", "subtime": 2, "ntasks": 4, "nodes": 1, "profile": "p"}, ...],
     "profiles": {"p": {"req_ops": 1e9, "ipc": 1, "req_time": 10, "mem": 50, "mem_vol": 1e6}}}

A job's fields may come from its profile; the job's own keys win. ``res`` is accepted for
``ntasks`` (IRMaSim's older name; such a job runs on one node). As in IRMaSim, a job without
``nodes`` runs on ``ceil(ntasks / ntasks_per_node)`` nodes (``ntasks_per_node`` defaults to 1:
one task per node), and a job without ``ntasks`` has ``nodes * ntasks_per_node`` tasks.
``mem`` is taken as MB per task.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


from hetsched.errors import InputError
from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.fileio import (ForeignModel, Identifier, check_unique, record_name, record_namer,
                             validate)
from hetsched.quantities import Ipc, MemoryMb, MemVolume, Ops, PositiveSeconds, Seconds, Tasks
from hetsched.workload.model import Job, Workload

#: Job fields a profile may provide.
PROFILE_FIELDS = ("req_ops", "ipc", "req_time", "mem", "mem_vol")


class IrmasimJob(ForeignModel):
    id: Identifier
    subtime: Seconds
    ntasks: Tasks
    nodes: Tasks = 1
    req_ops: Ops
    ipc: Ipc = 1.0
    req_time: PositiveSeconds
    mem: MemoryMb = 0.0
    mem_vol: MemVolume = 0.0
    profile: str = ""

    def job(self) -> Job:
        return Job(id=self.id, submit=self.subtime, ntasks=self.ntasks, req_ops=self.req_ops,
                   req_time=self.req_time, ipc=self.ipc, nodes=self.nodes,
                   job_memory_mb=self.mem * self.ntasks,
                   mem_vol=self.mem_vol, profile=self.profile)


class IrmasimWorkload(ForeignModel):
    jobs: list[IrmasimJob]


def load_irmasim_workload(path: str | Path) -> Workload:
    """Read an IRMaSim workload JSON file."""
    path = Path(path)
    return irmasim_workload_from_data(read_structured(path), path)


def irmasim_workload_from_data(data: Any, path: Path) -> Workload:
    doc = require_mapping(data, path)
    raw_jobs = doc.get("jobs")
    profiles = require_mapping(doc.get("profiles", {}), path, "'profiles'")
    merged = ([_merge(job, i, profiles, path) for i, job in enumerate(raw_jobs)]
              if isinstance(raw_jobs, list) else raw_jobs)
    spec = validate(IrmasimWorkload, {"jobs": merged} if "jobs" in doc else {}, path,
                    records={"jobs": record_namer(raw_jobs, "id", "job", "jobs")})
    check_unique([j.id for j in spec.jobs], path, "job", "id")
    for j in spec.jobs:
        if j.nodes > j.ntasks:
            raise InputError(path, f"more nodes ({j.nodes}) than tasks ({j.ntasks})",
                             record=f"job '{j.id}'", field="nodes")
    return Workload(file_stem(path), tuple(j.job() for j in spec.jobs), str(path))


def _merge(job: Any, index: int, profiles: Mapping[str, Any], path: Path) -> Any:
    """The job's fields over its profile's; ``res`` renamed to ``ntasks``."""
    if not isinstance(job, Mapping):
        return job  # validation reports it
    record = record_name(job, index, "id", "job", "jobs")
    merged: dict[str, Any] = {}
    name = job.get("profile")
    if name is not None:
        if not isinstance(name, str) or name not in profiles:
            raise InputError(path, f"unknown profile '{name}'", record=record, field="profile")
        profile = require_mapping(profiles[name], path, f"profile '{name}'")
        merged.update((k, profile[k]) for k in PROFILE_FIELDS if k in profile)
    merged.update(job)
    if "res" in merged:
        res = merged.pop("res")
        if "ntasks" in merged and merged["ntasks"] != res:
            raise InputError(path, f"'res' ({res}) and 'ntasks' ({merged['ntasks']}) differ",
                             record=record, field="ntasks")
        merged["ntasks"] = res
        merged.setdefault("nodes", 1)  # IRMaSim: 'res' tasks on one node
    per_node = merged.pop("ntasks_per_node", 1)
    if isinstance(per_node, int) and not isinstance(per_node, bool) and per_node > 0:
        # IRMaSim's defaults: nodes = ceil(ntasks / ntasks_per_node), ntasks = nodes * that
        if "nodes" not in merged and isinstance(merged.get("ntasks"), int):
            merged["nodes"] = -(-merged["ntasks"] // per_node)
        elif "ntasks" not in merged and isinstance(merged.get("nodes"), int):
            merged["ntasks"] = merged["nodes"] * per_node
    else:
        raise InputError(path, f"'ntasks_per_node' must be a whole number > 0, got "
                               f"{per_node!r}", record=record, field="ntasks_per_node")
    return merged
