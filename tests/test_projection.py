"""The node-local what-if (``ClusterView.project``) against the engine itself: on random
cases, the ends it predicts for the jobs on a node, a new job started there included, equal
those of a fork of the run in which that job starts there and nothing else does."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.sim.engine import Simulation
from hetsched.sim.protocol import Start
from hetsched.workload.model import Job, Workload


def platform(sockets: int, oversubscription: int) -> Platform:
    """Three nodes of 8 cores on ``sockets`` processors of 40 GB/s each."""
    kind = NodeType.of_processors("s", 2.0, tuple(Processor(8 // sockets, mem_bw_gbs=40.0)
                                                  for _ in range(sockets)))
    kind = NodeType(kind.name, kind.cores, kind.clock_ghz, processors=kind.processors,
                    oversubscription=oversubscription)
    return Platform.from_counts("p", [(kind, 3)])


def workload(rng: np.random.Generator, jobs: int, deviations: bool = False) -> Workload:
    """Random jobs; with ``deviations``, each with a ``cpu_util_sd`` too (drawn last)."""
    return Workload("w", [Job(f"j{i}", float(rng.integers(0, 60)), int(rng.integers(1, 9)),
                              float(rng.uniform(1e10, 2e11)), 100.0,
                              mem_bw_gbs=float(rng.uniform(0, 12)),
                              cpu_util=float(rng.uniform(0.5, 1.0)),
                              cpu_util_sd=float(rng.uniform(0, 0.9)) if deviations else 0.0)
                          for i in range(jobs)])


def started_until_a_new_job_waits(sim: Simulation, rng: np.random.Generator):
    """Run, starting each pending job on a random node where its threads fit, up to an
    instant at which a job that fits is left waiting: that job (the run is at that instant)."""
    while sim.advance() is not None:
        view = sim.view
        for job in list(view.pending.values()):
            fit = np.flatnonzero(view.fit_mask(job))
            if not fit.size:
                continue  # it waits for room
            if rng.random() < 0.15:
                return job
            sim.apply([Start.on(job, int(rng.choice(fit)))])
        sim.apply([])
    return None


def forked_ends(sim: Simulation, job: Job, node: int) -> dict[int, float]:
    """The ends of the jobs on ``node`` in a fork where ``job`` starts there now and nothing
    else ever starts."""
    fork = sim.fork()
    on_node = {*sim.view.running_on(node), job.index}
    fork.apply([Start.on(job, node)])
    while fork.advance() is not None:
        fork.apply([])
    result = fork.finish()
    return {index: float(result.end[index]) for index in on_node}


@pytest.mark.parametrize("contention, sockets", [("deside", 1), ("deside", 2), ("irmasim", 2),
                                                 ("none", 2), ("irmasim", 1),
                                                 ("deside_stochastic", 1),
                                                 ("deside_stochastic", 2)])
@pytest.mark.parametrize("seed", range(12))
def test_the_projection_is_the_forks(contention: str, sockets: int, seed: int) -> None:
    """(Under ``deside_stochastic`` the jobs' times vary, and the run's seed draws them.)"""
    rng = np.random.default_rng(seed)
    sim = Simulation(platform(sockets, 2),
                     workload(rng, 40, deviations=contention == "deside_stochastic"), None,
                     contention=contention, seed=seed)
    job = started_until_a_new_job_waits(sim, rng)
    if job is None:
        pytest.skip("every job started")  # never with these sizes, kept honest
    compared = 0
    for node in range(3):
        if not sim.view.fits(job, node):
            continue
        predicted = sim.view.project(node, [job])
        assert predicted == pytest.approx(forked_ends(sim, job, node), rel=1e-12, abs=1e-9)
        compared += 1
    assert compared


def test_without_a_new_job_it_predicts_the_running_ones() -> None:
    rng = np.random.default_rng(5)
    sim = Simulation(platform(1, 2), workload(rng, 30), None, contention="deside")
    started_until_a_new_job_waits(sim, rng)
    for node in range(3):
        predicted = sim.view.project(node)
        assert set(predicted) == set(sim.view.running_on(node))
        for index, end in predicted.items():  # nothing new: each ends no later than now
            assert end >= sim.view.now  # predicted, and never in the past


@pytest.mark.parametrize("contention", [None, "none", "deside", "irmasim", "deside_stochastic"])
def test_a_walltime_kill_ends_a_job_in_the_projection_as_in_the_run(contention) -> None:
    node = NodeType("n", 4, 2.0)
    work = Workload("w", [Job("a", 0.0, 2, 1e11, 100.0, walltime=10.0)])
    sim = Simulation(Platform.from_counts("p", [(node, 1)]), work, None, walltime="kill",
                     contention=contention)
    sim.advance()
    [job] = sim.view.pending.values()
    assert sim.view.project(0, [job]) == forked_ends(sim, job, 0) == {0: 10.0}


def test_a_fixed_duration_job_runs_its_duration_in_the_projection() -> None:
    """Batsim's delays run the same time on every node (speed 1), with no model too."""
    work = Workload("w", [Job("a", 0.0, 2, 100.0, 100.0, fixed_duration=True)])
    sim = Simulation(Platform.from_counts("p", [(NodeType("n", 4, 2.0), 1)]), work, None)
    sim.advance()
    [job] = sim.view.pending.values()
    assert sim.view.project(0, [job]) == forked_ends(sim, job, 0) == {0: 100.0}
