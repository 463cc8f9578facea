"""The skyline of one node's free resources (schedulers/skyline.py) on hand-worked cases and
against a brute-force step function, and the profile built on it (schedulers/profile.py)
against the dense profile it replaced (reference_conservative.py): same earliest starts and
allocations for every kind of job and node selection."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_conservative import Profile as DenseProfile

from hetsched.platform.model import NodeType, Platform
from hetsched.sim.protocol import Start
from hetsched.schedulers.placement import place
from hetsched.schedulers.policies import NODE_SELECTIONS
from hetsched.schedulers.profile import Profile, _Steps
from hetsched.schedulers.skyline import Skyline
from hetsched.sim.resources import room
from hetsched.sim.engine import Simulation
from hetsched.workload.model import SPREAD, Job, Workload

INF = math.inf


def skyline(*steps: tuple[float, int]) -> Skyline:
    """A skyline of ``(start, free cores)`` steps with unlimited memory and disk."""
    return Skyline([t for t, _ in steps], [c for _, c in steps], [INF] * len(steps),
                   [INF] * len(steps))


def steps(sky: Skyline) -> list[tuple[float, int]]:
    return list(zip(sky.times, sky.cores))


# ---- hand-worked ----------------------------------------------------------------------------

def test_add_splits_steps_and_merges_equal_neighbours() -> None:
    # 4 free from 0. Taking 2 over [5, 10) makes three steps; giving them back merges again.
    sky = skyline((0, 4))
    sky.add(5, 10, -2, 0.0, 0.0)
    assert steps(sky) == [(0, 4), (5, 2), (10, 4)]
    sky.add(10, 20, -2, 0.0, 0.0)  # now 2 free over [5, 20): the boundary at 10 goes
    assert steps(sky) == [(0, 4), (5, 2), (20, 4)]
    sky.add(5, 20, 2, 0.0, 0.0)
    assert steps(sky) == [(0, 4)]
    sky.add(3, 3, -1, 0.0, 0.0)  # an empty interval changes nothing
    assert steps(sky) == [(0, 4)]


def test_prune_drops_steps_that_ended() -> None:
    sky = skyline((0, 1), (5, 2), (10, 3))
    sky.prune(7)  # the step holding 7 starts at 5: it stays
    assert steps(sky) == [(5, 2), (10, 3)]
    sky.prune(10)
    assert steps(sky) == [(10, 3)]


def test_lowest_and_highest_over_a_window() -> None:
    sky = skyline((0, 4), (5, 1), (10, 3), (20, 0))
    # [2, 12) covers the steps at 0, 5 and 10; [5, 10) only the one at 5
    assert sky.lowest(2, 12)[0] == 1 and sky.highest(2, 12)[0] == 4
    assert sky.lowest(5, 10)[0] == 1 and sky.highest(5, 10)[0] == 1
    # a window ending where a step starts does not cover it
    assert sky.lowest(10, 20)[0] == 3


def test_first_fit_finds_the_first_long_enough_window() -> None:
    # free: 4 over [0,5), 1 over [5,10), 3 over [10,14), 2 over [14,30), 4 from 30
    sky = skyline((0, 4), (5, 1), (10, 3), (14, 2), (30, 4))
    # 2 tasks for 6 s: [0, 6) meets the 1 at 5; from 10 the run of >= 2 lasts to the end
    assert sky.first_fit(2, 0.0, 6, 0, INF, 0) == 10
    # 3 tasks for 5 s: [0, 5) is exactly long enough (the step at 5 starts at its end)
    assert sky.first_fit(3, 0.0, 5, 0, INF, 0) == 0
    # 3 tasks for 6 s: [0, 6) meets the 1 at 5, [10, 16) the 2 at 14: only from 30
    assert sky.first_fit(3, 0.0, 6, 0, INF, 0) == 30
    # only starts before hi count
    assert sky.first_fit(3, 0.0, 6, 0, 30, 0) is None
    # now = 1 is inside the first step: a start there is now
    assert sky.first_fit(3, 0.0, 4, 0, INF, 1) == 1
    # a window that may stop at 12 (until): [10, 12) has 3 free
    assert sky.first_fit(3, 0.0, 6, 0, INF, 0, until=12) == 10
    # the search begins at the step holding lo
    assert sky.first_fit(2, 0.0, 3, 12, INF, 0) == 10


def test_first_fit_with_memory() -> None:
    # 8 cores everywhere; memory 1000 MB over [0, 10), then 300 MB
    sky = Skyline([0, 10], [8, 8], [1000.0, 300.0], [INF, INF])
    eight = Job("e", 0.0, 8, 1e9, 1.0, memory_mb=800.0)  # 100 MB a task
    assert room(eight, 8, 300.0, INF) == 3 and room(eight, 8, INF, INF) == 8
    assert sky.first_fit(4, 400.0, 5, 0, INF, 0) == 0  # [0, 5) has 1000 MB
    assert sky.first_fit(4, 400.0, 15, 0, INF, 0) is None  # it would need 400 MB after 10


def test_runs_measure_how_far_free_cores_reach() -> None:
    # free: 0 over [0,5), 3 over [5,10), freed interval [10,20), 2 over [20,25), 1 from 25
    sky = skyline((0, 0), (5, 3), (10, 4), (20, 2), (25, 1))
    runs = sky.runs(10, 20, 0)
    assert runs.span(1) == (5, INF)  # >= 1 free from 5 on
    assert runs.span(2) == (5, 25)
    assert runs.span(3) == (5, 20)
    assert runs.span(4) == (10, 20)  # only the freed interval itself


# ---- against a brute-force step function ----------------------------------------------------

class Brute:
    """Free cores as a base plus changes over intervals, read point by point."""

    def __init__(self, base: int) -> None:
        self.base, self.changes = base, []

    def add(self, start: float, end: float, cores: int) -> None:
        self.changes.append((start, end, cores))

    def at(self, t: float) -> int:
        return self.base + sum(c for s, e, c in self.changes if s <= t < e)

    def times(self) -> list[float]:
        return sorted({0.0} | {t for s, e, _ in self.changes for t in (s, e)})

    def fits(self, t: float, tasks: int, duration: float) -> bool:
        """All of [t, t + duration) has ``tasks`` free (at least the point t)."""
        points = [t] + [x for x in self.times() if t < x < t + duration]
        return all(self.at(x) >= tasks for x in points)

    def first_fit(self, tasks: int, duration: float, now: float, hi: float) -> float | None:
        starts = sorted({now} | {x for x in self.times() if x > now})
        return next((t for t in starts if t < hi and self.fits(t, tasks, duration)), None)


@pytest.mark.parametrize("seed", range(30))
def test_skyline_matches_a_brute_force_step_function(seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = int(rng.integers(1, 9))
    sky, brute = skyline((0.0, base)), Brute(base)
    booked = []
    for _ in range(25):
        if booked and rng.random() < 0.3:  # give back something taken
            start, end, cores = booked.pop(int(rng.integers(len(booked))))
            sky.add(start, end, cores, 0.0, 0.0)
            brute.add(start, end, cores)
            continue
        start = float(rng.integers(0, 40))
        end = start + float(rng.integers(1, 15))
        cores = int(rng.integers(1, base + 1))
        sky.add(start, end, -cores, 0.0, 0.0)
        brute.add(start, end, -cores)
        booked.append((start, end, cores))
    for t in brute.times():
        assert sky.cores[sky.step_at(t)] == brute.at(t)
    assert all(a != b for a, b in zip(sky.cores, sky.cores[1:]))  # equal steps were merged
    for _ in range(40):
        tasks, duration = int(rng.integers(1, base + 1)), float(rng.integers(1, 12))
        now, hi = float(rng.integers(0, 30)), float(rng.choice([20.0, 45.0, INF]))
        assert sky.first_fit(tasks, 0.0, duration, now, hi, now) == \
            brute.first_fit(tasks, duration, now, hi)


# ---- the profile against the dense one --------------------------------------------------------

def _state(seed: int) -> tuple[Simulation, list[Job]]:
    """A simulation stopped with jobs running on a random heterogeneous platform, and more
    jobs to place in its profile."""
    rng = np.random.default_rng(seed)
    types = [(NodeType(f"t{k}", int(rng.integers(1, 9)), float(rng.choice([1.0, 2.0, 3.0])),
                       memory_mb=float(rng.choice([2000, 8000]))), int(rng.integers(1, 4)))
             for k in range(int(rng.integers(1, 4)))]
    platform = Platform.from_counts("random", types)
    cores = platform.max_node_cores

    def random_job(i: int, submit: float) -> Job:
        nodes = int(rng.choice([1, 1, 1, SPREAD, 2]))
        tasks = int(rng.integers(1, cores + 1)) if nodes == 1 else \
            int(rng.integers(max(nodes, 1), 2 * cores + 1))
        return Job(f"j{i}", submit, tasks, float(rng.integers(5, 60)) * 1e9,
                   float(rng.integers(5, 90)), nodes=nodes,
                   memory_mb=tasks * float(rng.choice([0, 0, 100, 700])))

    jobs = [random_job(i, float(i)) for i in range(12)]
    sim = Simulation(platform, Workload("random", tuple(jobs)))
    for _ in range(int(rng.integers(1, 12))):
        if sim.advance() is None:
            break
        view = sim.view
        for job in list(view.pending.values()):
            allocation = place(job, view.free_cores, view.free_mem, view.free_disk,
                               view.node_index, rng)
            if allocation is not None:
                sim.apply([Start(job, allocation)])
    return sim, [random_job(100 + i, 0.0) for i in range(30)]


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("selection", ["first", "high_gflops", "high_cores", "random"])
def test_profile_finds_what_the_dense_profile_finds(seed: int, selection: str) -> None:
    sim, jobs = _state(seed)
    view = sim.view
    key_of = NODE_SELECTIONS[selection]
    key = None if key_of is None else key_of(view)
    order = None if selection not in ("first", "high_gflops") else np.argsort(key, kind="stable")
    fast, dense = Profile.of_running(view), DenseProfile.of_running(view)
    fast_rng, dense_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    for job in jobs:
        durations = view.speed.estimates(job)
        try:
            expected = dense.earliest(job, durations, key, dense_rng)
        except AssertionError:
            continue  # it can never fit on this platform
        assert fast.earliest(job, durations.tolist(), key, fast_rng, order) == expected
        start, allocation = expected
        speed = min(view.platform.nodes[n].type.speed for n, _ in allocation)
        end = start + view.speed.estimate_at_speed(job, speed)
        assert fast.holds(job, start, end, allocation) and \
            dense.holds(job, start, end, allocation)
        fast.reserve(job, start, end, allocation)
        dense.reserve(job, start, end, allocation)
        later = start + 7.0  # and a search bounded before some time
        assert fast.earliest(job, durations.tolist(), key, fast_rng, order, hi=later) == \
            dense.earliest(job, durations, key, dense_rng, before=later)


@pytest.mark.parametrize("seed", range(10))
def test_flat_steps_give_each_skylines_lows_and_change_times(seed: int) -> None:
    # The numpy form a multi-node search reads (every node's steps in flat arrays) against
    # each skyline's own lowest(): windows from before, at and between steps, of every length.
    rng = np.random.default_rng(seed)
    skylines = []
    for _ in range(int(rng.integers(1, 12))):
        base = int(rng.integers(1, 9))
        sky = Skyline([0.0], [base], [1000.0], [500.0])
        for _ in range(int(rng.integers(0, 8))):
            start = float(rng.integers(0, 30))
            sky.add(start, start + float(rng.integers(1, 10)), -int(rng.integers(1, base + 1)),
                    -float(rng.integers(0, 3)) * 100.0, -float(rng.integers(0, 3)) * 50.0)
        skylines.append(sky)
    steps = _Steps(skylines, with_mem=True, with_disk=True)
    every = sorted({t for sky in skylines for t in sky.times})
    for start in [0.0, 2.5, *every, 45.0]:
        for duration in (0.0, 0.5, 1.0, 4.0, 11.0, INF):
            cores, mem, disk = steps.lowest(start, start + duration)
            assert [(int(c), float(m), float(d)) for c, m, d in zip(cores, mem, disk)] == \
                [sky.lowest(start, start + duration) for sky in skylines]
    for first in every:
        expected = sorted({max(sky.times[sky.step_at(first)], 0.0) for sky in skylines} |
                          {t for sky in skylines for t in sky.times if t > first})
        assert steps.starts(first, 0.0).tolist() == [t for t in expected if t >= first]
