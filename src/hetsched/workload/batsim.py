"""Batsim workload JSON, v4 and v5 profile names::

    {"nb_res": 4,
     "jobs": [{"id": 1, "subtime": 0, "res": 4, "walltime": 100, "profile": "d60"}],
     "profiles": {"d60": {"type": "delay", "delay": 60}}}

Profiles become work per task (:mod:`hetsched.workload.batsim_profiles`). A delay is a fixed
duration, the same on every node (``Job.fixed_duration``), as Batsim sleeps; with
``scale_delays`` it is instead the run time on the slowest node, scaled by speed elsewhere.
Computation profiles are flops: ``req_ops`` (at ``ipc`` 1 on hosts whose speed is flop/s).
``res`` tasks may spread over any nodes. ``walltime`` (seconds from the start; absent or -1:
none) is the job's ``walltime`` and its estimate (``req_time``); without one the estimate is the
profile's duration on the slowest node. ``nb_res`` and the jobs' and profiles' ``extra_data``
are kept in ``Workload.metadata`` (``nb_res``, ``extra_data``: job id -> value,
``profile_extra_data``: profile name -> value); ``metadata["format"]`` is ``"batsim"`` (the
engine's walltime rule defaults to ``kill`` for it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from hetsched.documents import file_stem, read_structured, require_mapping
from hetsched.errors import InputError
from hetsched.fileio import ForeignModel, Identifier, check_unique, record_namer, validate
from hetsched.limits import MAX_TIME
from hetsched.platform.model import Platform
from hetsched.quantities import Seconds, Tasks
from hetsched.workload.batsim_profiles import Profiles, Work, read_profiles
from hetsched.workload.model import SPREAD, Job, Workload, scale_delays as scaled


class BatsimJob(ForeignModel):
    id: Identifier
    subtime: Seconds
    res: Tasks
    walltime: Annotated[float, Field(ge=-1, le=MAX_TIME)] | None = None
    profile: str
    extra_data: Any = None


class BatsimWorkload(ForeignModel):
    jobs: list[BatsimJob]


def load_batsim_workload(path: str | Path, platform: Platform,
                         scale_delays: bool = False) -> Workload:
    """Read a Batsim workload JSON file."""
    path = Path(path)
    return batsim_workload_from_data(read_structured(path), path, platform, scale_delays)


def batsim_workload_from_data(data: Any, path: Path, platform: Platform,
                              scale_delays: bool = False) -> Workload:
    doc = require_mapping(data, path)
    profiles = read_profiles(require_mapping(doc.get("profiles"), path, "'profiles'"), path)
    spec = validate(BatsimWorkload, doc, path,
                    records={"jobs": record_namer(doc.get("jobs"), "id", "job", "jobs")})
    check_unique([j.id for j in spec.jobs], path, "job", "id")
    jobs = tuple(_job(j, profiles, path, platform.slowest_speed) for j in spec.jobs)
    workload = Workload(file_stem(path), jobs, str(path),
                        metadata=_metadata(doc, spec, profiles), notes=_ignored(profiles))
    return scaled(workload, platform.slowest_speed) if scale_delays else workload


def _job(j: BatsimJob, profiles: Profiles, path: Path, slowest: float) -> Job:
    record = f"job '{j.id}'"
    if j.profile not in profiles.done:
        raise InputError(path, f"unknown profile '{j.profile}'", record=record, field="profile")
    if j.walltime is not None and j.walltime <= 0 and j.walltime != -1:
        raise InputError(path, f"walltime must be > 0 or -1 (none), got {j.walltime}",
                         record=record, field="walltime")
    work: Work = profiles.done[j.profile]
    amount = work.for_tasks(j.res)
    fixed = work.fixed is not False
    walltime = j.walltime if j.walltime is not None and j.walltime > 0 else None
    estimate = walltime if walltime is not None else (amount if fixed else amount / slowest)
    return Job(id=j.id, submit=j.subtime, ntasks=j.res, req_ops=amount, req_time=estimate,
               nodes=SPREAD, profile=j.profile, fixed_duration=fixed, walltime=walltime)


def _metadata(doc: dict, spec: BatsimWorkload, profiles: Profiles) -> dict[str, object]:
    metadata: dict[str, object] = {"format": "batsim"}
    if "nb_res" in doc:
        metadata["nb_res"] = doc["nb_res"]
    extra = {j.id: j.extra_data for j in spec.jobs if j.extra_data is not None}
    if extra:
        metadata["extra_data"] = extra
    by_profile = {name: entry["extra_data"] for name, entry in profiles.raw.items()
                  if "extra_data" in entry}
    if by_profile:
        metadata["profile_extra_data"] = by_profile
    return metadata


def _ignored(profiles: Profiles) -> tuple[str, ...]:
    """What the workload leaves out, as notes (reported as input warnings)."""
    failing = [name for name, entry in profiles.raw.items()
               if isinstance(entry, Mapping) and entry.get("ret", 0) not in (0, None)]
    notes = [(profiles.ignored_com, "communication ignored (hetsched models no network)"),
             (failing, "return codes other than 0 ignored (the jobs end as successful)")]
    return tuple(f"{what} in profiles {_names(names)}" for names, what in notes if names)


def _names(names: list[str]) -> str:
    more = len(names) - 5
    return ", ".join(f"'{n}'" for n in names[:5]) + (f" and {more} more" if more > 0 else "")
