"""Node failures with the ``requeue`` policy (``on_failure``): a job a failure kills goes back
to pending and runs again from scratch, up to ``max_attempts``; attempts, first start and
work lost; failure traces as a run option (``failures``), their bad input; the command line
and sweeps."""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError, InputError
from hetsched.metrics.summary import summarize
from hetsched.output.jobs_csv import job_columns, write_jobs_csv
from hetsched.platform.failure_trace import read_failure_trace
from hetsched.platform.failures import generate_failures
from hetsched.platform.load import load_platform
from hetsched.platform.model import Failure, NodeType, Platform
from hetsched.run.options import RunOptions
from hetsched.schedulers import Start, create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import JobState, Requeued
from hetsched.sweep import load_results
from hetsched.sweep.runner import run_sweep
from hetsched.testing import check_result
from hetsched.workload.model import Job, Workload
from support import assert_one_line_error, write
from test_reservations import _one_per_family, runs_on_every_family

EIGHT = NodeType("fast", 8, 1.0)  # 1 GHz: a job of s seconds takes s seconds
runner = CliRunner()


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1,
        parents: tuple[str, ...] = (), walltime: float | None = None) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes, parents=parents, walltime=walltime)


def nodes(count: int, *failures: Failure, node_type: NodeType = EIGHT) -> Platform:
    return replace(Platform.from_counts("p", [(node_type, count)]), failures=failures)


def test_a_requeued_job_runs_again_after_the_repair_and_its_dependant_waits(tmp_path) -> None:
    # a (8 tasks, 1000 s) runs on fast-0 from 0; the node fails at 300, is repaired at 500:
    # a runs again from scratch, 500 to 1500; b, its child, waits for it (not rejected)
    platform = nodes(1, Failure(0, 300.0, 500.0))
    jobs = Workload("w", (job("a", 0, 8, 1000), job("b", 0, 4, 10, parents=("a",))))
    killed = simulate(platform, jobs, create("fcfs"))
    result = simulate(platform, jobs, create("fcfs"), on_failure="requeue")
    assert killed.state.tolist() == [JobState.FAILED, JobState.REJECTED]
    assert result.state.tolist() == [JobState.FINISHED, JobState.FINISHED]
    assert result.start.tolist() == [500.0, 1500.0] and result.end.tolist() == [1500.0, 1510.0]
    assert result.attempts.tolist() == [2, 1] and killed.attempts.tolist() == [1, 0]
    assert result.first_start.tolist() == [0.0, 1500.0]
    assert not result.reason
    check_result(result)
    with pytest.raises(AssertionError, match="before its first start 600"):
        check_result(replace(result, requeued={0: Requeued(1, 600.0, 4800.0)}))
    summary, before = summarize(result), summarize(killed)
    assert (summary["requeued"], summary["failed_kills"], summary["work_lost"]) == (1, 0, 2400.0)
    assert (before["requeued"], before["failed_kills"], before["work_lost"]) == (0, 1, 2400.0)
    write_jobs_csv(result, tmp_path / "jobs.csv")
    row = next(csv.DictReader(open(tmp_path / "jobs.csv")))
    assert (row["final_state"], row["attempts"], row["first_start"]) == \
        ("COMPLETED_SUCCESSFULLY", "2", "0.0")
    assert (row["starting_time"], row["finish_time"], row["waiting_time"]) == \
        ("500.0", "1500.0", "500.0")


