"""report.compare: directions, medians, relative changes, wins with ties, representative run."""

import math

import numpy as np
import pandas as pd
import pytest

from hetsched.errors import ConfigError
from hetsched.experiments.node_centric import STUDY
from hetsched.metrics.catalogue import METRICS, Catalogue
from hetsched.report.compare import (better, changes, medians, relative_change, representative,
                                     winners, wins)

#: hetsched's metrics and the node-centric study's columns (het_slowdown, energy, edp).
DECLARED = Catalogue([*METRICS.values(), *STUDY.catalogue.values()])


def frame() -> pd.DataFrame:
    """Three schedulers over two weeks × two seeds (week 1 seed 1: b failed)."""
    rows = [
        # week, seed, scheduler, makespan, utilisation
        (0, 0, "a", 100.0, 0.5), (0, 0, "b", 90.0, 0.6), (0, 0, "c", 90.0, 0.6),
        (0, 1, "a", 110.0, 0.4), (0, 1, "b", 120.0, 0.3), (0, 1, "c", 130.0, 0.2),
        (1, 0, "a", 200.0, 0.9), (1, 0, "b", 150.0, 0.7), (1, 0, "c", 300.0, 0.9),
        (1, 1, "a", 210.0, 0.8), (1, 1, "b", math.nan, math.nan), (1, 1, "c", 190.0, 0.8),
    ]
    return pd.DataFrame(rows, columns=["week", "seed", "scheduler", "makespan", "utilisation"])


@pytest.mark.parametrize("metric", ["makespan", "mean_wait", "het_slowdown", "energy", "edp",
                                    "energy_j", "edp_js", "rental_cost", "unfinished"])
def test_lower_is_better(metric):
    assert better(metric, DECLARED) == "lower"


@pytest.mark.parametrize("metric", ["utilisation", "dssim_utilisation", "finished"])
def test_higher_is_better(metric):
    assert better(metric) == "higher"


def test_medians_per_scheduler_skip_missing_values():
    table = medians(frame(), ["makespan", "utilisation"])
    assert list(table.index) == ["a", "b", "c"]
    assert table.loc["a", "makespan"] == pytest.approx(155.0)  # 100 110 200 210
    assert table.loc["b", "makespan"] == pytest.approx(120.0)  # 90 120 150 (NaN left out)
    assert table.loc["c", "utilisation"] == pytest.approx(0.7)  # 0.2 0.6 0.8 0.9


def test_relative_change_against_the_baseline():
    table = medians(frame(), ["makespan"])
    change = changes(table, "a")
    assert change.loc["a", "makespan"] == 0.0
    assert change.loc["b", "makespan"] == pytest.approx((120.0 - 155.0) / 155.0)
    assert relative_change(3.0, 2.0) == pytest.approx(0.5)
    assert relative_change(-1.0, -2.0) == pytest.approx(0.5)  # against |baseline|
    assert math.isnan(relative_change(1.0, 0.0)) and math.isnan(relative_change(math.nan, 1.0))
    assert np.allclose(relative_change([2.0, 4.0], [1.0, 2.0]), [1.0, 1.0])


def test_unknown_baseline_is_one_line_with_a_suggestion():
    with pytest.raises(ConfigError, match=r"unknown baseline scheduler 'aa'.*did you mean a"):
        changes(medians(frame(), ["makespan"]), "aa")


def test_wins_count_ties_for_each_and_skip_missing_values():
    table = wins(frame(), ["makespan", "utilisation"], ["week", "seed"])
    # makespan: (0,0) b and c tie; (0,1) a; (1,0) b; (1,1) c (b failed)
    assert table["makespan"].to_dict() == {"a": 1, "b": 2, "c": 2}
    # utilisation, higher is better: (0,0) b, c; (0,1) a; (1,0) a, c; (1,1) a, c
    assert table["utilisation"].to_dict() == {"a": 3, "b": 1, "c": 3}


def test_winners_per_case_list_every_tied_scheduler():
    best = winners(frame(), ["makespan"], ["week", "seed"])
    assert best["makespan"].to_dict() == {(0, 0): ("b", "c"), (0, 1): ("a",), (1, 0): ("b",),
                                          (1, 1): ("c",)}
    weekly = winners(frame()[frame()["seed"] == 0], ["utilisation"], ["week"])
    assert list(weekly.index) == [0, 1] and weekly.index.name == "week"
    assert weekly["utilisation"].tolist() == [("b", "c"), ("a", "c")]


def test_wins_tolerate_rounding_but_not_real_differences():
    rows = pd.DataFrame({"case": [0, 0, 1, 1], "scheduler": ["x", "y", "x", "y"],
                         "makespan": [0.1 + 0.2, 0.3, 1.0, 1.0 + 1e-6]})
    assert wins(rows, ["makespan"], ["case"])["makespan"].to_dict() == {"x": 2, "y": 1}


def test_a_case_with_one_value_counts_for_nobody():
    rows = pd.DataFrame({"case": [0, 0], "scheduler": ["x", "y"], "makespan": [1.0, math.nan]})
    assert wins(rows, ["makespan"], ["case"])["makespan"].to_dict() == {"x": 0, "y": 0}


def test_two_runs_of_a_scheduler_in_one_case_are_refused():
    with pytest.raises(ConfigError, match="scheduler 'a' has several runs in one case "
                                          r"\(week=0\)"):
        wins(frame(), ["makespan"], ["week"])


def test_unknown_metric_is_refused_with_a_suggestion():
    with pytest.raises(ConfigError, match="unknown column 'makespn'; did you mean makespan"):
        medians(frame(), ["makespn"])


def test_representative_run_is_the_median_one():
    runs = frame()
    index = representative(runs, "makespan", "a")  # 100 110 200 210: lower middle is 110
    assert runs.loc[index, "makespan"] == 110.0
    index = representative(runs, "makespan", "b")  # 90 120 150 (NaN left out)
    assert runs.loc[index, "makespan"] == 120.0
    with pytest.raises(ConfigError, match="scheduler 'z' has no run"):
        representative(runs, "makespan", "z")


def test_cases_with_missing_keys_and_no_case_columns():
    rows = pd.DataFrame({"part": [math.nan, math.nan, 1.0, 1.0], "scheduler": ["x", "y"] * 2,
                         "makespan": [2.0, 1.0, 1.0, 3.0]})
    assert wins(rows, ["makespan"], ["part"])["makespan"].to_dict() == {"x": 1, "y": 1}
    assert winners(rows, ["makespan"], ["part"])["makespan"].tolist() == [("y",), ("x",)]
    one_case = rows[rows["part"] == 1.0]
    assert wins(one_case, ["makespan"], [])["makespan"].to_dict() == {"x": 1, "y": 0}
    assert winners(one_case, ["makespan"], [])["makespan"].tolist() == [("x",)]
