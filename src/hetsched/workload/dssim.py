"""Reading a ds-sim job list (jobs with estimated and actual run times), given directly or
named by a ds-sim configuration. Bad input gives one line naming the file, the record and the
problem."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NamedTuple

from hetsched.errors import InputError, option_name
from hetsched.limits import MAX_INT32, MAX_TASKS
from hetsched.parsing import parse_int
from hetsched.platform.dssim import SPEED, DsSimConfig, read_config
from hetsched.platform.model import Platform
from hetsched.workload.model import Job, Workload
from hetsched.xmldoc import int_attribute, read_xml

#: ``Workload.metadata`` key marking a workload read from a ds-sim job list (what the ds-sim
#: algorithms need: single-node jobs whose times and sizes are ds-sim's integers).
JOB_LIST_KEY = "dssim_job_list"

_JOB_FIELDS = {"id": (0, MAX_INT32), "submitTime": (0, MAX_INT32), "estRunTime": (0, MAX_INT32),
               "cores": (1, MAX_TASKS), "memory": (0, MAX_INT32), "disk": (0, MAX_INT32)}


class _Listed(NamedTuple):
    """A ``<job>`` element's values, as ds-sim's ints."""

    id: int
    submit: int
    estimate: int
    cores: int
    memory: int
    disk: int
    actual: int


def _job(path: Path, element: ET.Element, number: int) -> _Listed:
    jid = parse_int(element.get("id", ""))
    record = f"job {jid}" if jid is not None else f"job #{number}"
    values = [int_attribute(element, f, path, record, bounds) for f, bounds in _JOB_FIELDS.items()]
    actual = (int_attribute(element, "actRunTime", path, record, (0, MAX_INT32))
              if "actRunTime" in element.attrib else values[2])
    return _Listed(*values, actual)


def _check_runnable(path: Path, job: _Listed, platform: Platform) -> None:
    """Some node type can hold the job (on any platform: sizes may be unlimited there)."""
    if not any(t.cores >= job.cores and t.memory_mb >= job.memory and t.disk_mb >= job.disk
               for t in platform.node_types):
        raise InputError(path, f"needs {job.cores} cores, {job.memory} MB memory and "
                               f"{job.disk} MB disk; no server type can run it",
                         record=f"job {job.id}")


def _check_unique_ids(path: Path, jobs: list[_Listed]) -> None:
    first: dict[int, int] = {}
    for number, job in enumerate(jobs, 1):
        if job.id in first:
            raise InputError(path, f"duplicate job id {job.id} (job elements "
                                   f"#{first[job.id]} and #{number} of the list)",
                             record=f"job {job.id}", field="id")
        first[job.id] = number


def read_job_list(path: str | Path, platform: Platform,
                  root: ET.Element | None = None) -> Workload:
    """A ds-sim job list (``<jobs><job id submitTime estRunTime [actRunTime] cores memory
    disk/>``). Without ``actRunTime`` a job runs for its estimate, as in ds-sim. ``root``: the
    file's root element when it was read already."""
    path = Path(path)
    root = read_xml(path) if root is None else root
    if root.tag == "config":
        return workload_for_config(path, platform, root)
    return _job_list(path, root, platform)


def _job_list(path: Path, root: ET.Element, platform: Platform) -> Workload:
    if root.tag != "jobs":
        raise InputError(path, f"not a ds-sim job list: the root element is <{root.tag}>, "
                               "expected <jobs>")
    jobs = [_job(path, e, i + 1) for i, e in enumerate(root.iter("job"))]
    _check_unique_ids(path, jobs)
    previous = None
    for job in jobs:
        _check_runnable(path, job, platform)
        if previous is not None and job.submit < previous:
            raise InputError(path, f"submitted at {job.submit}, before the job ahead of it "
                                   f"({previous}); ds-sim sends jobs in file order",
                             record=f"job {job.id}")
        previous = job.submit
    return Workload(path.stem, tuple(_hetsched_job(job) for job in jobs), str(path),
                    metadata={JOB_LIST_KEY: True})


def _hetsched_job(job: _Listed) -> Job:
    return Job(id=str(job.id), submit=float(job.submit), ntasks=job.cores,
               req_ops=job.actual * SPEED, req_time=float(job.estimate),
               job_memory_mb=float(job.memory), job_disk_mb=float(job.disk),
               profile="dssim")


def _generated_message(path: Path, config: DsSimConfig) -> str:
    seed = f" (random seed {config.seed})" if config.seed is not None else ""
    return ("this is a ds-sim configuration whose jobs ds-sim's random generator makes"
            f"{seed}; hetsched needs the job list itself: give {option_name('workload')} "
            "JOBS.xml (the ds-jobs.xml a ds-sim server writes, or a <name>-jobs.xml list)")


def workload_for_config(path: str | Path, platform: Platform,
                        root: ET.Element | None = None) -> Workload:
    """The workload a configuration names (``<jobs file=...>``), or a clear error when its
    jobs are generated by ds-sim's random generator (``root``: as :func:`read_config`)."""
    config = read_config(path, root)
    if config.job_file is None:
        raise InputError(config.path, _generated_message(config.path, config))
    return _job_list(config.job_file, read_xml(config.job_file), platform)  # never a config