def test_a_requeued_job_goes_last_in_line_and_runs_elsewhere() -> None:
    # x, submitted at 200, waits behind a; a, requeued at 300, is pending after x; its
    # submission time is still 0, so fcfs (by submission time) starts it first at the repair
    jobs = Workload("w", (job("a", 0, 8, 1000), job("x", 200, 8, 100)))
    sim = Simulation(nodes(1, Failure(0, 300.0, 500.0)), jobs, on_failure="requeue")
    sim.apply([Start.on(sim.advance().events.submitted[0], 0)])
    while sim.advance().now < 300.0:
        sim.apply([])
    assert [j.id for j in sim.view.pending.values()] == ["x", "a"]
    result = simulate(nodes(1, Failure(0, 300.0, 500.0)), jobs, create("fcfs"),
                      on_failure="requeue")
    assert result.start.tolist() == [500.0, 1500.0]
    # a spans fast-0 and fast-1; fast-1 fails at 100 for good: a is killed whole and runs
    # again at once on fast-0 and fast-2 (c and d used fast-2 from 50 to 70)
    platform = nodes(3, Failure(1, 100.0, math.inf))
    jobs = Workload("w", (job("a", 0, 16, 1000, nodes=2), job("c", 50, 8, 10),
                          job("d", 60, 8, 10)))
    result = simulate(platform, jobs, create("fcfs"), on_failure="requeue")
    assert result.state.tolist() == [JobState.FINISHED] * 3
    assert result.start.tolist() == [100.0, 50.0, 60.0]
    assert {node for node, _ in result.allocation[0]} == {0, 2}
    assert summarize(result)["work_lost"] == 100.0 * 16
    check_result(result)


def test_the_attempts_are_capped_by_max_attempts() -> None:
    platform = nodes(1, Failure(0, 300.0, 500.0), Failure(0, 700.0, 900.0))
    jobs = Workload("w", (job("a", 0, 8, 1000), job("b", 0, 4, 10, parents=("a",))))
    result = simulate(platform, jobs, create("fcfs"), on_failure="requeue", max_attempts=2)
    assert result.state.tolist() == [JobState.FAILED, JobState.REJECTED]
    assert result.reason[0] == "node fast-0 failed at 700 s after 2 attempts"
    assert result.reason[1].startswith("parent 'a' was killed")
    assert result.attempts.tolist() == [2, 0] and result.start[0] == 500.0
    assert summarize(result)["work_lost"] == 300.0 * 8 + 200.0 * 8
    check_result(result)
    unbounded = simulate(platform, jobs, create("fcfs"), on_failure="requeue")
    assert unbounded.attempts.tolist() == [3, 1] and unbounded.end[0] == 1900.0
    with pytest.raises(ConfigError, match="max_attempts must be a whole number >= 1"):
        Simulation(platform, jobs, max_attempts=0)
    with pytest.raises(ConfigError, match="on_failure must be one of kill, requeue"):
        Simulation(platform, jobs, on_failure="retry")


def test_the_energy_of_every_attempt_is_the_jobs() -> None:
    powered = replace(EIGHT, static_w=50.0, dynamic_w_per_core=10.0, has_power=True,
                      processors=())
    platform = nodes(1, Failure(0, 300.0, 500.0), node_type=powered)
    result = simulate(platform, Workload("w", (job("a", 0, 8, 1000),)), create("fcfs"),
                      on_failure="requeue")
    assert result.job_energy_j[0] == pytest.approx((50.0 + 80.0) * 1300.0)


def test_no_event_of_a_killed_attempt_applies_to_the_next() -> None:
    # walltime 400: the first attempt's walltime kill (at 400) falls in the second attempt
    # (150 to 450), and its finish event (at 300) too: neither ends it
    platform = nodes(1, Failure(0, 100.0, 150.0))
    jobs = Workload("w", (job("a", 0, 8, 300, walltime=400.0),))
    result = simulate(platform, jobs, create("fcfs"), on_failure="requeue", walltime="kill")
    assert result.state.tolist() == [JobState.FINISHED]
    assert (result.start[0], result.end[0]) == (150.0, 450.0)


