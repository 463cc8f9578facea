"""The exact solver of task graphs (a MILP with HiGHS) and its lower bound, against the
textbook graphs, a brute force on small random graphs and the published optima of the
Kasahara STG instances."""

from __future__ import annotations

import math

import numpy as np
import pytest

from support import assert_mentions, shared

from hetsched.errors import ConfigError
from hetsched.mapping.dag import heft
from hetsched.mapping.dag_exact import exact, forward_pass, lower_bound
from hetsched.mapping.dag_io import read_dag, read_stg_optima
from hetsched.mapping.graph import GraphSchedule, TaskGraph, check_schedule, identical


def textbook(name: str) -> TaskGraph:
    return read_dag(shared(f"dag/{name}.json"))


def stg(relative: str, processors: int = 2) -> TaskGraph:
    return read_dag(shared(f"stg/{relative}"), processors)


def published_optimum(relative: str) -> tuple[float, float]:
    """The published optimum on 2 processors: ``(low, high)``, equal when it is known, else
    a lower bound and the best schedule known."""
    return read_stg_optima(shared("stg/Case50_2_OPT.csv"))[relative]


def brute_force(graph: TaskGraph) -> float:
    """The least makespan over every topological order and every assignment, each task
    started as early as its inputs and its processor's previous task allow.

    Exact when every cost is positive: for a fixed assignment, shifting the tasks of an
    optimal schedule left gives one no longer in which a task starts when its inputs arrive or
    its processor's previous task ends; listing its tasks by start is a topological order (a
    child starts after its parent's positive run), and this pass over that list starts each
    task no later. A branch stops once it is no shorter than the best complete one (finishes
    only grow)."""
    n, m = graph.cost.shape
    parents = [[(p, d) for p, c, d in graph.edges if c == i] for i in range(n)]
    processor, finish, free = [-1] * n, [0.0] * n, [0.0] * m
    best = [math.inf]

    def extend(done: frozenset[int], makespan: float) -> None:
        if makespan >= best[0]:
            return
        if len(done) == n:
            best[0] = makespan
            return
        for i in range(n):
            if i in done or any(p not in done for p, _ in parents[i]):
                continue
            for q in range(m):
                begin = max([free[q]] + [finish[p] + (d if processor[p] != q else 0.0)
                                         for p, d in parents[i]])
                saved = free[q]
                processor[i], finish[i] = q, begin + graph.cost[i, q]
                free[q] = finish[i]
                extend(done | {i}, max(makespan, finish[i]))
                free[q], processor[i] = saved, -1

    extend(frozenset(), 0.0)
    return best[0]


