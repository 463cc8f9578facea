"""``ClusterView.fit_matrix``: every (job, node) pair at once, equal element by element to
``ClusterView.fits`` pair by pair, on states reached by random runs: the bundled example, and
random platforms with memory and disk limits, oversubscription, on-demand nodes, reservations,
a failure and bookings, with jobs that fit nowhere among those asked about."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.errors import SchedulerError
from hetsched.platform.model import Failure, NodeType, Platform, Reservation
from hetsched.schedulers import create
from hetsched.sim.engine import Simulation
from hetsched.sim.view import ClusterView
from hetsched.workload.model import SPREAD, Job, Workload
from test_engine_core import bundled

TYPES = (NodeType("small", cores=4, clock_ghz=1.0, memory_mb=1000, disk_mb=500),
         NodeType("shared", cores=2, clock_ghz=2.0, memory_mb=3000, disk_mb=800,
                  oversubscription=2),
         NodeType("off", cores=8, clock_ghz=1.5, memory_mb=2000, disk_mb=1000, boot_time=60,
                  on_demand=True))


def random_case(seed: int) -> tuple[Platform, Workload]:
    rng = np.random.default_rng(seed)
    nodes = Platform.from_counts("p", [(t, int(rng.integers(1, 4))) for t in TYPES]).nodes
    held = [Reservation(node, start, start + float(rng.uniform(10, 300)),
                        int(rng.integers(1, 3)))
            for node in range(len(nodes)) if rng.random() < 0.5
            for start in [float(rng.uniform(0, 600))]]
    failures = (Failure(int(rng.integers(0, len(nodes))), 200.0, 350.0),)
    jobs = sorted((random_job(rng, f"j{i}", float(rng.uniform(0, 500))) for i in range(40)),
                  key=lambda job: job.submit)
    return Platform("p", nodes, reservations=tuple(held), failures=failures), \
        Workload("w", tuple(jobs))


def random_job(rng: np.random.Generator, id: str, submit: float) -> Job:
    ntasks = int(rng.integers(1, 7))
    seconds = float(rng.uniform(10, 200))
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=int(rng.choice([1, 1, 1, 2, SPREAD])) if ntasks > 1 else 1,
               memory_mb=float(rng.choice([0, 0, 300, 700, 999.9, 2500])),
               disk_mb=float(rng.choice([0, 0, 100, 450])))


def never(platform: Platform) -> list[Job]:
    """Jobs that fit on no node: more tasks than any node has slots, more memory or disk than
    any node has (where every node's is limited)."""
    jobs = [Job(id="wide", submit=0, ntasks=platform.max_node_slots + 1, req_ops=1e9,
                req_time=1)]
    for field, sizes in (("memory_mb", platform.arrays.memory_mb),
                         ("disk_mb", platform.arrays.disk_mb)):
        if np.isfinite(sizes).all():
            jobs.append(Job(id=field, submit=0, ntasks=2, req_ops=1e9, req_time=1,
                            **{field: float(sizes.max()) + 1}))  # type: ignore[arg-type]
    return jobs


def pairwise(view: ClusterView, jobs: list[Job], cores: list[int] | None) -> np.ndarray:
    nodes = range(len(view.platform.nodes))
    return np.array([[view.fits(job, node, None if cores is None else cores[i])
                      for node in nodes] for i, job in enumerate(jobs)], dtype=bool)


def checked_along(platform: Platform, workload: Workload, scheduler: str, seed: int) -> int:
    """Step a run of ``scheduler``; at every instant compare the matrix with the pairs for the
    pending jobs, the workload's next jobs and jobs that fit nowhere. The instants checked."""
    rng = np.random.default_rng(seed)
    sim = Simulation(platform, workload, create(scheduler), seed=seed)
    sim._begin()
    checked = 0
    while (step := sim.advance()) is not None:
        view = sim.view
        jobs = [*list(view.pending.values())[:16], *workload.jobs[:8], *never(platform)]
        for cores in (None, [int(rng.integers(1, job.ntasks + 1)) for job in jobs]):
            matrix = view.fit_matrix(jobs, cores)
            assert matrix.dtype == bool and matrix.shape == (len(jobs), len(platform.nodes))
            np.testing.assert_array_equal(matrix, pairwise(view, jobs, cores))
        assert not view.fit_matrix(never(platform)).any()
        sim.apply(sim.scheduler.decide(step.now, step.events))
        checked += 1
    return checked


@pytest.mark.parametrize("scheduler", ["first-random", "easy"])
def test_the_matrix_is_fits_pair_by_pair_on_the_bundled_example(scheduler: str) -> None:
    platform, workload = bundled()
    assert checked_along(platform, workload, scheduler, 1) > 50


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("scheduler", ["first-random", "coalloc"])
def test_the_matrix_is_fits_pair_by_pair_with_memory_reservations_and_boots(
        seed: int, scheduler: str) -> None:
    platform, workload = random_case(seed)
    assert checked_along(platform, workload, scheduler, seed) > 10


def test_bookings_and_reservations_narrow_the_matrix_as_they_narrow_fits() -> None:
    # the random cases do reach states where the look-ahead matters: a job that fits the free
    # slots now but not until its reserved end
    narrowed = 0
    for seed in range(8):
        platform, workload = random_case(seed)
        sim = Simulation(platform, workload, create("coalloc"), seed=seed)
        sim._begin()
        while (step := sim.advance()) is not None:
            view, jobs = sim.view, list(workload.jobs)
            now_only = np.array([[job.ntasks <= view.free_slots[node]
                                  for node in range(len(platform.nodes))] for job in jobs])
            narrowed += int((now_only & ~view.fit_matrix(jobs)).any())
            sim.apply(sim.scheduler.decide(step.now, step.events))
    assert narrowed > 0


def test_no_jobs_give_an_empty_matrix_and_a_wrong_count_of_cores_is_one_line() -> None:
    platform, workload = random_case(0)
    view = Simulation(platform, workload).view
    assert view.fit_matrix([]).shape == (0, len(platform.nodes))
    with pytest.raises(SchedulerError, match="^fit_matrix\\(\\): 1 core counts for 2 jobs$"):
        view.fit_matrix(workload.jobs[:2], [1])
