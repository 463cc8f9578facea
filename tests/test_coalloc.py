"""Co-allocation windows (hetsched.coalloc) on a case worked out on paper, and bad input.

The hand case: four nodes, a request of n = 2 slots computing V = 40 each within C = 30.

    node  p  c    q  free
    0     4  1    5  [0, 100)
    1     2  0.5  9  [0, 100)
    2     4  2    1  [20, 100)
    3     2  0.4  8  [10, 60)

Group P = 4 (T = 40 / 4 = 10) holds nodes 0 and 2: at t = 20 both, cost 10 · (1 + 2) = 30.
Group P = 2 (T = 20) holds all four: at t = 0 nodes 0 and 1, cost 20 · 1.5 = 30; at t = 10
nodes 0, 1 and 3, the cheapest two 1 and 3 cost 20 · 0.9 = 18; at t = 20 all four, the
cheapest still 1 and 3. Every expected number below follows from this table.
"""

from __future__ import annotations

import math

import pytest

from hetsched.coalloc.alternatives import alternatives, best_of, multiple_best
from hetsched.coalloc.criteria import CRITERIA, criterion
from hetsched.coalloc.model import Request, Slot, Slots
from hetsched.coalloc.search import search
from hetsched.errors import ConfigError

HAND = [Slot(0, 0, 100, 4, 1.0, {"q": 5}), Slot(1, 0, 100, 2, 0.5, {"q": 9}),
        Slot(2, 20, 100, 4, 2.0, {"q": 1}), Slot(3, 10, 60, 2, 0.4, {"q": 8})]


def found(criterion_name: str, budget: float = 30.0) -> tuple[tuple[int, ...], object]:
    """The nodes of the window the search returns, and its (start, runtime, cost, q) to
    compare with ``pytest.approx`` (0.4 + 0.5 is not 0.9 in floating point)."""
    window = search(HAND, Request(2, 40.0, budget, 0.0, criterion_name))
    assert window is not None
    return window.nodes, pytest.approx((window.start, window.runtime, window.cost,
                                        window.totals["q"]))


@pytest.mark.parametrize("name, expected", [
    # the starts in order, at each the groups from the fastest: at t = 0 group P = 4 holds
    # node 0 only, group P = 2 nodes 0 and 1 (exactly the budget); group P = 4's own first
    # window, at t = 20, comes later (MinRuntime's)
    ("first_fit", ((0, 1), 0.0, 20.0, 30.0, 14.0)),
    # group P = 2 starts at t = 0 (nodes 0 and 1, exactly the budget)
    ("min_start", ((0, 1), 0.0, 20.0, 30.0, 14.0)),
    # finish 0 + 20 = 20 beats P = 4's 20 + 10 = 30
    ("min_finish", ((0, 1), 0.0, 20.0, 30.0, 14.0)),
    # 10 beats 20: group P = 4's window, from t = 20
    ("min_runtime", ((0, 2), 20.0, 10.0, 30.0, 6.0)),
    # nodes 1 and 3 at 18, from t = 10 (node 3's start)
    ("min_cost", ((1, 3), 10.0, 20.0, 18.0, 17.0)),
    # q: {1, 3} 17 at cost 18; {0, 1} 14 at 30; {0, 3} 13 at 28; {0, 2} 6 at 30
    ("max_q", ((1, 3), 10.0, 20.0, 18.0, 17.0)),
    # the least q within the budget would be {0, 2}'s 6, at exactly the budget (in group
    # P = 2 it would cost 60); the knapsack's costs are rounded up to cells of 30 / 1000:
    # 10 -> 334 and 20 -> 667 cells, 1001 > 1000, so it takes {0, 3}'s 13 at 28 (20 -> 667
    # and 8 -> 267 cells)
    ("min:q", ((0, 3), 10.0, 20.0, 28.0, 13.0)),
])
def test_each_criterion_picks_the_window_worked_out_by_hand(name: str, expected: tuple) -> None:
    assert found(name) == (expected[0], expected[1:])


