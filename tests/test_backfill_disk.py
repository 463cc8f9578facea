"""Backfilling counts disk as it counts memory (schedulers/backfill.py, conservative.py,
profile.py, skyline.py): both are whole-job amounts split over the nodes by tasks, and a node
runs a job's tasks only while it holds their share of both. So swapping the two, the jobs'
amounts and the node types' capacities together, cannot change a schedule: amounts given as
memory on node types with memory capacities M schedule as the same amounts given as disk on
node types with disk capacities M (and unlimited memory), and more generally any memory/disk
pair schedules as its swap. Checked on random small workloads (one-node, k-node and spread
jobs, estimates shorter and longer than run times) on a small heterogeneous platform, for EASY
and conservative with node selection by index and by speed; and one case worked by hand, where
a multi-node candidate would hold disk the head needs at its shadow time."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_schedulers_hand import job, run, timeline

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import SimResult
from hetsched.workload.model import SPREAD, Job, Workload

INF = float("inf")
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCHEDULERS = ["easy", "easy:node=high_gflops", "conservative", "conservative:node=high_gflops"]

#: (name, cores, GHz, count): index order is not speed order, so the two selections differ.
TYPES = [("slow", 4, 1.0, 2), ("fast", 8, 2.0, 1), ("mid", 6, 1.5, 2)]
#: Capacities (MB) a node type may have; amounts (MB) a job may hold. 333.3 splits unevenly.
CAPACITIES = st.sampled_from([300.0, 1000.0, 1000.0, 2000.0, INF])
AMOUNTS = st.sampled_from([0.0, 100.0, 333.3, 750.0, 1500.0])


def platform(memory: list[float], disk: list[float]) -> Platform:
    """The platform of ``TYPES`` whose i-th type has ``memory[i]`` and ``disk[i]`` MB."""
    return Platform.from_counts("p", [
        (NodeType(name, cores, ghz, memory_mb=m, disk_mb=d), count)
        for (name, cores, ghz, count), m, d in zip(TYPES, memory, disk, strict=True)])


def workload(jobs: list[Job], memory: list[float], disk: list[float]) -> Workload:
    return Workload("w", tuple(replace(j, memory_mb=m, disk_mb=d)
                               for j, m, d in zip(jobs, memory, disk, strict=True)))


@st.composite
def shapes(draw: st.DrawFn) -> list[Job]:
    """Jobs without memory or disk: one-node, k-node (k = 2 or 3) and spread."""
    jobs, t = [], 0.0
    for i in range(draw(st.integers(4, 30))):  # arriving close together: queues
        t += draw(st.sampled_from([0.0, 0.0, 1.0, 2.5]))
        kind = draw(st.sampled_from(["one", "one", "k", "spread"]))
        if kind == "one":
            nodes, ntasks = 1, draw(st.integers(1, 8))
        elif kind == "k":
            nodes = draw(st.integers(2, 3))
            ntasks = draw(st.integers(nodes, 12))
        else:
            nodes, ntasks = SPREAD, draw(st.integers(1, 16))
        seconds = draw(st.sampled_from([1.0, 3.0, 10.0, 30.0]))
        jobs.append(Job(id=str(i), submit=t, ntasks=ntasks, req_ops=seconds * 1e9,
                        req_time=seconds * draw(st.sampled_from([0.5, 1.0, 2.0])),
                        nodes=nodes))
    return jobs


def assert_same_schedule(result: SimResult, expected: SimResult) -> None:
    assert np.array_equal(result.start, expected.start, equal_nan=True)
    assert np.array_equal(result.end, expected.end, equal_nan=True)
    assert result.allocation == expected.allocation
    assert np.array_equal(result.state, expected.state)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@SETTINGS
@given(jobs=shapes(), data=st.data())
def test_disk_schedules_as_memory(scheduler: str, jobs: list[Job], data: st.DataObject) -> None:
    capacities = data.draw(st.lists(CAPACITIES, min_size=len(TYPES), max_size=len(TYPES)))
    amounts = data.draw(st.lists(AMOUNTS, min_size=len(jobs), max_size=len(jobs)))
    none, unlimited = [0.0] * len(jobs), [INF] * len(TYPES)
    as_memory = simulate(platform(capacities, unlimited), workload(jobs, amounts, none),
                         create(scheduler))
    as_disk = simulate(platform(unlimited, capacities), workload(jobs, none, amounts),
                       create(scheduler))
    assert_same_schedule(as_disk, as_memory)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@SETTINGS
@given(jobs=shapes(), data=st.data())
def test_swapping_memory_and_disk_keeps_the_schedule(scheduler: str, jobs: list[Job],
                                                     data: st.DataObject) -> None:
    # both at once, each type's capacities (either may be unlimited) and each job's amounts
    # swapped together
    memory_caps, disk_caps = (data.draw(st.lists(CAPACITIES, min_size=len(TYPES),
                                                 max_size=len(TYPES))) for _ in range(2))
    memory, disk = (data.draw(st.lists(AMOUNTS, min_size=len(jobs), max_size=len(jobs)))
                    for _ in range(2))
    result = simulate(platform(memory_caps, disk_caps), workload(jobs, memory, disk),
                      create(scheduler))
    swapped = simulate(platform(disk_caps, memory_caps), workload(jobs, disk, memory),
                       create(scheduler))
    assert_same_schedule(swapped, result)


# ---- worked by hand -----------------------------------------------------------------------------

@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
@pytest.mark.parametrize("b_nodes, b_at_20", [pytest.param(2, ((0, 1), (1, 1)), id="2-nodes"),
                                              pytest.param(SPREAD, ((0, 2),), id="spread")])
def test_a_multi_node_candidate_does_not_take_the_heads_disk(
        scheduler: str, b_nodes: int, b_at_20: tuple[tuple[int, int], ...]) -> None:
    # Two nodes, 5 cores and 100 MB of disk each, 1 GHz (a job of s seconds takes s seconds).
    # A (6 tasks on 2 nodes, 100 MB: 50 per node, 10 s) runs [0, 10) on 3 cores of each node.
    # t=1: H (6 tasks on 2 nodes, 200 MB: 100 per node, 10 s) finds 2 cores and 50 MB free per
    #   node: it fits at 10, when A ends, leaving 2 cores and no disk per node beside it.
    # t=2: B (2 tasks, 100 MB: 50 per task, 100 s) fits now, one task per node (each node has
    #   50 MB free: room for one task; spread, too, puts one task on each). It would run to
    #   102, past 10, on cores H leaves free, but holding 50 MB per node that H needs then.
    #   Counting cores only, B would be backfilled and H held back to 102. B waits.
    # t=3: C (2 tasks on 2 nodes, no disk, 100 s) runs to 103 on cores H leaves free:
    #   backfilled at 3, one task per node.
    # t=4: D (2 tasks on 2 nodes, 100 MB, 5 s) takes the last free core and the 50 MB of each
    #   node, but only until 9, before H's start: backfilled, [4, 9).
    # t=10: A ends, H starts: [10, 20); C keeps a core per node, B (now the head) finds no
    #   disk. t=20: H ends, B starts, [20, 120): on 2 nodes, one task on each; spread, both on
    #   node 0 (4 free cores, 100 MB: room for both tasks).
    types = [(NodeType("n", cores=5, clock_ghz=1.0, disk_mb=100), 2)]

    def with_disk(j: Job, mb: float) -> Job:
        return replace(j, disk_mb=mb)

    jobs = [with_disk(job("A", 0, 6, 10, nodes=2), 100),
            with_disk(job("H", 1, 6, 10, nodes=2), 200),
            with_disk(job("B", 2, 2, 100, nodes=b_nodes), 100),
            job("C", 3, 2, 100, nodes=2),
            with_disk(job("D", 4, 2, 5, nodes=2), 100)]
    both = ((0, 1), (1, 1))
    assert timeline(run(types, jobs, scheduler)) == {
        "A": (0.0, 10.0, ((0, 3), (1, 3))), "H": (10.0, 20.0, ((0, 3), (1, 3))),
        "B": (20.0, 120.0, b_at_20), "C": (3.0, 103.0, both), "D": (4.0, 9.0, both)}


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("resource", ["memory_mb", "disk_mb"])
def test_a_job_needing_a_whole_node_fits_once_the_node_is_empty(scheduler: str,
                                                                resource: str) -> None:
    # Four nodes of 300 MB. A takes 25 MB on each, B 100/3 MB on three; given back, the
    # shares do not add up to 300.0 again in floating point. H needs all 300 MB of every node:
    # it starts at 10, when A and B have ended (it waited forever, and conservative's plan,
    # re-made when C ends early, found it "fits nowhere even when the cluster is empty").
    types = [(NodeType("n", 4, 1.0, **{resource: 300.0}), 4)]
    jobs = [replace(job("A", 0, 4, 10, req=5, nodes=4), **{resource: 100.0}),
            replace(job("B", 0, 3, 10, req=6, nodes=3), **{resource: 100.0}),
            job("C", 0, 1, 1, req=2),
            replace(job("H", 0.5, 4, 1, nodes=SPREAD), **{resource: 1200.0})]
    assert timeline(run(types, jobs, scheduler))["H"][:2] == (10.0, 11.0)


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative"])
def test_a_partly_busy_node_gets_all_its_memory_back(scheduler: str) -> None:
    # As above, but D (one core of node 0, no memory) runs until 15: node 0 is still busy
    # when A and B give their memory back at 10, and all its 300 MB are free again, exactly
    # (memory is counted in whole KB): H, one task and 300 MB per node, starts at 10 (with
    # the shares' floating-point drift it waited for D's end, at 15).
    types = [(NodeType("n", 4, 1.0, memory_mb=300.0), 4)]
    jobs = [job("D", 0, 1, 15), job("A", 0, 4, 10, nodes=4, mem=25.0),
            job("B", 0, 3, 10, nodes=3, mem=100 / 3),
            job("H", 0.5, 4, 1, nodes=SPREAD, mem=300.0)]
    result = run(types, jobs, scheduler)
    assert timeline(result)["D"][2] == ((0, 1),)
    assert timeline(result)["H"] == (10.0, 11.0, ((0, 1), (1, 1), (2, 1), (3, 1)))
