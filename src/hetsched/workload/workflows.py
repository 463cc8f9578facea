"""Several workflows in one workload, each submitted at its own time: a file whose top-level
``workflows`` list names workload files hetsched reads (WfFormat, native, ...)::

    workflows:
      - file: montage.json     # relative to this file
        submit: 0              # seconds added to the workflow's own submit times
      - file: montage.json
        submit: 3600
        name: second           # id prefix; default: the file's stem (#2, #3 on repeats)

Each workflow's jobs keep their ids behind the workflow's name (``second/mProject_1``), their
parents within it, and their submit times shifted by ``submit``; a workflow cannot name
another set of workflows. The workloads' notes and skipped records are kept, each naming its
workflow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from hetsched.documents import read_document
from hetsched.errors import InputError
from hetsched.fileio import StrictModel, check_unique, record_namer, validate
from hetsched.limits import MAX_TIME
from hetsched.platform.model import Platform
from hetsched.workload.model import Workload


class _Workflow(StrictModel):
    file: Annotated[str, Field(min_length=1)]
    submit: Annotated[float, Field(ge=0, le=MAX_TIME)] = 0.0
    name: Annotated[str, Field(min_length=1)] | None = None


class _Set(StrictModel):
    workflows: Annotated[list[_Workflow], Field(min_length=1)]


def workflows_workload(data: Any, path: Path, platform: Platform, swf: Any,
                       read: Callable[[Path, Any, Platform, Any], Workload]) -> Workload:
    """The workflows ``data`` (the set file at ``path``) names, as one workload; ``read``
    turns a member's document into its workload (``load.workload_from_document``: a member
    is any workload file hetsched reads)."""
    spec = validate(_Set, data, path, records={"workflows": record_namer(
        data.get("workflows"), "file", "workflow", "workflows")})
    names = _names(spec.workflows)
    check_unique(names, path, "workflow", "name")
    jobs, notes, skipped = [], [], []
    for k, (member, name) in enumerate(zip(spec.workflows, names)):
        where = path.parent / member.file
        if not where.is_file():
            raise InputError(path, f"no such file: {where}", record=f"workflows[{k}]",
                             field="file")
        document = read_document(where)
        if isinstance(document, dict) and "workflows" in document:
            raise InputError(path, f"{member.file} is itself a set of workflows (one level "
                             "only)", record=f"workflows[{k}]", field="file")
        part = read(where, document, platform, swf)
        jobs += [replace(job, id=f"{name}/{job.id}", submit=job.submit + member.submit,
                         parents=tuple(f"{name}/{p}" for p in job.parents), index=-1)
                 for job in part.jobs]
        notes += [f"workflow {name}: {note}" for note in part.notes]
        skipped += list(part.skipped)
    jobs.sort(key=lambda job: job.submit)  # stable: each workflow's order kept
    return Workload(path.stem, tuple(jobs), str(path), tuple(skipped),
                    {"format": "workflows", "workflows": names}, tuple(notes))


def _names(workflows: list[_Workflow]) -> list[str]:
    """Each workflow's name: its own, else its file's stem, ``#2``, ``#3``... on repeats."""
    names: list[str] = []
    for member in workflows:
        name = member.name or Path(member.file).stem
        if member.name is None and name in names:
            name = f"{name}#{sum(n.split('#')[0] == name for n in names) + 1}"
        names.append(name)
    return names
