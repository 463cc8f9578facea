"""metrics.catalogue: every metric declared once (unit, direction, label, format,
description), and everything that names, stores or ranks a metric reading it there."""

from __future__ import annotations

import ast
import io
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

import hetsched
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.metrics.catalogue import (GRAPH, METRICS, REPORT_METRICS, RESULTS_TABLE, RUN_TABLE,
                                        SUMMARY, TIMINGS, UNITS, Direction, markdown)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def summary() -> dict[str, float | int]:
    from hetsched.metrics import summarize

    run = hetsched.simulate(default_platform_path(), default_workload_path(), "easy")
    return summarize(run.result)


def test_summarize_returns_the_declared_summary_metrics_in_order(summary) -> None:
    assert list(summary) == [m.key for m in SUMMARY]


def test_units_are_the_catalogues_and_stay_public(summary) -> None:
    from hetsched.metrics import UNITS as public

    assert public is UNITS and list(UNITS) == list(summary)
    assert UNITS["makespan"] == "s" and UNITS["utilisation"] == "fraction"


def test_every_metric_is_declared_whole() -> None:
    assert len(METRICS) == len(SUMMARY) + len(TIMINGS) + len(GRAPH)  # no key declared twice
    for metric in METRICS.values():
        assert isinstance(metric.direction, Direction), metric.key
        assert metric.unit and metric.label and metric.description, metric.key
        assert "|" not in metric.description, metric.key  # a cell of docs/metrics.md's table
        assert metric.format(math.nan) == "—" and metric.format(1.0) != "—", metric.key


def test_the_default_lists_name_declared_metrics() -> None:
    for names in (RUN_TABLE, REPORT_METRICS, RESULTS_TABLE):
        assert len(set(names)) == len(names)
        assert not set(names) - set(METRICS), names


def test_the_store_has_a_column_per_summary_metric_counts_as_integers() -> None:
    from hetsched.sweep.store import METRICS as COLUMNS, OUTCOME

    assert list(COLUMNS) == [m.key for m in SUMMARY]
    assert COLUMNS["finished"] == "INTEGER" and COLUMNS["makespan"] == "REAL"
    assert {"wall_seconds", "run_seconds"} <= set(OUTCOME) & set(METRICS)


@pytest.mark.parametrize("metric, direction", [
    ("unfinished", "lower"),  # its words hold "finished", yet fewer is better
    ("finished", "higher"), ("dssim_utilisation", "higher"), ("killed", "lower"),
    ("jobs_per_second", "higher"), ("wall_seconds", "lower"),
    ("jobs", "neutral"), ("skipped_records", "neutral"),
])
def test_ranking_reads_the_declared_direction(metric: str, direction: str) -> None:
    from hetsched.report.compare import better

    assert better(metric) == direction == METRICS[metric].direction


def test_an_undeclared_metric_is_refused_with_a_suggestion_not_guessed() -> None:
    from hetsched.report.compare import better, wins

    with pytest.raises(ConfigError, match=r"unknown metric 'makespn'; did you mean makespan\?"):
        better("makespn")
    frame = pd.DataFrame({"scheduler": ["a", "b"], "throughput": [1.0, 2.0]})
    with pytest.raises(ConfigError, match="unknown metric 'throughput'"):
        wins(frame, ["throughput"], [])


def test_a_neutral_metric_has_no_winner() -> None:
    from hetsched.report.compare import winners, wins

    frame = pd.DataFrame({"case": [0, 0, 1, 1], "scheduler": ["a", "b", "a", "b"],
                          "skipped_records": [1, 2, 3, 0], "makespan": [1.0, 2.0, 2.0, 1.0]})
    counted = wins(frame, ["skipped_records", "makespan"], ["case"])
    assert counted["skipped_records"].to_dict() == {"a": 0, "b": 0}
    assert counted["makespan"].to_dict() == {"a": 1, "b": 1}
    assert winners(frame, ["skipped_records"], ["case"])["skipped_records"].tolist() == [(), ()]


def test_the_report_labels_a_metric_by_its_unit_and_direction() -> None:
    from hetsched.report.box_plots import metric_label

    assert metric_label("makespan") == "makespan (s, lower is better)"
    assert metric_label("utilisation") == "utilisation (fraction, higher is better)"
    assert metric_label("wall_seconds") == "wall_seconds (s, lower is better)"
    assert metric_label("skipped_records") == "skipped_records (count)"


def test_a_study_declares_its_renamed_columns() -> None:
    from hetsched.experiments import node_centric, realistic
    from hetsched.report.compare import better

    study = node_centric.STUDY.catalogue
    assert list(study) == list(node_centric.METRICS)
    assert study["energy"].unit == "J" and better("energy", study) == "lower"
    assert study["het_slowdown"].label == METRICS["mean_het_slowdown"].label
    assert set(realistic.STUDY.catalogue) == set(realistic.STUDY.metrics)
    with pytest.raises(ConfigError, match="unknown metric 'energy'; did you mean energy_j"):
        better("energy")  # hetsched's own metrics have no column named energy


def test_weekly_wins_rank_the_studys_columns_by_their_declarations() -> None:
    from hetsched.experiments.node_centric import METRICS as COLUMNS, weekly_wins

    rows = [{"week": week, "scheduler": name, **{c: value for c in COLUMNS}}
            for week, name, value in ((0, "x", 1.0), (0, "y", 2.0), (1, "x", 3.0),
                                      (1, "y", 0.5))]
    assert weekly_wins(pd.DataFrame(rows)).to_dict("list") == {c: [1, 1] for c in COLUMNS}


