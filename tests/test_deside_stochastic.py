"""``deside_stochastic``: DESiDE's busy and idle times drawn per interval, seeded by the run.

Per job (models/contention/intervals.py), with a thread's busy and idle sums ``A``, ``B`` of
``n = ceil(T0 / 0.1 s)`` draws uniform on ``[-1, 1]`` (mean 0, variance ``n / 3``), its time
alone over ``T0`` is ``w = 1 + sigma (U A + (1 - U) B) / n``, and the job runs at its slowest
thread's. A job alone on a node, asking for no bandwidth, runs ``T0 * w``.

Statistical checks: ``N`` independent draws; a mean is within 4 standard errors of the
predicted one, a variance within ``4 * sqrt(2 / (N - 1))`` of the predicted one, relatively
(the standard error of a normal sample's variance); each fails by chance about once in 10^4.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.experiments import deside as study
from hetsched.models.contention import Group, create
from hetsched.models.contention.intervals import N_EXACT, intervals, slowest_threads
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create as scheduler
from hetsched.sim.engine import Simulation, model_generator, simulate
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of

T0 = 60.0  # seconds alone: 600 intervals of 0.1 s


def alone(seconds: float, threads: int = 1, util: float = 0.8, sd: float = 0.3) -> Workload:
    """One job, alone on a node of 8 cores and no bandwidth limit: no contention."""
    return Workload("w", [Job("a", 0.0, threads, seconds * 2e9, seconds, cpu_util=util,
                              cpu_util_sd=sd)])


NODE = Platform.from_counts("p", [(NodeType("n", 8, 2.0), 1)])


def run_times(work: Workload, seeds: range) -> np.ndarray:
    return np.array([float(simulate(NODE, work, scheduler("fcfs"), seed=seed,
                                    contention="deside_stochastic").end[0]) for seed in seeds])


def assert_mean_and_variance(sample: np.ndarray, mean: float, variance: float) -> None:
    size = sample.size
    assert abs(sample.mean() - mean) < 4 * math.sqrt(variance / size)
    assert sample.var(ddof=1) / variance == pytest.approx(1.0, abs=4 * math.sqrt(2 / (size - 1)))


def stream_dag(servers: int, sd: float | None = None) -> tuple[Platform, Workload]:
    """The study's DAG-1 on ``servers`` servers (its jobs' deviations set to ``sd``)."""
    on = study.platform(servers)
    work = study.dag("DAG-1", on)
    if sd is not None:
        work = replace(work, jobs=tuple(replace(j, cpu_util_sd=sd) for j in work.jobs))
    return on, work


# ---- seeds ------------------------------------------------------------------------------------
def test_the_same_seed_gives_the_same_run_and_other_seeds_other_makespans() -> None:
    # Alone, the job runs T0 * w, w drawn from a continuous law: two seeds never agree.
    first, again = run_times(alone(T0), range(3)), run_times(alone(T0), range(3))
    assert first.tolist() == again.tolist()
    assert len(set(first.tolist())) == 3 and not (first == T0).any()
    on, work = stream_dag(2)
    ends = [simulate(on, work, scheduler("mom"), seed=seed, contention="deside_stochastic").end
            for seed in (0, 0, 1)]
    assert np.array_equal(ends[0], ends[1]) and ends[0].max() != ends[2].max()


def test_the_model_draws_from_a_stream_of_its_own() -> None:
    """Not the scheduler's generator (``default_rng(seed)``): a policy's draws are the same
    whatever the model draws."""
    ours, schedulers = model_generator(7).random(4), np.random.default_rng(7).random(4)
    assert not np.isin(ours, schedulers).any()
    assert model_generator(7).random(4).tolist() == ours.tolist()


@pytest.mark.parametrize("servers", [2, 3])
def test_without_deviations_it_is_deside_bit_for_bit(servers: int) -> None:
    on, work = stream_dag(servers, sd=0.0)
    for name in ("slf", "let", "mom"):
        runs = [simulate(on, work, scheduler(name), seed=4, contention=model)
                for model in ("deside", "deside_stochastic")]
        assert np.array_equal(runs[0].end, runs[1].end)
        assert np.array_equal(runs[0].start, runs[1].start)
        assert runs[0].allocation == runs[1].allocation
    assert runs[1].contention == "deside_stochastic"


# ---- the draw's law -------------------------------------------------------------------------
def test_a_job_alone_runs_its_draw_with_the_predicted_mean_and_variance() -> None:
    # One thread, U = 0.8, sigma = 0.3, n = 600 (normal): w = 1 + 0.3 (0.8 A + 0.2 B) / 600,
    # Var(A) = Var(B) = 600 / 3 = 200 -> Var(w) = 0.09 * (0.64 + 0.04) * 200 / 600^2.
    times = run_times(alone(T0), range(2000))
    assert_mean_and_variance(times, T0, T0 ** 2 * 0.09 * 0.68 * 200 / 600 ** 2)


def test_a_short_job_is_drawn_exactly_within_its_range() -> None:
    # 0.3 s: n = 3 intervals, sums of 3 uniforms (exact): Var(A) = 1, Var(w) = 0.09 * 0.68 / 9;
    # w stays within [1 - sigma, 1 + sigma], the sums' range.
    times = run_times(alone(0.3), range(2000))
    assert intervals(np.array([0.3]), 0.1).tolist() == [3.0] and 3 <= N_EXACT
    assert_mean_and_variance(times, 0.3, 0.3 ** 2 * 0.09 * 0.68 / 9)
    assert (times >= 0.3 * 0.7).all() and (times <= 0.3 * 1.3).all()


def test_a_job_ends_with_the_slowest_of_its_threads() -> None:
    # Two threads, normal draw: L = 0.8 A + 0.2 B has sd s = sqrt(0.68 * 200); the slowest
    # thread's is s times the larger of two standard normals: mean 1 / sqrt(pi), variance
    # 1 - 1 / pi. w = 1 + 0.3 L / 600.
    times = run_times(alone(T0, threads=2), range(2000))
    s = math.sqrt(0.68 * 200)
    assert_mean_and_variance(times, T0 * (1 + 0.3 * s / 600 / math.sqrt(math.pi)),
                             (T0 * 0.3 * s / 600) ** 2 * (1 - 1 / math.pi))


def paper_draws(n: int, threads: int, util: float, sd: float, size: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The paper's procedure, literally: every interval's busy and idle times drawn uniformly
    in [(1 - sigma) t, (1 + sigma) t]; the slowest thread's time over T0, its busy share."""
    busy = rng.uniform((1 - sd) * util, (1 + sd) * util, (size, threads, n)).sum(axis=2) / n
    idle = rng.uniform((1 - sd) * (1 - util), (1 + sd) * (1 - util),
                       (size, threads, n)).sum(axis=2) / n
    slowest = np.argmax(busy + idle, axis=1)
    rows = np.arange(size)
    work = busy[rows, slowest] + idle[rows, slowest]
    return work, busy[rows, slowest] / work


