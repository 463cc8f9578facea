"""One output convention for the commands that print results: ``--format table|csv|json|jsonl``
on ``run``, ``compare``, ``map``, ``results`` and ``schedulers``, each format holding the same
rows; the spellings of earlier versions (``compare --json``, ``map --json``, ``generate
workload --model/-m``) still work."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.mapping import range_based, write_braun

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    spec = folder / "sweep.yaml"
    spec.write_text("schedulers: [fcfs, easy]\nseeds: [0, 1]\n")
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(folder / "s.sqlite"), "-q"])
    assert result.exit_code == 0, result.output
    return folder / "s.sqlite"


@pytest.fixture(scope="module")
def etc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("etc") / "small.0"
    write_braun(path, range_based(20, 3, np.random.default_rng(1)))
    return path


def _commands(store: Path, etc: Path, out: Path) -> dict[str, list[str]]:
    return {"run": ["run", "--out", str(out / "run")],
            "compare": ["compare", "-s", "fcfs,easy"],
            "map": ["map", str(etc), "-H", "min_min,max_min"],
            "results": ["results", str(store)],
            "schedulers": ["schedulers"]}


#: Timings differ from one run to the next.
TIMINGS = {"wall_seconds", "jobs_per_second", "seconds"}


def _steady(value: object) -> object:
    """``value`` without its timings."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


def _output(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", ["run", "compare", "map", "results", "schedulers"])
def test_every_result_printing_command_takes_the_four_formats(command: str, store: Path,
                                                              etc: Path, tmp_path: Path) -> None:
    args = _commands(store, etc, tmp_path)[command]
    lines = _steady([json.loads(line)
                     for line in _output([*args, "--format", "jsonl"]).splitlines()])
    whole = _steady(json.loads(_output([*args, "--format", "json"])))
    rows = list(csv.DictReader(io.StringIO(_output([*args, "--format", "csv"]))))
    assert lines and all(isinstance(line, dict) for line in lines)
    if command == "run":  # one object: the metrics; CSV has them as metric,value rows
        assert lines == [whole]
        assert [r["metric"] for r in rows if r["metric"] not in TIMINGS] == list(whole)
    elif command == "compare":  # JSON by scheduler; lines and CSV rows name it
        assert [line.pop("scheduler") for line in lines] == list(whole) == ["fcfs", "easy"]
        assert lines == list(whole.values()) and [r["scheduler"] for r in rows] == list(whole)
    else:
        assert lines == whole and len(rows) == len(whole)
    assert _output([*args, "--format", "table"]).strip()


def test_the_earlier_spellings_still_work(etc: Path, tmp_path: Path) -> None:
    compare = ["compare", "-s", "fcfs,easy"]
    assert _steady(json.loads(_output([*compare, "--json"]))) == _steady(json.loads(
        _output([*compare, "--format", "json"])))
    mapping = ["map", str(etc), "-H", "min_min,mct"]
    old = [json.loads(line) for line in _output([*mapping, "--json"]).splitlines()]
    new = [json.loads(line) for line in _output([*mapping, "--format", "jsonl"]).splitlines()]
    assert [(r["heuristic"], r["makespan"]) for r in old] == \
        [(r["heuristic"], r["makespan"]) for r in new]
    for flag in ("--generator", "-g", "--model", "-m"):
        out = tmp_path / f"{flag.strip('-')}.swf"
        _output(["generate", "workload", flag, "lublin", "--jobs", "5", "--out", str(out),
                 "-q"])
        assert out.read_text().count("\n") > 5
