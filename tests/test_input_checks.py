"""Checks of the inputs before a run: dependent jobs run in order, and suspicious but legal
inputs give one-line warnings."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import InputWarning
from hetsched.examples import default_platform_path
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.run.checks import input_warnings
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, SkippedRecord, Workload
from support import assert_mentions, write

runner = CliRunner()
BUNDLED = load_platform(default_platform_path())  # 72 cores
SWF_RECORD = "{id} {submit} -1 {run} 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n"


def swf(path: Path, header: str, records: list[tuple[int, int, int]]) -> Path:
    """An SWF trace: ``header`` lines, then (id, submit, run time) records of 4 processors."""
    body = "".join(SWF_RECORD.format(id=i, submit=s, run=r) for i, s, r in records)
    return write(path, header + body)


# ---- dependencies -------------------------------------------------------------------------------
DAG = {"jobs": [{"id": "a", "submit": 0, "ntasks": 1, "run_time": 100},
                {"id": "b", "submit": 0, "ntasks": 1, "run_time": 10, "parents": ["a"]},
                {"id": "c", "submit": 1, "ntasks": 1, "run_time": 10, "parents": ["b"]}]}


def test_cli_runs_a_chain_of_dependent_jobs(tmp_path: Path) -> None:
    path = write(tmp_path / "dag.json", DAG)
    result = runner.invoke(app, ["run", "--workload", str(path), "--out", str(tmp_path / "o"),
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["metrics"]["finished"] == 3


# ---- warnings ------------------------------------------------------------------------------------
def test_no_warning_for_consistent_inputs(tmp_path: Path) -> None:
    trace = swf(tmp_path / "t.swf", "; MaxProcs: 72\n", [(1, 0, 10)])
    assert input_warnings(BUNDLED, load_workload(trace, BUNDLED)) == []
    no_header = swf(tmp_path / "n.swf", "; MaxNodes: 64\n", [(1, 0, 10)])  # nodes: not cores
    assert input_warnings(BUNDLED, load_workload(no_header, BUNDLED)) == []


@pytest.mark.parametrize("max_procs", [256, 64])
def test_trace_made_for_another_machine_size(tmp_path: Path, max_procs: int) -> None:
    trace = swf(tmp_path / "lublin.swf", f"; MaxProcs: {max_procs}\n", [(1, 0, 10)])
    (message,) = input_warnings(BUNDLED, load_workload(trace, BUNDLED))
    assert_mentions(message, "lublin.swf", f"MaxProcs {max_procs}",
                    "platform default-hetero has 72 cores")
    assert "give --platform" not in message  # advice in the CLI's words is the CLI's to give
    (hinted,) = input_warnings(BUNDLED, load_workload(trace, BUNDLED), "give --platform")
    assert hinted == f"{message} (give --platform)"
    chosen = Platform.from_counts("mine", [(NodeType("n", 8, 1.0, has_power=True), 4)])
    (message,) = input_warnings(chosen, load_workload(trace, chosen))
    assert "platform mine has 32 cores" in message and "bundled" not in message


@pytest.mark.parametrize("value", ["-5", "0", "banana", "1e400", "64.5"])
def test_a_header_size_that_is_no_machine_size_is_a_warning(tmp_path: Path, value: str) -> None:
    """Not silently ignored: the user learns that the trace's size was not checked."""
    trace = swf(tmp_path / "t.swf", f"; MaxProcs: {value}\n", [(1, 0, 10)])
    (message,) = input_warnings(BUNDLED, load_workload(trace, BUNDLED))
    assert_mentions(message, "t.swf", f"header MaxProcs '{value}' is not a whole number >= 1")


def test_batsim_nb_res_is_kept_and_checked(tmp_path: Path) -> None:
    doc = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "d"}],
           "profiles": {"d": {"type": "delay", "delay": 10}}}
    workload = load_workload(write(tmp_path / "b.json", doc), BUNDLED)
    assert workload.metadata["nb_res"] == 4
    (message,) = input_warnings(BUNDLED, workload)
    assert_mentions(message, "b.json", "nb_res 4", "72 cores")
    doc["nb_res"] = 72
    assert input_warnings(BUNDLED, load_workload(write(tmp_path / "b.json", doc), BUNDLED)) == []


def test_empty_workloads(tmp_path: Path) -> None:
    header_only = swf(tmp_path / "h.swf", "; Version: 2\n", [])
    assert input_warnings(BUNDLED, load_workload(header_only, BUNDLED)) == [
        f"{header_only}: the workload has no jobs; there is nothing to simulate"]
    all_skipped = swf(tmp_path / "s.swf", "", [(1, 0, -1), (2, 5, -1)])
    (message,) = input_warnings(BUNDLED, load_workload(all_skipped, BUNDLED))
    assert_mentions(message, "s.swf", "all 2 records were skipped", "line 1",
                    "run time unknown (-1)")
    memory = Workload("mine", (), skipped=(SkippedRecord(3, "7", "bad"),))
    assert input_warnings(BUNDLED, memory) == [
        "workload 'mine': no job to simulate: all 1 records were skipped (first, line 3: bad)"]


def test_partly_powered_platform_warns(tmp_path: Path) -> None:
    doc = {"name": "half", "node_types": [
        {"name": "fast", "cores": 8, "clock_ghz": 3.0, "power": {"static": 50}},
        {"name": "slow", "cores": 4, "clock_ghz": 1.5}]}
    platform = load_platform(write(tmp_path / "half.json", doc))
    workload = Workload("w", (Job("a", 0, 1, 1e9, 1),))
    (message,) = input_warnings(platform, workload)
    assert_mentions(message, "half.json", "'slow'", "no power figures", "energy is not reported")
    del doc["node_types"][0]["power"]  # no power figures at all: energy absent, no warning
    assert input_warnings(load_platform(write(tmp_path / "none.json", doc)), workload) == []


def test_warnings_are_input_warnings_for_python_callers() -> None:
    assert issubclass(InputWarning, UserWarning)
    with pytest.warns(InputWarning, match="no jobs"):
        for message in input_warnings(BUNDLED, Workload("w", ())):
            warnings.warn(message, InputWarning, stacklevel=1)


def test_cli_prints_warnings_unless_quiet(tmp_path: Path) -> None:
    trace = swf(tmp_path / "big.swf", "; MaxProcs: 256\n", [(1, 0, 10), (2, 3, 10)])
    result = runner.invoke(app, ["run", "-w", str(trace), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"warning: {trace}: the trace's header says MaxProcs 256, the platform default-hetero "
        "has 72 cores (the bundled example; give --platform)"]
    assert "makespan" in result.stdout
    quiet = runner.invoke(app, ["run", "-q", "-w", str(trace), "--out", str(tmp_path / "q")])
    assert quiet.exit_code == 0 and quiet.stdout == quiet.stderr == ""
    compared = runner.invoke(app, ["compare", "-s", "fcfs,easy", "-w", str(trace), "--json"])
    assert compared.exit_code == 0 and compared.stderr.startswith("warning: ")
    assert set(json.loads(compared.stdout)) == {"fcfs", "easy"}  # stdout stays JSON


def test_cli_says_an_empty_workload_ran(tmp_path: Path) -> None:
    trace = swf(tmp_path / "void.swf", "; Version: 2\n", [])
    result = runner.invoke(app, ["run", "-w", str(trace), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0
    assert result.stderr == f"warning: {trace}: the workload has no jobs; there is nothing " \
                            "to simulate\n"