def test_the_scheduler_hears_of_a_requeued_job_as_ended_and_submitted_again() -> None:
    sim = Simulation(nodes(1, Failure(0, 300.0, 500.0)), Workload("w", (job("a", 0, 8, 1000),)),
                     on_failure="requeue")
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0)])
    step = sim.advance()
    assert step.now == 300.0
    assert [j.id for j in step.events.finished] == [j.id for j in step.events.submitted] == ["a"]
    assert list(sim.view.pending) == [0] and not sim.view.running
    sim.apply([])
    step = sim.advance()
    sim.apply([Start.on(sim.view.pending[0], 0)])
    while sim.advance() is not None:
        sim.apply([])
    result = sim.finish()
    assert result.state.tolist() == [JobState.FINISHED] and result.end[0] == 1500.0


def test_projection_and_forks_with_requeue() -> None:
    # a projection that sees the job requeued cannot tell when it ends: inf; a fork copies
    # the attempts so far, and its changes stay its own
    sim = Simulation(nodes(1, Failure(0, 300.0, 500.0), Failure(0, 2000.0, 2100.0)),
                     Workload("w", (job("a", 0, 8, 1000),)), on_failure="requeue")
    sim.apply([Start.on(sim.advance().events.submitted[0], 0)])
    assert sim.project(0) == {0: math.inf}
    sim.advance()
    sim.apply([])
    fork = sim.fork()
    assert fork.jobs.requeued == sim.jobs.requeued and fork.jobs.attempts(0) == 1
    fork.advance()
    fork.apply([Start.on(fork.view.pending[0], 0)])
    assert fork.jobs.attempts(0) == 2 and sim.jobs.attempts(0) == 1
    assert fork.project(0) == {0: 1500.0}
    while fork.advance() is not None:
        fork.apply([])
    result = fork.finish()
    assert result.attempts.tolist() == [2] and result.first_start.tolist() == [0.0]


@pytest.mark.parametrize("name", ["fcfs", "easy", "conservative"])
def test_every_job_still_ends_finished_failed_rejected_or_unfinished(name: str) -> None:
    base = Platform.from_counts("p", [(EIGHT, 4)])
    platform = replace(base, failures=generate_failures(base, mtbf=400.0, mttr=100.0,
                                                        horizon=3000.0, seed=3))
    jobs = tuple(job(f"j{i}", 20.0 * i, 1 + i % 8, 50.0 + 37 * (i % 5), nodes=1 + i % 2,
                     parents=(f"j{i - 3}",) if i % 7 == 6 else ()) for i in range(100))
    result = simulate(platform, Workload("w", jobs), create(name), on_failure="requeue")
    check_result(result)
    states = result.state.tolist()
    assert set(states) == {JobState.FINISHED}  # every repair is finite: all run in the end
    assert result.requeued and max(result.attempts) > 1
    summary = summarize(result)
    assert summary["requeued"] == sum(result.attempts) - len(jobs)
    assert summary["work_lost"] == pytest.approx(sum(r.work_lost
                                                     for r in result.requeued.values()))


@pytest.mark.parametrize("name", _one_per_family())
def test_every_scheduler_family_runs_with_requeue(name: str) -> None:
    result = runs_on_every_family(name, lambda platform: replace(
        platform, failures=generate_failures(platform, mtbf=2000.0, mttr=200.0,
                                             horizon=5000.0, seed=1)), on_failure="requeue")
    assert JobState.FAILED not in result.state.tolist()


def test_the_contention_models_rerate_a_requeued_job() -> None:
    base = Platform.from_counts("p", [(EIGHT, 3)])
    platform = replace(base, failures=generate_failures(base, mtbf=300.0, mttr=50.0,
                                                        horizon=2000.0, seed=5))
    jobs = tuple(replace(job(f"j{i}", 15.0 * i, 2 + i % 6, 40.0 + 11 * (i % 4)),
                         mem_bw_gbs=5.0, mem_vol=1.0) for i in range(60))
    for model in ("irmasim", "deside"):
        result = simulate(platform, Workload("w", jobs), create("easy"), contention=model,
                          on_failure="requeue")
        check_result(result)
        assert set(result.state.tolist()) == {JobState.FINISHED} and result.requeued


