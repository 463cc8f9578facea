"""The attempts failures killed and requeued (``on_failure="requeue"``): kept by the engine,
given core ids by the same replay as the jobs, listed in ``summary.json`` and drawn on the
Gantt chart."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

import hetsched
from hetsched.output.summary_json import summary
from hetsched.platform.model import Failure, NodeType, Platform
from hetsched.report.gantt_heatmap import busy_share, node_rows
from hetsched.report.gantt_options import GanttOptions
from hetsched.report.run_data import from_result, read_run_dir
from hetsched.report.run_figures import REQUEUED_LABEL, gantt
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import Requeued
from hetsched.testing import check_result
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of, shared

EIGHT = NodeType("fast", 8, 1.0)


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes)


def platform(count: int, *failures: Failure) -> Platform:
    return replace(Platform.from_counts("p", [(EIGHT, count)]), failures=failures)


def test_the_engine_keeps_each_killed_attempt() -> None:
    # a (16 tasks on 2 nodes) from 0; fast-1 fails at 100, fast-0 at 700 (repaired at 800):
    # killed at 100 on fast-0 and fast-1, again at 700 on fast-0 and fast-2, runs from 800
    jobs = Workload("w", (job("a", 0, 16, 1000, nodes=2),))
    result = simulate(platform(3, Failure(1, 100.0, math.inf), Failure(0, 700.0, 800.0)),
                      jobs, create("fcfs"), on_failure="requeue")
    check_result(result)
    assert result.requeued[0].attempts == ((0.0, 100.0, ((0, 8), (1, 8))),
                                           (100.0, 700.0, ((0, 8), (2, 8))))
    assert result.requeued[0].work_lost == 100 * 16 + 600 * 16
    assert result.start[0] == 800.0


def test_a_killed_attempt_ends_within_the_makespan() -> None:
    # a and b share fast-0; b ends at 50; the node fails at 100 for good: a, killed then,
    # never runs again. The run's window reaches the kill (as under "kill"): the makespan is
    # 100 s and the utilisation (4 cores × 100 s + 4 × 50) / (8 × 100) = 0.75, not 1.5
    jobs = Workload("w", (job("a", 0, 4, 1000), job("b", 0, 4, 50)))
    result = simulate(platform(1, Failure(0, 100.0, math.inf)), jobs, create("fcfs"),
                      on_failure="requeue")
    check_result(result)
    metrics = summary(result)["metrics"]
    assert (metrics["makespan"], metrics["utilisation"]) == (100.0, 0.75)
    assert from_result(result, "fcfs").window == (0.0, 100.0)


def test_the_invariants_check_the_attempts() -> None:
    jobs = Workload("w", (job("a", 0, 8, 1000),))
    result = simulate(platform(1, Failure(0, 300.0, 500.0)), jobs, create("fcfs"),
                      on_failure="requeue")
    assert result.requeued[0] == Requeued(1, 0.0, 2400.0, ((0.0, 300.0, ((0, 8),)),))
    wrong_end = Requeued(1, 0.0, 2000.0, ((0.0, 250.0, ((0, 8),)),))
    with pytest.raises(AssertionError, match="killed at 250.0, when none of its nodes failed"):
        check_result(replace(result, requeued={0: wrong_end}))
    wrong_loss = Requeued(1, 0.0, 2000.0, ((0.0, 300.0, ((0, 8),)),))
    with pytest.raises(AssertionError, match="ran 2400.0 core-seconds, work lost 2000.0"):
        check_result(replace(result, requeued={0: wrong_loss}))


@pytest.fixture(scope="module")
def requeued_run(tmp_path_factory):
    """lublin_256's first 40,000 s under EASY with failures that requeue, written once."""
    run = hetsched.simulate(shared("platforms/irmasim_lublin_20node.json"),
                            shared("traces/lublin_256.swf"), "easy", failure_mtbf=20_000.0,
                            on_failure="requeue", horizon=40_000.0)
    folder = tmp_path_factory.mktemp("run")
    run.write(folder)
    return run, folder


def test_summary_lists_every_attempt_with_its_core_ids(requeued_run) -> None:
    run, folder = requeued_run
    entries = json.loads((folder / "summary.json").read_text())["requeued_attempts"]
    result = run.result
    assert len(entries) == summary(result)["metrics"]["requeued"] > 10
    ids = {j.id: j.index for j in result.workload.jobs}
    for entry in entries:
        start, end, allocation = result.requeued[ids[entry["job_id"]]].attempts[
            entry["attempt"] - 1]
        assert (entry["start"], entry["end"]) == (start, end)
        held = sum(int(b or a) - int(a) + 1 for a, _, b in
                   (token.partition("-") for token in entry["allocated_resources"].split()))
        assert held == sum(count for _, count in allocation)


