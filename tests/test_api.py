"""``hetsched.simulate``: one call from Python, the same results as ``hetsched run``."""

from __future__ import annotations

import csv
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.errors import ConfigError, InputError, InputWarning
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.output import COLUMNS
from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.workload.load import load_workload

ROOT = Path(__file__).resolve().parents[1]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_simulate_matches_the_command_line(tmp_path: Path) -> None:
    run = hetsched.simulate(scheduler="easy", seed=3)
    result = CliRunner().invoke(app, ["run", "-s", "easy", "--seed", "3", "-q",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    for key, value in written.items():
        assert _same(run.summary[key], math.nan if value is None else value), key
    assert run.summary["wall_seconds"] > 0 and "Run easy on default-hetero" in repr(run)


def test_paths_and_objects_give_the_same_run() -> None:
    platform = load_platform(default_platform_path())
    workload = load_workload(default_workload_path(), platform)
    by_path = hetsched.simulate(str(default_platform_path()), default_workload_path(),
                                "shortest-high_gflops")
    by_object = hetsched.simulate(platform, workload, create("shortest-high_gflops"))
    assert np.array_equal(by_path.result.start, by_object.result.start, equal_nan=True)
    assert by_path.result.allocation == by_object.result.allocation


def test_jobs_and_timeseries_frames_hold_the_files_values(tmp_path: Path) -> None:
    run = hetsched.simulate(scheduler="fcfs", horizon=5000.0)
    paths = run.write(tmp_path)
    assert sorted(paths) == ["jobs.csv", "jobs.swf", "summary.json", "timeseries.csv"]
    jobs = run.jobs
    assert tuple(jobs.columns) == COLUMNS and len(jobs) == 200
    rows = list(csv.DictReader(paths["jobs.csv"].open()))
    unfinished = jobs.index[jobs["final_state"] == "UNFINISHED"]
    assert len(unfinished) > 0
    for i in unfinished:  # the file says -1 as Batsim does; the frame says "no value"
        assert rows[i]["execution_time"] == "-1" and math.isnan(jobs.at[i, "execution_time"])
    for i, row in enumerate(rows):
        assert row["job_id"] == jobs.at[i, "job_id"]
        if row["finish_time"] not in ("-1", ""):
            assert float(row["finish_time"]) == jobs.at[i, "finish_time"]
    series = run.timeseries
    written = list(csv.DictReader(paths["timeseries.csv"].open()))
    assert list(series.columns) == list(written[0]) and len(series) == len(written)
    assert [float(r["power_w"]) for r in written] == series["power_w"].tolist()
    assert run.nodes["energy_j"].sum() == pytest.approx(run.summary["energy_j"])



def test_a_run_without_its_time_series_has_the_same_results(tmp_path: Path) -> None:
    with_series = hetsched.simulate(scheduler="easy", seed=3)
    without = hetsched.simulate(scheduler="easy", seed=3, timeseries=False)
    assert len(with_series.result.timeseries) > 0 and without.result.timeseries is None
    assert np.array_equal(with_series.result.start, without.result.start, equal_nan=True)
    assert np.array_equal(with_series.result.end, without.result.end, equal_nan=True)
    assert with_series.result.allocation == without.result.allocation
    assert np.array_equal(with_series.result.node_energy_j, without.result.node_energy_j)
    summary = dict(without.summary, wall_seconds=None)
    assert all(_same(v, with_series.summary[k]) for k, v in summary.items() if v is not None)
    assert sorted(without.write(tmp_path)) == ["jobs.csv", "jobs.swf", "summary.json"]
    assert not (tmp_path / "timeseries.csv").exists()
    with pytest.raises(ConfigError, match="timeseries=False"):
        without.timeseries

def test_a_trace_made_for_another_machine_warns(tmp_path: Path) -> None:
    trace = tmp_path / "big.swf"
    trace.write_text("; MaxProcs: 4096\n1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    with pytest.warns(InputWarning, match="MaxProcs 4096"):
        run = hetsched.simulate(workload=trace)
    assert run.summary["finished"] == 1


def test_no_warning_for_the_bundled_example() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        hetsched.simulate()


def test_a_file_scheduler_and_options_by_spec() -> None:
    run = hetsched.simulate(scheduler=f"{ROOT / 'examples' / 'my_scheduler.py'}:FastestFit")
    assert run.result.scheduler == "fastest-fit" and run.summary["finished"] == 200


def test_bad_inputs_and_options_raise_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        hetsched.simulate(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match="seed"):
        hetsched.simulate(seed=-1)
    with pytest.raises(ConfigError, match="horizon"):
        hetsched.simulate(horizon=float("nan"))
    with pytest.raises(ConfigError, match="unknown scheduler"):
        hetsched.simulate(scheduler="fcsf")
    with pytest.raises(ConfigError, match="scheduler must be"):
        hetsched.simulate(scheduler=42)  # type: ignore[arg-type]


def test_frames_without_pandas_say_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    run = hetsched.simulate()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"hetsched\[pandas\]"):
        run.jobs
    assert run.summary["finished"] == 200  # the rest needs no pandas
