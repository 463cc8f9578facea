"""Node failures with the ``kill`` policy: unannounced, a failure kills the jobs on its node
(whole), takes the node's cores until its repair, and the dependants of a killed job are
rejected; native ``failures:``, the seeded generator, and schedulers on a platform with
failures."""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from hetsched.errors import ConfigError, InputError
from hetsched.metrics.summary import summarize
from hetsched.output.jobs_csv import write_jobs_csv
from hetsched.platform.failures import generate_failures
from hetsched.platform.load import load_platform
from hetsched.platform.model import Failure, NodeType, Platform
from hetsched.schedulers import Start, create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import JobState
from hetsched.testing import check_result
from hetsched.workload.model import Job, Workload
from support import assert_one_line_error, write
from test_reservations import _one_per_family, runs_on_every_family

EIGHT = NodeType("fast", 8, 1.0)  # 1 GHz: a job of s seconds takes s seconds


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1,
        parents: tuple[str, ...] = ()) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes, parents=parents)


def nodes(count: int, *failures: Failure) -> Platform:
    base = Platform.from_counts("p", [(EIGHT, count)])
    return replace(base, failures=failures)


def test_a_failure_kills_the_running_job_and_blocks_the_node_until_repair() -> None:
    # a (8 tasks, 1000 s) runs on fast-0 from 0; the node fails at 300 and is repaired at
    # 500; b (8 tasks, 100 s), submitted at 350, waits for the repair
    platform = nodes(1, Failure(0, 300.0, 500.0))
    result = simulate(platform, Workload("w", (job("a", 0, 8, 1000), job("b", 350, 8, 100))),
                      create("fcfs"))
    assert result.state.tolist() == [JobState.FAILED, JobState.FINISHED]
    assert result.reason[0] == "node fast-0 failed at 300 s"
    assert result.end.tolist() == [300.0, 600.0]
    assert result.start.tolist() == [0.0, 500.0]
    check_result(result)
    with pytest.raises(AssertionError, match="across its failure"):  # b started at 350
        check_result(replace(result, start=np.array([0.0, 350.0])))
    summary = summarize(result)
    assert (summary["failed_kills"], summary["killed"], summary["finished"]) == (1, 0, 1)


def test_energy_and_times_run_up_to_the_failure(tmp_path) -> None:
    powered = replace(EIGHT, static_w=50.0, dynamic_w_per_core=10.0,
                      has_power=True, processors=())
    jobs = Workload("w", (job("a", 0, 8, 1000),))
    platform = Platform.from_counts("p", [(powered, 1)])
    result = simulate(replace(platform, failures=(Failure(0, 300.0, 500.0),)), jobs,
                      create("fcfs"))
    write_jobs_csv(result, tmp_path / "jobs.csv")
    row, = csv.DictReader(open(tmp_path / "jobs.csv"))
    assert row["final_state"] == "COMPLETED_KILLED"
    assert "node fast-0 failed at 300 s" in row["metadata"]
    assert float(row["execution_time"]) == 300.0
    whole = simulate(platform, jobs, create("fcfs"))
    assert result.job_energy_j[0] == pytest.approx(whole.job_energy_j[0] * 0.3)
    assert result.job_energy_j[0] == pytest.approx((50.0 + 80.0) * 300.0)


def test_a_multi_node_job_is_killed_whole_and_its_dependants_rejected() -> None:
    # a spans fast-0 and fast-1; fast-1 fails at 100: a ends on both then, fast-0 is free at
    # once (c starts there at 100); b, a's child, is rejected; fast-1 never comes back
    platform = nodes(2, Failure(1, 100.0, math.inf))
    jobs = (job("a", 0, 16, 1000, nodes=2), job("b", 0, 8, 10, parents=("a",)),
            job("c", 50, 8, 10))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert result.state.tolist() == [JobState.FAILED, JobState.REJECTED, JobState.FINISHED]
    assert result.end[0] == 100.0 and result.start[2] == 100.0
    assert result.allocation[2] == ((0, 8),)
    assert result.reason[1] == "parent 'a' was killed: node fast-1 failed at 100 s"
    check_result(result)