def test_a_coarser_resolution_with_exact_cells_keeps_the_window_at_the_budget() -> None:
    # cells of 30 / 30 = 1: 10 and 20 are whole cells, 30 fits
    window = search(HAND, Request(2, 40.0, 30.0, 0.0, "min:q"), cells=30)
    assert window is not None and window.nodes == (0, 2) and window.value == 6.0


def test_a_window_lasts_for_its_slowest_slot_and_the_budget_binds() -> None:
    # below 30, group P = 4's only window (30) and {0, 1} (30) no longer fit
    assert found("first_fit", budget=29.0) == ((1, 3), (10.0, 20.0, 18.0, 17.0))
    assert found("min_start", budget=29.0) == ((1, 3), (10.0, 20.0, 18.0, 17.0))
    assert search(HAND, Request(2, 40.0, 17.9, 0.0, "first_fit")) is None
    # a minimum performance of 3 leaves group P = 4 only
    window = search(HAND, Request(2, 40.0, 1e9, 3.0, "min_cost"))
    assert window is not None and window.nodes == (0, 2)


def test_starts_equal_within_the_tolerance_go_to_the_faster_group() -> None:
    # nodes 0 and 1 (p = 4) are free from 20 + 1e-12, nodes 2 and 3 (p = 2) from 20: the
    # starts are equal within 1e-9 (relative), so FirstFit takes the faster group, as the
    # plain scan does, although the walk meets 20 first
    later = 20 + 1e-12
    slots = [Slot(0, later, 100, 4, 1.0), Slot(1, later, 100, 4, 1.0),
             Slot(2, 20, 100, 2, 1.0), Slot(3, 20, 100, 2, 1.0)]
    request = Request(2, 40.0, 1000.0, 0.0, "first_fit")
    for prune in (True, False):
        window = search(slots, request, prune=prune)
        assert window is not None and window.nodes == (0, 1) and window.start == later
    # MultipleBest then walks on from 20, where nodes 2 and 3 still are
    assert [(w.nodes, w.start) for w in alternatives(slots, request)][:2] == \
        [((0, 1), later), ((2, 3), 20.0)]


def test_multiple_best_cuts_each_window_out_and_takes_the_best_per_criterion() -> None:
    # by start, the fastest group first at each: [0, 20) on nodes 0 and 1 (group P = 2; P = 4
    # has node 0 only); nothing at t = 10 (node 1 is taken until 20, node 0 too); at t = 20
    # nodes 0 and 2 (P = 4), then, what is left at 20, nodes 1 and 3 (P = 2, cost 18); from
    # then on nodes 0 and 2 hold a window every 10 until 100 (P = 4), and at t = 40, after
    # P = 4's, nodes 1 and 3 hold [40, 60) (P = 2).
    request = Request(2, 40.0, 30.0, 0.0, "first_fit")
    found_windows = alternatives(HAND, request)
    assert [(w.nodes, w.start, w.finish) for w in found_windows] == [
        ((0, 1), 0.0, 20.0), ((0, 2), 20.0, 30.0), ((1, 3), 20.0, 40.0), ((0, 2), 30.0, 40.0),
        ((0, 2), 40.0, 50.0), ((1, 3), 40.0, 60.0),
        *(((0, 2), 50.0 + 10 * k, 60.0 + 10 * k) for k in range(5))]
    # the positions of the slots they were cut from, in the table sorted by start: node 0,
    # node 1, node 3, node 2
    assert found_windows[2].slots == (1, 2) and found_windows[-1].slots == (0, 3)
    best = {name: best_of(found_windows, criterion(name)) for name in
            ("min_start", "min_finish", "min_runtime", "min_cost", "max_q")}
    assert {name: (w.start, w.value) for name, w in best.items() if w} == {
        "min_start": (0.0, 0.0), "min_finish": (0.0, 20.0), "min_runtime": (20.0, 10.0),
        "min_cost": (20.0, 18.0), "max_q": (20.0, 17.0)}
    chosen = multiple_best(HAND, Request(2, 40.0, 30.0, 0.0, "min_cost"))
    assert chosen is not None and chosen.criterion == "min_cost" and chosen.cost == 18.0


