"""hetsched's own workload format (JSON or YAML); see ``docs/formats.md``.

```yaml
name: demo
jobs:
  - {id: a, submit: 0, ntasks: 4, run_time: 120}          # seconds on the slowest node
  - {id: b, submit: 5, ntasks: 2, req_ops: 3.0e11, req_time: 600, parents: [a]}
  - {id: c, submit: 5, ntasks: 1, etc: {fast: 14, slow: 16}}   # seconds per node type
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, BeforeValidator, Field

from hetsched.errors import InputError
from hetsched.documents import file_stem, read_structured
from hetsched.fileio import Identifier, StrictModel, check_unique, record_namer, validate
from hetsched.limits import MAX_JOB_NUMBER, MAX_TASKS
from hetsched.models.speed import node_speed, seconds, work
from hetsched.platform.model import Platform
from hetsched.quantities import (Bandwidth, Budget, Ipc, MemoryMb, MemVolume, MinSpeed, Ops,
                                 PositiveSeconds, Seconds, Tasks, Utilisation, UtilisationSd)
from hetsched.workload.dag import check_dag
from hetsched.workload.model import SPREAD, Job, Workload, criterion_problem


def _spread(value: Any) -> Any:
    return SPREAD if value == "spread" else value


class JobSpec(StrictModel):
    id: Identifier
    submit: Seconds
    ntasks: Tasks
    req_ops: Ops | None = None
    run_time: Seconds | None = None
    req_time: PositiveSeconds | None = None
    ipc: Ipc = 1.0
    nodes: Annotated[int, BeforeValidator(_spread), Field(ge=0, le=MAX_TASKS)] = 1
    # per task and per job, as their names say; mem_mb and disk_mb: the keys of earlier
    # versions, still read (and still written, so that earlier versions read hetsched's files)
    task_memory_mb: MemoryMb = Field(0.0, validation_alias=AliasChoices("task_memory_mb",
                                                                        "mem_mb"))
    job_disk_mb: MemoryMb = Field(0.0, validation_alias=AliasChoices("job_disk_mb", "disk_mb"))
    mem_bw_gbs: Bandwidth = 0.0
    mem_vol: MemVolume = 0.0
    cpu_util: Utilisation = 1.0
    cpu_util_sd: UtilisationSd = 0.0
    profile: str = ""
    parents: list[Identifier] = []
    fixed_duration: bool = False
    walltime: PositiveSeconds | None = None
    queue: Annotated[int, Field(ge=-1, le=MAX_JOB_NUMBER)] = -1
    partition: Annotated[int, Field(ge=-1, le=MAX_JOB_NUMBER)] = -1
    user: Annotated[int, Field(ge=-1, le=MAX_JOB_NUMBER)] = -1
    etc: dict[Annotated[str, Field(min_length=1)], PositiveSeconds] = {}
    budget: Budget | None = None
    min_performance: MinSpeed = 0.0
    criterion: str | None = Field(None, min_length=1)


class WorkloadSpec(StrictModel):
    name: str | None = Field(None, min_length=1)
    jobs: list[JobSpec]


def load_native_workload(path: str | Path, platform: Platform) -> Workload:
    """Read a native workload file; ``platform`` converts ``run_time`` to operations."""
    path = Path(path)
    return native_workload_from_data(read_structured(path), path, platform)


def native_workload_from_data(data: Any, path: Path, platform: Platform) -> Workload:
    raw = data if isinstance(data, dict) else {}
    spec = validate(WorkloadSpec, data, path,
                    records={"jobs": record_namer(raw.get("jobs"), "id", "job", "jobs")})
    check_unique([j.id for j in spec.jobs], path, "job", "id")
    jobs = tuple(_job(j, path, platform.slowest_speed) for j in spec.jobs)
    check_dag(jobs, path)
    return Workload(spec.name or file_stem(path), jobs, str(path))


def _job(spec: JobSpec, path: Path, slowest: float) -> Job:
    record = f"job '{spec.id}'"
    run_time, req_time = spec.run_time, spec.req_time
    if spec.etc:
        longest = max(spec.etc.values())
        if spec.fixed_duration:
            raise InputError(path, "an ETC row gives the run time on each node type: it "
                                   "takes no fixed_duration", record=record, field="etc")
        if req_time is not None and req_time < longest:
            raise InputError(path, f"{req_time:g} is below the ETC row's longest time "
                                   f"{longest:g}: no estimate may exceed req_time",
                             record=record, field="req_time")
        if spec.req_ops is None and run_time is None:  # the row's longest time
            run_time = longest
        if req_time is None:  # the estimate on the type the row makes slowest
            req_time = longest
    if (spec.req_ops is None) == (run_time is None):
        raise InputError(path, "give exactly one of 'req_ops' and 'run_time'", record=record,
                         field="req_ops")
    if spec.nodes > spec.ntasks:
        raise InputError(path, f"more nodes ({spec.nodes}) than tasks ({spec.ntasks})",
                         record=record, field="nodes")
    # run_time is the job's duration on the slowest node (on any node for a fixed duration)
    speed = node_speed(spec.fixed_duration, slowest)
    req_ops = spec.req_ops if spec.req_ops is not None else work(run_time, spec.ipc, speed)
    if spec.etc and not req_ops > 0:
        raise InputError(path, "a job with an ETC row needs work (req_ops > 0) to measure its "
                               "progress", record=record, field="req_ops")
    if req_time is None:
        req_time = seconds(req_ops, spec.ipc, speed)
    if spec.criterion is not None:
        problem = criterion_problem(spec.criterion)
        if problem:
            raise InputError(path, problem, record=record, field="criterion")
    return Job(id=spec.id, submit=spec.submit, ntasks=spec.ntasks, req_ops=req_ops,
               req_time=req_time, ipc=spec.ipc, nodes=spec.nodes,
               job_memory_mb=spec.task_memory_mb * spec.ntasks, job_disk_mb=spec.job_disk_mb,
               mem_bw_gbs=spec.mem_bw_gbs, mem_vol=spec.mem_vol, cpu_util=spec.cpu_util,
               profile=spec.profile, parents=tuple(spec.parents),
               fixed_duration=spec.fixed_duration, walltime=spec.walltime, queue=spec.queue,
               partition=spec.partition, cpu_util_sd=spec.cpu_util_sd,
               etc=tuple(spec.etc.items()), budget=spec.budget,
               min_performance=spec.min_performance, criterion=spec.criterion,
               user=spec.user)
