"""WfCommons WfFormat workflow instances (JSON, schema versions 1.4, 1.5 and 1.6), read offline.
Version 1.6, which WfCommons 1.6 writes, is read as 1.5: the parts read here have 1.5's
layout in it (WfCommons 1.6's own reader reads both alike).

Each task becomes a job submitted at 0: its ``runtimeInSeconds`` is its run time on the
reference core (the run's ``reference_speed``, else the platform's slowest core, as for SWF
traces), so ``req_ops = runtime × reference`` and the estimate is that run time on the slowest
core; ``coreCount`` (1.5) or ``cores`` (1.4), rounded up, is ``ntasks`` (default 1), on one
node; the task's ``name`` (1.4: its ``category``, if given) is the job's ``profile``. A task's
parents are its own ``parents`` and the tasks that list it among their ``children``.

Files become edge data: an edge ``parent -> child`` carries the files the parent writes and
the child reads (1.5: ``outputFiles`` ∩ ``inputFiles``, sized by ``specification.files``;
1.4: the tasks' ``files`` by ``name`` and ``link``, the child's size). The engine has no
data-transfer model: the sizes are kept in ``Workload.metadata["edge_bytes"]`` (child ->
parent -> bytes) and a note (an input warning) says they are not simulated. See
``docs/formats.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from hetsched.documents import file_stem, require_mapping
from hetsched.errors import InputError
from hetsched.fileio import ForeignModel, check_unique, record_namer, validate
from hetsched.limits import MAX_DATA_BYTES, MAX_GRAPH_EDGES, MAX_GRAPH_TASKS, MAX_TASKS
from hetsched.models.speed import on_slowest, work
from hetsched.platform.model import Platform
from hetsched.quantities import Seconds
from hetsched.workload.dag import check_dag
from hetsched.workload.model import Job, Workload

#: The schema versions read (1.6's tasks, files and execution records are 1.5's).
VERSIONS = ("1.4", "1.5", "1.6")
#: A task's lists of other tasks, and what each names.
RELATIVES = {"parents": "parent", "children": "child"}

Name = Annotated[str, Field(min_length=1)]
Bytes = Annotated[int, Field(ge=0, le=MAX_DATA_BYTES)]
CoreCount = Annotated[float, Field(ge=1, le=MAX_TASKS)]


class SpecTask(ForeignModel):
    """1.5: ``workflow.specification.tasks[]``."""

    name: Name
    id: Name
    parents: list[Name] = []
    children: list[Name] = []
    inputFiles: list[Name] = []
    outputFiles: list[Name] = []


class SpecFile(ForeignModel):
    id: Name
    sizeInBytes: Bytes


class Specification(ForeignModel):
    tasks: list[SpecTask] = Field(min_length=1)
    files: list[SpecFile] = []


class ExecTask(ForeignModel):
    """1.5: ``workflow.execution.tasks[]``."""

    id: Name
    runtimeInSeconds: Seconds
    coreCount: CoreCount = 1.0


class Execution(ForeignModel):
    tasks: list[ExecTask] = Field(min_length=1)


class TaskFile(ForeignModel):
    """1.4: a task's ``files[]``."""

    name: Name
    sizeInBytes: Bytes
    link: Literal["input", "output"]


class Task14(ForeignModel):
    """1.4: ``workflow.tasks[]``, named by ``name``."""

    name: Name
    category: Name | None = None
    parents: list[Name] = []
    children: list[Name] = []
    files: list[TaskFile] = []
    runtimeInSeconds: Seconds
    cores: CoreCount = 1.0


class Workflow14(ForeignModel):
    tasks: list[Task14] = Field(min_length=1)


@dataclass(frozen=True)
class Task:
    """A task of either version: what becomes a job, and its files (name -> bytes)."""

    id: str
    profile: str
    runtime: float
    cores: float
    parents: list[str]
    children: list[str]
    inputs: Mapping[str, int]
    outputs: frozenset[str]


def wfformat_workload_from_data(data: Any, path: Path, platform: Platform,
                                reference_speed: float | None = None) -> Workload:
    """The jobs of the workflow instance ``data`` (read from ``path``) for ``platform``."""
    doc = require_mapping(data, path)
    version = doc.get("schemaVersion")
    if version not in VERSIONS:
        shown = "missing" if version is None else f"{version!r}"
        raise InputError(path, f"schema version {shown}: hetsched reads WfFormat "
                               f"{', '.join(VERSIONS[:-1])} and {VERSIONS[-1]} (WfFormat's "
                               "wfcommons-migrate-instance.py updates older ones)",
                         field="schemaVersion")
    workflow = require_mapping(doc.get("workflow"), path, "'workflow'")
    tasks = _tasks_14(workflow, path) if version == "1.4" else _tasks_15(workflow, path)
    name = doc.get("name") if isinstance(doc.get("name"), str) and doc["name"] else None
    return _workload(name or file_stem(path), tasks, path, platform, reference_speed)


def _check_sizes(tasks: Any, path: Path, where: str) -> None:
    """The task count and the dependencies listed, before any job is built."""
    if isinstance(tasks, list) and len(tasks) > MAX_GRAPH_TASKS:
        raise InputError(path, f"{len(tasks):,} tasks: more than hetsched reads "
                               f"({MAX_GRAPH_TASKS:,})", field=where)
    listed = sum(len(t[key]) for t in tasks if isinstance(t, Mapping) for key in RELATIVES
                 if isinstance(t.get(key), list)) if isinstance(tasks, list) else 0
    if listed > MAX_GRAPH_EDGES:
        raise InputError(path, f"{listed:,} parents and children listed: more than hetsched "
                               f"reads ({MAX_GRAPH_EDGES:,})", field=where)


