"""Workload generators: seeded, the model's statistics, the SWF rules; generated workloads in
a sweep (instances as parts, identified by generator, parameters and seed)."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path
from hetsched.platform.load import load_platform
from hetsched.workload.generators import check_params, generate
from hetsched.workload.swf import SwfOptions

PLATFORM = load_platform(default_platform_path())
PARAMS = {"jobs": 20_000, "mean_interarrival": 90.0, "runtime": [10.0, 10_000.0],
          "procs": [1, 16], "estimate": [1.0, 3.0]}
runner = CliRunner()


def _poisson(seed: int = 0, **changes: object):
    params = check_params("poisson", {**PARAMS, **changes}, Path("test"))
    return generate("poisson", params, seed, PLATFORM)


def _columns(workload) -> dict[str, np.ndarray]:
    jobs = workload.jobs
    speed = PLATFORM.slowest_speed
    return {"submit": np.array([j.submit for j in jobs]),
            "run": np.array([j.req_ops for j in jobs]) / speed,
            "procs": np.array([j.ntasks for j in jobs]),
            "req": np.array([j.req_time for j in jobs])}


def test_the_same_seed_draws_the_same_workload_and_another_seed_another() -> None:
    assert _poisson(3, jobs=500).jobs == _poisson(3, jobs=500).jobs
    assert _poisson(3, jobs=500).jobs != _poisson(4, jobs=500).jobs


def test_poisson_statistics_match_the_parameters() -> None:
    c = _columns(_poisson())
    n = PARAMS["jobs"]
    gaps = np.diff(c["submit"])
    assert c["submit"][0] == 0 and (gaps >= 0).all()
    # exponential gaps: mean 90 s (standard error 90/sqrt(n)), standard deviation = mean
    assert abs(gaps.mean() - 90) < 4 * 90 / np.sqrt(n)
    assert abs(gaps.std() / gaps.mean() - 1) < 0.05
    # log-uniform run times: log(run) uniform on [log 10, log 1e4]
    logs = np.log(c["run"])
    assert c["run"].min() >= 10 and c["run"].max() <= 10_000
    assert abs(logs.mean() - np.log(1e5) / 2) < 0.05
    assert abs(logs.std() - np.log(1e3) / np.sqrt(12)) < 0.05
    # processor counts: whole numbers in [1, 16], every value drawn, small ones more often
    counts = np.bincount(c["procs"], minlength=17)[1:]
    assert counts.sum() == n and (counts > 0).all() and counts[0] > counts[-1]
    # requested time = run time × U(1, 3)
    factor = c["req"] / c["run"]
    assert factor.min() >= 1 - 1e-12 and factor.max() <= 3 + 1e-12
    assert abs(factor.mean() - 2) < 0.02


def test_a_zero_mean_interarrival_is_a_batch_at_time_zero() -> None:
    c = _columns(_poisson(jobs=50, mean_interarrival=0))
    assert (c["submit"] == 0).all()


def test_generated_jobs_follow_the_swf_rules() -> None:
    """Run times refer to the slowest core (or the reference speed); jobs wider than the
    largest node are spread under ``auto``."""
    params = check_params("poisson", {**PARAMS, "jobs": 200, "procs": [1, 64]}, Path("test"))
    auto = generate("poisson", params, 0, PLATFORM)
    assert {j.nodes for j in auto.jobs if j.ntasks > PLATFORM.max_node_cores} == {0}
    assert {j.nodes for j in auto.jobs if j.ntasks <= PLATFORM.max_node_cores} == {1}
    faster = generate("poisson", params, 0, PLATFORM,
                      SwfOptions(reference_speed=2 * PLATFORM.slowest_speed))
    assert [f.req_ops for f in faster.jobs] == pytest.approx([2 * j.req_ops for j in auto.jobs])


SPEC = """\
workloads:
  - {generator: poisson, name: light, instances: INSTANCES, seed: 7,
     params: {jobs: 60, mean_interarrival: 300, runtime: [10, 3600], procs: [1, 8]}}
schedulers: [fcfs, easy]
"""


def _sweep(tmp_path: Path, instances: int) -> Path:
    spec, store = tmp_path / "g.yaml", tmp_path / "g.sqlite"
    spec.write_text(SPEC.replace("INSTANCES", str(instances)))
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(store), "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    return store


def test_instances_are_parts_drawn_with_consecutive_seeds(tmp_path: Path) -> None:
    store = _sweep(tmp_path, 3)
    frame = hetsched.load_results(store).sort_values(["part", "scheduler"])
    assert list(frame["part"]) == [0, 0, 1, 1, 2, 2]
    assert set(frame["workload"]) == {"light"} and set(frame["status"]) == {"ok"}
    params = check_params("poisson", {"jobs": 60, "mean_interarrival": 300,
                                      "runtime": [10, 3600], "procs": [1, 8]}, Path("test"))
    for part in range(3):
        alone = hetsched.simulate(PLATFORM, generate("poisson", params, 7 + part, PLATFORM),
                                  "easy")
        row = frame[(frame["part"] == part) & (frame["scheduler"] == "easy")].iloc[0]
        assert row["makespan"] == alone.summary["makespan"]
        assert row["mean_wait"] == alone.summary["mean_wait"]


def test_more_instances_reuse_the_runs_already_done(tmp_path: Path) -> None:
    store = _sweep(tmp_path, 2)
    with sqlite3.connect(store) as conn:
        before = dict(conn.execute("SELECT key, finished_at FROM runs"))
    _sweep(tmp_path, 3)
    with sqlite3.connect(store) as conn:
        after = dict(conn.execute("SELECT key, finished_at FROM runs"))
    assert len(after) == 6 and all(after[key] == when for key, when in before.items())


def test_a_generated_run_is_simulated_again_from_its_stored_identity(tmp_path: Path) -> None:
    """The store keeps a generated workload's identity (generator, parameters, first seed) in
    place of a path: the report can draw the run again, and it is the same run."""
    from hetsched.report.rerun import rerun

    store = _sweep(tmp_path, 3)
    frame = hetsched.load_results(store)
    row = frame[(frame["part"] == 2) & (frame["scheduler"] == "easy")].iloc[0].to_dict()
    assert row["workload_path"].startswith('{"generator":"poisson"')
    again = rerun(row)
    assert again.differences == []
    assert again.result.t_end == pytest.approx(row["makespan"] + again.result.t0)
    with pytest.raises(ConfigError, match="the store names no platform file"):
        rerun({**row, "platform_path": math.nan})
