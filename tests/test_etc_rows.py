"""A job's ETC row (``Job.etc``: seconds per node type): the speed model takes run times and
estimates from it, the engine, its re-rating and its projection run at the rates it gives, a
node type it does not name rejects the job, and the native format keeps it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from hetsched.convert import convert
from hetsched.errors import ConfigError, InputError
from hetsched.models.speed import SpeedModel, rate, run_time
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.schedulers import create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.protocol import Start
from hetsched.sim.result import JobState
from hetsched.workload.model import Job, Workload
from hetsched.workload.native import load_native_workload
from hetsched.workload.writers import losses, writer
from support import assert_mentions, error_of, write
from test_projection import forked_ends, started_until_a_new_job_waits

#: A slow node type a (1 GHz) and a fast one b (2 GHz), one node each, one core.
SLOW, FAST = NodeType("a", 1, 1.0), NodeType("b", 1, 2.0)
TWO = Platform.from_counts("p", [(SLOW, 1), (FAST, 1)])


def test_without_a_row_run_times_and_estimates_follow_the_speed() -> None:
    """1e10 operations: 10 s on a, 5 s on b; estimated from req_time (12 s on the slowest)."""
    model, job = SpeedModel(TWO), Job("j", 0.0, 1, 1e10, 12.0)
    assert [model.run_time(job, n) for n in (0, 1)] == [10.0, 5.0]
    assert model.estimates(job).tolist() == [12.0, 6.0]
    assert model.times_on(job, [0, 1]) == (10.0, 12.0)  # its slowest node's
    assert (model.base_time(job), model.least_estimate(job)) == (10.0, 6.0)
    assert rate(job, 2e9, "b") == 2e9


def test_with_a_row_run_times_and_estimates_are_the_rows_whatever_the_speed() -> None:
    """The row makes the fast node the slow one for this job: 3 s on a, 7 s on b."""
    model = SpeedModel(TWO)
    job = Job("j", 0.0, 1, 1e10, 7.0, ipc=4.0, etc=(("b", 7.0), ("a", 3.0)))
    assert [model.run_time(job, n) for n in (0, 1)] == [3.0, 7.0]
    assert [model.estimate(job, n) for n in (0, 1)] == [3.0, 7.0]
    assert model.estimates(job).tolist() == [3.0, 7.0]
    assert model.times_on(job, [0, 1]) == (7.0, 7.0)
    assert (model.base_time(job), model.least_estimate(job)) == (7.0, 3.0)
    assert model.estimate_at_speed(job, 1e9) == 7.0  # no type at a speed: its slowest
    assert rate(job, 1e9, "a") == 1e10 / 3.0  # req_ops over the row's time, ipc aside
    assert run_time(job, 1e9, "c") == math.inf and job.etc_time("c") == math.inf


def test_the_base_times_of_a_workload_are_each_jobs_base_time() -> None:
    # by numpy over the columns where a job has no row (ipc, a fixed duration), row jobs
    # one by one: the same floats
    jobs = (Job("plain", 0.0, 1, 1e10 / 3, 12.0), Job("ipc", 1.0, 1, 7e9, 12.0, ipc=0.3),
            Job("fixed", 2.0, 1, 9.5, 12.0, ipc=2.0, fixed_duration=True),
            Job("row", 3.0, 1, 1e10, 7.0, ipc=4.0, etc=(("b", 7.0), ("a", 3.0))))
    model = SpeedModel(TWO)
    assert model.base_times(Workload("w", jobs)).tolist() == [model.base_time(j) for j in jobs]


def test_the_run_time_is_the_shares_to_the_last_bit() -> None:
    """A row job ends at its start plus the row's ``t`` in the run, while its share's end
    (``req_ops`` at ``req_ops / t``) may differ in the last bit: the projection takes the
    run's end, so the projection, the fork and the speed model agree exactly (when it took
    the share's, 46 of these 600 cases differed)."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        a, b = (float(t) for t in rng.integers(1, 200, 2))
        job = Job("j", 0.0, 1, float(rng.uniform(1e9, 1e12)), max(a, b),
                  etc=(("a", a), ("b", b)))
        sim = Simulation(TWO, Workload("w", [job]), None)
        sim.advance()
        [job] = sim.view.pending.values()
        for node in (0, 1):
            ends = forked_ends(sim, job, node)
            assert sim.view.project(node, [job]) == ends
            assert ends[0] == SpeedModel(TWO).run_time(job, node)


def test_the_engine_runs_a_row_job_for_its_rows_time_on_each_node() -> None:
    """x runs 3 s on a, y 7 s on b (not the 10 s and 5 s its work would take there), and
    their slowdown's base is the longest of the row."""
    jobs = [Job("x", 0.0, 1, 1e10, 7.0, etc=(("a", 3.0), ("b", 7.0))),
            Job("y", 0.0, 1, 1e10, 7.0, etc=(("a", 3.0), ("b", 7.0)))]

    class Both:  # x on a, y on b
        def __call__(self, view):
            return [Start.on(job, job.index) for job in list(view.pending.values())]

    sim, place = Simulation(TWO, Workload("w", jobs)), Both()
    while sim.advance() is not None:
        sim.apply(place(sim.view))
    result = sim.finish()
    assert result.end.tolist() == [3.0, 7.0]
    from hetsched.metrics.records import job_records

    assert job_records(result).het_slowdown.tolist() == [3.0 / 7.0, 1.0]


