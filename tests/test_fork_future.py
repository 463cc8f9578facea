"""``Simulation.fork(keep_future=True)``: a checkpoint. The fork keeps every submission still
to come and everything else the run has ahead (failures, availability changes, wake-ups,
bookings), so that running it to its end gives what running the original to its end gives,
and running it leaves the original as it was."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest

from hetsched.platform.model import Platform
from hetsched.schedulers import Scheduler, Start, create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import SimResult
from hetsched.sim.view import ClusterView
from hetsched.workload.generators import check_params, generate
from hetsched.workload.model import Workload
from test_availability_random import SEEDS, _case
from test_engine_core import bundled, same

SCHEDULERS = ["fcfs", "easy", "conservative", "high_gflops", "first-random", "min_min"]
DEPTHS = (1, 5, 17, 40)  # instants stepped before the fork


def dag() -> tuple[Platform, Workload]:
    platform, _ = bundled()
    params = check_params("dag_layered", {"jobs": 60, "depth": 6}, Path("t"))
    return platform, generate("dag_layered", params, 3, platform)


# on-demand nodes, reservations and a failure (test_availability_random's random platforms)
CASES = {"bundled": bundled, "dag": dag, **{f"failures {seed}": (lambda seed=seed: _case(seed))
                                           for seed in (0, 1, 2)}}


def stepped(platform: Platform, workload: Workload, name: str, depth: int,
            **options: object) -> Simulation:
    """A run of ``name`` stepped ``depth`` instants (fewer if it ends first)."""
    sim = Simulation(platform, workload, create(name), seed=4, **options)  # type: ignore[arg-type]
    sim._begin()
    for _ in range(depth):
        step = sim.advance()
        if step is None:
            break
        sim.apply(sim.scheduler.decide(step.now, step.events))
    return sim


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", SCHEDULERS)
def test_a_fork_keeping_the_future_ends_as_the_run_would(case: str, name: str) -> None:
    # the fork under a fresh scheduler of the same spec (reset on the fork with the original's
    # generator state) ends exactly as the unforked run; so does the original, run after it
    platform, workload = CASES[case]()
    middle = workload.jobs[len(workload.jobs) // 2].submit
    for options in ({}, {"on_failure": "requeue"}, {"horizon": middle}):
        alone = simulate(platform, workload, create(name), seed=4, **options)
        for depth in DEPTHS:
            sim = stepped(platform, workload, name, depth, **options)
            same(sim.fork(create(name), keep_future=True).run(), alone)
            same(sim.run(), alone)


def carried(sim: Simulation, fork: Simulation) -> Scheduler:
    """A copy of ``sim``'s scheduler with its run state (its plans so far), reading ``fork``'s
    view and generator instead of ``sim``'s."""
    return copy.deepcopy(sim.scheduler, {id(sim.view): fork.view, id(sim.rng): fork.rng,
                                         id(sim.platform): sim.platform,
                                         id(sim.workload): sim.workload})


@pytest.mark.parametrize("name", SCHEDULERS)
def test_a_fork_under_the_schedulers_own_state_ends_as_the_run_would(name: str) -> None:
    # a scheduler that plans ahead keeps its plan in its own state, which a fresh one reset on
    # the fork makes again from the view: conservative's reservations then differ on some of
    # these inputs (seeds 3, 7, 9 and 57). With the scheduler's state carried over (a deep
    # copy), every fork ends as the run: the engine forgets nothing of the future.
    for seed in SEEDS:
        platform, workload = _case(seed)
        alone = simulate(platform, workload, create(name), seed=4)
        for depth in DEPTHS:
            sim = stepped(platform, workload, name, depth)
            fork = sim.fork(keep_future=True)
            fork.scheduler = carried(sim, fork)
            same(fork.run(), alone)
            same(sim.run(), alone)


def test_running_a_fork_under_another_policy_leaves_the_original_as_it_was() -> None:
    # the fork changes its own copies of the shared parts (cluster state, job table, time
    # series, event heap); the original, run afterwards, sees none of it
    platform, workload = bundled()
    alone = simulate(platform, workload, create("easy"), seed=4)
    sim = stepped(platform, workload, "easy", 30)
    forked = sim.fork(create("first-random"), keep_future=True).run()
    assert forked.start.tolist() != alone.start.tolist()  # (the fork did run differently)
    same(sim.run(), alone)


def test_a_fork_of_a_fork_keeps_the_future_too() -> None:
    platform, workload = dag()
    alone = simulate(platform, workload, create("first-random"), seed=4)
    sim = stepped(platform, workload, "first-random", 10)
    middle = sim.fork(create("first-random"), keep_future=True)
    for _ in range(10):
        step = middle.advance()
        middle.apply(middle.scheduler.decide(step.now, step.events))
    inner = middle.fork(create("first-random"), keep_future=True)
    same(inner.run(), alone)
    same(middle.run(), alone)
    same(sim.run(), alone)


def test_a_fork_keeping_the_future_of_a_fork_that_forgot_it_has_none() -> None:
    platform, workload = bundled()
    sim = stepped(platform, workload, "fcfs", 5)
    forgot = sim.fork()
    result = forgot.fork(create("fcfs"), keep_future=True).run()
    later = range(sim.known, len(workload.jobs))
    assert later and all(result.reason[i] == "submitted after the fork" for i in later)
    assert not sim.fork(create("fcfs"), keep_future=True).view.all_submitted
    assert forgot.view.all_submitted


def first_fit(view: ClusterView) -> Iterator[Start]:
    """A caller's policy: each pending one-node job, in order, on the first node that fits it
    (a generator: each start is applied before the next job is looked at)."""
    for job in list(view.pending.values()):
        row = view.fit_matrix([job])[0]
        if job.nodes == 1 and row.any():
            yield Start.on(job, int(row.argmax()))


def stepped_to_the_end(sim: Simulation) -> SimResult:
    while sim.advance() is not None:
        sim.apply(first_fit(sim.view))
    return sim.finish()


def test_a_checkpoint_restored_twice_runs_on_as_the_run_does() -> None:
    # the recipe of docs/architecture.md: saved = fork(keep_future=True) once, then each
    # restore a fork of it, stepped by the caller
    platform, workload = dag()
    expected = stepped_to_the_end(Simulation(platform, workload))
    sim = Simulation(platform, workload)
    for _ in range(15):
        sim.advance()
        sim.apply(first_fit(sim.view))
    saved = sim.fork(keep_future=True)
    same(stepped_to_the_end(sim), expected)
    same(stepped_to_the_end(saved.fork(keep_future=True)), expected)
    same(stepped_to_the_end(saved.fork(keep_future=True)), expected)
