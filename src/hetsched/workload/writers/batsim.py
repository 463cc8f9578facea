"""Writing Batsim workload JSON, with Batsim 4's profile names or Batsim 5's.

Each job becomes ``{"id", "subtime", "res", "walltime", "profile"}``; its profile is one of:

- a **delay** (``delay`` / ``DelayProfile``): a fixed duration, the same on every host, as
  Batsim sleeps. A fixed-duration job (``Job.fixed_duration``: Batsim's own delays, read back)
  is written as one in every format. In formats ``batsim`` and ``batsim5`` every other job is
  written as a delay too, of its run time on the platform's slowest core (what Batsim users
  make of an SWF trace), a change of meaning listed as a loss: Batsim will not scale it by
  host speed;
- a **parallel homogeneous** computation (``parallel_homogeneous`` /
  ``ParallelTaskHomogeneousProfile``; formats ``batsim-ph``, ``batsim5-ph``, for jobs that are
  work): ``cpu`` = the flops of each task, ``req_ops / ipc``, and no communication (``com`` 0).
  Batsim runs it at its hosts' flop rates, as hetsched does.

Batsim's ``walltime`` is both the estimate and a limit Batsim enforces: a job's walltime is
written, else its estimate (a loss: Batsim will kill the job there).

One profile per distinct value, named after the jobs' label when every job of that label has
the same value, else ``<label>_<k>``. ``nb_res`` is the platform's cores. Batsim's ``res`` may
spread over any hosts, and Batsim has no memory, dependencies or contention fields: those are
the format's losses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hetsched.limits import MAX_OPS, MAX_TIME
from hetsched.models.speed import run_time
from hetsched.platform.model import Platform
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers import Writer, loss_rules as lost, unwritable


@dataclass(frozen=True)
class ProfileKind:
    """A Batsim profile type: its name in Batsim 4 and 5, the key holding a job's value and
    that value, and the profile's other (constant) keys."""

    types: dict[int, str]
    key: str
    value: Callable[[Job, Platform], float]
    most: float  # the largest value Batsim's reader (ours) takes
    constants: tuple[tuple[str, float], ...] = ()

    def profile(self, version: int, value: float) -> dict[str, Any]:
        return {"type": self.types[version], self.key: value, **dict(self.constants)}


DELAY = ProfileKind({4: "delay", 5: "DelayProfile"}, "delay",
                    lambda j, p: run_time(j, p.slowest_speed), MAX_TIME)
HOMOGENEOUS = ProfileKind({4: "parallel_homogeneous", 5: "ParallelTaskHomogeneousProfile"},
                          "cpu", lambda j, p: j.req_ops / j.ipc, MAX_OPS, (("com", 0.0),))


def kind_of(job: Job, work: ProfileKind) -> ProfileKind:
    """The profile a job is written as: a delay if it is a fixed duration, else ``work``."""
    return DELAY if job.fixed_duration else work


#: A profile: its kind's key (``delay``, ``cpu``) and value.
Profile = tuple[str, float]


def profile_names(workload: Workload, platform: Platform,
                  work: ProfileKind) -> dict[str, tuple[str, Profile]]:
    """Job id -> (profile name, the profile)."""
    profiles: dict[str, Profile] = {}
    for j in workload.jobs:
        kind = kind_of(j, work)
        profiles[j.id] = (kind.key, kind.value(j, platform))
        if profiles[j.id][1] > kind.most:
            raise unwritable(workload, j, "Batsim",
                             f"{kind.key} would be {profiles[j.id][1]:.6g}", f"{kind.most:g}")
    by_label: dict[str, list[Profile]] = {}
    for job in workload.jobs:
        distinct = by_label.setdefault(job.profile, [])
        if profiles[job.id] not in distinct:
            distinct.append(profiles[job.id])
    names: dict[tuple[str, Profile], str] = {}
    for label, distinct in by_label.items():
        for k, profile in enumerate(sorted(distinct)):
            unique = label and len(distinct) == 1
            names[label, profile] = label if unique else f"{label or profile[0]}_{k}"
    return {j.id: (names[j.profile, profiles[j.id]], profiles[j.id]) for j in workload.jobs}


def batsim_document(workload: Workload, platform: Platform, work: ProfileKind,
                    version: int) -> dict[str, Any]:
    profiles = profile_names(workload, platform, work)
    jobs = [{"id": j.id, "subtime": j.submit, "res": j.ntasks,
             "walltime": j.walltime if j.walltime is not None else j.req_time,
             "profile": profiles[j.id][0]} for j in workload.jobs]
    kinds = {kind.key: kind for kind in (DELAY, work)}
    table = {name: kinds[key].profile(version, value)
             for name, (key, value) in sorted(profiles.values())}
    return {"nb_res": platform.total_cores, "jobs": jobs, "profiles": table}


def _writer(kind: ProfileKind, version: int):
    def write(workload: Workload, path: Path, platform: Platform,
              header: Mapping[str, object]) -> Path:
        doc = batsim_document(workload, platform, kind, version)
        jobs = ",\n  ".join(json.dumps(j) for j in doc["jobs"])
        profiles = ",\n  ".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                for k, v in doc["profiles"].items())
        path.write_text(f'{{"nb_res": {doc["nb_res"]},\n "jobs": [\n  {jobs}\n ],\n'
                        f' "profiles": {{\n  {profiles}\n }}}}\n', encoding="utf-8")
        return path
    return write


def _cannot_hold(kind: ProfileKind) -> tuple[lost.Loss, ...]:
    def labels_lost(workload: Workload, platform: Platform) -> int:
        names = profile_names(workload, platform, kind)
        return sum(1 for j in workload.jobs if j.profile != names[j.id][0])

    fmt = "Batsim JSON"
    delays = () if kind is not DELAY else (lost.Loss.each(
        "are work, not fixed durations", lambda j, p: not j.fixed_duration,
        "written as delays of their run time on the slowest core, which Batsim does not "
        "scale by host speed (batsim-ph keeps them as work)"),)
    return (
        *delays,
        lost.Loss.each("have no walltime", lambda j, p: j.walltime is None,
                       "their estimate is written as Batsim's walltime, where Batsim kills "
                       "them"),
        lost.ipc(fmt),
        lost.nodes_other_than(lost.spread, "'res' as tasks over any hosts (spread)", fmt),
        lost.memory(fmt), lost.disk(fmt), lost.mem_bw(fmt), lost.mem_vol(fmt),
        lost.cpu_util(fmt), lost.cpu_util_sd(fmt), lost.parents(fmt),
        lost.Loss("have a profile label Batsim cannot keep", labels_lost,
                  f"jobs of one label differ in {kind.key} (or have no label): profiles "
                  "named <label>_<k>"),
    )


def _make(name: str, kind: ProfileKind, version: int) -> Writer:
    return Writer(name, ".json", _writer(kind, version),
                  f"Batsim {version} workload JSON ({kind.types[version]} profiles)",
                  _cannot_hold(kind), fixed_durations=True)


WRITER = _make("batsim", DELAY, 4)
WRITER_V5 = _make("batsim5", DELAY, 5)
WRITER_PH = _make("batsim-ph", HOMOGENEOUS, 4)
WRITER_PH_V5 = _make("batsim5-ph", HOMOGENEOUS, 5)
