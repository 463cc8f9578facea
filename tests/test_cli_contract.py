"""What every command promises: options checked (one line, exit 2), the parser's own errors
on one line, quiet broken pipes, machine-readable output (--format), whole rows when the
output is not a terminal, and one line, not a traceback, for an unexpected exception."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from support import assert_one_line_error, shared

runner = CliRunner()
HETSCHED = [sys.executable, "-m", "hetsched.cli.main"]


@pytest.mark.parametrize("args, fragments", [
    (["run", "--seed", "-1"], ["seed", ">= 0", "-1"]),
    (["run", "--seed", "abc"], ["--seed"]),
    (["run", "--horizon", "-5"], ["horizon", ">= 0", "-5"]),
    (["run", "--horizon", "nan"], ["horizon", "finite"]),
    (["run", "--horizon", "inf"], ["horizon", "finite"]),
    (["run", "--reference-speed", "0"], ["reference speed", "> 0"]),
    (["run", "--reference-speed", "inf"], ["reference speed", "finite"]),
    (["run", "--estimate-factor", "-2"], ["estimate factor", "> 0"]),
    (["run", "--swf-placement", "diagonal"], ["placement", "diagonal"]),
    (["run", "--bogus"], ["--bogus"]),
    (["run", "--format", "xml"], ["--format"]),
    (["compare", "-s", "fcfs", "--seed", "-3"], ["seed", "-3"]),
    (["compare"], ["--scheduler"]),
    (["dsclient", "--port", "70000"], ["port", "70000"]),
    (["dsclient", "--timeout", "-1"], ["timeout", "> 0"]),
    (["map", "x.etc", "--time-limit", "0"], ["--time-limit"]),
    (["map", "x.etc", "--seed", "-1"], ["seed", "-1"]),
    (["study", "batch-mapping", "--seeds", "0"], ["--seeds"]),
    (["study", "batch-mapping", "--reference-ghz", "inf"], ["--reference-ghz", "finite"]),
    (["study", "batch-mapping", "--reference-ghz", "1e-300"], ["--reference-ghz", ">="]),
    (["dssim-table", "--configs", "/nonexistent"], ["/nonexistent"]),
    (["dssim-table", "--configs", ".", "--algo", "nope"], ["nope"]),
    (["run", "--out", "/dev/null"], ["/dev/null"]),
    (["nosuchcommand"], ["nosuchcommand"]),
])
def test_a_bad_option_is_one_line_and_exit_2(args: list[str], fragments: list[str],
                                            tmp_path: Path) -> None:
    out = ["--out", str(tmp_path)] if args[0] == "run" and "--out" not in args else []
    result = runner.invoke(app, [*args, *out])
    assert_one_line_error(result, *fragments)


def test_no_arguments_prints_the_help() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 0 and "run" in result.output and "compare" in result.output


def test_help_of_every_command() -> None:
    for command in ("run", "compare", "schedulers", "map", "dssim-table", "dsclient", "study"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output, command


def test_help_shows_the_choices_and_no_placeholder_on_flags() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    lines = {line.split()[1]: line for line in result.output.splitlines()
             if line.startswith("│ --")}
    for option, choices in (("--contention", "<none|irmasim|deside|deside_stochastic>"),
                            ("--swf-placement", "<auto|single|spread>"),
                            ("--walltime", "<auto|kill|ignore>"),
                            ("--on-failure", "<kill|requeue>")):
        assert choices in lines[option], lines[option]
    for option in ("--quiet", "--strict", "--scale-delays", "--help"):
        assert "<" not in lines[option], lines[option]
    assert "SimGrid or Batsim platform XML" in lines["--platform"] + result.output
    assert "Batsim's heterogeneous JSON" in result.output


def test_run_format_json_and_csv(tmp_path: Path) -> None:
    as_json = runner.invoke(app, ["run", "--format", "json", "--out", str(tmp_path / "a")])
    assert as_json.exit_code == 0, as_json.output
    metrics = json.loads(as_json.stdout)
    assert metrics["finished"] == 200 and metrics["makespan"] > 0
    as_csv = runner.invoke(app, ["run", "-f", "csv", "--out", str(tmp_path / "b")])
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    values = {row["metric"]: row["value"] for row in rows}
    assert float(values["makespan"]) == metrics["makespan"]
    assert int(values["finished"]) == 200


def test_compare_format_csv_matches_comparison_csv(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "-s", "fcfs,easy", "-f", "csv",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    printed = list(csv.DictReader(io.StringIO(result.stdout)))
    written = list(csv.DictReader((tmp_path / "comparison.csv").open()))
    ignore = {"wall_seconds", "jobs_per_second"}  # each run's own timing
    assert [{k: v for k, v in r.items() if k not in ignore} for r in printed] == \
        [{k: v for k, v in r.items() if k not in ignore} for r in written]


def test_schedulers_format_json_lists_every_family() -> None:
    result = runner.invoke(app, ["schedulers", "--format", "json"])
    entries = json.loads(result.stdout)
    families = {e["family"] for e in entries}
    assert {"queue", "backfill", "batch", "dssim", "grid"} <= families
    fcfs = next(e for e in entries if e["name"] == "fcfs")
    assert fcfs["defaults"] == {"job_selection": "first", "node_selection": "first"}


def test_tables_are_not_cut_when_output_is_not_a_terminal(tmp_path: Path) -> None:
    """Through a pipe Rich would use 80 columns; hetsched prints whole rows instead."""
    result = subprocess.run([*HETSCHED, "compare", "-s",
                             "fcfs,easy,conservative,high_gflops,low_power,shortest-high_cores"],
                            capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "COLUMNS": "60"})
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "metric" in line)
    for name in ("fcfs", "easy", "conservative", "high_gflops", "low_power",
                 "shortest-high_cores"):
        assert name in header
    assert "…" not in result.stdout


@pytest.mark.parametrize("command", [
    lambda: ["map", str(shared("braun/u_c_hihi.0")), "--heuristic", "min_min"],
    lambda: ["schedulers", "--all"],
    lambda: ["compare", "-s", "fcfs,easy"],
], ids=["map", "schedulers", "compare"])
def test_a_closed_pipe_ends_quietly(command: Callable[[], list[str]], tmp_path: Path) -> None:
    """``| true`` closes the pipe before hetsched writes: it stops without a word."""
    shell = " ".join([*HETSCHED, *command()]) + " | true"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_an_unexpected_exception_is_one_line_said_to_be_in_the_user_s_code(
        tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from hetsched.schedulers import Scheduler\n\n"
                      "class Broken(Scheduler):\n"
                      "    def decide(self, now, events):\n"
                      "        return {}['missing']\n")
    result = runner.invoke(app, ["run", "-s", f"{broken}:Broken", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "KeyError" in lines[0] and "broken.py, line 5" in lines[0]
    assert lines[0] == (f"error: your scheduler raised KeyError: 'missing' "
                        f"({broken}, line 5): an error in your code, not in "
                        "hetsched (set HETSCHED_DEBUG=1 for the traceback)")


def test_a_narrow_terminal_wraps_cells_instead_of_cutting_them() -> None:
    from rich.console import Console

    from hetsched.cli.tables import comparison_table

    runs = {name: {"makespan": 21751.3, "edp_js": 3.519e11, "finished": 200}
            for name in ("conservative", "high_gflops", "shortest-high_cores")}
    screen = Console(width=40, file=io.StringIO(), force_terminal=False)
    screen.print(comparison_table(runs))
    text = screen.file.getvalue()
    assert "…" not in text  # nothing cut short: long cells continue on the next line
    assert text.count("351.90") == 3 and text.count("GJ·s") == 3 and text.count("6.04 h") == 3