@pytest.mark.parametrize("n", [1, 3, N_EXACT, 40])  # exact draws, then the normal law
def test_the_draws_follow_the_paper_s_intervals(n: int) -> None:
    size, threads, util, sd = 20000, 4, 0.7, 0.5
    ours = slowest_threads(np.full(size, n * 0.1), np.full(size, util), np.full(size, sd),
                           np.full(size, float(threads)), 0.1, np.random.default_rng(1))
    theirs = paper_draws(n, threads, util, sd, size, np.random.default_rng(2))
    for mine, paper in zip(ours, theirs):
        se = math.sqrt(mine.var() / size + paper.var() / size)
        assert abs(mine.mean() - paper.mean()) < 4 * se
        assert mine.var() / paper.var() == pytest.approx(1.0, abs=4 * math.sqrt(4 / size))


def test_many_threads_cost_no_more_than_few() -> None:
    """The normal draw takes the slowest of m threads at once: a million threads is one draw,
    its law that of the largest of a million normals (about 4.9 standard deviations)."""
    work, busy = slowest_threads(np.full(400, T0), np.full(400, 1.0), np.full(400, 0.3),
                                 np.full(400, 1e6), 0.1, np.random.default_rng(3))
    largest = (work - 1) / (0.3 * math.sqrt(200) / 600)
    assert 4.6 < largest.mean() < 5.2 and (busy == 1.0).all()


# ---- the engine: forks and what-ifs see the run's draws -------------------------------------
def test_a_fork_continues_as_the_run() -> None:
    on, work = stream_dag(2)
    whole = simulate(on, work, scheduler("let"), seed=3, contention="deside_stochastic")
    sim = Simulation(on, work, scheduler("let"), seed=3, contention="deside_stochastic")
    for _ in range(12):
        step = sim.advance()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    fork = sim.fork(scheduler("let"))
    assert fork.contention is sim.contention
    assert np.array_equal(fork.run().end, whole.end)


# ---- bad parameters -------------------------------------------------------------------------
@pytest.mark.parametrize("params", [
    {"interval": 0}, {"interval": -0.1}, {"interval": math.inf}, {"interval": math.nan},
    {"interval": True}, {"interval": "0.1"}, {"intervals": 0.1}, {"remote_fraction": 2.0},
    {"latency_ratio": 0.5},
])
def test_bad_parameters_are_one_line_config_errors(params: dict) -> None:
    with pytest.raises(ConfigError) as info:
        create("deside_stochastic", params)
    assert "'deside_stochastic'" in str(info.value) and "\n" not in str(info.value)


def test_the_model_draws_only_once_bound_to_a_run() -> None:
    model = create("deside_stochastic", {"interval": 0.5})
    job = alone(T0).jobs[0]
    group = [Group(job, 0, 1, T0)]
    with pytest.raises(ConfigError, match="bind it to a run first"):
        model.factors(NODE.node_types[0], group)
    bound = model.bind(NODE, alone(T0), model_generator(0))
    assert (bound.interval, bound.remote_fraction) == (0.5, 0.25) and model._work is None
    [factor] = bound.factors(NODE.node_types[0], group)
    assert factor == pytest.approx(1 / bound._work[0]) and factor != 1.0


def test_a_native_platform_names_it_with_its_parameters(tmp_path) -> None:
    text = ("name: p\ncontention: deside_stochastic\ncontention_params: {{interval: {}}}\n"
            "node_types:\n  - {{name: n, cores: 8, clock_ghz: 2.0, count: 1}}\n")
    (tmp_path / "p.yaml").write_text(text.format(0.5), encoding="utf-8")
    platform = load_platform(tmp_path / "p.yaml")
    sim = Simulation(platform, alone(T0), scheduler("fcfs"))
    assert (sim.contention_name, sim.contention.interval) == ("deside_stochastic", 0.5)
    (tmp_path / "p.yaml").write_text(text.format(0), encoding="utf-8")
    assert_mentions(error_of(load_platform, tmp_path / "p.yaml"), "p.yaml", "contention_params",
                    "interval must be a finite number of seconds > 0")