def test_a_job_ending_as_its_node_fails_finishes_and_repairs_restore_set_points() -> None:
    # a ends at 300 exactly when fast-0 fails: it finishes; overlapping failures [300, 500)
    # and [400, 700): the node is back at 700 only
    platform = nodes(1, Failure(0, 300.0, 500.0), Failure(0, 400.0, 700.0))
    result = simulate(platform, Workload("w", (job("a", 0, 8, 300), job("b", 350, 4, 10))),
                      create("fcfs"))
    assert result.state.tolist() == [JobState.FINISHED, JobState.FINISHED]
    assert result.start[1] == 700.0
    check_result(result)


def test_the_scheduler_hears_of_failures_and_repairs_as_availability_changes() -> None:
    sim = Simulation(nodes(1, Failure(0, 300.0, 500.0)), Workload("w", (job("a", 0, 8, 10),)))
    seen = []
    while (step := sim.advance()) is not None:
        if step.events.available:
            seen.append((step.now, step.events.available, int(sim.view.free_cores[0])))
        sim.apply([])
    assert seen == [(300.0, (0,), 0), (500.0, (0,), 8)]


def test_projection_and_forks_see_a_failure_ahead() -> None:
    # a runs for 1000 s on fast-0, which fails at 300: the projection ends it then
    sim = Simulation(nodes(1, Failure(0, 300.0, 500.0)), Workload("w", (job("a", 0, 8, 1000),)))
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0)])
    assert sim.project(0) == {0: 300.0}
    fork = sim.fork()
    while fork.advance() is not None:
        fork.apply([])
    assert fork.finish().state.tolist() == [JobState.FAILED]


def test_every_job_ends_finished_killed_rejected_or_unfinished_with_a_reason() -> None:
    platform = replace(Platform.from_counts("p", [(EIGHT, 4)]), failures=generate_failures(
        Platform.from_counts("p", [(EIGHT, 4)]), mtbf=400.0, mttr=100.0, horizon=3000.0,
        seed=3))
    jobs = tuple(job(f"j{i}", 20.0 * i, 1 + i % 8, 50.0 + 37 * (i % 5), nodes=1 + i % 2,
                     parents=(f"j{i - 3}",) if i % 7 == 6 else ()) for i in range(100))
    for name in ("fcfs", "easy"):
        result = simulate(platform, Workload("w", jobs), create(name))
        check_result(result)
        states = result.state.tolist()
        assert JobState.FAILED in states and JobState.FINISHED in states
        for i, state in enumerate(states):
            assert state != JobState.FINISHED or not result.reason.get(i)
            assert state == JobState.FINISHED or result.reason.get(i), (i, state)


def test_the_generator_is_seeded_with_the_right_means() -> None:
    platform = Platform.from_counts("p", [(EIGHT, 20)])
    trace = generate_failures(platform, mtbf=100.0, mttr=10.0, horizon=20_000.0, seed=7)
    assert trace == generate_failures(platform, mtbf=100.0, mttr=10.0, horizon=20_000.0,
                                      seed=7)
    assert trace != generate_failures(platform, mtbf=100.0, mttr=10.0, horizon=20_000.0,
                                      seed=8)
    repairs = np.array([f.end - f.start for f in trace])
    ups = np.array([b.start - a.end for a, b in zip(trace, trace[1:]) if a.node == b.node])
    assert len(repairs) > 3000
    assert repairs.mean() == pytest.approx(10.0, rel=0.05)
    assert ups.mean() == pytest.approx(100.0, rel=0.05)
    assert all(f.start < 20_000.0 for f in trace)
    with pytest.raises(ConfigError, match="mtbf must be"):
        generate_failures(platform, mtbf=0.0, mttr=10.0, horizon=100.0)