def _tasks_15(workflow: Mapping[str, Any], path: Path) -> list[Task]:
    raw_spec = require_mapping(workflow.get("specification"), path, "'workflow.specification'")
    raw_tasks = raw_spec.get("tasks")
    _check_sizes(raw_tasks, path, "workflow.specification.tasks")
    spec = validate(Specification, raw_spec, path,
                    records={"tasks": record_namer(raw_tasks, "id", "task", "tasks")})
    if "execution" not in workflow:
        raise InputError(path, "required field is missing (it holds the tasks' run times)",
                         field="workflow.execution")
    raw_exec = require_mapping(workflow["execution"], path, "'workflow.execution'")
    execution = validate(Execution, raw_exec, path, records={
        "tasks": record_namer(raw_exec.get("tasks"), "id", "execution of task", "tasks")})
    check_unique([t.id for t in spec.tasks], path, "task", "id")
    check_unique([f.id for f in spec.files], path, "file", "id")
    check_unique([t.id for t in execution.tasks], path, "execution of task", "id")
    sizes = {f.id: f.sizeInBytes for f in spec.files}
    runs = {t.id: t for t in execution.tasks}
    out = []
    for task in spec.tasks:
        record = f"task '{task.id}'"
        for field in ("inputFiles", "outputFiles"):
            for i, file in enumerate(getattr(task, field)):
                if file not in sizes:
                    raise InputError(path, f"unknown file '{file}' (not in "
                                           "workflow.specification.files)", record=record,
                                     field=f"{field}[{i}]")
        run = runs.pop(task.id, None)
        if run is None:
            raise InputError(path, "no run time: workflow.execution.tasks has no task "
                                   f"'{task.id}'", record=record, field="runtimeInSeconds")
        out.append(Task(task.id, task.name, run.runtimeInSeconds, run.coreCount, task.parents,
                        task.children, {f: sizes[f] for f in task.inputFiles},
                        frozenset(task.outputFiles)))
    if runs:
        raise InputError(path, "not a task of workflow.specification.tasks",
                         record=f"execution of task '{next(iter(runs))}'", field="id")
    return out


def _tasks_14(workflow: Mapping[str, Any], path: Path) -> list[Task]:
    raw_tasks = workflow.get("tasks")
    _check_sizes(raw_tasks, path, "workflow.tasks")
    spec = validate(Workflow14, workflow, path,
                    records={"tasks": record_namer(raw_tasks, "name", "task", "tasks")})
    check_unique([t.name for t in spec.tasks], path, "task", "name")
    return [Task(t.name, t.category or t.name, t.runtimeInSeconds, t.cores, t.parents,
                 t.children, {f.name: f.sizeInBytes for f in t.files if f.link == "input"},
                 frozenset(f.name for f in t.files if f.link == "output"))
            for t in spec.tasks]


def _parents(tasks: list[Task], path: Path) -> dict[str, list[str]]:
    """Each task's parents: its own, then those that list it as a child (in file order)."""
    parents = {t.id: list(dict.fromkeys(t.parents)) for t in tasks}
    for task in tasks:
        for key, names in (("parents", task.parents), ("children", task.children)):
            for i, name in enumerate(names):
                if name not in parents:
                    raise InputError(path, f"unknown {RELATIVES[key]} task '{name}'",
                                     record=f"task '{task.id}'", field=f"{key}[{i}]")
        for child in task.children:
            if task.id not in parents[child]:
                parents[child].append(task.id)
    return parents


def _workload(name: str, tasks: list[Task], path: Path, platform: Platform,
              reference_speed: float | None) -> Workload:
    parents = _parents(tasks, path)
    slowest = platform.slowest_speed
    reference = reference_speed or slowest
    jobs = [Job(id=t.id, submit=0.0, ntasks=math.ceil(t.cores),
                req_ops=work(t.runtime, 1.0, reference),
                req_time=on_slowest(t.runtime, reference, slowest), profile=t.profile,
                parents=tuple(parents[t.id]))
            for t in tasks]
    check_dag(jobs, path, "task")
    edges = _edge_bytes(tasks, parents)
    notes = ()
    if edges:
        total = sum(b for by_parent in edges.values() for b in by_parent.values())
        count = sum(len(by_parent) for by_parent in edges.values())
        notes = (f"{count} dependencies carry files ({total:,} bytes in all): read, not "
                 "simulated (hetsched models no data transfer)",)
    return Workload(name, tuple(jobs), str(path), metadata={"edge_bytes": edges},
                    notes=notes)


def _edge_bytes(tasks: list[Task], parents: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """child -> parent -> bytes of the files the parent writes and the child reads (edges
    that carry no file left out)."""
    outputs = {t.id: t.outputs for t in tasks}
    edges: dict[str, dict[str, int]] = {}
    for task in tasks:
        for parent in parents[task.id]:
            shared = outputs[parent].intersection(task.inputs)
            if shared:
                edges.setdefault(task.id, {})[parent] = sum(task.inputs[f] for f in shared)
    return edges
