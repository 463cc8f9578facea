"""``hetsched dag``: one row per (instance, heuristic) with the issue's keys, in the four
formats; STG graphs need --processors; bad input is one line and exit code 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.mapping.dag_io import read_dag
from hetsched.mapping.graph_registry import GRAPH_HEURISTICS
from support import shared

runner = CliRunner()
KEYS = {"instance", "heuristic", "processors", "makespan", "lower_bound", "seconds"}


def rows(args: list[str]) -> list[dict]:
    result = runner.invoke(app, ["dag", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_textbook_graphs_give_the_published_makespans() -> None:
    found = rows([str(shared("dag/topcuoglu2002.json")), str(shared("dag/arabnejad2014_peft.json")),
                  "--format", "jsonl"])
    assert all(KEYS <= set(row) for row in found)
    makespans = {(row["instance"], row["heuristic"]): row["makespan"] for row in found}
    published = {("topcuoglu2002.json", "heft"): 80.0, ("topcuoglu2002.json", "cpop"): 86.0,
                 ("arabnejad2014_peft.json", "heft"): 133.0,
                 ("arabnejad2014_peft.json", "peft"): 122.0}
    assert {key: makespans[key] for key in published} == published
    for (instance, name), makespan in makespans.items():  # the others: the library's own
        graph = read_dag(shared(f"dag/{instance}"))
        assert makespan == GRAPH_HEURISTICS[name](graph).makespan
    assert {row["processors"] for row in found} == {3}
    for row in found:
        assert row["lower_bound"] <= row["makespan"]
        assert row["slr"] >= 1.0 and 0 < row["efficiency"] <= 1.0


def test_json_is_jsonl_and_every_format_has_the_same_rows() -> None:
    graph = str(shared("dag/topcuoglu2002.json"))
    lines = rows([graph, "--json", "-H", "heft,min_min"])
    assert [r["heuristic"] for r in lines] == ["heft", "min_min"]
    whole = json.loads(runner.invoke(app, ["dag", graph, "-H", "heft,min_min",
                                           "--format", "json"]).stdout)
    table = list(csv.DictReader(io.StringIO(runner.invoke(
        app, ["dag", graph, "-H", "heft,min_min", "--format", "csv"]).stdout)))
    assert [r["makespan"] for r in whole] == [r["makespan"] for r in lines]
    assert [float(r["makespan"]) for r in table] == [r["makespan"] for r in lines]
    screen = runner.invoke(app, ["dag", graph, "-H", "heft,min_min"]).stdout
    assert "topcuoglu2002.json" in screen and "heft" in screen and "80.00" in screen


def test_an_stg_graph_runs_on_the_processors_given() -> None:
    stg = str(shared("stg/50/rand0000.stg"))
    found = rows([stg, "--processors", "2", "-H", "heft", "--format", "jsonl"])
    assert found[0]["processors"] == 2 and found[0]["tasks"] == 52
    assert found[0]["makespan"] >= 131  # the published optimum on 2 processors


@pytest.mark.parametrize("args, message", [
    (["stg/50/rand0000.stg"], "--processors"),
    (["dag/topcuoglu2002.json", "-H", "heft,bogus"], "unknown task-graph heuristic 'bogus'"),
    (["dag/topcuoglu2002.json", "--processors", "0"], "--processors"),
    (["dag/topcuoglu2002.json", "--time-limit", "-1"], "--time-limit"),
])
def test_bad_options_are_one_line(args: list[str], message: str) -> None:
    args = [str(shared(args[0])), *args[1:]]
    result = runner.invoke(app, ["dag", *args])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_bad_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.stg"
    bad.write_text("2\n0 0 0\n1 3 1 0\n")
    result = runner.invoke(app, ["dag", str(bad), "-p", "2"])
    assert result.exit_code == 2
    assert "bad.stg" in result.stderr and len(result.stderr.strip().splitlines()) == 1