# ---- failure traces as a run option ------------------------------------------------------------
PLATFORM = {"node_types": [{"name": "fast", "cores": 8, "clock_ghz": 1.0, "count": 2}]}


def test_a_csv_trace_and_a_native_one_give_the_same_failures(tmp_path) -> None:
    platform = load_platform(write(tmp_path / "p.json", PLATFORM))
    trace = tmp_path / "trace.csv"
    trace.write_text("node,start,end\nfast-1,300,500\nfast-0,10,\n")
    native = write(tmp_path / "failing.yaml", {**PLATFORM, "failures": [
        {"node": "fast-1", "start": 300, "end": 500}, {"node": "fast-0", "start": 10}]})
    expected = (Failure(1, 300.0, 500.0), Failure(0, 10.0, math.inf))
    assert read_failure_trace(trace, platform) == expected
    assert read_failure_trace(native, platform) == expected


@pytest.mark.parametrize("text, where", [
    ("node,start,end\nfast-9,1,2\n", "trace.csv, line 2, field 'node': unknown node 'fast-9'"),
    ("node,start,end\nfast-0,5,5\n", "trace.csv, line 2, field 'end'"),
    ("node,start,end\nfast-0,7,3\n", "trace.csv, line 2, field 'end'"),
    ("node,start,end\nfast-0,1,2\nfast-1,-4,2\n", "trace.csv, line 3, field 'start'"),
    ("node,start,end\nfast-0,nan,2\n", "trace.csv, line 2, field 'start'"),
    ("node,start,end\nfast-0,1,inf\n", "trace.csv, line 2, field 'end'"),
    ("node,start,end\nfast-0,1,soon\n", "trace.csv, line 2, field 'end'"),
    ("node,start,end\nfast-0,1\n", "trace.csv, line 2"),
    ("node,when\nfast-0,1\n", "trace.csv, line 1"),
    ("", "trace.csv, line 1"),
])
def test_bad_csv_traces_are_one_line_errors_naming_record_and_field(tmp_path, text: str,
                                                                    where: str) -> None:
    platform = load_platform(write(tmp_path / "p.json", PLATFORM))
    (tmp_path / "trace.csv").write_text(text)
    with pytest.raises(InputError) as caught:
        read_failure_trace(tmp_path / "trace.csv", platform)
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and where in message, message


def test_bad_native_traces_and_suffixes(tmp_path) -> None:
    platform = load_platform(write(tmp_path / "p.json", PLATFORM))
    for bad, where in (({"failures": [{"node": "fast-7", "start": 1}]}, "failures[0]"),
                       ({"failures": [{"node": "fast-0", "start": -1}]}, "failures[0]"),
                       ({"node_types": []}, "failures")):
        with pytest.raises(InputError, match=r"trace\.json.*" + re.escape(where)):
            read_failure_trace(write(tmp_path / "trace.json", bad), platform)
    (tmp_path / "trace.txt").write_text("node,start,end\n")
    with pytest.raises(InputError, match="a failure trace is a .csv file"):
        read_failure_trace(tmp_path / "trace.txt", platform)


def _swf(path: Path, count: int = 40) -> Path:
    path.write_text("".join(f"{i + 1} {i * 20} -1 300 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n"
                            for i in range(count)))
    return path


