"""Writing a ds-sim job list: ``<jobs><job id submitTime estRunTime actRunTime cores memory
disk/>...</jobs>``, every value a whole number (ds-sim's C ints). A ds-sim job runs on one
server, and its run time is its work on hetsched's ds-sim speed (``req_ops / 1e9``, the job
list reader's rule, whatever the platform); memory and disk are the whole job's MB."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hetsched.platform.dssim import SPEED
from hetsched.limits import MAX_INT32
from hetsched.models.speed import run_time
from hetsched.platform.model import Platform
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers import Writer, loss_rules as lost, unwritable
from hetsched.workload.writers.swf import is_job_number

FMT = "a ds-sim job list"


def _ids(workload: Workload) -> list[int]:
    """The ids if they all are plain whole numbers within ds-sim's ints, else 0, 1, …"""
    if all(_plain_id(j) for j in workload.jobs):
        return [int(j.id) for j in workload.jobs]
    return list(range(len(workload.jobs)))


def _plain_id(job: Job) -> bool:
    return is_job_number(job.id, MAX_INT32)


def _run_time(job: Job, platform: Platform) -> float:
    return run_time(job, SPEED)


#: The attributes of a job, in the order ds-sim writes them.
ATTRIBUTES = ("id", "submitTime", "estRunTime", "actRunTime", "cores", "memory", "disk")


def write_dssim(workload: Workload, path: Path, platform: Platform,
                header: Mapping[str, object]) -> Path:
    """Every job's attributes, checked against ds-sim's ints before the file is written: a
    value beyond them cannot be written at all (ds-sim and the reader would refuse it)."""
    rows = []
    for number, job in zip(_ids(workload), workload.jobs):
        values = [round(v) for v in (number, job.submit, job.req_time, _run_time(job, platform),
                                     job.ntasks, job.job_memory_mb, job.job_disk_mb)]
        for name, value in zip(ATTRIBUTES, values):
            if value > MAX_INT32:
                raise unwritable(workload, job, FMT, f"{name} would be {value:,}",
                                 f"ds-sim's ints ({MAX_INT32:,})")
        rows.append(" ".join(f'{n}="{v}"' for n, v in zip(ATTRIBUTES, values)))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<jobs>",
             *(f"  <job {row}/>" for row in rows), "</jobs>", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


WRITER = Writer("dssim", ".xml", write_dssim, "ds-sim job list XML", (
    lost.Loss.each("have ids that are not whole numbers", lambda j, p: not _plain_id(j),
                   "ds-sim numbers its jobs: written as 0, 1, …"),
    lost.not_whole("submit times", lambda j, p: j.submit, FMT),
    lost.not_whole("estimates (req_time)", lambda j, p: j.req_time, FMT),
    lost.not_whole("run times at 1e9 ops/s", _run_time, FMT),
    lost.not_whole("memory sizes in MB", lambda j, p: j.job_memory_mb, FMT),
    lost.not_whole("disk sizes in MB", lambda j, p: j.job_disk_mb, FMT),
    lost.ipc(FMT),
    lost.nodes_other_than(lambda j, p: 1, "every job on one server", FMT),
    lost.mem_bw(FMT), lost.mem_vol(FMT), lost.cpu_util(FMT), lost.profile(FMT, "dssim"),
    lost.cpu_util_sd(FMT), lost.parents(FMT),
))
