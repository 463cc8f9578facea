"""A run's tables as Parquet (run option ``table_format``): the same values as its CSV files,
read back by the figures with the same checks."""

import importlib.util

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path
from hetsched.output import write_run
from hetsched.platform.load import load_platform
from hetsched.report.run_data import read_run_dir
from hetsched.run.options import RunOptions
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.workload.model import Workload
from support import assert_mentions, assert_one_line_error, error_of, shared

runner = CliRunner()
TABLES = {"jobs": {"job_id": str}, "timeseries": {}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """lublin_256's first 300 jobs under EASY with failures that requeue (so that jobs have
    attempts, reasons, energy, -1 and empty cells), written once per table format."""
    folder = tmp_path_factory.mktemp("runs")
    options = dict(failure_mtbf=20_000.0, on_failure="requeue", max_attempts=2,
                   horizon=60_000.0)
    run = hetsched.simulate(shared("platforms/irmasim_lublin_20node.json"),
                            shared("traces/lublin_256.swf"), "easy", **options)
    dirs = {}
    for table_format in ("csv", "parquet"):
        dirs[table_format] = folder / table_format
        write_run(run.result, dirs[table_format], {**run.options.recorded(),
                                                   "table_format": table_format})
    return dirs


@pytest.mark.parametrize("name", TABLES)
def test_a_parquet_table_holds_what_its_csv_twin_does(runs, name):
    from_csv = pd.read_csv(runs["csv"] / f"{name}.csv", dtype=TABLES[name])
    from_parquet = pd.read_parquet(runs["parquet"] / f"{name}.parquet")
    assert list(from_parquet.columns) == list(from_csv.columns)
    pd.testing.assert_frame_equal(from_parquet, from_csv, check_dtype=False)
    for column in from_csv.columns:  # numbers stay numbers (not text), ints stay ints
        if from_csv[column].dtype.kind in "if":
            assert from_parquet[column].dtype == from_csv[column].dtype, column


def test_the_case_has_what_the_comparison_must_cover(runs):
    jobs = pd.read_csv(runs["csv"] / "jobs.csv")
    assert (jobs["starting_time"] == -1).any()  # Batsim's -1: never started
    assert (jobs["attempts"] > 1).any() and jobs["metadata"].notna().any()
    assert jobs["cost"].isna().all()  # an empty cell: no prices
    assert (jobs["consumed_energy"] > 0).any()


def test_the_files_are_typed_and_the_csv_ones_not_written(runs):
    assert sorted(p.name for p in runs["parquet"].iterdir()) == [
        "jobs.parquet", "jobs.swf", "summary.json", "timeseries.parquet"]
    schema = pq.read_schema(runs["parquet"] / "jobs.parquet")
    assert schema.field("job_id").type == pa.string()
    assert schema.field("attempts").type == pa.int64()
    assert schema.field("starting_time").type == pa.float64()
    assert pq.read_schema(runs["parquet"] / "timeseries.parquet").field("busy_cores").type \
        == pa.int64()


def test_the_figures_read_a_parquet_run_as_its_csv_twin(runs):
    from_csv, from_parquet = read_run_dir(runs["csv"]), read_run_dir(runs["parquet"])
    for name in ("submit", "start", "end", "ranges", "killed", "time", "queued", "power_w",
                 "size"):
        assert np.array_equal(getattr(from_parquet, name), getattr(from_csv, name),
                              equal_nan=True), name
    assert from_parquet.job_ids == from_csv.job_ids
    assert from_parquet.states == from_csv.states and from_parquet.users == from_csv.users


def test_writing_one_format_removes_the_other_formats_tables(runs, tmp_path):
    run = hetsched.simulate(None, None, "fcfs")
    run.write(tmp_path)
    assert (tmp_path / "jobs.csv").exists()
    write_run(run.result, tmp_path, {"table_format": "parquet"})
    assert not (tmp_path / "jobs.csv").exists() and not (tmp_path / "timeseries.csv").exists()
    assert (tmp_path / "jobs.parquet").exists()


def test_a_run_without_jobs_writes_typed_empty_tables(tmp_path):
    result = simulate(load_platform(default_platform_path()), Workload("empty", ()),
                      create("fcfs"))
    write_run(result, tmp_path / "parquet", {"table_format": "parquet"})
    write_run(result, tmp_path / "csv")
    jobs = pd.read_parquet(tmp_path / "parquet" / "jobs.parquet")
    assert len(jobs) == 0 and jobs["starting_time"].dtype == float
    assert list(jobs.columns) == list(pd.read_csv(tmp_path / "csv" / "jobs.csv").columns)


def test_the_command_line_writes_and_plots_parquet_runs(tmp_path):
    out = tmp_path / "run"
    done = runner.invoke(app, ["run", "--out", str(out), "--table-format", "parquet"])
    assert done.exit_code == 0, done.output
    assert "jobs.parquet" in done.output and (out / "timeseries.parquet").exists()
    plotted = runner.invoke(app, ["plot", str(out), "--out", str(tmp_path / "figures")])
    assert plotted.exit_code == 0, plotted.output
    assert any((tmp_path / "figures").iterdir())


def test_without_pyarrow_parquet_is_a_one_line_error_before_the_run(monkeypatch, tmp_path):
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyarrow" else found(name, *a))
    done = runner.invoke(app, ["run", "--table-format", "parquet", "--out", str(tmp_path)])
    assert_one_line_error(done, "table_format parquet needs pyarrow",
                          "pip install 'hetsched[parquet]'")
    assert not any(tmp_path.iterdir())  # nothing simulated, nothing written
    # a stored run's options hold it (a store read where pyarrow is missing); writing fails
    # before the directory is touched
    options = RunOptions(table_format="parquet")
    run = hetsched.simulate(None, None, "fcfs")
    run.write(tmp_path / "run")
    with pytest.raises(ConfigError, match="needs pyarrow"):
        write_run(run.result, tmp_path / "run", options.recorded())
    assert (tmp_path / "run" / "jobs.csv").exists()


def test_a_sweep_takes_one_table_format_not_a_list(tmp_path):
    spec = tmp_path / "sweep.yaml"
    spec.write_text("schedulers: [fcfs]\noptions: {table_format: [csv, parquet]}\n")
    done = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s.sqlite")])
    assert_one_line_error(done, "field 'options.table_format[1]'", "one value, not a list")


def test_a_table_format_is_not_part_of_a_sweep_runs_identity():
    assert RunOptions(table_format="parquet").key() == RunOptions().key()
    assert RunOptions(table_format="parquet").recorded()["table_format"] == "parquet"


def _rewritten(run_dir, change):
    """The run's jobs.parquet with ``change`` made to its table."""
    path = run_dir / "jobs.parquet"
    pq.write_table(change(pq.read_table(path)), path)


def test_a_bad_value_names_the_file_row_and_field(runs, tmp_path):
    run_dir = tmp_path / "run"
    write_run(hetsched.simulate(None, None, "fcfs").result, run_dir,
              {"table_format": "parquet"})
    column = pa.array(["0.0", "later"] + ["1.0"] * (pq.read_metadata(
        run_dir / "jobs.parquet").num_rows - 2))
    _rewritten(run_dir, lambda t: t.set_column(t.column_names.index("starting_time"),
                                               "starting_time", column))
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.parquet, row 2, field "
                    "'starting_time'", "not a number: 'later'")


def test_a_missing_column_and_a_broken_file_are_named(runs, tmp_path):
    run_dir = tmp_path / "run"
    write_run(hetsched.simulate(None, None, "fcfs").result, run_dir,
              {"table_format": "parquet"})
    _rewritten(run_dir, lambda t: t.drop_columns(["finish_time"]))
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.parquet", "no column "
                    "'finish_time'")
    (run_dir / "jobs.parquet").write_bytes(b"PAR1 not really")
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.parquet", "not a Parquet file")
    (run_dir / "jobs.parquet").unlink()
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.csv: no such file",
                    "jobs.parquet")


def test_a_column_neither_numbers_nor_text_is_named(tmp_path):
    run_dir = tmp_path / "run"
    write_run(hetsched.simulate(None, None, "fcfs").result, run_dir,
              {"table_format": "parquet"})
    rows = pq.read_metadata(run_dir / "jobs.parquet").num_rows
    far = pa.array([253402300800 * 10] * rows, pa.timestamp("s"))  # beyond year 9999
    _rewritten(run_dir, lambda t: t.set_column(t.column_names.index("finish_time"),
                                               "finish_time", far))
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.parquet, schema",
                    "column 'finish_time' holds timestamp", "not numbers or text")
