"""The ``hetsched map`` command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.mapping import lower_bound, range_based, read_etc, write_braun
from support import assert_one_line_error, shared

runner = CliRunner()


@pytest.fixture
def instance(tmp_path: Path) -> Path:
    path = tmp_path / "small.0"
    write_braun(path, range_based(30, 4, np.random.default_rng(2)))
    return path


def test_table_output(instance: Path) -> None:
    result = runner.invoke(app, ["map", str(instance)])
    assert result.exit_code == 0, result.output
    for name in ("min_min", "max_min", "sufferage", "gap to LP bound", "small.0"):
        assert name in result.stdout


def test_json_lines(instance: Path, tmp_path: Path) -> None:
    csv = tmp_path / "tiny.csv"
    csv.write_text("1,2\n3,1\n2,2\n")
    result = runner.invoke(app, ["map", str(instance), str(csv), "-H", "min_min,ga,best",
                                 "--time-limit", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["instance"], r["heuristic"]) for r in rows] == [
        ("small.0", "min_min"), ("small.0", "ga"), ("small.0", "best"),
        ("tiny.csv", "min_min"), ("tiny.csv", "ga"), ("tiny.csv", "best")]
    for row in rows:
        assert {"instance", "heuristic", "makespan", "flowtime", "bound", "lower_bound",
                "gap_percent", "proved_bound", "seconds"} <= set(row)
        assert row["makespan"] >= row["lower_bound"] * (1 - 1e-9)
    assert rows[0]["proved_bound"] is None and rows[2]["proved_bound"] is not None
    assert rows[-1]["makespan"] == 3.0  # tiny: t0->m0 (1), t1->m1 (1), t2 either (2)


def _json_rows(*args: str) -> dict[str, dict]:
    result = runner.invoke(app, ["map", *args, "--json"])
    assert result.exit_code == 0, result.output
    rows = (json.loads(line) for line in result.stdout.splitlines())
    return {row.pop("heuristic"): row for row in rows}


def test_gap_is_to_the_lp_bound_whatever_else_runs(instance: Path) -> None:
    alone = _json_rows(str(instance), "-H", "min_min")["min_min"]
    together = _json_rows(str(instance), "-H", "min_min,milp,best", "-t", "5")
    milp = together["milp"]
    assert milp["proved_bound"] > milp["lower_bound"]  # milp proves more than the LP bound...
    for row in (alone, together["min_min"]):  # ...and min_min's gap does not move
        del row["seconds"]
    assert together["min_min"] == alone
    assert alone["bound"] == "lp" and alone["lower_bound"] == lower_bound(read_etc(instance))
    assert alone["gap_percent"] == pytest.approx(
        100 * (alone["makespan"] / alone["lower_bound"] - 1))
    assert milp["gap_percent"] == pytest.approx(100 * (milp["makespan"] / milp["lower_bound"]
                                                       - 1))


def test_table_names_the_bound_and_what_heuristics_proved(instance: Path) -> None:
    plain = runner.invoke(app, ["map", str(instance), "-H", "min_min"])
    assert "LP bound" in plain.stdout and "proved" not in plain.stdout
    proved = runner.invoke(app, ["map", str(instance), "-H", "min_min,milp", "-t", "5"])
    assert "gap to LP bound" in proved.stdout
    assert "lower bounds proved above the LP bound" in " ".join(proved.stdout.split())


def test_seed_makes_runs_repeatable(instance: Path) -> None:
    args = ["map", str(instance), "-H", "ga,sa", "--seed", "3", "--json"]
    first = [json.loads(x)["makespan"] for x in runner.invoke(app, args).stdout.splitlines()]
    again = [json.loads(x)["makespan"] for x in runner.invoke(app, args).stdout.splitlines()]
    assert first == again


def test_errors_are_one_line(instance: Path, tmp_path: Path) -> None:
    assert_one_line_error(runner.invoke(app, ["map", str(tmp_path / "missing.0")]),
                          "no such file")
    assert_one_line_error(runner.invoke(app, ["map", str(instance), "-H", "min_min,foo"]),
                          "unknown heuristic 'foo'")
    assert_one_line_error(runner.invoke(app, ["map", str(instance), "-t", "0"]),
                          "--time-limit")
    bad = tmp_path / "bad.0"
    bad.write_text("2 2 0\n1\n2\nx\n4\n")
    assert_one_line_error(runner.invoke(app, ["map", str(bad)]), "line 4", "etc[1,0]")


def test_real_braun_instance() -> None:
    path = shared("braun/u_c_hihi.0")
    result = runner.invoke(app, ["map", str(path), "-H", "min_min,mct,max_min", "--json"])
    makespans = {json.loads(x)["heuristic"]: json.loads(x)["makespan"]
                 for x in result.stdout.splitlines()}
    assert makespans == pytest.approx({"min_min": 8_460_675.00, "mct": 11_422_624.49,
                                       "max_min": 12_385_671.83}, rel=1e-9)
