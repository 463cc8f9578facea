"""Names that say what they hold, and the names of earlier versions as aliases: a job's
whole-job memory and disk (``job_memory_mb``, ``job_disk_mb``; ``memory_mb``, ``disk_mb``), its
memory per task (``task_memory_mb``; ``mem_mb``), a spread job (``spread``), the native
workload file's keys (``task_memory_mb`` and ``job_disk_mb``; ``mem_mb`` and ``disk_mb``), and
the view's free slots (``free_slots``, ``total_free_slots``; ``free_cores``,
``total_free_cores``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from hetsched.platform.model import NodeType, Platform
from hetsched.sim.engine import Simulation
from hetsched.sim.protocol import Start
from hetsched.workload.load import load_workload
from hetsched.workload.model import SPREAD, Job, Workload

PLATFORM = Platform.from_counts("p", [(NodeType("n", 8, 1.0), 2)])


def test_a_job_s_sizes_under_both_names() -> None:
    job = Job("a", 0.0, 4, 1e9, 10.0, job_memory_mb=400.0, job_disk_mb=30.0)
    assert (job.job_memory_mb, job.task_memory_mb, job.job_disk_mb) == (400.0, 100.0, 30.0)
    assert (job.memory_mb, job.mem_mb, job.disk_mb) == (400.0, 100.0, 30.0)
    assert Job("a", 0.0, 4, 1e9, 10.0, memory_mb=400.0, disk_mb=30.0) == job


def test_replace_takes_the_old_names_too() -> None:
    job = Job("a", 0.0, 4, 1e9, 10.0, job_memory_mb=400.0)
    assert replace(job, memory_mb=800.0).job_memory_mb == 800.0
    assert replace(job, disk_mb=5.0).job_disk_mb == 5.0
    assert replace(job, index=3).job_memory_mb == 400.0


def test_an_unknown_keyword_is_still_refused() -> None:
    with pytest.raises(TypeError, match="memry_mb"):
        Job("a", 0.0, 4, 1e9, 10.0, memry_mb=1.0)


def test_spread() -> None:
    assert Job("a", 0.0, 4, 1e9, 10.0, nodes=SPREAD).spread
    assert not Job("a", 0.0, 4, 1e9, 10.0, nodes=2).spread


@pytest.mark.parametrize("memory, disk", [("task_memory_mb", "job_disk_mb"),
                                          ("mem_mb", "disk_mb")])
def test_the_native_file_reads_both_spellings(tmp_path: Path, memory: str, disk: str) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"jobs": [{"id": "a", "submit": 0, "ntasks": 4, "run_time": 5,
                                          memory: 100, disk: 30}]}))
    (job,) = load_workload(path, PLATFORM).jobs
    assert (job.task_memory_mb, job.job_memory_mb, job.job_disk_mb) == (100.0, 400.0, 30.0)


def test_the_view_s_free_slots_under_both_names() -> None:
    """Oversubscribed nodes take more threads than they have cores: the count is of slots."""
    platform = Platform.from_counts("p", [(NodeType("n", 4, 1.0, oversubscription=2), 2)])
    sim = Simulation(platform, Workload("w", [Job("a", 0.0, 3, 1e9, 10.0)]), None)
    sim.advance()
    view = sim.view
    [job] = view.pending.values()
    assert view.free_slots.tolist() == [8, 8]
    assert view.free_cores is view.free_slots
    sim.apply([Start.on(job, 0)])
    assert view.free_slots.tolist() == [5, 8]
    assert view.total_free_slots == view.total_free_cores == 13


def test_the_documented_import_paths_of_earlier_versions_still_work() -> None:
    from hetsched.dssim.xml import config_platform, read_job_list
    from hetsched.metrics import UNITS
    from hetsched.platform.dssim import config_platform as platform_reader
    from hetsched.schedulers import Scheduler as Reexported
    from hetsched.schedulers.base import Scheduler
    from hetsched.sim.protocol import Scheduler as Protocol
    from hetsched.workload.dssim import read_job_list as workload_reader

    assert Scheduler is Reexported is Protocol
    assert (config_platform, read_job_list) == (platform_reader, workload_reader)
    assert UNITS["makespan"] == "s"
