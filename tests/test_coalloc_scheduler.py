"""The `coalloc` scheduler: co-allocation windows booked in the simulator. On real runs every
started job's tasks start and end together, one per node on distinct nodes, inside free spans
(never across a reservation nor another job), within the job's budget; a job no window fits
is rejected with the reason."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.metrics.costs import job_costs
from hetsched.platform.model import NodeType, Platform, Reservation
from hetsched.schedulers import create
from hetsched.schedulers.coalloc import CoAllocation
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState, SimResult
from hetsched.testing import check_result, check_scheduler
from hetsched.workload.model import SPREAD, Job, Workload

SLOW = NodeType("slow", 1, 1.0, hourly_price=3600.0)  # 1 currency unit per second
MID = NodeType("mid", 2, 2.0, hourly_price=3.0 * 3600)
FAST = NodeType("fast", 2, 4.0, hourly_price=8.0 * 3600)


def _platform() -> Platform:
    """8 nodes of three speeds and prices; node 0 reserved over [100, 300), node 3 (mid) one
    core over [50, 150), node 6 (fast) from 400 for good."""
    nodes = Platform.from_counts("p", [(SLOW, 3), (MID, 3), (FAST, 2)]).nodes
    held = (Reservation(0, 100.0, 300.0, 1), Reservation(3, 50.0, 150.0, 1),
            Reservation(6, 400.0, float("inf"), 2))
    return Platform("p", nodes, reservations=held)


def _job(index: int, submit: float, n: int, seconds: float, **request: object) -> Job:
    """``n`` tasks of ``seconds`` on the slowest node (exact estimates: req_time is the run
    time there)."""
    return Job(id=f"j{index}", submit=submit, ntasks=n, req_ops=seconds * 1e9,
               req_time=seconds, nodes=n, **request)


def _workload(seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    jobs = []
    for i in range(40):
        n = int(rng.integers(1, 5))
        seconds = float(rng.integers(10, 200))
        budget = None if rng.random() < 0.2 else float(rng.uniform(0.5, 3.0) * seconds * n)
        job = _job(i, float(i * 7), n, seconds, budget=budget,
                   min_performance=2e9 if rng.random() < 0.2 else 0.0)
        jobs.append(replace(job, nodes=SPREAD) if rng.random() < 0.3 else job)
    return Workload("w", tuple(jobs))


def _run(workload: Workload, spec: str = "coalloc") -> SimResult:
    return simulate(_platform(), workload, create(spec))


def _spans(result: SimResult) -> dict[int, list[tuple[float, float, str]]]:
    """Each node's busy spans: the jobs that ran there and its reservations."""
    spans: dict[int, list[tuple[float, float, str]]] = {}
    for job in result.workload.jobs:
        for node, _ in result.allocation[job.index] or ():
            spans.setdefault(node, []).append((result.start[job.index],
                                               result.end[job.index], job.id))
    for r in result.platform.reservations:
        spans.setdefault(r.node, []).append((r.start, r.end, "reservation"))
    return spans