def random_graph(seed: int, tasks: int, processors: int, kind: str) -> TaskGraph:
    """``kind``: ``"whole"`` (costs 1-9, data 0-29: moving data often costs more than a task),
    ``"fractional"`` (costs and data not whole numbers) or ``"identical"`` (identical
    processors, no data)."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(tasks) for j in range(i + 1, tasks) if rng.random() < 0.35]
    if kind == "identical":
        return identical(rng.integers(1, 10, tasks).astype(float),
                         [(i, j, 0.0) for i, j in pairs], processors)
    if kind == "whole":
        cost = rng.integers(1, 10, (tasks, processors)).astype(float)
        data = rng.integers(0, 30, len(pairs)).astype(float)
    else:
        cost, data = rng.uniform(0.5, 9.5, (tasks, processors)), rng.uniform(0, 29, len(pairs))
    return TaskGraph(cost, tuple((i, j, float(d)) for (i, j), d in zip(pairs, data)))


def assert_sound(graph: TaskGraph, schedule: GraphSchedule) -> None:
    """Obeys the model; its bound is proven by the solver, between the lower bound and it."""
    assert schedule.heuristic == "exact"
    assert check_schedule(graph, schedule) == []
    assert lower_bound(graph) - 1e-9 <= schedule.lower_bound <= schedule.makespan


# ---- the lower bound -------------------------------------------------------------------------
def test_the_lower_bound_is_the_least_cost_critical_path_when_it_is_longer() -> None:
    # chain 0 -> 1 -> 2 at least costs 2 + 1 + 3 = 6 (the data of 50 are left out); the load
    # (2 + 1 + 3 + 1) / 2 = 3.5 is less
    graph = TaskGraph(np.array([[2.0, 5], [4, 1], [3, 3], [1, 8]]),
                      ((0, 1, 50.0), (1, 2, 50.0)))
    assert lower_bound(graph) == 6.0


def test_the_lower_bound_is_the_least_costs_shared_by_the_processors_when_that_is_longer() -> None:
    # four independent tasks of least costs 4, 3, 5, 2: the longest is 5, 14 / 2 = 7
    graph = TaskGraph(np.array([[4.0, 6], [3, 3], [9, 5], [2, 7]]), ())
    assert lower_bound(graph) == 7.0


def test_the_lower_bound_of_an_empty_graph_is_zero_and_so_is_its_schedule() -> None:
    graph = TaskGraph(np.zeros((0, 2)), ())
    assert lower_bound(graph) == 0.0
    schedule = exact(graph)
    assert schedule.makespan == 0.0 and schedule.info["optimal"]


# ---- the textbook graphs ---------------------------------------------------------------------
@pytest.mark.parametrize("name, heft_makespan, optimum", [
    ("topcuoglu2002", 80.0, 73.0), ("arabnejad2014_peft", 133.0, 113.0)])
def test_the_exact_schedule_of_a_textbook_graph_is_optimal_and_no_longer_than_heft(
        name: str, heft_makespan: float, optimum: float) -> None:
    graph = textbook(name)
    assert heft(graph).makespan == heft_makespan
    schedule = exact(graph, time_limit=60)
    assert_sound(graph, schedule)
    assert schedule.info["optimal"] and schedule.info["gap_percent"] == 0.0
    assert schedule.makespan == schedule.lower_bound == optimum
    assert schedule.info["solution"] == "milp"
    assert schedule.info["incumbent"] == {"heuristic": "heft", "makespan": heft_makespan}


@pytest.mark.slow
def test_the_optimum_of_a_textbook_graph_is_the_brute_forces() -> None:
    # 10 tasks on 3 processors: within the brute force's reach, in about 13 s
    graph = textbook("topcuoglu2002")
    assert brute_force(graph) == exact(graph, time_limit=60).makespan == 73.0


# ---- small random graphs against the brute force ---------------------------------------------
#: (seed, tasks, processors) of the random graphs with whole-number costs and data.
WHOLE = [(1, 5, 3), (2, 6, 2), (3, 6, 3), (4, 7, 2), (5, 7, 3), (6, 8, 2), (12, 8, 3)]


@pytest.mark.parametrize("seed, tasks, processors, kind", [
    *((*case, "whole") for case in WHOLE),
    (7, 6, 3, "fractional"), (8, 8, 2, "fractional"),
    (9, 7, 3, "identical"), (10, 8, 2, "identical"), (11, 6, 3, "identical"),
])
def test_the_exact_makespan_is_the_brute_force_optimum(seed: int, tasks: int, processors: int,
                                                       kind: str) -> None:
    graph = random_graph(seed, tasks, processors, kind)
    optimum = brute_force(graph)
    schedule = exact(graph, time_limit=60)
    assert_sound(graph, schedule)
    assert schedule.info["optimal"]
    assert schedule.makespan == pytest.approx(optimum, rel=1e-6, abs=1e-6)
    assert schedule.lower_bound <= optimum + 1e-6


def test_the_brute_force_finds_schedules_shorter_than_heft_on_the_random_graphs() -> None:
    # the comparison above would prove little if HEFT were already optimal on them all
    graphs = [random_graph(*case, "whole") for case in WHOLE]
    assert sum(heft(g).makespan > brute_force(g) for g in graphs) >= 3


# ---- incumbents, budgets and the rebuilt schedule --------------------------------------------
def test_an_optimal_start_schedule_is_kept_as_the_incumbent() -> None:
    graph = textbook("topcuoglu2002")
    best = exact(graph)
    again = exact(graph, start=best)
    assert_sound(graph, again)
    assert again.makespan == 73.0 and again.info["optimal"]
    assert again.info["incumbent"] == {"heuristic": "exact", "makespan": 73.0}


def test_a_start_schedule_that_breaks_the_model_is_refused_in_one_line() -> None:
    graph = textbook("topcuoglu2002")
    bad = heft(graph)
    bad.start[9] = 0.0  # the exit task before its parents
    with pytest.raises(ConfigError) as info:
        exact(graph, start=bad)
    assert_mentions(str(info.value), "start schedule 'heft'", "topcuoglu2002")


def test_a_budget_of_one_node_still_gives_a_schedule_with_a_proven_bound() -> None:
    graph = textbook("arabnejad2014_peft")
    schedule = exact(graph, time_limit=None, max_nodes=1)
    assert_sound(graph, schedule)
    assert schedule.makespan <= 133.0
    assert schedule.lower_bound <= 113.0
    if not schedule.info["optimal"]:
        gap = 100 * (schedule.makespan / schedule.lower_bound - 1)
        assert schedule.info["gap_percent"] == pytest.approx(gap)


def test_the_forward_pass_obeys_the_model_even_when_a_child_seems_to_start_first() -> None:
    # task 0 takes no time; the solver's starts may put its child 1 a hair before it
    graph = TaskGraph(np.array([[0.0, 0.0], [2.0, 3.0], [4.0, 1.0]]), ((0, 1, 5.0), (0, 2, 5.0)))
    state = forward_pass(graph, np.array([0, 0, 1]), np.array([1e-12, 0.0, 5.0]))
    schedule = GraphSchedule("pass", state.processor, state.start, state.finish)
    assert check_schedule(graph, schedule) == []
    assert list(schedule.start) == [0.0, 0.0, 5.0]


# ---- bad options -----------------------------------------------------------------------------
@pytest.mark.parametrize("options, words", [
    ({"time_limit": -1.0}, ("time limit", "-1")),
    ({"time_limit": 0}, ("time limit", "0")),
    ({"max_nodes": -5}, ("max_nodes", "-5")),
    ({"max_nodes": 2.5}, ("max_nodes", "2.5")),
])
def test_a_bad_limit_is_a_one_line_config_error(options: dict, words: tuple[str, ...]) -> None:
    graph = TaskGraph(np.array([[1.0, 2.0]]), ())
    with pytest.raises(ConfigError) as info:
        exact(graph, **options)
    assert_mentions(str(info.value), *words)


# ---- the Kasahara STG instances (50 tasks, 2 identical processors) ---------------------------
@pytest.mark.parametrize("relative", ["50/rand0000.stg", "50/rand0003.stg"])
def test_the_exact_solver_proves_the_published_optimum_when_heft_reaches_the_bound(
        relative: str) -> None:
    # rand0003: the bound is 144.5, so 145 with whole-number times, HEFT's makespan
    graph = stg(relative)
    schedule = exact(graph, time_limit=30)
    assert_sound(graph, schedule)
    assert schedule.info["optimal"]
    assert (schedule.makespan, schedule.lower_bound) == published_optimum(relative)


def test_the_exact_solver_closes_a_published_range() -> None:
    # 816 edges leave few pairs to order: HiGHS proves 420 (HEFT: 427), the upper end of the
    # published range (411, the critical path, to 420, the best schedule known)
    assert published_optimum("50/rand0157.stg") == (411.0, 420.0)
    graph = stg("50/rand0157.stg")
    schedule = exact(graph, time_limit=30)
    assert_sound(graph, schedule)
    assert schedule.info["optimal"] and schedule.info["solution"] == "milp"
    assert schedule.makespan == schedule.lower_bound == 420.0
    assert heft(graph).makespan == 427.0 and lower_bound(graph) == 411.0


def test_the_published_optimum_lies_between_the_exact_solvers_bound_and_makespan() -> None:
    # HEFT 269, lower bound 262, published optimum 264: HiGHS finds no shorter schedule in
    # 200 nodes (a budget, so the result does not depend on the machine), and its bound must
    # stay at most 264
    relative = "50/rand0015.stg"
    graph = stg(relative)
    schedule = exact(graph, time_limit=None, max_nodes=200)
    assert_sound(graph, schedule)
    low, high = published_optimum(relative)
    assert low == high and schedule.lower_bound <= low <= schedule.makespan
