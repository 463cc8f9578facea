"""Task graphs on the classic model: HEFT, CPOP and PEFT against the textbook examples (each
component on its own: ranks, the optimistic cost table, the critical path, every task's
processor, start and finish), and every heuristic's schedule against the model on random graphs.

Where the values come from: PEFT's paper (Arabnejad & Barbosa 2014) prints the OCT, rank_oct
and rank_u (Table 2), the PEFT trace (Table 3) and both Gantt charts (Fig. 2), read from the
paper. For Topcuoglu et al. 2002 the makespans (HEFT 80, CPOP 86) and rank_u(n1) = 108 are the
paper's; the per-task ranks and schedules are those of three independent implementations' tests
built on the same graph, which agree with each other and with a recomputation by hand (the 2002
paper itself could not be read here)."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.mapping.dag import (by_ready_sets, cpop, critical_path, downward_rank, heft,
                                  optimistic_cost_table, peft, upward_rank)
from hetsched.mapping.dag_io import read_dag
from hetsched.mapping.graph import (GraphSchedule, TaskGraph, check_schedule, identical,
                                    min_cost_path, schedule_metrics)
from hetsched.mapping.graph_registry import EXACT, GRAPH_HEURISTICS, run_graph_heuristic
from support import shared


@pytest.fixture(scope="module")
def topcuoglu() -> TaskGraph:
    return read_dag(shared("dag/topcuoglu2002.json"))


@pytest.fixture(scope="module")
def arabnejad() -> TaskGraph:
    return read_dag(shared("dag/arabnejad2014_peft.json"))


def placed(schedule: GraphSchedule) -> list[tuple[int, float, float]]:
    """Each task's processor (1-based, as the papers number them), start and finish."""
    return [(int(p) + 1, float(s), float(f))
            for p, s, f in zip(schedule.processor, schedule.start, schedule.finish)]


def test_topcuoglu_ranks(topcuoglu: TaskGraph) -> None:
    up = [108.0, 77.0, 80.0, 80.0, 69.0, 63.33, 42.67, 35.67, 44.33, 14.67]
    down = [0.0, 31.0, 25.0, 22.0, 24.0, 27.0, 62.33, 66.67, 63.67, 93.33]
    assert np.round(upward_rank(topcuoglu), 2).tolist() == up
    assert np.round(downward_rank(topcuoglu), 2).tolist() == down


def test_topcuoglu_heft_schedule(topcuoglu: TaskGraph) -> None:
    """Makespan 80; n6 inserted in P2's idle slot between n4 and n9."""
    schedule = heft(topcuoglu)
    assert placed(schedule) == [(3, 0, 9), (1, 27, 40), (3, 9, 28), (2, 18, 26), (3, 28, 38),
                                (2, 26, 42), (3, 38, 49), (1, 57, 62), (2, 56, 68),
                                (2, 73, 80)]
    assert schedule.makespan == 80.0
    assert check_schedule(topcuoglu, schedule) == []


def test_topcuoglu_cpop_schedule(topcuoglu: TaskGraph) -> None:
    """The critical path n1, n2, n9, n10 (priority 108) on P2, where it costs 54 (66 on P1,
    63 on P3); makespan 86."""
    priority = upward_rank(topcuoglu) + downward_rank(topcuoglu)
    assert critical_path(topcuoglu, priority) == [0, 1, 8, 9]
    assert np.round(priority, 2).tolist() == [108.0, 108.0, 105.0, 102.0, 93.0, 90.33, 105.0,
                                              102.33, 108.0, 108.0]
    schedule = cpop(topcuoglu)
    assert schedule.info["critical_path_processor"] == 1
    assert placed(schedule) == [(2, 0, 16), (2, 16, 35), (1, 28, 39), (3, 25, 42), (2, 35, 48),
                                (3, 42, 51), (1, 39, 46), (3, 54, 68), (2, 65, 77),
                                (2, 79, 86)]
    assert schedule.makespan == 86.0