def test_native_failures_and_their_bad_input(tmp_path) -> None:
    doc = {"node_types": [{"name": "fast", "cores": 8, "clock_ghz": 1.0, "count": 2}],
           "failures": [{"node": "fast-1", "start": 300, "end": 500},
                        {"node": "fast-0", "start": 10}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    assert platform.failures == (Failure(1, 300.0, 500.0), Failure(0, 10.0, math.inf))
    for bad, what in (({"node": "fast-9", "start": 1}, r"failures\[0\].*node.*unknown node"),
                      ({"node": "fast-0", "start": 5, "end": 5}, r"failures\[0\].*end"),
                      ({"node": "fast-0", "start": -1}, r"failures\[0\].*start")):
        path = write(tmp_path / "bad.json", {**doc, "failures": [bad]})
        with pytest.raises(InputError) as caught:
            load_platform(path)
        message = str(caught.value)
        assert len(message.splitlines()) == 1 and "bad.json" in message
        assert re.search(what, message), message
    with pytest.raises(ConfigError, match="failure .*node index"):
        Simulation(nodes(1, Failure(3, 1.0, 2.0)), Workload("w", ()))


@pytest.mark.parametrize("name", _one_per_family())
def test_every_scheduler_family_runs_on_a_platform_with_failures(name: str) -> None:
    runs_on_every_family(name, lambda platform: replace(platform, failures=generate_failures(
        platform, mtbf=2000.0, mttr=200.0, horizon=5000.0, seed=1)))


def test_generate_failures_then_run_end_to_end(tmp_path) -> None:
    from typer.testing import CliRunner

    from hetsched.cli.main import app

    runner = CliRunner()
    doc = {"node_types": [{"name": "fast", "cores": 8, "clock_ghz": 1.0, "count": 4}]}
    source, out = write(tmp_path / "p.json", doc), tmp_path / "failing.yaml"
    args = ["generate", "failures", str(source), "--mtbf", "300", "--mttr", "50",
            "--horizon", "2000", "--seed", "4", "-o", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    platform = load_platform(out)
    assert platform.failures == generate_failures(platform, 300.0, 50.0, 2000.0, seed=4)
    swf = tmp_path / "w.swf"
    swf.write_text("".join(f"{i + 1} {i * 20} -1 300 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n"
                           for i in range(50)))
    result = runner.invoke(app, ["run", "-p", str(out), "-w", str(swf), "-s", "easy",
                                 "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(tmp_path / "run" / "jobs.csv")))
    killed = [row for row in rows if row["final_state"] == "COMPLETED_KILLED"]
    assert killed and all(re.fullmatch(r"node fast-\d failed at [\d.]+ s", row["metadata"])
                          for row in killed)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["metrics"]["failed_kills"] == len(killed)
    bad = runner.invoke(app, [*args[:4], "-1", *args[5:]])
    assert_one_line_error(bad, "mtbf")


@pytest.mark.parametrize("spec", ["easy", "conservative"])
def test_a_head_that_fits_nowhere_while_its_node_is_down_lets_the_others_run(spec: str) -> None:
    # node 0 (8 cores) is down from 0 to 1000, node 1 has 4 cores: a (8 tasks) fits nowhere
    # until the repair, which nothing foresees: EASY has no shadow time for it (it raised
    # "fits nowhere even when the cluster is empty" before) and b (4 tasks) runs at once
    small = NodeType("small", 4, 1.0)
    platform = Platform("p", Platform.from_counts("p", [(EIGHT, 1), (small, 1)]).nodes,
                        failures=(Failure(0, 0.0, 1000.0),))
    jobs = (job("a", 1, 8, 100), job("b", 2, 4, 100))
    result = simulate(platform, Workload("w", jobs), create(spec))
    check_result(result)
    assert result.start.tolist() == [1000.0, 2.0]


@pytest.mark.parametrize("policy", ["kill", "requeue"])
def test_a_job_waiting_for_a_boot_on_a_node_that_fails_is_pending_again(policy: str) -> None:
    # a (4 tasks, 100 s) starts at 0 on an on-demand node that boots for 60 s; the node fails
    # at 30, before a began, and is repaired at 500. Whatever the policy, a never ran: it is
    # pending again (not killed, no attempt counted) and starts at the repair
    off = NodeType("off", cores=4, clock_ghz=1.0, boot_time=60, on_demand=True)
    platform = Platform("p", Platform.from_counts("p", [(off, 1)]).nodes,
                        failures=(Failure(0, 30.0, 500.0),))
    result = simulate(platform, Workload("w", (job("a", 0, 4, 100),)), create("fcfs"),
                      on_failure=policy)
    check_result(result)
    assert result.state.tolist() == [JobState.FINISHED]
    assert (result.start[0], result.end[0]) == (500.0, 600.0)
    assert result.attempts.tolist() == [1] and not result.requeued
