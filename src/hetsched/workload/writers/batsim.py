"""Writing Batsim workload JSON, with Batsim 4's profile names or Batsim 5's.

Each job becomes ``{"id", "subtime", "res", "walltime", "profile"}``; its profile is one of:

- a **delay** (``delay`` / ``DelayProfile``; formats ``batsim``, ``batsim5``): the run time in
  seconds on the platform's slowest core, ``req_ops / (ipc · slowest)``, the rule of this
  branch's Batsim reader read backwards, so reading the file back on the same platform gives
  the same work;
- a **parallel homogeneous** computation (``parallel_homogeneous`` /
  ``ParallelTaskHomogeneousProfile``; formats ``batsim-ph``, ``batsim5-ph``): ``cpu`` = the
  flops of each task, ``req_ops / ipc``, and no communication (``com`` 0). This is work, so it
  needs no platform: Batsim runs it at its hosts' flop rates.

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

from hetsched.platform.model import Platform
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers import Writer, losses as lost


@dataclass(frozen=True)
class ProfileKind:
    """A Batsim profile type: its name in Batsim 4 and 5, the key holding a job's value and
    that value, and the profile's other (constant) keys."""

    types: dict[int, str]
    key: str
    value: Callable[[Job, Platform], float]
    constants: tuple[tuple[str, float], ...] = ()

    def profile(self, version: int, value: float) -> dict[str, Any]:
        return {"type": self.types[version], self.key: value, **dict(self.constants)}


DELAY = ProfileKind({4: "delay", 5: "DelayProfile"}, "delay", lost.slowest_run_time)
HOMOGENEOUS = ProfileKind({4: "parallel_homogeneous", 5: "ParallelTaskHomogeneousProfile"},
                          "cpu", lambda j, p: j.req_ops / j.ipc, (("com", 0.0),))


def profile_names(workload: Workload, platform: Platform,
                  kind: ProfileKind) -> dict[str, tuple[str, float]]:
    """Job id -> (profile name, the profile's value)."""
    values = {j.id: kind.value(j, platform) for j in workload.jobs}
    by_label: dict[str, set[float]] = {}
    for job in workload.jobs:
        by_label.setdefault(job.profile, set()).add(values[job.id])
    names: dict[tuple[str, float], str] = {}
    for label, distinct in by_label.items():
        for k, value in enumerate(sorted(distinct)):
            unique = label and len(distinct) == 1
            names[label, value] = label if unique else f"{label or kind.key}_{k}"
    return {j.id: (names[j.profile, values[j.id]], values[j.id]) for j in workload.jobs}


def batsim_document(workload: Workload, platform: Platform, kind: ProfileKind,
                    version: int) -> dict[str, Any]:
    profiles = profile_names(workload, platform, kind)
    jobs = [{"id": j.id, "subtime": j.submit, "res": j.ntasks, "walltime": j.req_time,
             "profile": profiles[j.id][0]} for j in workload.jobs]
    table = {name: kind.profile(version, value)
             for name, value in sorted(set(profiles.values()))}
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
    return (
        lost.ipc(fmt),
        lost.nodes_other_than(lost.spread, "'res' as tasks over any hosts (spread)", fmt),
        lost.memory(fmt), lost.disk(fmt), lost.mem_bw(fmt), lost.mem_vol(fmt),
        lost.cpu_util(fmt), lost.parents(fmt),
        lost.Loss("have a profile label Batsim cannot keep", labels_lost,
                  f"jobs of one label differ in {kind.key} (or have no label): profiles "
                  "named <label>_<k>"),
    )


def _make(name: str, kind: ProfileKind, version: int) -> Writer:
    return Writer(name, ".json", _writer(kind, version),
                  f"Batsim {version} workload JSON ({kind.types[version]} profiles)",
                  _cannot_hold(kind))


WRITER = _make("batsim", DELAY, 4)
WRITER_V5 = _make("batsim5", DELAY, 5)
WRITER_PH = _make("batsim-ph", HOMOGENEOUS, 4)
WRITER_PH_V5 = _make("batsim5-ph", HOMOGENEOUS, 5)