def test_a_row_job_shares_an_oversubscribed_core_at_its_rows_rate() -> None:
    """Two row jobs of 4 s on one core holding two threads: each progresses at half its rate
    (the contention model's factor on the row's rate) and both end at 8 s."""
    shared = NodeType("a", 1, 1.0, oversubscription=2)
    jobs = [Job(f"j{i}", 0.0, 1, 5.0, 4.0, etc=(("a", 4.0),)) for i in range(2)]
    result = simulate(Platform.from_counts("p", [(shared, 1)]), Workload("w", jobs),
                      create("fcfs"), contention="none")
    assert result.end.tolist() == [8.0, 8.0]


def two_type_platform() -> Platform:
    """Two types of 8 cores on 2 sockets (40 GB/s each), oversubscribed twice: s at 2 GHz,
    t at 1 GHz; s, t, s."""
    def kind(name: str, ghz: float) -> NodeType:
        base = NodeType.of_processors(name, ghz, (Processor(4, mem_bw_gbs=40.0),) * 2)
        return NodeType(name, base.cores, ghz, processors=base.processors, oversubscription=2)
    fast, slow = kind("s", 2.0), kind("t", 1.0)
    return Platform.from_counts("p", [(fast, 1), (slow, 1), (fast, 1)])


@pytest.mark.parametrize("contention", ["deside", "none"])
@pytest.mark.parametrize("seed", range(6))
def test_the_projection_of_row_jobs_is_the_forks(contention: str, seed: int) -> None:
    """Half the jobs carry rows unrelated to the speeds: the what-if on a node predicts what a
    fork of the run gives (the projection's rates are the engine's)."""
    rng = np.random.default_rng(seed)
    jobs = []
    for i in range(40):
        row = (("s", float(rng.uniform(20, 200))), ("t", float(rng.uniform(20, 200)))) \
            if i % 2 else ()
        jobs.append(Job(f"j{i}", float(rng.integers(0, 60)), int(rng.integers(1, 9)),
                        float(rng.uniform(1e10, 2e11)), 200.0,
                        mem_bw_gbs=float(rng.uniform(0, 12)), etc=row))
    sim = Simulation(two_type_platform(), Workload("w", jobs), None, contention=contention)
    job = started_until_a_new_job_waits(sim, rng)
    if job is None:
        pytest.skip("every job started")
    compared = 0
    for node in range(3):
        if sim.view.fits(job, node):
            predicted = sim.view.project(node, [job])
            assert predicted == pytest.approx(forked_ends(sim, job, node), rel=1e-12, abs=1e-9)
            compared += 1
    assert compared


def test_a_job_whose_row_misses_a_node_type_is_rejected_at_submission() -> None:
    """The never-fit rule: the row names a only, the platform has b too, so the job cannot
    run and is rejected with the reason (its child with it); strict runs raise it."""
    jobs = [Job("x", 0.0, 1, 1e10, 3.0, etc=(("a", 3.0),)),
            Job("y", 0.0, 1, 1e10, 3.0, parents=("x",)),
            Job("z", 0.0, 1, 1e10, 9.0, etc=(("a", 3.0), ("b", 1.0), ("c", 9.0)))]
    result = simulate(TWO, Workload("w", jobs), create("fcfs"))
    assert result.state.tolist() == [JobState.REJECTED, JobState.REJECTED, JobState.FINISHED]
    assert result.reason[0] == ("its etc row has no run time on node type(s) 'b' of the "
                                "platform (it names 'a')")
    assert result.reason[1].startswith("parent 'x' was rejected")
    assert result.end[2] == 3.0  # fcfs takes node 0 (type a); the unused 'c' is no matter
    with pytest.raises(InputError, match="job 'x'.*no run time on node type"):
        simulate(TWO, Workload("w", jobs[:1]), create("fcfs"), strict=True)


@pytest.mark.parametrize("row, problem", [((("a", 0.0),), "etc time on 'a' must be positive"),
                                          ((("a", math.nan),), "must be positive and finite"),
                                          ((("a", 1.0), ("a", 2.0)), "names a node type twice"),
                                          ((("a", 1.0), ("b", 4.0)),
                                           "req_time 3.0 is below its etc row's longest time 4.0")])