def test_run_with_a_trace_file_kill_then_requeue(tmp_path) -> None:
    platform, swf = write(tmp_path / "p.json", PLATFORM), _swf(tmp_path / "w.swf")
    trace = tmp_path / "trace.csv"
    trace.write_text("node,start,end\nfast-0,100,400\nfast-1,250,300\nfast-0,900,950\n")
    runs = {}
    for policy in ("kill", "requeue"):
        out = tmp_path / policy
        result = runner.invoke(app, ["run", "-p", str(platform), "-w", str(swf), "-s", "easy",
                                     "--failures", str(trace), "--on-failure", policy,
                                     "--out", str(out)])
        assert result.exit_code == 0, result.output
        runs[policy] = (json.loads((out / "summary.json").read_text()),
                        list(csv.DictReader(open(out / "jobs.csv"))))
    (kill, kill_rows), (requeue, requeue_rows) = runs["kill"], runs["requeue"]
    assert kill["options"]["failures"] == str(trace) and requeue["options"]["on_failure"] == \
        "requeue"
    assert kill["metrics"]["failed_kills"] > 0 and kill["metrics"]["requeued"] == 0
    assert requeue["metrics"]["failed_kills"] == 0 and requeue["metrics"]["requeued"] > 0
    assert requeue["metrics"]["finished"] == 40
    assert requeue["metrics"]["finished"] > kill["metrics"]["finished"]
    assert requeue["metrics"]["work_lost"] > 0 and kill["metrics"]["work_lost"] > 0
    again = [row for row in requeue_rows if int(row["attempts"]) > 1]
    assert len(again) == requeue["metrics"]["requeued"]  # (each killed once here)
    assert all(float(row["first_start"]) < float(row["starting_time"]) for row in again)
    assert {row["attempts"] for row in kill_rows} <= {"0", "1"}


def test_run_with_a_bad_trace_is_a_one_line_error(tmp_path) -> None:
    platform, swf = write(tmp_path / "p.json", PLATFORM), _swf(tmp_path / "w.swf", 3)
    trace = tmp_path / "trace.csv"
    trace.write_text("node,start,end\nslow-0,100,400\n")
    result = runner.invoke(app, ["run", "-p", str(platform), "-w", str(swf),
                                 "--failures", str(trace), "--out", str(tmp_path / "o")])
    assert_one_line_error(result, "trace.csv", "line 2", "node", "unknown node 'slow-0'")
    missing = runner.invoke(app, ["run", "-p", str(platform), "-w", str(swf),
                                  "--failures", str(tmp_path / "none.csv")])
    assert_one_line_error(missing, "none.csv", "no such file")
    bad = runner.invoke(app, ["run", "-p", str(platform), "-w", str(swf),
                              "--on-failure", "retry"])
    assert_one_line_error(bad, "on_failure must be one of kill, requeue")


def test_a_sweep_over_the_failure_policies(tmp_path) -> None:
    write(tmp_path / "p.json", PLATFORM)
    _swf(tmp_path / "w.swf")
    (tmp_path / "trace.csv").write_text("node,start,end\nfast-0,100,400\nfast-1,250,300\n")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("platforms: [p.json]\nworkloads: [w.swf]\nschedulers: [fcfs]\n"
                    "options: {failures: trace.csv, on_failure: [kill, requeue]}\n")
    run_sweep(spec, tmp_path / "s.sqlite", workers=1)
    rows = load_results(tmp_path / "s.sqlite").set_index("on_failure")
    assert sorted(rows.index) == ["kill", "requeue"]
    assert rows.loc["kill", "failed_kills"] > 0 and rows.loc["requeue", "failed_kills"] == 0
    assert rows.loc["requeue", "requeued"] > 0 and rows.loc["requeue", "finished"] == 40


def test_editing_a_sweep_s_failure_trace_makes_new_runs(tmp_path) -> None:
    # a run's identity holds what the trace says, not its path: the edited trace is run again
    write(tmp_path / "p.json", PLATFORM)
    _swf(tmp_path / "w.swf")
    trace = tmp_path / "trace.csv"
    trace.write_text("node,start,end\nfast-0,100,400\n")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("platforms: [p.json]\nworkloads: [w.swf]\nschedulers: [fcfs]\n"
                    "options: {failures: trace.csv}\n")
    store = tmp_path / "s.sqlite"
    run_sweep(spec, store, workers=1)
    run_sweep(spec, store, workers=1)  # (nothing new)
    assert len(load_results(store)) == 1
    trace.write_text("node,start,end\nfast-0,100,400\nfast-1,250,300\n")
    run_sweep(spec, store, workers=1)
    kills = sorted(load_results(store)["failed_kills"])
    assert len(kills) == 2 and kills[0] < kills[1]


