"""Batsim workloads: v4 and v5 profiles, fixed delays, bad profiles as one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hetsched.errors import InputError
from hetsched.platform.load import load_platform
from hetsched.schedulers.registry import create
from hetsched.run.checks import input_warnings
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.workload.batsim import load_batsim_workload
from hetsched.workload.load import load_workload

DATA = Path(__file__).parent / "data"
WORKLOADS = sorted((DATA / "batsim_workloads").glob("*.json"))


@pytest.fixture(scope="module")
def platform():
    return load_platform(DATA / "batsim_platforms" / "cluster512_pfs.xml")


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.name)
def test_batsim_examples_run_with_every_job_accounted_for(path, platform):
    workload = load_workload(path, platform)
    raw = json.loads(path.read_text())
    assert len(workload.jobs) == len(raw["jobs"])
    result = simulate(platform, workload, create("fcfs"))
    done = result.count(JobState.FINISHED) + result.count(JobState.REJECTED) + \
        result.count(JobState.UNFINISHED) + result.count(JobState.KILLED)
    assert done == len(raw["jobs"])


def _write(tmp_path, profiles, jobs=None):
    jobs = jobs or [{"id": "j", "subtime": 0, "res": 2, "profile": next(iter(profiles))}]
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"nb_res": 4, "jobs": jobs, "profiles": profiles}))
    return path


def test_delays_are_exact_on_every_node(tmp_path):
    plat = load_platform(DATA / "batsim_platforms" / "small_platform_replay_usage.xml")
    profiles = {"d": {"type": "DelayProfile", "delay": 20.25},
                "s": {"type": "composed", "repeat": 3, "seq": ["d", "d"]}}
    jobs = [{"id": str(i), "subtime": i, "res": 50 + 40 * (i % 2), "profile": "ds"[i % 2]}
            for i in range(40)]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), plat)
    result = simulate(plat, workload, create("fcfs"))
    delay = np.array([20.25 if j.profile == "d" else 121.5 for j in workload.jobs])
    assert (result.state == JobState.FINISHED).all()
    assert np.array_equal(result.end, result.start + delay)  # on 50 and 100 flop/s hosts
    nodes = {node for allocation in result.allocation for node, _ in allocation}
    assert len({plat.nodes[n].type.name for n in nodes}) > 1


def test_computation_is_flops_per_task(tmp_path, platform):
    profiles = {"h": {"type": "ParallelTaskHomogeneousProfile", "cpu": 4e9, "com": 0},
                "t": {"type": "ParallelTaskHomogeneousProfile", "cpu": 4e9, "com": 0,
                      "generation_strategy": "DefinedAmountsSpreadUniformly"},
                "p": {"type": "parallel", "cpu": [1e9, 3e9]},
                "q": {"type": "SequentialCompositionProfile", "repeat": 2, "seq": ["h", "p"]}}
    jobs = [{"id": n, "subtime": 0, "res": 2, "profile": n} for n in "htpq"]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), platform)
    ops = {j.id: j.req_ops for j in workload.jobs}
    assert ops == {"h": 4e9, "t": 2e9, "p": 3e9, "q": 14e9}
    assert not any(j.fixed_duration for j in workload.jobs)


def test_walltime_extra_data_and_warnings(tmp_path, platform):
    profiles = {"h": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 5,
                      "extra_data": "x"}}
    jobs = [{"id": "a", "subtime": 0, "res": 1, "walltime": 7, "profile": "h",
             "extra_data": "{\"k\": 1}"},
            {"id": "b", "subtime": 0, "res": 1, "walltime": -1, "profile": "h"}]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), platform)
    assert any("communication ignored (hetsched models no network) in profiles 'h'" in w
               for w in input_warnings(platform, workload))
    a, b = workload.jobs
    assert (a.walltime, a.req_time, b.walltime) == (7, 7, None)
    assert workload.metadata["extra_data"] == {"a": "{\"k\": 1}"}
    assert workload.metadata["profile_extra_data"] == {"h": "x"}


def test_a_nonzero_return_code_is_a_warning_not_silence(tmp_path, platform):
    profiles = {"ok": {"type": "delay", "delay": 5, "ret": 0},
                "bad": {"type": "delay", "delay": 5, "ret": 1}}
    jobs = [{"id": "a", "subtime": 0, "res": 1, "profile": "ok"},
            {"id": "b", "subtime": 0, "res": 1, "profile": "bad"}]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), platform)
    warnings = [w for w in input_warnings(platform, workload) if "return codes" in w]
    assert len(warnings) == 1 and "profiles 'bad'" in warnings[0] and "'ok'" not in warnings[0]


BAD = [
    ({"a": {"type": "composed", "seq": ["b"]}, "b": {"type": "composed", "seq": ["a"]}},
     "profile 'b', field 'seq': sequence refers back to itself through 'a'"),
    ({"a": {"type": "composed", "seq": ["zz"]}}, "profile 'a', field 'seq': unknown profile"),
    ({"a": {"type": "smpi", "trace": "x"}}, "profile 'a', field 'type': profile type 'smpi'"),
    ({"a": {"type": "nope"}}, "profile 'a', field 'type': unknown profile type 'nope'"),
    ({"a": {"type": "delay", "delay": -1}}, "profile 'a', field 'delay'"),
    ({"a": {"type": "delay"}}, "profile 'a', field 'delay'"),
    ({"a": {"type": "delay", "delay": 1e9},
      "b": {"type": "composed", "repeat": 1000000000, "seq": ["a"]}},
     "profile 'b', field 'repeat': the sequence's work exceeds"),
    ({"a": {"type": "delay", "delay": 1}, "h": {"type": "parallel_homogeneous", "cpu": 1},
      "b": {"type": "composed", "seq": ["a", "h"]}},
     "profile 'b', field 'seq': a sequence mixing delays and computations"),
    ({"a": {"type": "parallel", "cpu": [1, "NaN"]}}, "profile 'a', field 'cpu"),
    ({"a": {"type": ["delay"]}}, "profile 'a', field 'type'"),
    ({"a": {"type": "delay", "delay": 1}, "b": {"delay": 2}},
     "profile 'b', field 'type': required field is missing"),
    ({"a": {"type": "delay", "delay": 1}, "b": [1]}, "profile 'b': a profile must be a JSON"),
    ({"a": {"type": "composed", "seq": []}}, "profile 'a', field 'seq'"),
    ({"a": {"type": "composed", "seq": ["a"], "repeat": 1.5}}, "profile 'a', field 'repeat'"),
]


@pytest.mark.parametrize(("profiles", "message"), BAD)
def test_bad_profiles_are_one_line_errors(tmp_path, platform, profiles, message):
    with pytest.raises(InputError) as err:
        load_workload(_write(tmp_path, profiles), platform)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_deep_sequence_chain_does_not_overflow(tmp_path, platform):
    profiles = {"p0": {"type": "delay", "delay": 1}}
    profiles |= {f"p{i}": {"type": "composed", "seq": [f"p{i - 1}"]} for i in range(1, 5000)}
    jobs = [{"id": "j", "subtime": 0, "res": 1, "profile": "p4999"}]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), platform)
    assert workload.jobs[0].req_ops == 1


def test_wide_sequence_looks_at_each_profile_a_bounded_number_of_times(tmp_path, platform,
                                                                       monkeypatch):
    """A sequence of many sequences: each profile is checked a few times, not once per part
    still to resolve (which made wide sequences quadratic)."""
    from hetsched.workload import batsim_profiles

    checked: list[str] = []
    real = batsim_profiles.validate

    def counting(model, raw, path, record):
        checked.append(record)
        return real(model, raw, path, record=record)

    monkeypatch.setattr(batsim_profiles, "validate", counting)
    width = 300
    profiles = {"top": {"type": "composed", "seq": [f"s{i}" for i in range(width)]},
                "d": {"type": "delay", "delay": 1}}  # top first: read before its parts
    profiles |= {f"s{i}": {"type": "composed", "seq": ["d"]} for i in range(width)}
    jobs = [{"id": "j", "subtime": 0, "res": 1, "profile": "top"}]
    workload = load_batsim_workload(_write(tmp_path, profiles, jobs), platform)
    assert workload.jobs[0].fixed_duration and workload.jobs[0].req_ops == width
    assert checked.count("profile 'top'") <= 3
    assert len(checked) <= 3 * len(profiles)


def test_scale_delays_on_the_command_line_runs_delays_faster_on_faster_hosts(tmp_path):
    """``hetsched run --scale-delays``: a delay holds on the slowest host (50 flop/s) and is
    halved on the 100 flop/s hosts; without it every delay is exact."""
    import csv

    from typer.testing import CliRunner

    from hetsched.cli.main import app

    plat = DATA / "batsim_platforms" / "small_platform_replay_usage.xml"
    slowest = load_platform(plat).slowest_speed
    jobs = [{"id": str(i), "subtime": i, "res": 50, "profile": "d"} for i in range(12)]
    path = _write(tmp_path, {"d": {"type": "delay", "delay": 40.0}}, jobs)
    lengths = {}
    for flag in ([], ["--scale-delays"]):
        out = tmp_path / ("scaled" if flag else "fixed")
        result = CliRunner().invoke(app, ["run", "-p", str(plat), "-w", str(path), "--out",
                                          str(out), "-q", *flag])
        assert result.exit_code == 0, result.output
        with (out / "jobs.csv").open() as f:
            lengths[bool(flag)] = {float(r["execution_time"]) for r in csv.DictReader(f)}
        summary = json.loads((out / "summary.json").read_text())
        assert summary["options"]["scale_delays"] is bool(flag)
    assert lengths[False] == {40.0}
    assert lengths[True] == {40.0, 40.0 * slowest / (2 * slowest)}
