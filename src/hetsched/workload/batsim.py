"""Batsim workload JSON (``delay`` profiles only)::

    {"nb_res": 4,
     "jobs": [{"id": 1, "subtime": 0, "res": 4, "walltime": 100, "profile": "d60"}],
     "profiles": {"d60": {"type": "delay", "delay": 60}}}

``delay`` is the run time on the slowest node (``req_ops = delay * slowest_speed``); ``res``
tasks may spread over any nodes; ``walltime`` is the estimate (``req_time``), the delay when
absent or -1. ``nb_res``, when given, is kept in ``Workload.metadata`` (checked against the
platform's cores by :func:`hetsched.sim.checks.input_warnings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from hetsched.errors import InputError
from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.fileio import ForeignModel, Identifier, check_unique, record_namer, validate
from hetsched.limits import MAX_TIME
from hetsched.platform.model import Platform
from hetsched.quantities import Seconds, Tasks
from hetsched.workload.model import SPREAD, Job, Workload

SUPPORTED_PROFILE_TYPES = ("delay",)


class BatsimJob(ForeignModel):
    id: Identifier
    subtime: Seconds
    res: Tasks
    walltime: Annotated[float, Field(ge=-1, le=MAX_TIME)] | None = None
    profile: str


class BatsimProfile(ForeignModel):
    type: str
    delay: Seconds


class BatsimWorkload(ForeignModel):
    jobs: list[BatsimJob]


def load_batsim_workload(path: str | Path, platform: Platform) -> Workload:
    """Read a Batsim workload JSON file whose profiles are all of type ``delay``."""
    path = Path(path)
    return batsim_workload_from_data(read_structured(path), path, platform)


def batsim_workload_from_data(data: Any, path: Path, platform: Platform) -> Workload:
    doc = require_mapping(data, path)
    profiles = _profiles(require_mapping(doc.get("profiles"), path, "'profiles'"), path)
    spec = validate(BatsimWorkload, doc, path,
                    records={"jobs": record_namer(doc.get("jobs"), "id", "job", "jobs")})
    check_unique([j.id for j in spec.jobs], path, "job", "id")
    slowest = platform.slowest_speed
    jobs = []
    for j in spec.jobs:
        if j.profile not in profiles:
            raise InputError(path, f"unknown profile '{j.profile}'", record=f"job '{j.id}'",
                             field="profile")
        if j.walltime is not None and j.walltime <= 0 and j.walltime != -1:
            raise InputError(path, f"walltime must be > 0 or -1 (none), got {j.walltime}",
                             record=f"job '{j.id}'", field="walltime")
        delay = profiles[j.profile]
        walltime = j.walltime if j.walltime is not None and j.walltime > 0 else delay
        jobs.append(Job(id=j.id, submit=j.subtime, ntasks=j.res, req_ops=delay * slowest,
                        req_time=walltime, nodes=SPREAD, profile=j.profile))
    header = {"nb_res": doc["nb_res"]} if "nb_res" in doc else {}
    return Workload(file_stem(path), tuple(jobs), str(path), metadata=header)


def _profiles(raw: Mapping[str, Any], path: Path) -> dict[str, float]:
    """Profile name -> delay in seconds."""
    delays = {}
    for name, entry in raw.items():
        record = f"profile '{name}'"
        kind = entry.get("type") if isinstance(entry, Mapping) else None
        if kind not in SUPPORTED_PROFILE_TYPES:
            raise InputError(path, f"profile type {kind!r} not supported (only "
                                   f"{', '.join(SUPPORTED_PROFILE_TYPES)})",
                             record=record, field="type")
        delays[str(name)] = validate(BatsimProfile, entry, path, record=record).delay
    return delays