def test_a_sweep_s_missing_failure_trace_is_a_one_line_error(tmp_path) -> None:
    write(tmp_path / "p.json", PLATFORM)
    _swf(tmp_path / "w.swf")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("platforms: [p.json]\nworkloads: [w.swf]\nschedulers: [fcfs]\n"
                    "options: {failures: gone.csv}\n")
    with pytest.raises(InputError, match=r"sweep.yaml, field 'options.failures': .*gone.csv"):
        run_sweep(spec, tmp_path / "s.sqlite", workers=1)


def test_the_new_options_keep_the_keys_of_runs_without_them() -> None:
    assert not {"failures", "on_failure", "max_attempts"} & set(RunOptions().key())
    assert RunOptions(on_failure="requeue").key()["on_failure"] == "requeue"


def test_jobs_columns_have_attempts_and_first_start() -> None:
    result = simulate(nodes(1, Failure(0, 5.0, 6.0)), Workload("w", (job("a", 0, 8, 10),)),
                      create("fcfs"), on_failure="requeue")
    columns = job_columns(result)
    assert columns["attempts"].tolist() == [2] and columns["first_start"].tolist() == [0.0]
    assert columns["starting_time"].tolist() == [6.0]


def test_a_failure_trace_drawn_from_the_runs_seed(tmp_path) -> None:
    import hetsched
    from hetsched.run.availability import TRACE_STREAM, trace_horizon

    platform = load_platform(write(tmp_path / "p.json", PLATFORM))
    workload = Workload("w", tuple(job(f"j{i}", 30.0 * i, 4, 200.0) for i in range(40)))
    runs = [hetsched.simulate(platform, workload, "easy", seed=seed, failure_mtbf=500.0,
                              failure_mttr=60.0, on_failure="requeue") for seed in (1, 1, 2)]
    drawn = [run.result.platform.failures for run in runs]
    horizon = trace_horizon(platform, workload, None)
    assert horizon == 39 * 30.0 + 200.0
    stream = np.random.SeedSequence(1).spawn(TRACE_STREAM + 1)[TRACE_STREAM]
    assert drawn[0] == generate_failures(platform, 500.0, 60.0, horizon, stream)
    assert drawn[0] == drawn[1] and drawn[0] != drawn[2] and drawn[0]
    same = ("requeued", "work_lost", "makespan", "mean_wait")
    assert [runs[0].summary[key] for key in same] == [runs[1].summary[key] for key in same]
    assert all(run.summary["finished"] == 40 for run in runs)
    cut = hetsched.simulate(platform, workload, "easy", seed=1, failure_mtbf=500.0,
                            failure_mttr=60.0, horizon=300.0)
    assert all(f.start < 300.0 for f in cut.result.platform.failures)
    with pytest.raises(ConfigError, match="failure_mtbf must be > 0"):
        RunOptions(failure_mtbf=0.0)


def test_a_simgrid_platform_fails_from_a_trace_file(tmp_path) -> None:
    # energy_platform.xml: four one-core hosts (Mercury, Venus, Earth, Mars)
    platform = Path(__file__).parent / "data" / "batsim_platforms" / "energy_platform.xml"
    trace = tmp_path / "trace.csv"
    trace.write_text("node,start,end\nMercury,50,80\nVenus,50,80\nEarth,50,80\nMars,50,80\n")
    swf = tmp_path / "w.swf"
    swf.write_text("".join(f"{i + 1} {i * 10} -1 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n"
                           for i in range(4)))
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "-p", str(platform), "-w", str(swf), "--failures",
                                 str(trace), "--on-failure", "requeue", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(out / "jobs.csv")))
    assert [row["attempts"] for row in rows] == ["2"] * 4
    assert all(float(row["starting_time"]) >= 80.0 for row in rows)
    assert all(row["final_state"] == "COMPLETED_SUCCESSFULLY" for row in rows)