def test_no_core_id_is_held_twice_at_once_counting_the_attempts(requeued_run) -> None:
    run, folder = requeued_run
    data = read_run_dir(folder)
    end = np.where(np.isnan(data.end), np.inf, data.end)
    intervals = [(data.start[j], end[j], lo, hi) for j, lo, hi in data.ranges]
    intervals += [(t0, t1, lo, hi) for _, t0, t1, lo, hi in data.attempts if t1 > t0]
    assert len(data.attempts) > 10
    for core in range(int(data.slots.sum())):
        held = sorted((t0, t1) for t0, t1, lo, hi in intervals if lo <= core < hi)
        for (_, first_end), (second_start, _) in zip(held, held[1:]):
            assert second_start >= first_end, f"core {core} held twice at {second_start}"


def test_a_run_directory_gives_the_attempts_of_the_result(requeued_run) -> None:
    run, folder = requeued_run
    read, direct = read_run_dir(folder), from_result(run.result, "easy")
    assert np.array_equal(read.attempts, direct.attempts)
    assert set(read.attempts[:, 0].astype(int)) == set(run.result.requeued)


def test_the_gantt_chart_draws_the_attempts(requeued_run) -> None:
    run, folder = requeued_run
    data = read_run_dir(folder)
    figure = gantt(data, GanttOptions(view="detailed"))
    drawn = [c for c in figure.axes[0].collections if c.get_label() == REQUEUED_LABEL]
    assert len(drawn) == 1 and len(drawn[0].get_paths()) == len(data.attempts)
    assert REQUEUED_LABEL in [t.get_text() for t in figure.axes[0].get_legend().get_texts()]


def test_the_aggregate_view_counts_the_attempts_busy(requeued_run) -> None:
    _, folder = requeued_run
    data = read_run_dir(folder)
    rows, _, _ = node_rows(data)
    bins = 400
    width = (data.window[1] - data.window[0]) / bins
    slots = np.diff(np.append(data.offsets, data.slots.sum())[rows])
    busy = (busy_share(data, rows, data.window, bins) * slots[:, None]).sum() * width
    end = np.where(np.isnan(data.end), data.window[1], data.end)
    jobs = sum((min(end[j], data.window[1]) - data.start[j]) * (hi - lo)
               for j, lo, hi in data.ranges)
    attempts = sum((t1 - t0) * (hi - lo) for _, t0, t1, lo, hi in data.attempts)
    assert attempts > 0
    assert busy == pytest.approx(jobs + attempts, rel=1e-9)


@pytest.mark.parametrize("change, fragments", [
    ({"job_id": "nobody"}, ("requeued_attempts[0], field 'job_id'", "no job 'nobody'")),
    ({"end": -5}, ("requeued_attempts[0], field 'end'", "not a time from start on")),
    ({"allocated_resources": "0-99999"}, ("requeued_attempts[0], field 'allocated_resources'",)),
])
def test_bad_attempts_in_summary_json_are_named(requeued_run, tmp_path, change,
                                                  fragments) -> None:
    run, _ = requeued_run
    run.write(tmp_path)
    path = tmp_path / "summary.json"
    document = json.loads(path.read_text())
    document["requeued_attempts"][0].update(change)
    path.write_text(json.dumps(document))
    assert_mentions(error_of(read_run_dir, tmp_path), "summary.json", *fragments)


def test_a_job_with_only_killed_attempts_has_its_id_on_one() -> None:
    # a is killed at 100 on fast-0, which never comes back: it has no bar but its attempt's
    jobs = Workload("w", (job("a", 0, 4, 1000), job("b", 0, 4, 50)))
    result = simulate(platform(1, Failure(0, 100.0, math.inf)), jobs, create("fcfs"),
                      on_failure="requeue")
    figure = gantt(from_result(result, "fcfs"), GanttOptions(view="detailed"))
    texts = {t.get_text(): t for t in figure.axes[0].texts}
    assert set(texts) == {"a", "b"}
    assert texts["a"].get_color() == "black"  # on the attempt's light bar
    assert "(2 jobs started)" in figure.get_suptitle()
    aggregate = gantt(from_result(result, "fcfs"), GanttOptions(view="aggregate"))
    assert "(2 jobs started, 2 bars: aggregated)" in aggregate.axes[0].get_title()
