"""Batch-mode mapping schedulers in the simulator, their machine model, and the thesis study."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.experiments.batch_mapping import StudySettings, aggregate, run_study
from hetsched.mapping.astar_nodes import astar_on
from hetsched.mapping.greedy import LIST_HEURISTICS
from hetsched.mapping.machines import CoreSlots, ReadyTimes
from hetsched.mapping.tree_search import astar
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.schedulers.batch import MULTI_NODE_REASON
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.workload.model import Job, Workload
from support import assert_one_line_error

SLOW = NodeType("slow", 1, 1.0)  # 1 core, 1e9 ops/s
FAST = NodeType("fast", 1, 2.0)  # 1 core, 2e9 ops/s
DUO = NodeType("duo", 2, 1.0)    # 2 cores, 1e9 ops/s each


def job(id: str, submit: float, seconds: float, ntasks: int = 1, nodes: int = 1) -> Job:
    """``seconds`` on a 1 GHz core, estimated exactly (the slowest node here is 1 GHz)."""
    return Job(id, submit, ntasks, seconds * 1e9, seconds, nodes=nodes)


def schedule(types, jobs, scheduler: str) -> dict[str, tuple[float, float, int]]:
    """job id -> (start, end, node) under ``scheduler``."""
    result = simulate(Platform.from_counts("p", types), Workload("w", tuple(jobs)),
                      create(scheduler))
    return {j.id: (float(result.start[j.index]), float(result.end[j.index]),
                   result.allocation[j.index][0][0]) for j in result.workload.jobs}


# ---- one batch on single-core nodes: the classic problem ------------------------------------

JOBS_ABC = [job("a", 0, 4), job("b", 0, 2), job("c", 0, 6)]  # ETC slow: 4 2 6, fast: 2 1 3


def test_min_min_in_the_simulator() -> None:
    # b (CT fast 1) -> fast [0,1]; a (CT fast 1+2=3) -> fast [1,3]; c: slow 6 = fast 3+3=6,
    # the tie goes to the lower index -> slow [0,6]
    assert schedule([(SLOW, 1), (FAST, 1)], JOBS_ABC, "min_min") == {
        "a": (1.0, 3.0, 1), "b": (0.0, 1.0, 1), "c": (0.0, 6.0, 0)}


def test_max_min_and_duplex_in_the_simulator() -> None:
    # c (least CT 3, the largest) -> fast [0,3]; a: slow 4 < fast 3+2 -> slow [0,4];
    # b: slow 4+2=6 > fast 3+1=4 -> fast [3,4]. Duplex keeps Max-min (makespan 4 < 6).
    expected = {"a": (0.0, 4.0, 0), "b": (3.0, 4.0, 1), "c": (0.0, 3.0, 1)}
    assert schedule([(SLOW, 1), (FAST, 1)], JOBS_ABC, "max_min") == expected
    assert schedule([(SLOW, 1), (FAST, 1)], JOBS_ABC, "duplex") == expected


@pytest.mark.parametrize("name", ["astar", "ga:time_limit=1", "milp:time_limit=5"])
def test_core_level_heuristics_find_the_optimum_of_a_small_batch(name: str) -> None:
    # the optimum of JOBS_ABC is makespan 4 (Max-min's); every job ends by then
    ends = [end for _, end, _ in schedule([(SLOW, 1), (FAST, 1)], JOBS_ABC, name).values()]
    assert max(ends) == pytest.approx(4.0)


# ---- multi-core nodes: k earliest-free cores, FIFO local queues -----------------------------

def test_a_k_task_job_waits_for_its_k_earliest_free_cores() -> None:
    # t=0: x1 (10 s) and x2 (4 s) take both cores of the duo node; its cores free at 4 and 10.
    # t=1: p (1 task, 3 s) ready at 4 -> CT 7; q (2 tasks, 1 s) ready at 10 -> CT 11.
    jobs = [job("x1", 0, 10), job("x2", 0, 4), job("p", 1, 3), job("q", 1, 1, ntasks=2)]
    # Min-min: p first (7 < 11): p [4,7], then q [10,11]
    low = schedule([(DUO, 1)], jobs, "min_min")
    assert (low["p"][:2], low["q"][:2]) == ((4.0, 7.0), (10.0, 11.0))
    # Max-min: q first (11 > 7), queued ahead of p; p may not pass it (FIFO, no backfilling)
    # although a core is free at 4: q [10,11], p [11,14]
    high = schedule([(DUO, 1)], jobs, "max_min")
    assert (high["q"][:2], high["p"][:2]) == ((10.0, 11.0), (11.0, 14.0))


def test_queued_jobs_are_not_replanned_unless_asked() -> None:
    # t=0: A, B, C (8 s slow, 4 s fast). Min-min: A fast [0,4], B slow [0,8], C queued on
    # fast [4,8]. t=1: D (2 s slow, 1 s fast).
    jobs = [job("A", 0, 8), job("B", 0, 8), job("C", 0, 8), job("D", 1, 2)]
    # kept plan: fast is free from 8 (after C), slow from 8 -> D fast (CT 9) [8,9]
    kept = schedule([(SLOW, 1), (FAST, 1)], jobs, "min_min")
    assert (kept["C"][:2], kept["D"][:2]) == ((4.0, 8.0), (8.0, 9.0))
    # re-planned: C is taken back; D (CT fast 5) goes first [4,5], then C fast [5,9]
    moved = schedule([(SLOW, 1), (FAST, 1)], jobs, "min_min:replan=true")
    assert (moved["D"][:2], moved["C"][:2]) == ((4.0, 5.0), (5.0, 9.0))


def test_multi_node_jobs_are_rejected_with_a_reason() -> None:
    jobs = (job("wide", 0, 5, ntasks=2, nodes=2), job("ok", 0, 5))
    result = simulate(Platform.from_counts("p", [(SLOW, 2)]), Workload("w", jobs),
                      create("min_min"))
    wide = result.workload.by_id["wide"].index
    assert result.state[wide] == JobState.REJECTED and result.reason[wide] == MULTI_NODE_REASON
    assert result.count(JobState.FINISHED) == 1


def test_core_level_heuristics_refuse_multi_task_jobs() -> None:
    jobs = (job("w", 0, 5, ntasks=2),)
    with pytest.raises(ConfigError, match="job 'w' has 2 tasks"):
        simulate(Platform.from_counts("p", [(DUO, 1)]), Workload("w", jobs),
                 create("tabu:budget=5"))


def test_astar_maps_multi_task_jobs_on_the_k_earliest_free_cores_of_one_node() -> None:
    # duo (node 0: 2 cores, 1 GHz), fast (node 1: 1 core, 2 GHz). At 0: j0 (2 tasks, 4 s),
    # j1 (6 s), j2 (2 s); ETC duo 4 6 2, fast inf 3 1; 3 cores in all.
    # root: j0 fits duo only: child (j0 duo) has cores duo 4 4, fast 0, g 4; least CTs
    # j1 3 (fast), j2 1 (fast): mmct 3, h1 0; smet 3 + 1 = 4, sdma 3*4 - 8 = 4, h2 0: f 4.
    # j1 duo: g 10, f 10; j1 fast: cores 4 4 | 3, g 4, j2's least CT 4 (fast 3+1), h1 0,
    # sdma 12 - 11 = 1 >= smet 1, f 4. j2 duo: ends 4+2 = 6, f 6; j2 fast: ends 4, f 4: done.
    jobs = [job("j0", 0, 4, ntasks=2), job("j1", 0, 6), job("j2", 0, 2)]
    for name in ("astar", "astar:node_limit=128"):
        assert schedule([(DUO, 1), (FAST, 1)], jobs, name) == {
            "j0": (0.0, 4.0, 0), "j1": (0.0, 3.0, 1), "j2": (3.0, 4.0, 1)}


@pytest.mark.parametrize("name", ["ga:budget=20", "gsa:budget=20", "sa:budget=200"])
def test_ga_gsa_sa_map_multi_task_jobs_on_one_node_queued_in_index_order(name: str) -> None:
    # the case above: j0 (2 tasks) only fits duo. Mappings (j0, j1, j2) committed in index
    # order: (duo, fast, fast): j1 [0,3], j2 [3,4], makespan 4; (duo, duo, fast): j1 waits
    # for j0's cores [4,10]; (duo, fast, duo): j2 [4,6]; (duo, duo, duo): 4+6+2 = 12. The
    # best is the first, and the jobs are queued in index order: j1 ahead of j2 on fast
    # (Min-min, the GA's seed, queues j2 first: j2 [0,1], j1 [1,4]; SA starts at random).
    jobs = [job("j0", 0, 4, ntasks=2), job("j1", 0, 6), job("j2", 0, 2)]
    assert schedule([(DUO, 1), (FAST, 1)], jobs, name) == {
        "j0": (0.0, 4.0, 0), "j1": (0.0, 3.0, 1), "j2": (3.0, 4.0, 1)}
    assert schedule([(DUO, 1), (FAST, 1)], jobs, "min_min")["j2"] == (0.0, 1.0, 1)


def test_core_slots_makespans_are_the_commits_in_index_order() -> None:
    # duo's cores free at 0 and 5, fast's at 1; FIFO bounds 0. Tasks: 2 cores 3 s on duo,
    # then 1 core 2 s (duo 2 s, fast 1 s).
    etc = np.array([[3.0, np.inf], [2.0, 1.0]])
    state = CoreSlots(etc, [2, 1], [np.array([0.0, 5.0]), np.array([1.0])], np.zeros(2))
    # (duo, duo): t0 [5,8] both cores, t1 FIFO after t0 [8,10] -> 10
    # (duo, fast): t0 [5,8], t1 [1,2] -> 8; (fast, *): t0 cannot run there -> inf
    pop = np.array([[0, 0], [0, 1], [1, 1]])
    assert state.makespans(pop).tolist() == [10.0, 8.0, np.inf]


def test_astar_waits_for_cores_busy_with_running_jobs() -> None:
    # two duo nodes. At 0: r (1 task, 5 s) -> node 0 (one job, either node; tie: lowest).
    # At 1: a (2 tasks, 2 s), b (1 task, 3 s), c (2 tasks, 1 s). Cores: node 0: 1, 5;
    # node 1: 1, 1 (free from now). ETC = run time on both.
    # a (depth 0): node 0 starts at 5 (its 2nd core) -> 7, g 7: f >= 7; node 1: [1,3],
    # cores 0: 1 5 | 1: 3 3, g 5. b on node 0 [1,4] (cores 4 5), on node 1 [3,6];
    # c on node 0 [5,6] (after b: cores 4,5 -> 5), on node 1 [3,4]. Best leaf: a node 1,
    # b node 0 [1,4], c node 1 [3,4]: makespan 5 (r's end), the only leaf that ends by 5
    # (a on node 1 and b there too: 6; c on node 0: 6).
    jobs = [job("r", 0, 5), job("a", 1, 2, ntasks=2), job("b", 1, 3), job("c", 1, 1, ntasks=2)]
    got = schedule([(DUO, 2)], jobs, "astar")
    assert got == {"r": (0.0, 5.0, 0), "a": (1.0, 3.0, 1), "b": (1.0, 4.0, 0),
                   "c": (3.0, 4.0, 1)}


def test_bad_batch_options_are_one_line_errors() -> None:
    runner = CliRunner()
    for spec, fragment in [("min_min:time_limit=3", "takes no time_limit"),
                           ("min_min:node_limit=3", "takes no option node_limit"),
                           ("astar:percent=10", "takes no option percent")]:
        result = runner.invoke(app, ["run", "-s", spec, "--quiet"])
        assert_one_line_error(result, fragment)


# ---- the machine models agree where they coincide -------------------------------------------

@pytest.mark.parametrize("name", sorted(LIST_HEURISTICS))
def test_core_slots_on_single_core_machines_is_the_classic_model(name: str) -> None:
    rng = np.random.default_rng(7)
    etc = rng.uniform(1, 100, size=(40, 5))
    ready = rng.uniform(0, 50, size=5)
    classic = LIST_HEURISTICS[name](ReadyTimes(etc, ready))
    slots = LIST_HEURISTICS[name](CoreSlots(etc, np.ones(40, np.int64),
                                            [np.array([r]) for r in ready], np.zeros(5)))
    assert np.array_equal(classic.assignment, slots.assignment)
    assert np.array_equal(classic.sequence, slots.sequence)


# ---- the thesis study --------------------------------------------------------------------------

FAST_SET = ("fcfs", "random-random", "shortest-high_gflops", "min_min", "max_min", "duplex")


@pytest.mark.slow
def test_the_thesis_study_reproduces_its_ranges_and_ranking() -> None:
    # requested times on a 1 GHz reference: the thesis' published ranges
    rows = aggregate(run_study(range(5), schedulers=FAST_SET,
                               settings=StudySettings(reference_ghz=1.0)))
    ranges = {"low": (8_000, 10_000), "high": (2_100, 3_500)}
    for level, (low, high) in ranges.items():
        mine = {r["scheduler"]: r for r in rows if r["level"] == level}
        assert all(low <= r["makespan"] <= high for r in mine.values()), level
        best = min(r["makespan"] for r in mine.values())
        assert mine["max_min"]["makespan"] == mine["duplex"]["makespan"] == best
        assert min(mine["fcfs"]["makespan"], mine["random-random"]["makespan"]) > best
        least = min(r["mean_slowdown"] for r in mine.values())
        assert least == mine["shortest-high_gflops"]["mean_slowdown"]


def test_study_command_writes_tables_csv_and_a_chart(tmp_path) -> None:
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["study", "batch-mapping", "--seeds", "1", "-s",
                                      "fcfs,min_min", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "low heterogeneity" in result.stdout and "min_min" in result.stdout
    runs = (out / "runs.csv").read_text().splitlines()
    assert runs[0].startswith("level,seed,scheduler,makespan") and len(runs) == 1 + 2 * 2
    assert (out / "bars.png").stat().st_size > 10_000


@pytest.mark.parametrize("options, fragment", [
    (["-s", ""], "--scheduler names no scheduler"),
    (["-s", " , "], "--scheduler names no scheduler"),
    (["--seeds", "1000000000", "-s", "fcfs"], "more than 10,000,000"),
])
def test_study_command_refuses_no_scheduler_and_too_many_runs(options: list[str],
                                                              fragment: str) -> None:
    result = CliRunner().invoke(app, ["study", "batch-mapping", *options])
    assert_one_line_error(result, fragment)


@pytest.mark.parametrize("node_limit", [4, 128])
def test_astar_on_single_core_machines_is_the_classic_astar(node_limit: int) -> None:
    rng = np.random.default_rng(3)
    etc = rng.uniform(1, 100, size=(30, 5)).round()
    ready = rng.uniform(0, 50, size=5).round()
    classic = astar(etc, ready, node_limit=node_limit)
    nodes = astar_on(CoreSlots(etc, np.ones(30, np.int64), [np.array([r]) for r in ready],
                               ready), node_limit=node_limit)
    assert np.array_equal(classic.assignment, nodes.assignment)
    assert classic.info == nodes.info


def test_astar_on_multi_core_nodes_finds_the_best_mapping_when_it_may_search_all() -> None:
    # unbounded search, no pruning: the leaf it returns is the least makespan over every
    # mapping of the jobs committed in index order (brute force), so f never overestimates
    rng = np.random.default_rng(5)
    for _ in range(100):
        m, n = int(rng.integers(1, 4)), int(rng.integers(1, 6))
        cores = rng.integers(1, 4, m)
        tasks = rng.integers(1, cores.max() + 1, n)
        etc = np.outer(rng.uniform(1, 10, n), 1 / rng.uniform(1, 3, m))
        etc[tasks[:, None] > cores[None, :]] = np.inf
        free = [np.sort(rng.uniform(0, 5, c)) for c in cores]

        def machines() -> CoreSlots:
            return CoreSlots(etc, tasks, [f.copy() for f in free], np.zeros(m))

        best = np.inf
        for assign in itertools.product(range(m), repeat=n):
            if np.isfinite(etc[np.arange(n), assign]).all():
                state = machines()
                for i, j in enumerate(assign):
                    state.commit(i, j)
                best = min(best, state.loads().max())
        state = machines()
        astar_on(state, node_limit=10**6, max_expansions=None)
        assert state.loads().max() == pytest.approx(best)
