"""The checks of a workload's dependencies (``Job.parents``), shared by every reader of DAG
workloads: each parent is a job of the workload, and no job is its own ancestor (a cycle is
named whole, as :mod:`graphlib` finds it)."""

from __future__ import annotations

import graphlib
from collections.abc import Sequence
from pathlib import Path

from hetsched.errors import InputError
from hetsched.workload.model import Job


def check_dag(jobs: Sequence[Job], path: Path, label: str = "job") -> None:
    """Every parent exists (else the first unknown one, as ``<label> 'id', field
    'parents[i]'``), and the parents make no cycle (``has a cycle: a -> b -> a``)."""
    ids = {job.id for job in jobs}
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for job in jobs:
        for i, parent in enumerate(job.parents):
            if parent not in ids:
                raise InputError(path, f"unknown parent {label} '{parent}'",
                                 record=f"{label} '{job.id}'", field=f"parents[{i}]")
        sorter.add(job.id, *job.parents)
    try:
        sorter.prepare()
    except graphlib.CycleError as err:
        cycle = err.args[1]
        raise InputError(path, f"has a cycle: {' -> '.join(cycle)}", record=f"{label} "
                         f"'{cycle[0]}'", field="parents") from None