def test_the_criteria_are_registered_and_an_unknown_one_is_one_line() -> None:
    assert list(CRITERIA) == ["first_fit", "min_start", "min_finish", "min_runtime",
                              "min_cost", "max_q"]
    assert criterion("max:storage").maximize and not criterion("min:q").maximize
    with pytest.raises(ConfigError, match=r"^unknown co-allocation criterion 'min_cots'; "
                                          r"did you mean min_cost"):
        Request(2, 40.0, 30.0, criterion="min_cots")
    with pytest.raises(ConfigError, match="max:NAME or min:NAME"):
        criterion("most:q")
    with pytest.raises(ConfigError, match=r"no attribute 'qq'; did you mean q\?"):
        search(HAND, Request(2, 40.0, 30.0, criterion="max:qq"))


@pytest.mark.parametrize("fields, message", [
    ({"n": 0}, "n (nodes) must be a whole number >= 1, got 0"),
    ({"n": 2.5}, "n (nodes) must be a whole number >= 1"),
    ({"budget": -1.0}, "budget must be a finite number >= 0, got -1.0"),
    ({"budget": math.inf}, "budget must be a finite number >= 0, got inf"),
    ({"volume": 0.0}, "volume must be a finite number > 0"),
    ({"volume": math.nan}, "volume must be a finite number > 0, got nan"),
    ({"min_performance": -2.0}, "minimum performance must be a finite number >= 0"),
])
def test_a_bad_request_is_one_line(fields: dict, message: str) -> None:
    values = {"n": 2, "volume": 40.0, "budget": 30.0, **fields}
    with pytest.raises(ConfigError) as caught:
        Request(**values)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("slot, message", [
    (Slot(5, 10, 5, 2, 1.0, {"q": 1}), "node 5's slot at 10: it ends at 5, not after its start"),
    (Slot(5, 10, 10, 2, 1.0, {"q": 1}), "it ends at 10, not after its start"),
    (Slot(5, 0, 5, -2, 1.0, {"q": 1}), "performance must be > 0, got -2"),
    (Slot(5, 0, 5, 0, 1.0, {"q": 1}), "performance must be > 0, got 0"),
    (Slot(5, 0, 5, 2, -1.0, {"q": 1}), "price must be >= 0, got -1"),
    (Slot(5, 0, 5, 2, math.inf, {"q": 1}), "price inf is not a finite number"),
    (Slot(5, 0, math.nan, 2, 1.0, {"q": 1}), "end nan is not a finite number"),
    (Slot(5, 0, 5, 2, 1.0, {"q": math.nan}), "q nan is not a finite number"),
    (Slot(0, 50, 150, 4, 1.0, {"q": 5}), "node 0's slot at 50: it overlaps the node's slot "
                                         "ending at 100"),
    (Slot(-1, 0, 5, 2, 1.0, {"q": 1}), "nodes must be whole numbers >= 0"),
    (Slot(5, 0, 5, 2, 1.0, {}), "node 5's slot at 0 has attributes [], others ['q']"),
])
def test_bad_slots_are_one_line(slot: Slot, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Slots.of([*HAND, slot])
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_knapsack_resolution_is_checked() -> None:
    with pytest.raises(ConfigError, match="cells must be a whole number from 1 to 1,000,000"):
        search(HAND, Request(2, 40.0, 30.0, criterion="max_q"), cells=0)


def test_a_slots_table_reads_back_its_records_sorted_by_start() -> None:
    table = Slots.of(HAND)
    assert [table[i].node for i in range(len(table))] == [0, 1, 3, 2]
    assert table[2] == HAND[3]


def test_multiple_best_takes_the_first_of_windows_equal_within_the_tolerance() -> None:
    """A cut's float noise (680.0000000000001 beside 680) does not make a later alternative
    'earlier' than the first found."""
    from hetsched.coalloc import Window
    from hetsched.coalloc.alternatives import best_of
    from hetsched.coalloc.criteria import criterion

    first = Window((0,), (0,), 680.0000000000001, 10.0, 5.0, {}, "first_fit", 0.0)
    later = Window((1,), (1,), 680.0, 10.0, 5.0, {}, "first_fit", 0.0)
    assert best_of([first, later], criterion("min_start")).slots == (0,)
