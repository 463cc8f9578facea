"""Paired comparisons against a baseline (hetsched.report.paired) on hand-checkable runs."""

from __future__ import annotations

import math

import pandas
import pytest

from hetsched.errors import ConfigError
from hetsched.report.paired import can_test, paired, paired_changes


def runs(base: list[float], other: list[float]) -> pandas.DataFrame:
    """Week ``i``: fcfs's makespan ``base[i]``, easy's ``other[i]``."""
    weeks = range(len(base))
    return pandas.DataFrame({"week": [*weeks, *weeks], "scheduler": ["fcfs"] * len(base)
                             + ["easy"] * len(other), "makespan": [*base, *other]})


def test_each_case_pairs_the_runs_of_its_week() -> None:
    table = paired_changes(runs([100, 200, 0, 50], [90, 250, 10, math.nan]), "makespan",
                           ["week"], "fcfs")
    assert list(table.columns) == ["easy"]
    assert table["easy"].tolist()[:2] == pytest.approx([-0.1, 0.25])
    assert table["easy"].iloc[2:].isna().all()  # a baseline of 0, a missing value


def test_six_pairs_that_all_improve_give_the_smallest_exact_p() -> None:
    base = [100.0] * 6
    [found] = paired(runs(base, [90, 80, 70, 60, 50, 40]), ["makespan"], ["week"], "fcfs")
    assert (found.scheduler, found.metric, found.pairs, found.changed) == ("easy", "makespan",
                                                                           6, 6)
    assert found.median == pytest.approx(-0.35)
    assert -0.6 <= found.low < found.median < found.high <= -0.1
    assert found.p_value == pytest.approx(2 / 2 ** 6)


def test_one_change_against_five_gives_the_exact_p_of_signed_ranks() -> None:
    # ranks 1..6, the only positive change has rank 1: W+ = 1, P(W+ <= 1) = 2/64, two-sided
    [found] = paired(runs([100.0] * 6, [110, 80, 70, 60, 50, 40]), ["makespan"], ["week"],
                     "fcfs")
    assert found.p_value == pytest.approx(2 * 2 / 2 ** 6)


def test_five_pairs_are_too_few_to_test() -> None:
    assert not can_test(5) and can_test(6) and not can_test(0)
    [found] = paired(runs([100.0] * 5, [90, 80, 70, 60, 50]), ["makespan"], ["week"], "fcfs")
    assert found.pairs == 5 and found.median == pytest.approx(-0.3) and found.p_value is None


def test_unchanged_pairs_are_not_counted_by_the_test() -> None:
    [found] = paired(runs([100.0] * 6, [100, 80, 70, 60, 50, 40]), ["makespan"], ["week"],
                     "fcfs")
    assert (found.pairs, found.changed, found.p_value) == (6, 5, None)


def test_equal_changes_have_a_point_interval_and_no_pairs_nothing() -> None:
    [same] = paired(runs([100.0, 200.0], [50, 100]), ["makespan"], ["week"], "fcfs")
    assert (same.median, same.low, same.high, same.pairs) == (-0.5, -0.5, -0.5, 2)
    [none] = paired(runs([100.0], [math.nan]), ["makespan"], ["week"], "fcfs")
    assert none.pairs == 0 and math.isnan(none.median) and none.p_value is None


def test_the_interval_is_seeded() -> None:
    frame = runs([100.0] * 8, [90, 95, 70, 120, 50, 85, 99, 60])
    first, again = (paired(frame, ["makespan"], ["week"], "fcfs")[0] for _ in range(2))
    assert (first.low, first.high) == (again.low, again.high)


def test_two_runs_of_a_scheduler_in_one_case_are_refused() -> None:
    frame = runs([100.0, 100.0], [90, 80])
    with pytest.raises(ConfigError, match="scheduler 'fcfs' has several runs in one case"):
        paired(frame, ["makespan"], [], "fcfs")
