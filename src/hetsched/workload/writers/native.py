"""Writing hetsched's native workload JSON (the schema of ``docs/formats.md``).

Jobs are written with their work (``req_ops``) and estimate (``req_time``), so the file
stands on its own: reading it back gives the same jobs on any platform. Values equal to the
schema's defaults are left out; in JSON one job per line, in YAML one flow mapping per job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hetsched.platform.model import Platform
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers import Writer, loss_rules as losses

_DEFAULTS = {"ipc": 1.0, "nodes": 1, "mem_mb": 0.0, "disk_mb": 0.0, "mem_bw_gbs": 0.0,
             "mem_vol": 0.0, "cpu_util": 1.0, "cpu_util_sd": 0.0, "profile": "", "parents": [],
             "fixed_duration": False, "walltime": None, "queue": -1, "partition": -1, "user": -1,
             "etc": {}, "budget": None, "min_performance": 0.0, "criterion": None}


def job_record(job: Job) -> dict[str, Any]:
    """``job`` as a native job record."""
    record = {"id": job.id, "submit": job.submit, "ntasks": job.ntasks, "req_ops": job.req_ops,
              "req_time": job.req_time}
    optional = {"ipc": job.ipc, "nodes": "spread" if job.spread else job.nodes,
                "mem_mb": job.task_memory_mb, "disk_mb": job.job_disk_mb,
                "mem_bw_gbs": job.mem_bw_gbs, "mem_vol": job.mem_vol,
                "cpu_util": job.cpu_util, "cpu_util_sd": job.cpu_util_sd, "profile": job.profile,
                "parents": list(job.parents),
                "fixed_duration": job.fixed_duration, "walltime": job.walltime,
                "queue": job.queue, "partition": job.partition, "user": job.user,
                "etc": dict(job.etc),
                "budget": job.budget, "min_performance": job.min_performance,
                "criterion": job.criterion}
    record.update({k: v for k, v in optional.items() if v != _DEFAULTS[k]})
    if job.req_time == 0 == job.req_ops:
        del record["req_time"]   # refused as given (estimates are > 0), derived so from req_ops
    return record


def write_native(workload: Workload, path: Path, platform: Platform,
                 header: Mapping[str, object]) -> Path:
    """``workload`` as native JSON. The schema has no place for comments, so ``header`` is
    not written: the workload's ``name`` says where it came from."""
    jobs = ",\n  ".join(json.dumps(job_record(j)) for j in workload.jobs)
    path.write_text(f'{{"name": {json.dumps(workload.name)},\n "jobs": [\n  {jobs}\n ]}}\n',
                    encoding="utf-8")
    return path


def write_native_yaml(workload: Workload, path: Path, platform: Platform,
                      header: Mapping[str, object]) -> Path:
    """``workload`` as native YAML (``header`` is not written, as in JSON)."""
    import yaml

    text = yaml.safe_dump({"name": workload.name, "jobs": [job_record(j) for j in workload.jobs]},
                          sort_keys=False, default_flow_style=None, width=100)
    path.write_text(text, encoding="utf-8")
    return path


_CANNOT_HOLD = (
    losses.Loss.each("need memory that no memory per task times their tasks gives",
                     lambda j, p: j.task_memory_mb * j.ntasks != j.job_memory_mb,
                     "the native format holds memory per task: off by a rounding"),
)

WRITER = Writer("json", ".json", write_native, "hetsched's native workload JSON", _CANNOT_HOLD,
                fixed_durations=True, etc_rows=True, requests=True)
YAML_WRITER = Writer("yaml", ".yaml", write_native_yaml, "hetsched's native workload YAML",
                     _CANNOT_HOLD, fixed_durations=True, etc_rows=True, requests=True)
