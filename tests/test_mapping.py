"""Static mapping (hetsched.mapping): published numbers, definitions, bounds, determinism,
generators and readers."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetsched.errors import ConfigError, InputError
from hetsched.mapping import (HEURISTICS, apply_consistency, astar, braun_instance, cvb, duplex,
                              flowtime, ga, gsa, ils, kpb, lower_bound, lp_bound, lp_relaxation,
                              max_min, mct, met, milp_mapping, min_min, olb, range_based,
                              read_braun, read_csv_etc, read_etc, run_heuristic, sa, sufferage, swa,
                              tabu, trivial_bound, write_braun)
from hetsched.mapping.greedy import kpb_count
from support import BRAUN_INSTANCES, shared

#: Budgets that keep every heuristic fast on the small instances used below.
SMALL_LIMITS = {"ils": 0.3, "milp": 2.0, "best": 0.5, "tabu": 0.5, "astar": 2.0}


def braun(name: str) -> np.ndarray:
    return read_etc(shared(f"braun/{name}.0"))


def brute_force(etc: np.ndarray, ready: np.ndarray) -> float:
    n, m = etc.shape
    best = np.inf
    for combo in itertools.product(range(m), repeat=n):
        a = np.array(combo, dtype=np.int64)
        loads = ready + np.bincount(a, weights=etc[np.arange(n), a], minlength=m)
        best = min(best, float(loads.max()))
    return best


@pytest.fixture(scope="module")
def small() -> np.ndarray:
    return range_based(24, 4, np.random.default_rng(7), "hi", "hi", "inconsistent")


# ---- the published numbers (Braun et al.'s u_c_hihi.0) ----------------------------------------
def test_min_min_on_u_c_hihi() -> None:
    assert min_min(braun("u_c_hihi")).makespan == pytest.approx(8_460_675.00, rel=1e-9)


def test_mct_on_u_c_hihi() -> None:
    assert mct(braun("u_c_hihi")).makespan == pytest.approx(11_422_624.49, rel=1e-9)


def test_max_min_on_u_c_hihi() -> None:
    assert max_min(braun("u_c_hihi")).makespan == pytest.approx(12_385_671.83, rel=1e-9)


def test_braun_file_is_read_task_major() -> None:
    etc = braun("u_c_hihi")
    assert etc.shape == (512, 16)
    assert etc[0, 0] == 91753.195312 and etc[0, 1] == 263115.4375
    assert np.all(np.diff(etc, axis=1) >= 0)  # consistent: every row increasing


@pytest.mark.parametrize("name", BRAUN_INSTANCES, ids=lambda name: f"{name}.0")
def test_duplex_is_the_better_of_min_min_and_max_min(name: str) -> None:
    etc = braun(name)
    assert duplex(etc).makespan == min(min_min(etc).makespan, max_min(etc).makespan)


# ---- definitions on hand-worked examples -------------------------------------------------------
def test_sufferage_hand_worked_example() -> None:
    # pass 1 (r = 0): t0 best m0, sufferage 4-3 = 1; t1 best m0, sufferage 8-2 = 6 -> replaces
    # t0 on m0; t2 best m1 (sufferage 3). Commit t1->m0 (r0 = 2), t2->m1 (r1 = 1).
    # pass 2: t0 CT = (5, 5): tie -> m0. Makespan 5.
    etc = np.array([[3.0, 4.0], [2.0, 8.0], [4.0, 1.0]])
    result = sufferage(etc)
    assert result.assignment.tolist() == [0, 0, 1]
    assert result.makespan == 5.0
    assert [o.tolist() for o in result.order] == [[1, 0], [2]]
    assert result.info["passes"] == 2
    assert result.flowtime == 2.0 + 5.0 + 1.0  # SPT on m0: t1 (2) then t0 (3); m1: t2 (1)


def test_list_heuristics_hand_worked() -> None:
    etc = np.array([[2.0, 6.0], [3.0, 4.0], [5.0, 6.0]])
    # OLB: machine ready first: t0->m0 (r=2,0), t1->m1 (2,4), t2->m0 (7,4)
    assert olb(etc).assignment.tolist() == [0, 1, 0]
    assert met(etc).assignment.tolist() == [0, 0, 0]
    # MCT: t0->m0 (2); t1: (5, 4)->m1; t2: (7, 10)->m0
    assert mct(etc).assignment.tolist() == [0, 1, 0]
    assert mct(etc).makespan == 7.0
    # Min-min: t0 (2, m0); then t1: (5, 4) 4 < t2: (7, 6) 6 -> t1 on m1; t2: (7, 10) -> m0
    mm = min_min(etc)
    assert mm.assignment.tolist() == [0, 1, 0] and mm.makespan == 7.0
    assert [o.tolist() for o in mm.order] == [[0, 2], [1]]
    # Max-min: t2 (5, m0) first; t1: (8, 4) -> 4; t0: (7, 6) -> 6 larger -> t0 on m1 (6);
    # t1: (8, 10) -> m0: makespan 8
    xm = max_min(etc)
    assert xm.assignment.tolist() == [1, 0, 0] and xm.makespan == 8.0


def test_ready_times_are_respected() -> None:
    etc = np.array([[1.0, 1.0]])
    assert mct(etc, ready=[5.0, 0.0]).assignment.tolist() == [1]
    assert olb(etc, ready=[5.0, 0.0]).assignment.tolist() == [1]
    # the makespan counts every machine's ready time, used or not
    assert min_min(etc, ready=[5.0, 3.0]).makespan == 5.0
    assert min_min(etc, ready=[5.0, 3.0]).loads.tolist() == [5.0, 4.0]


def test_ties_go_to_the_lowest_index() -> None:
    etc = np.ones((4, 3))
    for fn in (olb, met, mct, min_min, max_min, sufferage, kpb, swa):
        first = fn(etc).assignment
        assert first[0] == 0, fn.__name__
    assert min_min(etc).order[0].tolist() == [0, 3]


def test_flowtime_is_spt_per_machine() -> None:
    etc = np.array([[3.0], [1.0], [2.0]])
    assert flowtime(etc, np.zeros(3, dtype=np.int64), np.array([10.0])) == 11 + 13 + 16


def test_kpb_extremes() -> None:
    etc = range_based(30, 10, np.random.default_rng(3))
    assert kpb_count(16, 20) == 3 and kpb_count(4, 20) == 1
    np.testing.assert_array_equal(kpb(etc, percent=10).assignment, met(etc).assignment)
    np.testing.assert_array_equal(kpb(etc, percent=100).assignment, mct(etc).assignment)


def test_swa_switches_between_mct_and_met() -> None:
    etc = range_based(200, 8, np.random.default_rng(5), consistency="consistent")
    result = swa(etc)
    assert result.info["switches"] >= 1 and result.info["met_tasks"] > 0
    pure = swa(etc, low=0.0, high=1.0)  # pi never reaches 1 with this matrix: MCT only
    np.testing.assert_array_equal(pure.assignment, mct(etc).assignment)


# ---- every heuristic: valid mapping, above the bound -------------------------------------------
@pytest.mark.parametrize("name", list(HEURISTICS))
def test_every_task_assigned_once_and_bound_holds(name: str, small: np.ndarray) -> None:
    ready = np.array([0.0, 50.0, 0.0, 200.0])
    result = run_heuristic(name, small, ready=ready, rng=np.random.default_rng(1),
                           time_limit=SMALL_LIMITS.get(name))
    n, m = small.shape
    assert result.assignment.shape == (n,)
    assert result.assignment.min() >= 0 and result.assignment.max() < m
    assert sorted(np.concatenate(result.order).tolist()) == list(range(n))
    for j, tasks in enumerate(result.order):
        assert np.all(result.assignment[tasks] == j)
    loads = ready + np.bincount(result.assignment,
                                weights=small[np.arange(n), result.assignment], minlength=m)
    np.testing.assert_allclose(result.loads, loads)
    assert result.makespan == result.loads.max()
    assert result.makespan >= lower_bound(small, ready) * (1 - 1e-9)
    if result.lower_bound is not None:
        assert result.lower_bound <= result.makespan * (1 + 1e-9)


def test_unknown_heuristic_and_bad_inputs() -> None:
    with pytest.raises(ConfigError, match="unknown heuristic"):
        run_heuristic("nope", np.ones((2, 2)))
    with pytest.raises(ConfigError, match="negative"):
        run_heuristic("mct", -np.ones((2, 2)))
    with pytest.raises(ConfigError, match="2-D"):
        run_heuristic("mct", np.ones(3))
    with pytest.raises(ConfigError, match="ready"):
        run_heuristic("mct", np.ones((2, 2)), ready=[1.0])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_fast_heuristics_invariants(n: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    etc = rng.uniform(0.0, 10.0, size=(n, m)).round(2)
    ready = rng.uniform(0.0, 5.0, size=m).round(2)
    bound = lower_bound(etc, ready)
    best = brute_force(etc, ready)
    assert bound <= best * (1 + 1e-9)
    for name in ("olb", "met", "mct", "min_min", "max_min", "duplex", "sufferage", "kpb",
                 "swa"):
        result = run_heuristic(name, etc, ready)
        assert result.makespan >= best * (1 - 1e-12)
        assert sorted(np.concatenate(result.order).tolist()) == list(range(n))


# ---- A* ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_astar_is_optimal_without_pruning(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 8)), int(rng.integers(2, 4))
    etc = rng.uniform(1, 10, size=(n, m)).round(1)
    ready = rng.uniform(0, 5, size=m).round(1)
    result = astar(etc, ready, node_limit=10**6, max_expansions=None)
    assert result.info["complete_search"] and result.info["pruned"] == 0
    assert result.makespan == pytest.approx(brute_force(etc, ready), rel=1e-12)


def test_astar_bounded_on_a_braun_instance_is_fast_and_valid() -> None:
    etc = braun("u_i_lolo")
    result = astar(etc, max_expansions=300)
    assert not result.info["complete_search"]
    assert result.makespan >= lp_bound(etc)


# ---- metaheuristics ---------------------------------------------------------------------------
def test_ga_never_worse_than_its_min_min_seed() -> None:
    etc = braun("u_s_hilo")
    result = ga(etc, rng=np.random.default_rng(0), generations=40, population=60)
    assert result.makespan <= min_min(etc).makespan
    assert result.info["generations"] <= 40


@pytest.mark.parametrize("fn, kwargs", [
    (ga, {"generations": 30, "population": 40}),
    (gsa, {"generations": 30, "population": 40}),
    (sa, {}),
    (tabu, {"max_hops": 60}),
    (ils, {"time_limit": None, "max_iterations": 30}),
], ids=["ga", "gsa", "sa", "tabu", "ils"])
def test_metaheuristics_are_deterministic_for_a_seed(fn, kwargs, small: np.ndarray) -> None:
    first = fn(small, rng=np.random.default_rng(42), **kwargs)
    again = fn(small, rng=np.random.default_rng(42), **kwargs)
    np.testing.assert_array_equal(first.assignment, again.assignment)
    assert first.makespan == again.makespan


def test_ils_improves_on_min_min() -> None:
    etc = braun("u_c_lolo")
    result = ils(etc, rng=np.random.default_rng(0), time_limit=None, max_iterations=20)
    assert result.makespan < min_min(etc).makespan
    assert result.lower_bound == pytest.approx(lp_bound(etc))


# ---- LP / MILP ---------------------------------------------------------------------------------
def test_lp_relaxation_duals_and_reduced_costs(small: np.ndarray) -> None:
    relax = lp_relaxation(small)
    assert relax.machine_duals.sum() == pytest.approx(1.0, abs=1e-7)
    assert relax.reduced.min() >= -1e-7 * relax.value
    np.testing.assert_allclose(relax.x.sum(axis=1), 1.0, atol=1e-9)
    assert relax.value >= small.min(axis=1).sum() / 4 * (1 - 1e-12)  # the average bound
    assert trivial_bound(small) <= lower_bound(small)


def test_milp_equals_brute_force_on_a_tiny_instance() -> None:
    rng = np.random.default_rng(11)
    etc = rng.uniform(1, 10, size=(7, 3)).round(1)
    ready = np.array([0.0, 2.0, 1.0])
    result = milp_mapping(etc, ready, time_limit=10)
    assert result is not None and result.info["optimal"]
    assert result.makespan == pytest.approx(brute_force(etc, ready), rel=1e-6)
    assert lp_bound(etc, ready) <= result.makespan


def test_lp_and_milp_take_values_up_to_the_etc_limit() -> None:
    """HiGHS refuses coefficients of 1e15 or more, which an ETC file may hold (its limit):
    the model is scaled by a power of two and its results scaled back."""
    etc = np.array([[1e15, 3.0], [5e14, 7.0], [1.0, 1e15]])  # optimum: 1 on m0, 3 + 7 on m1
    ready = np.array([0.0, 0.5])
    relax = lp_relaxation(etc, ready)
    assert trivial_bound(etc, ready) <= relax.value <= 10.5 * (1 + 1e-9)
    np.testing.assert_allclose(relax.x.sum(axis=1), 1.0, atol=1e-9)
    result = milp_mapping(etc, ready, time_limit=10)
    assert result is not None and result.info["optimal"]
    assert result.makespan == 10.5 == pytest.approx(brute_force(etc, ready))
    assert result.info["dual_bound"] == pytest.approx(10.5, rel=1e-6)


# ---- generators --------------------------------------------------------------------------------
def test_range_based_generator_consistency_properties() -> None:
    rng = np.random.default_rng(0)
    c = range_based(50, 8, rng, "hi", "lo", "consistent")
    assert np.all(np.diff(c, axis=1) >= 0)
    s = range_based(50, 8, rng, "lo", "hi", "semi")
    assert np.all(np.diff(s[:, 0::2], axis=1) >= 0)
    assert not np.all(np.diff(s, axis=1) >= 0)
    i = range_based(50, 8, rng, "hi", "hi", "inconsistent")
    assert not np.all(np.diff(i, axis=1) >= 0)
    assert i.min() >= 1.0 and i.max() < 3000.0 * 1000.0
    lo = range_based(200, 4, rng, "lo", "lo")
    assert lo.max() < 100.0 * 10.0


def test_generators_are_seeded() -> None:
    a = range_based(10, 3, np.random.default_rng(5))
    b = range_based(10, 3, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(cvb(10, 3, np.random.default_rng(9)),
                                  cvb(10, 3, np.random.default_rng(9)))
    assert braun_instance("u_s_lohi", np.random.default_rng(1), 20, 6).shape == (20, 6)
    with pytest.raises(ConfigError):
        braun_instance("u_x_hihi", np.random.default_rng(1))


def test_cvb_generator_statistics() -> None:
    etc = cvb(4000, 8, np.random.default_rng(3), v_task=0.5, v_mach=0.3, mu_task=100.0)
    assert etc.mean() == pytest.approx(100.0, rel=0.05)
    row_cv = etc.std(axis=1) / etc.mean(axis=1)
    assert np.median(row_cv) == pytest.approx(0.3, rel=0.2)
    consistent = apply_consistency(etc, "consistent")
    assert np.all(np.diff(consistent, axis=1) >= 0)


# ---- readers -----------------------------------------------------------------------------------
def _error(call, *args) -> str:
    with pytest.raises(InputError) as info:
        call(*args)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_braun_reader_round_trip(tmp_path: Path) -> None:
    etc = range_based(5, 3, np.random.default_rng(0))
    write_braun(tmp_path / "x.0", etc)
    np.testing.assert_array_equal(read_braun(tmp_path / "x.0"), etc)


def test_braun_reader_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.0"
    path.write_text("2 2 0\n1\n2\n3\n")
    assert "3 values, the header announces 2 × 2 = 4" in _error(read_etc, path)
    path.write_text("2 2 0\n1\n2\n3\n4\n5\n")
    assert "line 6" in _error(read_etc, path) and "more values" in _error(read_etc, path)
    path.write_text("2 2 0\n1\n2\nabc\n4\n")
    message = _error(read_etc, path)
    assert "line 4" in message and "etc[1,0]" in message and "not a number: 'abc'" in message
    path.write_text("2 2 0\n1\n-2\n3\n4\n")
    message = _error(read_etc, path)
    assert "line 3" in message and "negative" in message and "etc[0,1]" in message
    path.write_text("2 two 0\n1\n")
    assert "machines" in _error(read_etc, path)
    path.write_text("")
    assert "empty file" in _error(read_etc, path)
    path.write_text("1 1 0\nnan\n")
    assert "not a finite number" in _error(read_etc, path)
    assert "no such file" in _error(read_etc, tmp_path / "missing.0")


def test_csv_reader(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("m0,m1,m2\n# a comment\n1,2,3\n\n4,5,6\n")
    np.testing.assert_array_equal(read_etc(path), [[1, 2, 3], [4, 5, 6]])
    path.write_text("1,2,3\n4,5\n")
    message = _error(read_csv_etc, path)
    assert "line 2" in message and "2 columns, expected 3" in message
    path.write_text("1,2\n4,x\n")
    message = _error(read_csv_etc, path)
    assert "line 2" in message and "etc[1,1]" in message
    path.write_text("1,-2\n")
    assert "negative" in _error(read_csv_etc, path)
    path.write_text("a,b\n")
    assert "no rows" in _error(read_csv_etc, path)
