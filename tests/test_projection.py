"""The node-local what-if (``ClusterView.project``) against the engine itself: on random
cases, the ends it predicts for the jobs on a node, a new job started there included, equal
those of a fork of the run in which that job starts there and nothing else does."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.platform.model import Failure, NodeType, Platform, Processor
from hetsched.errors import SchedulerError
from hetsched.sim import projection
from hetsched.sim.engine import Simulation
from hetsched.sim.events import Availability
from hetsched.sim.protocol import Enqueue, Start
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


def mixed_platform() -> Platform:
    """Two always-on nodes of 2 sockets and two on-demand ones booting in 30 s."""
    sockets = tuple(Processor(4, mem_bw_gbs=40.0) for _ in range(2))
    base = NodeType.of_processors("on", 2.0, sockets)
    on = NodeType(base.name, base.cores, base.clock_ghz, processors=sockets,
                  oversubscription=2)
    demand = NodeType("demand", base.cores, 3.0, processors=sockets, oversubscription=2,
                      on_demand=True, boot_time=30.0)
    return Platform.from_counts("mixed", [(on, 2), (demand, 2)])


def mixed_workload(rng: np.random.Generator, jobs: int) -> Workload:
    """Jobs of 1 to 8 tasks, a third of them over exactly 2 nodes."""
    made = []
    for i in range(jobs):
        two = rng.random() < 0.3
        made.append(Job(f"j{i}", float(rng.integers(0, 60)), 2 * int(rng.integers(1, 5)) if two
                        else int(rng.integers(1, 9)), float(rng.uniform(1e10, 2e11)), 100.0,
                        nodes=2 if two else 1, mem_bw_gbs=float(rng.uniform(0, 12)),
                        cpu_util=float(rng.uniform(0.5, 1.0))))
    return Workload("w", made)


def mixed_decisions(view, job: Job, rng: np.random.Generator) -> list:
    """Start ``job`` on random nodes where it fits, or queue it on a node, or neither."""
    if job.nodes == 2:
        fit = np.flatnonzero(view.fit_mask(job, job.ntasks // 2))
        if fit.size < 2:
            return []
        pair = rng.choice(fit, 2, replace=False)
        return [Start(job, tuple((int(n), job.ntasks // 2) for n in pair))]
    if rng.random() < 0.2:
        return [Enqueue(job, int(rng.integers(0, 4)))]
    fit = np.flatnonzero(view.fit_mask(job))
    return [Start.on(job, int(rng.choice(fit)))] if fit.size else []


def waiting_job(sim: Simulation, rng: np.random.Generator) -> Job | None:
    """Run with :func:`mixed_decisions` up to an instant at which a one-node job that fits
    somewhere is left waiting after some instants: that job."""
    instants = 0
    while sim.advance() is not None:
        instants += 1
        for job in list(sim.view.pending.values()):
            if job.nodes == 1 and instants > 4 and sim.view.fit_mask(job).any():
                return job
            sim.apply(mixed_decisions(sim.view, job, rng))
        sim.apply([])
    return None


@pytest.mark.parametrize("contention", ["deside", "irmasim", "none", None])
@pytest.mark.parametrize("seed", range(10))
def test_the_what_if_is_the_runs_on_booting_nodes_local_queues_and_multi_node_jobs(
        contention: str | None, seed: int) -> None:
    """Nodes that boot, local queues the engine drains, jobs whose rates change with other
    nodes, availability changes and failures ahead: ``project`` still gives the run's ends."""
    rng = np.random.default_rng(100 + seed)
    changes = [Availability(float(rng.integers(10, 200)), int(rng.integers(0, 4)),
                            int(rng.integers(4, 9))) for _ in range(3)]
    failures = [Failure(int(rng.integers(0, 4)), float(rng.integers(100, 300)),
                        float(rng.integers(300, 500))) for _ in range(2)]
    sim = Simulation(mixed_platform(), mixed_workload(rng, 40), None, contention=contention,
                     availability=changes, failures=failures)
    job = waiting_job(sim, rng)
    assert job is not None
    compared = 0
    for node in range(4):
        if sim.view.fits(job, node):
            assert sim.view.project(node, [job]) == pytest.approx(
                forked_ends(sim, job, node), rel=1e-12, abs=1e-9)
            compared += 1
        assert sim.view.project(node) == pytest.approx(
            forked_ends_without(sim, node), rel=1e-12, abs=1e-9)
    assert compared


def forked_ends_without(sim: Simulation, node: int) -> dict[int, float]:
    """The ends of the jobs on ``node`` in a fork where nothing else ever starts."""
    fork = sim.fork()
    on_node = set(sim.view.running_on(node))
    while fork.advance() is not None:
        fork.apply([])
    result = fork.finish()
    return {index: float(result.end[index]) for index in on_node}


def test_the_node_alone_would_miss_a_boot_and_a_rate_set_by_another_node() -> None:
    """The cases the fork covers are ones the node-local shortcut gets wrong: a job started
    on a node that is off begins at its boot's end; a two-node job speeds up when the other
    node's contention ends."""
    platform = mixed_platform()
    work = Workload("w", [Job("wide", 0.0, 8, 1e12, 100.0, nodes=2, mem_bw_gbs=10.0),
                          Job("hog", 0.0, 8, 2e11, 100.0, mem_bw_gbs=10.0),
                          Job("new", 0.0, 2, 1e11, 100.0)])
    sim = Simulation(platform, work, None, contention="deside")
    sim.advance()
    wide, hog, new = work.jobs
    sim.apply([Start(wide, ((0, 4), (1, 4))), Start.on(hog, 1)])
    node_alone = projection.project(sim.state, sim.contention, sim._speed, 0, sim.view.now,
                                    [new], sim.dirty, sim.kills)
    assert sim.view.project(0, [new]) == pytest.approx(forked_ends(sim, new, 0), rel=1e-12)
    assert node_alone[wide.index] != pytest.approx(forked_ends(sim, new, 0)[wide.index])
    booted = sim.view.project(2, [new])
    assert booted == pytest.approx(forked_ends(sim, new, 2), rel=1e-12)
    assert booted[new.index] == pytest.approx(30.0 + 1e11 / 3e9)


def test_a_what_if_on_a_node_that_does_not_exist_is_a_one_line_error() -> None:
    sim = Simulation(platform(1, 1), workload(np.random.default_rng(0), 3), None)
    sim.advance()
    with pytest.raises(SchedulerError, match=r"no node 7 \(the nodes are 0 to 2\)"):
        sim.view.project(7)
