"""EASY keeps the head's reservation from one instant to the next while it still holds
(``EasyBackfill._shadow``): the schedules are those of a new reservation at every instant. And
it skips, without trying to place them, the jobs that end after the shadow time on every
node and need more cores than the extra (the most, or the sum, of what nodes have both free
now and extra then): the schedules are those of trying every job."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers.backfill import EasyBackfill
from hetsched.sim.engine import simulate
from hetsched.workload.model import SPREAD, Job, Workload

PLATFORM = Platform.from_counts("p", [
    (NodeType("slow", 4, 1.0, memory_mb=1000, disk_mb=1000), 2),
    (NodeType("fast", 8, 2.0, memory_mb=3000, disk_mb=2000), 2)])


class AlwaysNew(EasyBackfill):
    """EASY with a new reservation at every instant."""

    def _shadow(self, head, now):
        shadow = super()._shadow(head, now)
        self.kept = None
        return shadow


class TriesEvery(EasyBackfill):
    """EASY trying to place every job: no job is known to end after the shadow time."""

    def reset(self, view, rng) -> None:
        super().reset(view, rng)
        self.shortest = 0.0


@st.composite
def workloads(draw):
    jobs, t = [], 0.0
    for i in range(draw(st.integers(5, 40))):
        t += draw(st.sampled_from([0.0, 1.0, 2.5, 7.0]))
        ntasks = draw(st.integers(1, 12))
        seconds = draw(st.sampled_from([1.0, 3.0, 10.0, 30.0]))
        jobs.append(Job(id=str(i), submit=t, ntasks=ntasks, req_ops=seconds * 1e9,
                        req_time=seconds * draw(st.sampled_from([0.5, 1.0, 2.0])),
                        nodes=1 if ntasks <= 8 and draw(st.booleans()) else SPREAD,
                        memory_mb=draw(st.sampled_from([0.0, 0.0, 100.0, 333.3, 700.7])),
                        disk_mb=draw(st.sampled_from([0.0, 0.0, 150.5, 400.0]))))
    return Workload("w", tuple(jobs))


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(["first", "high_gflops", "low_power"]))
def test_kept_reservation_gives_the_same_schedule(workload, node) -> None:
    kept = simulate(PLATFORM, workload, EasyBackfill(node))
    new = simulate(PLATFORM, workload, AlwaysNew(node))
    assert np.array_equal(kept.start, new.start, equal_nan=True)
    assert kept.allocation == new.allocation


def test_a_reservation_whose_time_has_passed_is_made_again() -> None:
    """The head's shadow time (A's estimated end, 2, reserved when E arrived) passes while A
    and B run past their estimates: at D's arrival (4) the new reservation expects them to end
    now, so E may use the 2 cores the head leaves free."""
    platform = Platform.from_counts("p", [(NodeType("n", 10, 1.0), 1)])

    def job(id: str, submit: float, ntasks: int, seconds: float, req: float) -> Job:
        return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=req)

    jobs = (job("A", 0, 4, 10, 2), job("B", 0, 2, 10, 3), job("C", 0, 2, 50, 50),
            job("H", 1, 6, 5, 5), job("E", 1, 2, 5, 5), job("D", 4, 1, 1, 1))
    result = simulate(platform, Workload("w", jobs), EasyBackfill())
    assert result.start.tolist() == [0.0, 0.0, 0.0, 10.0, 4.0, 9.0]


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(["first", "high_gflops", "high_cores", "random"]),
       st.integers(0, 2**16))
def test_skipping_jobs_the_extra_cannot_hold_gives_the_same_schedule(workload, node,
                                                                      seed) -> None:
    skipping = simulate(PLATFORM, workload, EasyBackfill(node), seed=seed)
    trying = simulate(PLATFORM, workload, TriesEvery(node), seed=seed)
    assert np.array_equal(skipping.start, trying.start, equal_nan=True)
    assert skipping.allocation == trying.allocation
