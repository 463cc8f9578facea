"""The ``hetsched`` command line, and the README's example scheduler."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.cli.running import split_specs
from hetsched.errors import ConfigError
from support import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_run_without_arguments_runs_the_bundled_example(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "runs" / "default_workload-fcfs"
    assert sorted(p.name for p in out.iterdir()) == ["jobs.csv", "jobs.swf",
                                                      "summary.json", "timeseries.csv"]
    assert "makespan" in result.stdout and "mean bounded slowdown" in result.stdout
    assert len((out / "jobs.csv").read_text().splitlines()) == 201


def test_run_quiet_prints_nothing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--quiet", "--out", str(tmp_path / "o"),
                                 "--scheduler", "easy", "--horizon", "3600"])
    assert result.exit_code == 0 and result.stdout == ""
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["scheduler"] == "easy" and summary["options"]["horizon"] == 3600.0


def test_compare_writes_each_run_and_the_comparison(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "--scheduler", "fcfs,easy,high_gflops",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert any(all(name in line for name in ("metric", "fcfs", "easy", "high_gflops"))
               for line in result.stdout.splitlines())
    assert (tmp_path / "easy" / "jobs.csv").exists()
    rows = (tmp_path / "comparison.csv").read_text().splitlines()
    assert rows[0].startswith("scheduler,") and [r.split(",")[0] for r in rows[1:]] == \
        ["fcfs", "easy", "high_gflops"]


def test_compare_json(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "-s", "fcfs", "-s", "conservative", "--json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)
    assert list(runs) == ["fcfs", "conservative"] and runs["fcfs"]["finished"] == 200


def test_split_specs_keeps_options_with_their_scheduler() -> None:
    assert split_specs(["fcfs,easy:a=1,b=2", "sjf"]) == ["fcfs", "easy:a=1,b=2", "sjf"]
    with pytest.raises(ConfigError):
        split_specs(["fcfs,fcfs"])


def test_schedulers_lists_names() -> None:
    result = runner.invoke(app, ["schedulers"])
    assert result.exit_code == 0 and "fcfs" in result.stdout and "easy" in result.stdout
    assert "shortest-<node>" in result.stdout and "smallest-low_power" not in result.stdout
    everything = runner.invoke(app, ["schedulers", "--all"])
    assert "smallest-low_power" in everything.stdout


def test_unknown_scheduler_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--scheduler", "fcsf", "--out", str(tmp_path)])
    assert_one_line_error(result, "unknown scheduler 'fcsf'", "fcfs")
    assert_one_line_error(runner.invoke(app, ["compare", "-s", "fcfs,nope"]), "nope")


def test_missing_platform_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    result = runner.invoke(app, ["run", "--platform", str(missing), "--out", str(tmp_path)])
    assert_one_line_error(result, str(missing), "no such file")


def test_bad_swf_option_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--swf-placement", "diagonal", "--out", str(tmp_path)])
    assert_one_line_error(result, "placement")


def test_unwritable_output_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = runner.invoke(app, ["run", "--out", str(blocker / "sub")])
    assert_one_line_error(result, str(blocker))


def test_readme_example_scheduler_runs_and_is_in_the_readme() -> None:
    example = ROOT / "examples" / "my_scheduler.py"
    assert example.read_text() in (ROOT / "README.md").read_text()
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.startswith("200 jobs finished")