@pytest.mark.parametrize("spec", ["coalloc", "coalloc:criterion=min_cost",
                                  "coalloc:criterion=min_finish",
                                  "coalloc:criterion=max:speed"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_job_runs_in_a_window_of_distinct_free_nodes_within_its_budget(
        seed: int, spec: str) -> None:
    workload = _workload(seed)
    result = _run(workload, spec)
    check_result(result)
    speed = {i: n.type.speed for i, n in enumerate(result.platform.nodes)}
    costs = job_costs(result)
    started = 0
    for job in workload.jobs:
        state = result.state[job.index]
        assert state in (JobState.FINISHED, JobState.REJECTED), (job.id, state)
        if state == JobState.REJECTED:
            continue
        started += 1
        allocation = result.allocation[job.index]
        nodes = [node for node, _ in allocation]
        assert len(set(nodes)) == len(nodes) == job.ntasks  # one task on each of n nodes
        assert all(tasks == 1 for _, tasks in allocation)
        assert all(speed[node] >= job.min_performance for node in nodes)
        # the tasks start together and the job ends with its slowest node's, which is its
        # estimate there: the window's length T = V / min p
        slowest = min(speed[node] for node in nodes)
        assert result.end[job.index] - result.start[job.index] == pytest.approx(
            job.req_time * 1e9 / slowest, rel=1e-12)
        if job.budget is not None:
            assert costs[job.index] <= job.budget * (1 + 1e-12)
    assert started > len(workload.jobs) // 2
    for node, spans in _spans(result).items():  # whole nodes: no two overlap
        spans.sort()
        for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
            assert start >= end, (node, first, second)


def test_a_job_with_an_impossible_budget_is_rejected_with_the_reason() -> None:
    # 2 tasks of 100 s on the slowest node. A task pays its node's price over its slots
    # (jobs.csv's cost): two slow nodes for 100 s at 1 per second: 200; two mid for 50 s at
    # 3 / 2 cores: 150; two fast for 25 s at 8 / 2: 200. The cheapest window costs 150.
    jobs = (_job(0, 0.0, 2, 100.0, budget=149.0), _job(1, 0.0, 2, 100.0, budget=150.0))
    result = _run(Workload("w", jobs))
    assert result.state[0] == JobState.REJECTED
    assert result.reason[0] == "coalloc: budget 149 too small: the cheapest window of 2 " \
                               "nodes costs 150"
    assert result.state[1] == JobState.FINISHED
    assert job_costs(result)[1] == 150.0


def test_too_few_fast_nodes_and_no_window_before_the_horizon_are_reasons() -> None:
    jobs = (_job(0, 0.0, 3, 100.0, min_performance=4e9), _job(1, 0.0, 8, 1000.0))
    result = simulate(_platform(), Workload("w", jobs), CoAllocation(horizon=1000.0))
    assert result.reason[0] == ("coalloc: needs 3 distinct nodes of speed >= 4e+09 with room "
                                "for one task; the platform has 2")
    # 8 nodes for 1000 s: node 6 is reserved for good from 400, so never all 8
    assert result.reason[1] == ("coalloc: no common free window of 8 nodes within the budget "
                                "before 1000")


def test_without_its_own_horizon_the_scheduler_searches_up_to_the_run_s() -> None:
    # j0 (6 tasks) fits from 0 within a run horizon of 150. j1 (8 tasks of 100 s) has one
    # window of all 8 nodes, [300, 400) (j0 until 100 at most, node 0 reserved over
    # [100, 300), node 6 from 400 for good): unbounded it would be booked there; searched up
    # to the run's horizon it is rejected, naming it
    jobs = (_job(0, 0.0, 6, 100.0), _job(1, 0.0, 8, 100.0))
    result = simulate(_platform(), Workload("w", jobs), CoAllocation(), horizon=150.0)
    assert result.state[0] == JobState.FINISHED
    assert result.reason[1] == ("coalloc: no common free window of 8 nodes within the budget "
                                "before 150")


def test_a_booked_window_waits_for_the_reservation_and_is_not_delayed() -> None:
    # the three slow nodes: node 0 is reserved over [100, 300). A (3 tasks, 150 s) at 0 would
    # cross the reservation: its window is [300, 450). B (2 tasks, 50 s) at 1 fits before it
    # on nodes 0-1 ([1, 51)); C (3 tasks, 100 s) at 2, booked after A, goes after A: 450.
    platform = Platform("p", Platform.from_counts("p", [(SLOW, 3)]).nodes,
                        reservations=(Reservation(0, 100.0, 300.0, 1),))
    jobs = (_job(0, 0.0, 3, 150.0), _job(1, 1.0, 2, 50.0), _job(2, 2.0, 3, 100.0))
    result = simulate(platform, Workload("w", jobs), CoAllocation())
    assert result.start.tolist() == [300.0, 1.0, 450.0]
    assert [sorted(n for n, _ in a) for a in result.allocation] == [[0, 1, 2], [0, 1],
                                                                    [0, 1, 2]]


def test_min_cost_pays_no_more_than_first_fit_for_the_first_job() -> None:
    workload = _workload(3)
    first = workload.jobs[0]
    paid = {spec: job_costs(_run(workload, spec))[0]
            for spec in ("coalloc", "coalloc:criterion=min_cost")}
    assert paid["coalloc:criterion=min_cost"] <= paid["coalloc"]
    # and a job's own criterion overrides the scheduler's
    own = Workload("w", (replace(first, criterion="min_cost"), *workload.jobs[1:]))
    assert job_costs(_run(own))[0] == paid["coalloc:criterion=min_cost"]


def test_a_criterion_summing_an_attribute_nodes_lack_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigError, match="sums attribute 'q'") as caught:
        create("coalloc:criterion=max_q")
    assert len(str(caught.value).splitlines()) == 1
    with pytest.raises(ConfigError, match="horizon"):
        CoAllocation(horizon=-1.0)
    # a job's own criterion the nodes cannot serve: that job is rejected, the others run
    jobs = (_job(0, 0.0, 1, 10.0, criterion="max_q"), _job(1, 0.0, 1, 10.0))
    result = _run(Workload("w", jobs))
    assert result.reason[0].startswith("coalloc: criterion 'max_q' sums attribute 'q'")
    assert result.state[1] == JobState.FINISHED


def test_without_a_horizon_a_window_reserved_for_good_is_never_found() -> None:
    # node 6 is reserved for good from 400: 8 nodes are never free together
    result = _run(Workload("w", (_job(0, 500.0, 8, 10.0),)))
    assert result.reason[0] == ("coalloc: no common free window of 8 nodes within the budget "
                                "in the next 1e+12 s")


@pytest.mark.parametrize("spec", ["coalloc", "coalloc:criterion=min_cost,horizon=100000"])
def test_the_contract_battery(spec: str) -> None:
    check_scheduler(spec)


def test_a_job_past_its_estimate_delays_the_window_booked_after_it() -> None:
    # three slow nodes. A (2 tasks, estimate 50 s, runs 100 s) from 0 on nodes 0 and 1; B (3
    # tasks, 10 s) at 1 is booked at A's estimated end, 50, where A still runs: B waits for
    # A's end and is booked again then, 100. C (1 task given as nodes=1, ntasks=1) at 2 runs
    # on node 2 at once (it ends, 12, before B's booking).
    platform = Platform("p", Platform.from_counts("p", [(SLOW, 3)]).nodes)
    a = replace(_job(0, 0.0, 2, 100.0), req_time=50.0)
    jobs = (a, _job(1, 1.0, 3, 10.0), _job(2, 2.0, 1, 10.0))
    result = simulate(platform, Workload("w", jobs), CoAllocation())
    check_result(result)
    assert result.start.tolist() == [0.0, 100.0, 2.0]
    assert result.end.tolist() == [100.0, 110.0, 12.0]


def test_a_one_node_job_of_several_tasks_gets_one_node_per_task() -> None:
    # nodes=1 and 2 tasks: co-allocation's model puts them on 2 distinct nodes
    platform = Platform("p", Platform.from_counts("p", [(MID, 2)]).nodes)
    job = replace(_job(0, 0.0, 2, 100.0), nodes=1)
    result = simulate(platform, Workload("w", (job,)), CoAllocation())
    assert sorted(result.allocation[0]) == [(0, 1), (1, 1)]
    assert result.end[0] == 50.0
