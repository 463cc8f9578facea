"""ds-sim through the command line: run/compare on XML files, the table, the live client."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from typer.testing import CliRunner, Result

from hetsched.cli.main import app
from support import assert_one_line_error, shared

runner = CliRunner()


class Inputs(NamedTuple):
    config: Path
    jobs: Path
    reference: Path


@pytest.fixture
def data() -> Inputs:
    """config12-short-med's configuration and job list, and the real server's results."""
    return Inputs(shared("dssim/configs/config12-short-med.xml"),
                  shared("dssim/jobs/config12-short-med-jobs.xml"),
                  shared("dssim/reference_results_config12.json"))


def test_run_writes_ds_sim_metrics_next_to_the_usual_ones(tmp_path: Path, data: Inputs) -> None:
    result = runner.invoke(app, ["run", "--platform", str(data.config), "--workload",
                                 str(data.jobs), "--scheduler", "bf", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    expected = json.loads(data.reference.read_text())["config12-short-med"]["bf"]
    assert metrics["dssim_turnaround"] == expected["tt"]
    assert round(100 * metrics["dssim_utilisation"], 2) == expected["util"]  # a fraction
    assert round(metrics["rental_cost"], 2) == expected["cost"]
    assert metrics["finished"] == 2000 and "mean_wait" in metrics
    assert "ds-sim utilisation" in result.stdout
    assert f"{expected['util']:.2f} %" in result.stdout  # the table shows the fraction in %
    assert metrics["energy_j"] is None and metrics["edp_js"] is None  # ds-sim: no power model
    energy_row = next(line for line in result.stdout.splitlines() if "energy" in line)
    assert "—" in energy_row and "0.00" not in energy_row


def test_compare_ds_sim_and_engine_schedulers(data: Inputs) -> None:
    result = runner.invoke(app, ["compare", "-p", str(data.config), "-w", str(data.jobs), "--json",
                                 "-s", "ibf,lwt,fcfs"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)
    # fcfs runs on the same engine: it boots the servers it uses and is charged like them
    assert runs["ibf"]["dssim_turnaround"] > 0 and runs["fcfs"]["dssim_turnaround"] > 0


def test_ds_sim_runs_take_the_engine_options(tmp_path: Path, data: Inputs) -> None:
    result = runner.invoke(app, ["run", "-p", str(data.config), "-w", str(data.jobs), "-s", "bf",
                                 "--horizon", "5000", "--contention", "none",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    # the window runs from the first submission (5) to the horizon
    assert summary["metrics"]["unfinished"] > 0 and summary["metrics"]["makespan"] == 4995
    assert summary["options"]["horizon"] == 5000
    rows = (tmp_path / "timeseries.csv").read_text().splitlines()
    assert len(rows) > 100 and rows[0].startswith("time,queued,running")


def test_config_alone_asks_for_the_job_list(data: Inputs) -> None:
    result = runner.invoke(app, ["run", "-p", str(data.config), "-s", "ff"])
    assert_one_line_error(result, "config12-short-med.xml", "random generator", "--workload")


def test_ds_sim_algorithm_needs_a_ds_sim_job_list() -> None:
    result = runner.invoke(app, ["run", "-s", "ff"])
    assert_one_line_error(result, "'ff' is a ds-sim algorithm", "job list")


def _table(tmp_path: Path, data: Inputs, reference: Path) -> Result:
    """``dssim-table`` on the one config12-short-med configuration, for ff, wfq and atl."""
    for folder, source in (("configs", data.config), ("jobs", data.jobs)):
        (tmp_path / folder).mkdir()
        shutil.copy(source, tmp_path / folder)
    return runner.invoke(app, ["dssim-table", "--configs", str(tmp_path / "configs"),
                               "--algo", "ff,wfq,atl", "--reference", str(reference),
                               "--csv", str(tmp_path / "t.csv")])


def test_table_checks_the_reference(tmp_path: Path, data: Inputs) -> None:
    result = _table(tmp_path, data, data.reference)
    assert result.exit_code == 0, result.output
    assert "reference: 3/3 cells match exactly" in result.stdout
    with (tmp_path / "t.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["config", "algo", "tt_s", "util_percent", "cost_dollars", "end_s",
                             "jobs"]  # ds-sim's units, each named in its column
    expected = json.loads(data.reference.read_text())["config12-short-med"]
    assert [(r["algo"], float(r["util_percent"])) for r in rows] == \
        [(algo, expected[algo]["util"]) for algo in ("ff", "wfq", "atl")]


def test_table_fails_when_a_reference_cell_differs(tmp_path: Path, data: Inputs) -> None:
    reference = json.loads(data.reference.read_text())
    reference["config12-short-med"]["ff"]["cost"] += 0.01
    tampered = tmp_path / "reference.json"
    tampered.write_text(json.dumps(reference))
    result = _table(tmp_path, data, tampered)
    assert result.exit_code == 1
    assert "reference: 2/3 cells match exactly" in result.stdout
    assert "differs" in result.stdout and "ff" in result.stdout


@pytest.mark.parametrize("change, fragments", [
    (lambda ref: ref["config12-short-med"]["ff"].update(tt="x"),
     ["field 'config12-short-med.ff.tt'", "valid number (got 'x')"]),
    (lambda ref: ref["config12-short-med"]["ff"].update(util=float("nan")),
     ["field 'util'", "'NaN' is not a valid JSON number"]),
    (lambda ref: ref["config12-short-med"]["ff"].update(util=250),
     ["field 'config12-short-med.ff.util'", "less than or equal to 100"]),
    (lambda ref: ref["config12-short-med"].update(ff=[1]),
     ["field 'config12-short-med.ff'", "expected an object"]),
])
def test_a_bad_reference_file_is_one_error_line(tmp_path: Path, data: Inputs, change,
                                                 fragments) -> None:
    """Not a cell that "differs" (exit code 1) nor an exception: the file is wrong."""
    reference = json.loads(data.reference.read_text())
    change(reference)
    bad = tmp_path / "reference.json"
    bad.write_text(json.dumps(reference))
    assert_one_line_error(_table(tmp_path, data, bad), "reference.json", *fragments)
    bad.write_text("[]")
    assert_one_line_error(runner.invoke(app, ["dssim-table", "--configs", str(tmp_path / "configs"),
                                              "--algo", "ff", "--reference", str(bad)]),
                          "reference.json", "expected an object")


def _two_configs(tmp_path: Path, data: Inputs) -> Path:
    """config12-short-med (which the reference covers) and config16-short-med (which it
    does not), with their job lists; the configurations' folder."""
    for folder, sources in (("configs", (data.config, shared(
            "dssim/configs/config16-short-med.xml"))), ("jobs", (data.jobs, shared(
                "dssim/jobs/config16-short-med-jobs.xml")))):
        (tmp_path / folder).mkdir()
        for source in sources:
            shutil.copy(source, tmp_path / folder)
    return tmp_path / "configs"


