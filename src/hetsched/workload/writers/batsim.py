"""Writing Batsim workload JSON, Batsim 4's names (``delay``) or Batsim 5's (``DelayProfile``).

Each job becomes ``{"id", "subtime", "res", "walltime", "profile"}`` and each distinct run time
a delay profile: the run time on the platform's slowest core, ``req_ops / (ipc · slowest)``,
the Batsim reader's rule read backwards, so reading the file back on the same platform gives
the same work. A profile is named after the jobs' label when every job of that label has the
same run time, else ``<label>_<k>``. ``nb_res`` is the platform's cores. Batsim's ``res`` may
spread over any hosts, and Batsim has no memory, dependencies or contention fields: those are
the format's losses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hetsched.platform.model import Platform
from hetsched.workload.model import Workload
from hetsched.workload.writers import Writer, losses as lost

#: The delay profile's type name in each version of Batsim.
DELAY_TYPES = {4: "delay", 5: "DelayProfile"}


def profile_names(workload: Workload, platform: Platform) -> dict[str, tuple[str, float]]:
    """Job id -> (profile name, delay in seconds)."""
    delays: dict[str, set[float]] = {}
    for job in workload.jobs:
        delays.setdefault(job.profile, set()).add(lost.slowest_run_time(job, platform))
    names: dict[tuple[str, float], str] = {}
    for label, values in delays.items():
        for k, delay in enumerate(sorted(values)):
            unique = label and len(values) == 1
            names[label, delay] = label if unique else f"{label or 'delay'}_{k}"
    return {j.id: (names[j.profile, delay], delay) for j in workload.jobs
            for delay in [lost.slowest_run_time(j, platform)]}


def batsim_document(workload: Workload, platform: Platform, version: int) -> dict[str, Any]:
    profiles = profile_names(workload, platform)
    jobs = [{"id": j.id, "subtime": j.submit, "res": j.ntasks, "walltime": j.req_time,
             "profile": profiles[j.id][0]} for j in workload.jobs]
    table = {name: {"type": DELAY_TYPES[version], "delay": delay}
             for name, delay in sorted(set(profiles.values()))}
    return {"nb_res": platform.total_cores, "jobs": jobs, "profiles": table}


def _writer(version: int):
    def write(workload: Workload, path: Path, platform: Platform,
              header: Mapping[str, object]) -> Path:
        doc = batsim_document(workload, platform, version)
        jobs = ",\n  ".join(json.dumps(j) for j in doc["jobs"])
        profiles = ",\n  ".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                for k, v in doc["profiles"].items())
        path.write_text(f'{{"nb_res": {doc["nb_res"]},\n "jobs": [\n  {jobs}\n ],\n'
                        f' "profiles": {{\n  {profiles}\n }}}}\n', encoding="utf-8")
        return path
    return write


def _labels_lost(workload: Workload, platform: Platform) -> int:
    names = profile_names(workload, platform)
    return sum(1 for j in workload.jobs if j.profile != names[j.id][0])


_CANNOT_HOLD = (
    lost.ipc("Batsim JSON"),
    lost.nodes_other_than(lost.spread, "'res' as tasks over any hosts (spread)", "Batsim JSON"),
    lost.memory("Batsim JSON"), lost.disk("Batsim JSON"), lost.mem_bw("Batsim JSON"),
    lost.mem_vol("Batsim JSON"), lost.cpu_util("Batsim JSON"), lost.parents("Batsim JSON"),
    lost.Loss("have a profile label Batsim cannot keep", _labels_lost,
              "their run times differ (or there is no label): profiles named <label>_<k>"),
)

WRITER = Writer("batsim", ".json", _writer(4), "Batsim workload JSON (Batsim 4: delay profiles)",
                _CANNOT_HOLD)
WRITER_V5 = Writer("batsim5", ".json", _writer(5),
                   "Batsim workload JSON (Batsim 5: DelayProfile)", _CANNOT_HOLD)