def test_a_workload_refuses_a_bad_row(row: tuple, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Workload("w", [Job("x", 0.0, 1, 1e10, 3.0, etc=row)])


def test_a_row_needs_work_to_measure_progress() -> None:
    with pytest.raises(ValueError, match="needs req_ops > 0"):
        Workload("w", [Job("x", 0.0, 1, 0.0, 3.0, etc=(("a", 1.0),))])


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_the_native_format_writes_the_row_and_reads_it_back(tmp_path: Path, fmt: str) -> None:
    jobs = (Job("x", 0.0, 2, 1e10, 7.5, etc=(("b", 7.5), ("a", 0.25))),
            Job("y", 1.0, 1, 3e9, 3.0, parents=("x",)))
    workload = Workload("w", jobs)
    chosen = writer(fmt)
    assert losses(chosen, workload, TWO) == []
    path = chosen.write(workload, tmp_path / f"w.{fmt}", TWO, {})
    assert load_native_workload(path, TWO).jobs == workload.jobs


def test_the_native_format_reads_a_row_without_work_as_its_longest_time(tmp_path: Path) -> None:
    path = write(tmp_path / "w.json", {"jobs": [{"id": "x", "submit": 0, "ntasks": 1,
                                                 "etc": {"a": 2, "b": 5}}]})
    job = load_native_workload(path, TWO).jobs[0]
    assert (job.etc, job.req_time, job.req_ops) == ((("a", 2.0), ("b", 5.0)), 5.0, 5e9)


def test_the_native_format_estimates_a_row_job_by_its_longest_time(tmp_path: Path) -> None:
    """With work given and no req_time, the estimate is still no shorter than any of the
    row's times (1e9 operations would say 1 s on the slowest core)."""
    path = write(tmp_path / "w.json", {"jobs": [{"id": "x", "submit": 0, "ntasks": 1,
                                                 "req_ops": 1e9, "etc": {"a": 2, "b": 5}}]})
    assert load_native_workload(path, TWO).jobs[0].req_time == 5.0


@pytest.mark.parametrize("record, fragments", [
    ({"etc": {"a": 2}, "fixed_duration": True}, ("field 'etc'", "takes no fixed_duration")),
    ({"etc": {"a": 0}}, ("job 'x'", "field 'etc.a'", "greater than 0")),
    ({"etc": {"a": 2}, "req_ops": 0}, ("field 'req_ops'", "needs work")),
    ({"etc": {"": 2}}, ("job 'x'", "field 'etc", "at least 1 character")),
    ({"etc": [1, 2]}, ("job 'x'", "field 'etc'", "expected an object")),
    ({"etc": {"a": 2, "b": 5}, "req_time": 4}, ("field 'req_time'",
                                                "4 is below the ETC row's longest time 5")),
])
def test_a_bad_native_row_is_one_line(tmp_path: Path, record: dict,
                                      fragments: tuple[str, ...]) -> None:
    path = write(tmp_path / "w.json", {"jobs": [{"id": "x", "submit": 0, "ntasks": 1,
                                                 **record}]})
    assert_mentions(error_of(load_native_workload, path, TWO), "w.json", *fragments)


def test_formats_without_rows_list_them_as_a_loss_and_drop_them(tmp_path: Path) -> None:
    """SWF keeps no row: converting refuses, saying so; with --lossy the job is its work."""
    source = tmp_path / "w.json"
    writer("json").write(Workload("w", (Job("x", 0.0, 1, 1e10, 7.0,
                                            etc=(("a", 3.0), ("b", 7.0))),)), source, TWO, {})
    platform = write(tmp_path / "p.json", {"node_types": [
        {"name": "a", "cores": 1, "clock_ghz": 1.0}], "clusters": [
        {"name": "c", "nodes": [{"type": "a", "count": 1}]}]})
    with pytest.raises(ConfigError, match="1 of 1 jobs have an ETC row .*: dropped"):
        convert(source, tmp_path / "w.swf", platform=platform)
    done = convert(source, tmp_path / "w.swf", platform=platform, lossy=True)
    assert any("ETC row" in loss for loss in done.losses)
    assert "10 " in (tmp_path / "w.swf").read_text().splitlines()[-1]  # 1e10 ops at 1 GHz


def test_deside_stochastic_draws_a_row_jobs_intervals_over_its_rows_time() -> None:
    """The stochastic model draws each job's slowest thread over its isolated run time on the
    slowest node type: a row's longest time (its speed-based time would be none: inf)."""
    from hetsched.models.contention import MODELS

    jobs = [Job(f"j{i}", 0.0, 4, 1e10, 30.0, mem_bw_gbs=8.0, cpu_util=0.8, cpu_util_sd=0.1,
                etc=(("s", 20.0), ("t", 30.0))) for i in range(6)]
    platform, workload = two_type_platform(), Workload("w", jobs)
    bound = MODELS.load("deside_stochastic")().bind(platform, workload,
                                                    np.random.default_rng(1))
    assert all(0 < w < math.inf for w in bound._work)
    result = simulate(platform, workload, create("fcfs"), contention="deside_stochastic")
    assert (result.state == JobState.FINISHED).all() and np.isfinite(result.end).all()