def test_table_runs_only_the_configurations_the_reference_covers(tmp_path: Path,
                                                                  data: Inputs) -> None:
    configs = _two_configs(tmp_path, data)
    every = runner.invoke(app, ["dssim-table", "--configs", str(configs), "--algo", "ff",
                                "--csv", str(tmp_path / "all.csv")])
    assert every.exit_code == 0, every.output
    covered = runner.invoke(app, ["dssim-table", "--configs", str(configs), "--algo", "ff",
                                  "--reference", str(data.reference), "--csv",
                                  str(tmp_path / "ref.csv")])
    assert covered.exit_code == 0, covered.output
    assert "reference: 1/1 cells match exactly" in covered.stdout
    configs_of = [[row["config"] for row in csv.DictReader((tmp_path / name).open())]
                  for name in ("all.csv", "ref.csv")]
    assert configs_of == [["config12-short-med", "config16-short-med"], ["config12-short-med"]]
    (configs / "config12-short-med.xml").unlink()
    assert_one_line_error(runner.invoke(app, [
        "dssim-table", "--configs", str(configs), "--reference", str(data.reference)]),
        "the reference covers none of the configurations in")


def test_table_on_two_workers_gives_the_same_cells_in_the_same_order(tmp_path: Path,
                                                                      data: Inputs) -> None:
    from hetsched.experiments.dssim_table import run_table

    configs = _two_configs(tmp_path, data)
    told: list[tuple[int, int]] = []
    alone = run_table(configs, tmp_path / "jobs", ["ff", "atl"],
                      progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert run_table(configs, tmp_path / "jobs", ["ff", "atl"], workers=2) == alone
    result = runner.invoke(app, ["dssim-table", "--configs", str(configs), "--algo", "ff,atl",
                                 "-j", "2", "--csv", str(tmp_path / "t.csv")])
    assert result.exit_code == 0, result.output
    assert [(r["config"], r["algo"], int(r["tt_s"])) for r in csv.DictReader(
        (tmp_path / "t.csv").open())] == [(c.config, c.algo, c.tt) for c in alone]


def test_a_bad_configuration_in_a_worker_is_one_error_line(tmp_path: Path,
                                                          data: Inputs) -> None:
    configs = _two_configs(tmp_path, data)
    (configs / "config16-short-med.xml").write_text("<config><bad")
    result = runner.invoke(app, ["dssim-table", "--configs", str(configs), "--algo", "ff",
                                 "-j", "2"])
    assert_one_line_error(result, "config16-short-med.xml, line 1: malformed XML")


def test_table_rejects_unknown_algorithm(tmp_path: Path) -> None:
    result = runner.invoke(app, ["dssim-table", "--configs", str(tmp_path), "--algo", "xyz"])
    assert_one_line_error(result, "unknown ds-sim algorithm 'xyz'")


def test_dsclient_without_a_server_is_one_line_error() -> None:
    result = runner.invoke(app, ["dsclient", "--algo", "bf", "--port", "1", "--timeout", "2"])
    assert_one_line_error(result, "cannot connect to a ds-sim server at 127.0.0.1:1")