def test_arabnejad_optimistic_cost_table(arabnejad: TaskGraph) -> None:
    """PEFT's Table 2: the OCT of every task on every processor, rank_oct and rank_u."""
    table = optimistic_cost_table(arabnejad)
    assert table.tolist() == [[64, 68, 86], [42, 39, 42], [27, 41, 43], [42, 39, 50],
                              [28, 37, 28], [42, 39, 44], [13, 16, 22], [13, 16, 33],
                              [13, 16, 20], [0, 0, 0]]
    assert np.round(table.mean(axis=1), 1).tolist() == [72.7, 41.0, 37.0, 43.7, 31.0, 41.7,
                                                        17.0, 20.7, 16.3, 0.0]
    assert np.round(upward_rank(arabnejad), 1).tolist() == [169.0, 114.3, 102.7, 110.0, 129.7,
                                                            119.3, 52.7, 92.0, 42.3, 20.7]


def test_arabnejad_peft_schedule(arabnejad: TaskGraph) -> None:
    """PEFT's Table 3 and Fig. 2(a): makespan 122; T1 on P1 though P2 ends it earlier."""
    schedule = peft(arabnejad)
    assert placed(schedule) == [(1, 0, 22), (1, 29, 51), (1, 51, 83), (1, 22, 29), (3, 35, 70),
                                (2, 29, 46), (1, 83, 97), (2, 54, 77), (3, 81, 89),
                                (2, 106, 122)]
    assert check_schedule(arabnejad, schedule) == []


def test_arabnejad_heft_schedule(arabnejad: TaskGraph) -> None:
    """Fig. 2(c): makespan 133; P1 runs T2, T8, T10, P2 T1, T5, T3, T7 and P3 T6, T4, T9."""
    schedule = heft(arabnejad)
    assert placed(schedule) == [(2, 0, 21), (1, 38, 60), (2, 48, 75), (3, 52, 56), (2, 21, 48),
                                (3, 28, 52), (2, 75, 100), (1, 67, 96), (3, 105, 113),
                                (1, 120, 133)]


def test_schedule_metrics_on_the_textbook_graph(topcuoglu: TaskGraph) -> None:
    """CP_MIN: n1, n2 (or n4...) to n10 at least costs; SLR = 80 over it."""
    path = min_cost_path(topcuoglu)
    metrics = schedule_metrics(topcuoglu, heft(topcuoglu))
    assert metrics["slr"] == pytest.approx(80.0 / path)
    assert metrics["speedup"] == pytest.approx(topcuoglu.cost.sum(axis=0).min() / 80.0)
    assert metrics["efficiency"] == pytest.approx(metrics["speedup"] / 3)


def random_graph(seed: int, tasks: int = 30, processors: int = 4) -> TaskGraph:
    rng = np.random.default_rng(seed)
    cost = rng.integers(0, 20, size=(tasks, processors)).astype(float)
    edges = tuple((int(a), int(b), float(rng.integers(0, 15)))
                  for a in range(tasks) for b in range(a + 1, tasks) if rng.random() < 0.12)
    order = rng.permutation(tasks)  # indices not in topological order
    return TaskGraph(cost[np.argsort(order)], tuple((int(order[a]), int(order[b]), d)
                                                    for a, b, d in edges))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("name", [n for n in GRAPH_HEURISTICS if n != EXACT])
def test_every_heuristic_obeys_the_model(name: str, seed: int) -> None:
    graph = random_graph(seed)
    schedule = run_graph_heuristic(name, graph)
    assert check_schedule(graph, schedule) == []
    assert schedule.makespan >= min_cost_path(graph) - 1e-9


def test_one_processor_runs_every_task_back_to_back() -> None:
    graph = random_graph(3, processors=1)
    for schedule in (heft(graph), cpop(graph), peft(graph), by_ready_sets(graph, "min_min")):
        assert schedule.makespan == graph.cost.sum()


