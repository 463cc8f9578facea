"""The walltime rule: a job still running at start + walltime is killed, freeing its cores."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.output.jobs_csv import job_columns
from hetsched.platform.load import load_platform
from hetsched.schedulers.registry import create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import JobState
from hetsched.workload.batsim import load_batsim_workload
DATA = Path(__file__).parent / "data"

runner = CliRunner()


@pytest.fixture(scope="module")
def platform():
    return load_platform(DATA / "batsim_platforms" / "small_platform_replay_usage.xml")


def _workload(tmp_path, platform):
    doc = {"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10},
                                     "c": {"type": "parallel_homogeneous", "cpu": 1000}},
           "jobs": [{"id": "killed", "subtime": 0, "res": 400, "walltime": 4, "profile": "d"},
                    {"id": "short", "subtime": 1, "res": 1, "walltime": 20, "profile": "d"},
                    {"id": "exact", "subtime": 1, "res": 1, "walltime": 10, "profile": "d"},
                    {"id": "compute", "subtime": 1, "res": 1, "walltime": 5, "profile": "c"},
                    {"id": "after", "subtime": 2, "res": 400, "profile": "d"}]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return load_batsim_workload(path, platform)


def test_batsim_jobs_are_killed_at_their_walltime_by_default(tmp_path, platform):
    result = simulate(platform, _workload(tmp_path, platform), create("fcfs"))
    states = dict(zip([j.id for j in result.workload.jobs], result.state.tolist()))
    assert states == {"short": JobState.FINISHED, "exact": JobState.FINISHED,
                      "killed": JobState.KILLED, "compute": JobState.KILLED,
                      "after": JobState.FINISHED}
    ids = [j.id for j in result.workload.jobs]
    start, end = dict(zip(ids, result.start.tolist())), dict(zip(ids, result.end.tolist()))
    assert end["killed"] == 4.0 and start["short"] == 4.0  # the kill freed the cores
    # the compute job needs 1000 flops at 50 or 100 flop/s: more than its 5 s walltime
    assert end["compute"] == 9.0 and end["exact"] == 14.0
    assert (start["after"], end["after"]) == (14.0, 24.0)
    columns = job_columns(result)
    killed = columns["job_id"].index("killed")
    assert columns["final_state"][killed] == "COMPLETED_WALLTIME_REACHED"
    assert columns["success"][killed] == 0 and columns["finish_time"][killed] == 4.0
    assert result.reason[killed] == "walltime reached"


def test_ignore_lets_jobs_run_and_kill_works_for_any_format(tmp_path, platform):
    workload = _workload(tmp_path, platform)
    ignored = simulate(platform, workload, create("fcfs"), walltime="ignore")
    assert (ignored.state == JobState.FINISHED).all()
    other = type(workload)(workload.name, workload.jobs, metadata={})  # not Batsim's
    assert (simulate(platform, other, create("fcfs")).state == JobState.FINISHED).all()
    killed = simulate(platform, other, create("fcfs"), walltime="kill")
    assert np.array_equal(killed.state, simulate(platform, workload, create("fcfs")).state)


def test_bad_walltime_rule(tmp_path, platform):
    with pytest.raises(ConfigError, match="walltime must be one of auto, kill, ignore"):
        Simulation(platform, _workload(tmp_path, platform), walltime="kil")


class Unit:
    """A contention model that never slows anything but is not known to be inert: the engine
    takes its contended path (finish events pushed once the instant's rates are known)."""

    name = "unit"

    def factors(self, node_type, groups):
        return [1.0] * len(groups)


@pytest.mark.parametrize("options", [{"per_event": True}, {"contention": Unit()}],
                         ids=["per_event", "contention"])
def test_kills_under_per_event_calls_and_contention(tmp_path, platform, options):
    workload = _workload(tmp_path, platform)
    plain = simulate(platform, workload, create("fcfs"))
    other = simulate(platform, workload, create("fcfs"), **options)
    assert np.array_equal(plain.state, other.state)
    killed = plain.state == JobState.KILLED
    assert np.array_equal(plain.end[killed], other.end[killed])


def test_children_of_a_killed_job_are_rejected(tmp_path, platform):
    workload = _workload(tmp_path, platform)
    jobs = tuple(replace(j, parents=("killed",)) if j.id == "after" else j
                 for j in workload.jobs)
    result = simulate(platform, replace(workload, jobs=jobs), create("fcfs"))
    after = workload.by_id["after"].index
    assert result.state[after] == JobState.REJECTED
    assert result.reason[after] == "parent 'killed' was killed: walltime reached"


def test_cli_walltime_option(tmp_path, platform):
    path = Path(_workload(tmp_path, platform).source)
    plat = str(DATA / "batsim_platforms" / "small_platform_replay_usage.xml")
    out = tmp_path / "out"
    done = runner.invoke(app, ["run", "-q", "-p", plat, "-w", str(path), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "jobs.csv").read_text().count("COMPLETED_WALLTIME_REACHED") == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["killed"] == 2 and len(summary["killed"]) == 2
    ignored = runner.invoke(app, ["run", "-q", "-p", plat, "-w", str(path), "--out", str(out),
                                  "--walltime", "ignore"])
    assert ignored.exit_code == 0
    assert "COMPLETED_WALLTIME_REACHED" not in (out / "jobs.csv").read_text()
    bad = runner.invoke(app, ["run", "-p", plat, "-w", str(path), "--walltime", "kil"])
    assert bad.exit_code == 2
    assert bad.output.strip() == ("error: walltime must be one of auto, kill, ignore, "
                                  "got 'kil'")


def test_native_workloads_carry_walltime_and_fixed_duration(tmp_path, platform):
    from hetsched.workload.load import load_workload
    from hetsched.workload.writers.native import write_native

    path = tmp_path / "n.json"
    path.write_text(json.dumps({"jobs": [
        {"id": "a", "submit": 0, "ntasks": 1, "run_time": 10, "fixed_duration": True,
         "walltime": 4, "queue": 2},
        {"id": "b", "submit": 0, "ntasks": 1, "run_time": 10, "walltime": 30}]}))
    workload = load_workload(path, platform)
    a, b = workload.jobs
    assert (a.req_ops, a.req_time, a.walltime, a.queue) == (10, 10, 4, 2)
    assert b.req_ops == 10 * platform.slowest_speed and not b.fixed_duration
    result = simulate(platform, workload, create("fcfs"), walltime="kill")
    assert result.state.tolist() == [JobState.KILLED, JobState.FINISHED]
    again = write_native(workload, tmp_path / "again.json", platform, {})
    assert load_workload(again, platform).jobs == workload.jobs
