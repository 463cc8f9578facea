"""Writing IRMaSim workload JSON: every job carries its own fields (``subtime``, ``ntasks``,
``nodes``, ``req_ops``, ``ipc``, ``req_time``, ``mem``: MB per task, ``mem_vol``); each label
becomes an empty profile, so reading back keeps it. IRMaSim counts a job's nodes (1 …
ntasks): a job that may spread over any nodes is written with one task per node."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hetsched.platform.model import Platform
from hetsched.workload.model import SPREAD, Job, Workload
from hetsched.workload.writers import Writer, loss_rules as lost


def job_record(job: Job) -> dict[str, Any]:
    record = {"id": job.id, "subtime": job.submit, "ntasks": job.ntasks,
              "nodes": job.ntasks if job.nodes == SPREAD else job.nodes, "req_ops": job.req_ops,
              "ipc": job.ipc, "req_time": job.req_time, "mem": job.task_memory_mb,
              "mem_vol": job.mem_vol}
    return record | ({"profile": job.profile} if job.profile else {})


def write_irmasim(workload: Workload, path: Path, platform: Platform,
                  header: Mapping[str, object]) -> Path:
    jobs = ",\n  ".join(json.dumps(job_record(j)) for j in workload.jobs)
    labels = sorted({j.profile for j in workload.jobs if j.profile})
    profiles = ", ".join(f"{json.dumps(label)}: {{}}" for label in labels)
    path.write_text(f'{{"jobs": [\n  {jobs}\n ],\n "profiles": {{{profiles}}}}}\n',
                    encoding="utf-8")
    return path


WRITER = Writer("irmasim", ".json", write_irmasim, "IRMaSim workload JSON", (
    lost.Loss.each("may spread over any nodes", lambda j, p: j.nodes == SPREAD,
                   "IRMaSim counts nodes: written as one task per node"),
    lost.disk("IRMaSim JSON"), lost.mem_bw("IRMaSim JSON"), lost.cpu_util("IRMaSim JSON"),
    lost.cpu_util_sd("IRMaSim JSON"), lost.parents("IRMaSim JSON"),
))