def _highlighted(runs: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    """Per row label of ``hetsched compare``'s table, the runs whose cell is bold green."""
    from hetsched.cli.tables import comparison_table

    table = comparison_table(runs)
    cells = [list(column.cells) for column in table.columns]
    out = {}
    for row, label in enumerate(cells[0]):
        out[str(label)] = [name for name, column in zip(runs, cells[1:])
                           if column[row].style == "bold green"]
    return out


def test_compare_highlights_each_rows_best_by_its_declared_direction() -> None:
    low = {key: 1.0 for key in RUN_TABLE}
    high = {key: 2.0 for key in RUN_TABLE}
    highlighted = _highlighted({"low": low, "high": high})
    for key in RUN_TABLE:
        metric = METRICS[key]
        expected = ([] if metric.direction is Direction.NEUTRAL or not metric.reproducible
                    else ["low"] if metric.direction is Direction.LOWER else ["high"])
        assert highlighted[metric.label] == expected, key
    assert highlighted["jobs unfinished"] == ["low"] and highlighted["jobs finished"] == ["high"]
    assert highlighted["records skipped"] == []
    # the simulator's speed is a footer, not a metric row (never highlighted)
    assert "wall time" not in highlighted and "jobs/s" not in highlighted


def test_speed_is_a_footer_under_the_tables() -> None:
    from hetsched.cli.tables import comparison_table, metrics_table

    values = {"makespan": 600.0, "wall_seconds": 0.0221, "jobs_per_second": 9049.8}
    screen = Console(width=200, file=io.StringIO(), force_terminal=False)
    screen.print(metrics_table(values))
    lines = screen.file.getvalue().splitlines()
    assert lines[-1].rstrip() == "simulated in 0.022 s (9,049 jobs/s)"
    assert not any(line.startswith("│ wall time") for line in lines)
    screen = Console(width=200, file=io.StringIO(), force_terminal=False)
    screen.print(comparison_table({"a": values, "b": {**values, "wall_seconds": 1.5}}))
    footer = " ".join(screen.file.getvalue().split("┘")[-1].split())  # wraps to the width
    assert footer == "simulated in a 0.022 s (9,049 jobs/s), b 1.500 s (9,049 jobs/s)"


def test_a_row_of_durations_has_one_unit_and_a_cut_makespan_is_a_bound() -> None:
    from hetsched.cli.tables import comparison_table

    runs = {"a": {"makespan": 21751.3, "mean_wait": 336.0, "rental_cost": 32.63,
                  "energy_j": 16057074.9},
            "b": {"makespan": 7000.0, "mean_wait": 106.35, "rental_cost": 30.0,
                  "energy_j": 331650.0}}
    screen = Console(width=200, file=io.StringIO(), force_terminal=False)
    screen.print(comparison_table(runs, cut={"a"}))
    text = screen.file.getvalue()
    assert "│ mean wait                 │  5.6 min │ 1.8 min │" in text
    assert "│ makespan                  │ ≥ 6.04 h │  1.94 h │" in text
    assert "│ rental cost (price units) │    32.63 │   30.00 │" in text
    assert "│ energy                    │ 16.06 MJ │ 0.33 MJ │" in text
    assert "simulated in" not in text  # no speed measured, no footer


def test_products_of_units_take_an_si_prefix_one_per_row() -> None:
    from hetsched.cli.tables import comparison_table

    runs = {"a": {"edp_js": 3.519e11, "work_lost": 2.5e6},
            "b": {"edp_js": 2.3e9, "work_lost": 9.0e5}}
    screen = Console(width=200, file=io.StringIO(), force_terminal=False)
    screen.print(comparison_table(runs))
    rows = {" ".join(line.split("│")[1].split()): line.split("│")[2:4]
            for line in screen.file.getvalue().splitlines() if line.startswith("│")}
    assert [cell.strip() for cell in rows["EDP (J·s)"]] == ["351.90 GJ·s", "2.30 GJ·s"]
    assert [cell.strip() for cell in rows["work lost (core·s)"]] == ["2.50 Mcore·s", "0.90 Mcore·s"]


def test_run_table_rows_are_labelled_and_formatted_by_the_catalogue() -> None:
    from hetsched.cli.tables import metrics_table

    values = {"makespan": 21751.3, "utilisation": 0.4162, "energy_j": 16057074.9,
              "finished": 200, "wall_seconds": 0.0221}
    screen = Console(width=200, file=io.StringIO(), force_terminal=False)
    screen.print(metrics_table(values))
    text = screen.file.getvalue()
    for line in ("│ makespan ", "6.04 h", "41.6 %", "16.06 MJ", "│ jobs finished ",
                 "simulated in 0.022 s"):
        assert line in text
    assert "ds-sim" not in text  # optional rows without a value are left out


def test_the_docs_tables_are_the_catalogues() -> None:
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for table in (markdown(SUMMARY), markdown(TIMINGS), markdown(GRAPH)):
        assert table in text, ("docs/metrics.md is out of date: paste the output of "
                               "`python -m hetsched.metrics.catalogue`")


def test_reading_the_catalogue_loads_no_numpy() -> None:
    code = ("import sys, hetsched.metrics.catalogue, hetsched.metrics.formats; "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "False"


FORBIDDEN = ("cli", "report", "sweep", "output", "api", "experiments")


@pytest.mark.parametrize("path", sorted((ROOT / "src" / "hetsched" / "metrics").glob("*.py")),
                         ids=lambda p: p.name)
def test_metrics_imports_none_of_the_layers_above_it(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = [node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names]
    above = [name for name in imported
             if name.startswith(tuple(f"hetsched.{layer}" for layer in FORBIDDEN))]
    assert not above
