"""EASY backfilling beside the platform's reservations: the head's shadow time is the earliest
time at which it fits for its whole estimated duration beside the running jobs' estimated ends
and the reservations, and no backfilled job delays it there. With exact estimates that is a
guarantee: no job starts after a shadow time computed for it as the head."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetsched.platform.model import NodeType, Platform, Reservation
from hetsched.platform.reservations import overbooked
from hetsched.schedulers.backfill import EasyBackfill, _Shadow
from hetsched.schedulers.profile import Profile
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import JobState
from hetsched.testing import check_result, check_scheduler, contract_platform
from hetsched.workload.model import SPREAD, Job, Workload
from test_easy_shadow import PLATFORM, AlwaysNew, TriesEvery, workloads
from test_reservations import _reserved, job, node


class Promising(EasyBackfill):
    """EASY that records, per job, the earliest shadow time computed for it as the head."""

    def reset(self, view, rng) -> None:
        super().reset(view, rng)
        self.promised: dict[int, float] = {}

    def _shadow(self, head: Job, now: float) -> _Shadow:
        shadow = super()._shadow(head, now)
        self.promised[head.index] = min(self.promised.get(head.index, math.inf), shadow.time)
        return shadow


def test_a_backfilled_job_does_not_delay_the_head_beyond_a_reservation() -> None:
    # 16 cores; [0, 100) holds 4. R (4 tasks, 50 s) runs from 0, leaving 8 free. H (16
    # tasks, 100 s) at 1 fits only once R has ended AND the reservation too: shadow time 100
    # (before, EASY saw no shadow: 12 cores at most once R ends). B (8 tasks, 200 s) at 2 would
    # still run at 100 and leave H 8 cores: it waits (before, it started at 2 and H at 202);
    # it starts at H's end, 200. C (8 tasks, 40 s) at 3 ends at 43, before 100: it backfills.
    jobs = (job("R", 0, 4, 50), job("H", 1, 16, 100), job("B", 2, 8, 200), job("C", 3, 8, 40))
    scheduler = Promising()
    result = simulate(node(Reservation(0, 0, 100, 4)), Workload("w", jobs), scheduler)
    assert result.start.tolist() == [0.0, 100.0, 200.0, 3.0]
    assert scheduler.promised[1] == 100.0
    check_result(result)


def test_the_shadow_time_looks_past_a_reservation_ahead() -> None:
    # 16 cores; [60, 100) holds 8. R (8 tasks, 50 s) runs from 0. H (16 tasks, 100 s) at 1
    # would fit at R's end, 50, but would run into the reservation: its shadow time is 100
    # (before, 50: a promise broken). D (8 tasks, 10 s) at 2 ends by then and backfills; E
    # (8 tasks, 60 s) at 3 starts at D's end, 12, beside R and then the reservation, and ends
    # at 72, before 100. (Before, E waited for the shadow time 50, found none once the
    # reservation began, started at 60 and held H back until 120.)
    jobs = (job("R", 0, 8, 50), job("H", 1, 16, 100), job("D", 2, 8, 10),
            job("E", 3, 8, 60))
    scheduler = Promising()
    result = simulate(node(Reservation(0, 60, 100, 8)), Workload("w", jobs), scheduler)
    assert scheduler.promised[1] == 100.0
    assert result.start.tolist() == [0.0, 100.0, 2.0, 12.0]
    check_result(result)


def test_the_shadow_time_sees_a_reservation_far_ahead() -> None:
    # 16 cores; [60, 140) holds 1 and [150, 160) 1. R (8 tasks, 50 s) runs from 0. H (16
    # tasks, 100 s) at 1 fits from 140 until 150 only, and from 160 on: its shadow time is 160
    # (the reservations that begin up to one window after R's end, 150, do not show it: the
    # search looks further). D (4 tasks, 10 s) at 2 ends by then: it backfills.
    jobs = (job("R", 0, 8, 50), job("H", 1, 16, 100), job("D", 2, 4, 10))
    scheduler = Promising()
    result = simulate(node(Reservation(0, 60, 140, 1), Reservation(0, 150, 160, 1)),
                      Workload("w", jobs), scheduler)
    assert scheduler.promised[1] == 160.0
    assert result.start.tolist() == [0.0, 160.0, 2.0]
    check_result(result)


def test_easy_passes_the_contract_battery_beside_reservations() -> None:
    platform = _reserved(contract_platform())
    for spec in ("easy", "easy:node_selection=high_gflops", "easy:node_selection=random"):
        assert check_scheduler(spec, platform).name == "given"


TYPES = (NodeType("slow", 4, 1.0, memory_mb=1000.0), NodeType("fast", 8, 2.0, memory_mb=2000.0))


@st.composite
def reserved_platforms(draw, platform: Platform | None = None) -> Platform:
    """``platform``, or two to four nodes of 4 or 8 cores at 1 or 2 GHz, with up to six
    reservations (one may hold cores for good) that never overbook a node."""
    if platform is None:
        kinds = draw(st.lists(st.sampled_from(TYPES), min_size=2, max_size=4))
        platform = Platform.from_counts("p", [(kind, 1) for kind in kinds])
    nodes = platform.nodes
    held: list[Reservation] = []
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(nodes) - 1))
        start = float(draw(st.integers(0, 120)))
        end = math.inf if draw(st.integers(0, 9)) == 0 else \
            start + draw(st.sampled_from([1.0, 5.0, 20.0, 60.0]))
        cores = draw(st.integers(1, nodes[at].type.cores))
        if overbooked([*held, Reservation(at, start, end, cores)],
                      [n.type.cores for n in nodes]) is None:
            held.append(Reservation(at, start, end, cores))
    return replace(platform, reservations=tuple(held))


@st.composite
def exact_workloads(draw) -> Workload:
    """Jobs whose estimate is their run time (whole seconds on the slow nodes, halves on the
    fast ones: exact in floating point), on one node, two or any."""
    jobs, t = [], 0.0
    for i in range(draw(st.integers(2, 25))):
        t += draw(st.sampled_from([0.0, 1.0, 3.0, 10.0]))
        nodes = draw(st.sampled_from([1, 1, 2, SPREAD]))
        ntasks = draw(st.integers(2 if nodes == 2 else 1, 8 if nodes == 1 else 12))
        seconds = float(draw(st.sampled_from([1, 4, 10, 25, 60])))
        jobs.append(Job(id=str(i), submit=t, ntasks=ntasks, req_ops=seconds * 1e9,
                        req_time=seconds, nodes=nodes,
                        job_memory_mb=draw(st.sampled_from([0.0, 0.0, 300.0]))))
    return Workload("w", tuple(jobs))


@settings(max_examples=150, deadline=None)
@given(reserved_platforms(), exact_workloads(),
       st.sampled_from(["first", "high_gflops", "low_power", "random"]), st.integers(0, 99))
def test_with_exact_estimates_no_job_starts_after_its_shadow_time(platform, workload,
                                                                 selection, seed) -> None:
    scheduler = Promising(selection)
    result = simulate(platform, workload, scheduler, seed=seed)
    check_result(result)
    for index, promise in scheduler.promised.items():
        if promise < math.inf:
            assert result.state[index] == JobState.FINISHED, (index, promise)
            assert result.start[index] <= promise, (index, promise)


@settings(max_examples=60, deadline=None)
@given(reserved_platforms(PLATFORM), workloads(),
       st.sampled_from(["first", "high_gflops", "low_power"]), st.integers(0, 99))
def test_beside_reservations_the_kept_shadow_and_the_skipped_jobs_change_nothing(
        platform, workload, selection, seed) -> None:
    # test_easy_shadow's two checks, with estimates off and memory and disk, beside
    # reservations (a reservation beginning or ending drops the kept shadow)
    kept = simulate(platform, workload, EasyBackfill(selection), seed=seed)
    check_result(kept)
    for other in (AlwaysNew(selection), TriesEvery(selection)):
        again = simulate(platform, workload, other, seed=seed)
        assert np.array_equal(kept.start, again.start, equal_nan=True)
        assert kept.allocation == again.allocation


def test_the_view_gives_the_reservations_ahead_that_begin_before_a_time() -> None:
    # 16 cores: [100, 300) holds 8, [200, 400) 4 more
    sim = Simulation(node(Reservation(0, 100, 300, 8), Reservation(0, 200, 400, 4)),
                     Workload("w", (job("a", 0, 1, 1),)))
    sim.advance()
    every = [(100.0, 200.0, 8), (200.0, 300.0, 12), (300.0, 400.0, 4)]
    assert sim.view.reserved_ahead() == {0: every}
    assert sim.view.reserved_ahead(300.0) == {0: every[:2]}
    assert sim.view.reserved_ahead(100.0) == {}


@settings(max_examples=60, deadline=None)
@given(reserved_platforms(), exact_workloads(),
       st.sampled_from(["first", "high_gflops", "low_power"]))
def test_the_shadow_times_horizon_changes_no_schedule(platform, workload, selection) -> None:
    # the head's profile holds the reservations up to a horizon first: the same schedules as
    # with every reservation in it
    bounded = simulate(platform, workload, EasyBackfill(selection))
    whole = Profile.of_running
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Profile, "of_running", staticmethod(lambda view, until=0.0: whole(view)))
        every = simulate(platform, workload, EasyBackfill(selection))
    assert np.array_equal(bounded.start, every.start, equal_nan=True)
    assert bounded.allocation == every.allocation
