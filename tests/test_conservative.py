"""Conservative backfilling (schedulers/conservative.py) compresses only the reservations a
freed interval can help. It must give the schedules of the straightforward implementation it
replaced (reference_conservative.py: the whole plan re-made and compressed at every early end):
hand-worked compressions, random heterogeneous platforms and workloads (one-node, k-node and
spread jobs, memory and disk, estimates shorter and longer than run times, every kind of node
selection, forks), and the start of real traces."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_conservative import ReferenceConservative
from test_backfill_disk import AMOUNTS, CAPACITIES, TYPES, shapes
from test_backfill_disk import SETTINGS as DISK_SETTINGS, platform as disk_platform, \
    workload as disk_workload
from test_invariants import FAST_SETTINGS, cases
from test_schedulers_hand import job, run, timeline

from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.events import Availability
from hetsched.sim.result import SimResult
from hetsched.workload.load import load_workload
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions
from support import shared

QUAD = NodeType("quad", 4, 1.0)  # 4 cores, 1 GHz: a job of s seconds takes s seconds
DUO = NodeType("duo", 2, 1.0)


def assert_same_schedule(result: SimResult, expected: SimResult) -> None:
    assert np.array_equal(result.start, expected.start, equal_nan=True)
    assert np.array_equal(result.end, expected.end, equal_nan=True)
    assert result.allocation == expected.allocation


# ---- hand-worked ----------------------------------------------------------------------------

def test_an_early_end_compresses_in_order_of_start() -> None:
    # One 4-core node. A (4 cores, estimate 20 s) really takes 10 s: [0, 10).
    # Booked behind it: B and C (2 cores, 10 s) at A's estimated end 20; D (4 cores, 5 s)
    # at 30; E (1 core, 5 s) at 35 (D holds every core over [30, 35)); F (1 core, 3 s) at 35
    # beside E. At 10 A ends: B and C move to 10, D to 20 (their end), E to 25 (D's end),
    # and F, last in order of start, to 25 beside E.
    jobs = [job("A", 0, 4, 10, req=20), job("B", 1, 2, 10), job("C", 2, 2, 10),
            job("D", 3, 4, 5), job("E", 4, 1, 5), job("F", 5, 1, 3)]
    result = run([(QUAD, 1)], jobs, "conservative")
    assert {k: v[:2] for k, v in timeline(result).items()} == {
        "A": (0.0, 10.0), "B": (10.0, 20.0), "C": (10.0, 20.0), "D": (20.0, 25.0),
        "E": (25.0, 30.0), "F": (25.0, 28.0)}


def test_a_job_moves_over_its_own_booking() -> None:
    # One 2-core node. A (2 cores, estimate 15 s) really takes 10 s. B (1 core, 20 s) is
    # booked at 15; C (2 cores, 10 s) at 35, after B; D (1 core, 5 s) at 15 beside B.
    # At 10 A ends: B moves to 10 ([10, 30) overlaps its old [15, 35)), then D (same start
    # as B, later index) to 10 on the other core, and C to 30, when B ends.
    jobs = [job("A", 0, 2, 10, req=15), job("B", 1, 1, 20), job("C", 2, 2, 10),
            job("D", 3, 1, 5)]
    result = run([(DUO, 1)], jobs, "conservative")
    assert {k: v[0] for k, v in timeline(result).items()} == \
        {"A": 0.0, "B": 10.0, "C": 30.0, "D": 10.0}


# ---- against the reference ------------------------------------------------------------------

@pytest.mark.parametrize("node", ["first", "high_gflops"])
@DISK_SETTINGS
@given(jobs=shapes(), data=st.data())
def test_same_schedule_with_memory_and_disk(node: str, jobs: list, data: st.DataObject) -> None:
    """Memory and disk both binding: capacities and amounts (333.3 MB splits unevenly, in whole
    KB) drawn per node type and per job."""
    caps = [data.draw(st.lists(CAPACITIES, min_size=len(TYPES), max_size=len(TYPES)))
            for _ in range(2)]
    amounts = [data.draw(st.lists(AMOUNTS, min_size=len(jobs), max_size=len(jobs)))
               for _ in range(2)]
    platform, workload = disk_platform(*caps), disk_workload(jobs, *amounts)
    result = simulate(platform, workload, create(f"conservative:node={node}"))
    expected = simulate(platform, workload, ReferenceConservative(node))
    assert_same_schedule(result, expected)


@pytest.mark.parametrize("node", ["first", "high_cores", "random"])
@settings(FAST_SETTINGS, max_examples=25)
@given(case=cases(), seed=st.integers(0, 2**16))
def test_same_schedule_as_re_planning_everything(node: str, case: tuple[Platform, Workload],
                                                  seed: int) -> None:
    platform, workload = case
    result = simulate(platform, workload, create(f"conservative:node={node}"), seed=seed)
    expected = simulate(platform, workload, ReferenceConservative(node), seed=seed)
    assert_same_schedule(result, expected)


def _busy_case(seed: int) -> tuple[Platform, Workload]:
    """A hundred and fifty jobs queuing on a small heterogeneous platform, most ending well
    before their estimate: long compressions."""
    rng = np.random.default_rng(seed)
    platform = Platform.from_counts("busy", [(NodeType("slow", 8, 1.0), 2),
                                             (NodeType("fast", 16, 2.0), 1)])
    jobs = []
    for i in range(150):
        nodes = int(rng.choice([1, 1, 1, 1, 0, 2]))
        tasks = int(rng.integers(1, 9)) if nodes == 1 else int(rng.integers(2, 20))
        seconds = float(rng.integers(10, 400))
        jobs.append(job(f"j{i}", float(i * 10), tasks, seconds,
                        req=seconds * float(rng.choice([1.0, 1.5, 3.0])), nodes=nodes))
    return platform, Workload("busy", tuple(jobs))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("node", ["first", "random"])
def test_same_schedule_when_the_queue_is_long(seed: int, node: str) -> None:
    platform, workload = _busy_case(seed)
    result = simulate(platform, workload, create(f"conservative:node={node}"), seed=seed)
    expected = simulate(platform, workload, ReferenceConservative(node), seed=seed)
    assert_same_schedule(result, expected)
    assert np.nanmax(result.start - [j.submit for j in workload.jobs]) > 1000  # it queued


def test_same_schedule_when_nodes_go_down_and_come_back() -> None:
    # What a node can run changes outside the plan: the next early end re-plans it all.
    # (Every job still fits somewhere: the plan does not foresee availability changes.)
    platform, workload = _busy_case(5)
    changes = [Availability(300.0, 2, 10), Availability(900.0, 0, 4),
               Availability(1500.0, 2, 16), Availability(2400.0, 0, 8)]
    result = simulate(platform, workload, create("conservative"), availability=changes)
    expected = simulate(platform, workload, ReferenceConservative(), availability=changes)
    assert_same_schedule(result, expected)
    undisturbed = simulate(platform, workload, create("conservative"))
    assert result.start.tolist() != undisturbed.start.tolist()


def test_same_schedule_on_a_fork_with_jobs_running() -> None:
    # A fork's scheduler finds jobs running that it did not start: their early ends re-plan.
    platform, workload = _busy_case(7)
    sim = Simulation(platform, workload, create("easy"))
    for _ in range(200):
        step = sim.advance()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    assert len(sim.view.running) > 3 and len(sim.view.pending) > 3
    assert_same_schedule(sim.fork(create("conservative")).run(),
                         sim.fork(ReferenceConservative()).run())


@pytest.mark.slow
@pytest.mark.parametrize("machine", ["one 256-core machine", "20-node IRMaSim"])
def test_same_schedule_on_lublin(machine: str) -> None:
    platform = Platform.from_counts("m256", [(NodeType("m", 256, 1.0), 1)]) \
        if machine.startswith("one") else \
        load_platform(shared("platforms/irmasim_lublin_20node.json"))
    full = load_workload(shared("traces/lublin_256.swf"), platform,
                         SwfOptions(estimate_factor=2.0))
    workload = Workload("lublin", full.jobs[:600 if machine.startswith("one") else 2000])
    assert_same_schedule(simulate(platform, workload, create("conservative")),
                         simulate(platform, workload, ReferenceConservative()))
