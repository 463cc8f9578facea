"""``Job.cpu_util_sd`` (DESiDE's sigma): checked, read and written by the native format, listed
as a loss by the others, and drawn by the ``stream`` generator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from hetsched.convert import convert
from hetsched.platform.model import NodeType, Platform
from hetsched.platform.writers.native import write_yaml
from hetsched.workload.generators import check_params, draw, generate
from hetsched.workload.generators.layered import draw_parents
from hetsched.workload.generators.stream import CATALOGUE, CPU_UTIL_SD
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers.native import write_native
from support import assert_mentions, error_of, write

PLATFORM = Platform.from_counts("pf", [(NodeType("n", 8, 2.0), 2)])


def native_jobs(**fields: object) -> dict:
    return {"name": "w", "jobs": [{"id": "a", "submit": 0, "ntasks": 2, "run_time": 60,
                                   **fields}]}


def test_the_native_format_reads_and_writes_it(tmp_path: Path) -> None:
    read = load_workload(write(tmp_path / "w.json", native_jobs(cpu_util_sd=0.25)), PLATFORM)
    assert read.jobs[0].cpu_util_sd == 0.25
    assert load_workload(write(tmp_path / "d.json", native_jobs()), PLATFORM
                         ).jobs[0].cpu_util_sd == 0.0   # the default: no variation
    back = write_native(read, tmp_path / "back.json", PLATFORM, {})
    assert json.loads(back.read_text())["jobs"][0]["cpu_util_sd"] == 0.25
    assert load_workload(back, PLATFORM).jobs == read.jobs
    plain = write_native(Workload("w", [Job("a", 0.0, 1, 1e9, 1.0)]), tmp_path / "p.json",
                         PLATFORM, {})
    assert "cpu_util_sd" not in plain.read_text()  # a default is left out


@pytest.mark.parametrize("value", [1, 1.5, -0.1, "x", None])
def test_a_deviation_outside_0_to_1_is_a_one_line_input_error(tmp_path: Path, value) -> None:
    path = write(tmp_path / "w.json", native_jobs(cpu_util_sd=value))
    assert_mentions(error_of(load_workload, path, PLATFORM), "w.json", "job 'a'", "cpu_util_sd")


@pytest.mark.parametrize("value", [1.0, -0.5, math.nan, math.inf])
def test_a_workload_built_in_code_is_checked_too(value: float) -> None:
    with pytest.raises(ValueError, match="cpu_util_sd"):
        Workload("w", [Job("a", 0.0, 1, 1e9, 1.0, cpu_util_sd=value)])


@pytest.mark.parametrize("fmt, suffix", [("swf", ".swf"), ("batsim", ".json"),
                                         ("irmasim", ".json"), ("dssim", ".xml")])
def test_the_other_formats_list_it_as_a_loss(tmp_path: Path, fmt: str, suffix: str) -> None:
    platform_file = write_yaml(PLATFORM, tmp_path / "pf.yaml")
    job = Job("1", 0.0, 2, 120e9, 60.0, cpu_util_sd=0.1, walltime=60.0, profile="p")
    source = write_native(Workload("w", [job]), tmp_path / "w.json", PLATFORM, {})
    done = convert(source, tmp_path / f"out{suffix}", fmt, platform_file, lossy=True)
    [loss] = [loss for loss in done.losses if "cpu_util_sd" in loss]
    assert loss.startswith("1 of 1 jobs have a CPU utilisation deviation (cpu_util_sd): ")
    assert loss.endswith(" has no field for it: dropped")


def test_stream_draws_each_job_s_deviation_within_its_type_s_range() -> None:
    params = check_params("stream", {"jobs": 200}, Path("t"))
    workload = generate("stream", params, 5, PLATFORM)
    for job in workload.jobs:
        centre = np.interp(job.ntasks, (4, 28), CPU_UTIL_SD)
        assert 0.5 * centre - 1e-4 <= job.cpu_util_sd <= 1.5 * centre + 1e-4
    assert len({job.cpu_util_sd for job in workload.jobs}) > 100  # drawn, not one per type
    assert len(CATALOGUE) == 36


def test_stream_draws_the_deviations_last() -> None:
    """A seed's types and edges are those it drew before deviations existed."""
    params = check_params("stream", {"jobs": 60, "depth": 5}, Path("t"))
    drawn = draw("stream", params, 9)
    rng = np.random.default_rng(9)
    types = rng.integers(len(CATALOGUE), size=60)
    assert drawn.extra["profile"].tolist() == [f"stream{t:02d}" for t in types.tolist()]
    assert set(drawn.extra) == {"mem_bw_gbs", "cpu_util", "profile", "parents", "cpu_util_sd"}
    assert drawn.extra["parents"].tolist() == draw_parents(params, rng).tolist()