def test_identical_processors_without_data_heft_is_list_scheduling() -> None:
    """Two chains of 3 and an independent task on 2 processors: the chains go side by side."""
    graph = identical([3, 3, 3, 4, 4, 4, 1], [(0, 1, 0), (1, 2, 0), (3, 4, 0), (4, 5, 0)], 2)
    assert heft(graph).makespan == 12.0
    assert check_schedule(graph, heft(graph)) == []


def test_the_checks_catch_a_broken_schedule(topcuoglu: TaskGraph) -> None:
    schedule = heft(topcuoglu)
    schedule.start[3] = schedule.finish[3] = np.nan
    assert check_schedule(topcuoglu, schedule) == ["task 4 has no finite start and finish"]
    schedule = heft(topcuoglu)
    schedule.start[9] -= 5.0
    schedule.finish[9] -= 5.0
    problems = check_schedule(topcuoglu, schedule)
    assert any("before its inputs are ready" in p for p in problems)
    schedule = heft(topcuoglu)
    schedule.processor[1] = 2  # n2 onto n1's processor, at n3's time
    assert any("not its cost" in p or "overlap" in p for p in check_schedule(topcuoglu,
                                                                                schedule))


def test_a_cycle_is_named_whole() -> None:
    with pytest.raises(ConfigError, match=r"has a cycle: (a -> b -> c -> a|b -> c -> a -> b|"
                                          r"c -> a -> b -> c)"):
        TaskGraph(np.ones((3, 1)), ((0, 1, 0.0), (1, 2, 0.0), (2, 0, 0.0)), ("a", "b", "c"))


def test_tasks_share_a_multi_core_machine_while_their_cores_fit() -> None:
    """One machine of 4 cores: a (3 cores, 10 s) and b (1 core, 10 s) run side by side, c (2
    cores, 5 s) waits for a's cores; on a second, slower machine it would end later."""
    graph = TaskGraph(np.array([[10.0, 20.0], [10.0, 20.0], [5.0, 16.0]]), ())
    schedule = heft(graph, capacity=[4, 4], demand=[3, 1, 2])
    assert placed(schedule) == [(1, 0, 10), (1, 0, 10), (1, 10, 15)]
    assert check_schedule(graph, schedule, [4, 4], [3, 1, 2]) == []
    assert check_schedule(graph, schedule, [3, 4], [3, 1, 2])  # 4 cores in use on a 3-core one


def test_with_one_core_per_machine_the_shared_model_is_the_classic_one(
        topcuoglu: TaskGraph) -> None:
    assert placed(heft(topcuoglu, capacity=[1, 1, 1])) == placed(heft(topcuoglu))


@pytest.mark.parametrize("seed", range(6))
def test_multi_core_schedules_obey_the_model(seed: int) -> None:
    graph = random_graph(seed, processors=3)
    rng = np.random.default_rng(seed)
    capacity, demand = [8, 4, 6], rng.integers(1, 5, size=graph.tasks).tolist()
    schedule = heft(graph, capacity, demand)
    assert check_schedule(graph, schedule, capacity, demand) == []
    assert check_schedule(graph, heft(graph), capacity, demand) == []  # one at a time fits too


def test_a_task_that_takes_no_time_blocks_no_slot() -> None:
    """One processor running d (0-2 s), z (no time, at 5 s) and w (7-9 s): c (4 s, after d)
    fits the idle slot from 2 s to 7 s, which z does not cut."""
    graph = TaskGraph(np.array([[0.0], [2.0], [4.0], [2.0]]), ((3, 2, 0.0),),
                      ("z", "w", "c", "d"))
    schedule = heft(graph, fixed={0: (0, 5.0, 5.0), 1: (0, 7.0, 9.0), 3: (0, 0.0, 2.0)})
    assert (schedule.start[2], schedule.finish[2]) == (2.0, 6.0)
    assert check_schedule(graph, schedule) == []
