"""The figures of one run: reading a run directory (and its errors), the step-series maths the
figures rest on, the figures themselves (large runs included) and ``hetsched plot``."""

import json
import time
import xml.etree.ElementTree as ET

import matplotlib.image
import numpy as np
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.report.run_data import RunData, from_result, read_run_dir
from hetsched.report.run_figures import gantt, power_energy, write_run_figures
from hetsched.report.series import envelope, integral, time_unit
from support import assert_mentions, assert_one_line_error, error_of

runner = CliRunner()


@pytest.fixture(scope="module")
def example():
    """The bundled example under easy: (its Run, its run directory)."""
    return hetsched.simulate(None, None, "easy")


@pytest.fixture
def run_dir(example, tmp_path):
    example.write(tmp_path / "run")
    return tmp_path / "run"


def test_a_run_directory_reads_as_the_result_it_was_written_from(example, run_dir):
    read, direct = read_run_dir(run_dir), from_result(example.result, "easy")
    for name in ("slots", "submit", "start", "end", "ranges", "time", "queued", "power_w"):
        assert np.array_equal(getattr(read, name), getattr(direct, name), equal_nan=True), name
    assert read.window == pytest.approx(direct.window)
    assert read.cores == 72 and read.slots.sum() == 72 and len(read.node_names) == 8
    # every started job holds as many core ids as it has tasks
    held = np.bincount(read.ranges[:, 0], read.ranges[:, 2] - read.ranges[:, 1],
                       minlength=len(read.start))
    tasks = example.jobs["requested_number_of_resources"].to_numpy()
    assert np.array_equal(held, np.where(np.isnan(read.start), 0, tasks))


def test_integrals_of_the_time_series_give_the_summary_energy_and_utilisation(run_dir):
    run = read_run_dir(run_dir)
    metrics = json.loads((run_dir / "summary.json").read_text())["metrics"]
    lo, hi = run.window
    assert hi - lo == pytest.approx(metrics["makespan"])
    time_ = np.append(run.time, hi)
    energy = integral(time_, np.append(run.power_w, 0.0))[-1]
    assert energy == pytest.approx(metrics["energy_j"], rel=1e-9)
    busy = integral(time_, np.append(run.busy_cores, 0.0))[-1]
    assert busy / (run.cores * (hi - lo)) == pytest.approx(metrics["utilisation"], rel=1e-9)


def test_envelope_bounds_and_means_match_a_brute_force_reading():
    rng = np.random.default_rng(3)
    time_ = np.cumsum(rng.exponential(1.0, 5000))
    time_ -= time_[0]
    value = rng.integers(0, 100, len(time_)).astype(float)
    end = time_[-1] + 2.0
    env = envelope(time_, value, end, bins=37)
    for b in (0, 5, 36):
        lo, hi = env.edges[b], env.edges[b + 1]
        holding = np.searchsorted(time_, lo, side="right") - 1
        inside = (time_ > lo) & (time_ < hi)
        seen = np.append(value[inside], value[holding])
        assert env.low[b] == seen.min() and env.high[b] == seen.max()
        grid = np.linspace(lo, hi, 200001)[:-1]  # midpoint sampling of the step function
        grid += (hi - lo) / 400000
        sampled = value[np.searchsorted(time_, grid, side="right") - 1].mean()
        assert env.mean[b] == pytest.approx(sampled, rel=1e-3)


def test_time_units_follow_the_span():
    assert time_unit(300) == (1, "s") and time_unit(3600) == (60, "min")
    assert time_unit(86400) == (3600, "h") and time_unit(7 * 86400) == (86400, "days")


def test_plot_writes_every_figure_as_png_and_svg(run_dir, tmp_path):
    result = runner.invoke(app, ["plot", str(run_dir)])
    assert result.exit_code == 0, result.output
    for name in ("gantt", "jobs", "power_energy", "utilisation"):
        image = matplotlib.image.imread(run_dir / f"{name}.png")
        assert image.shape[1] > 800 and len(np.unique(image.reshape(-1, 4), axis=0)) > 5
    result = runner.invoke(app, ["plot", str(run_dir), "--format", "svg", "--out",
                                 str(tmp_path / "svg")])
    assert result.exit_code == 0, result.output
    for name in ("gantt", "jobs", "power_energy", "utilisation"):
        root = ET.parse(tmp_path / "svg" / f"{name}.svg").getroot()
        assert root.tag.endswith("svg")


def large_run(nodes: int = 1000, cores: int = 24, jobs: int = 10_000) -> RunData:
    rng = np.random.default_rng(0)
    submit = np.sort(rng.uniform(0, 7 * 86400, jobs))
    start = submit + rng.exponential(600, jobs)
    end = start + rng.exponential(3600, jobs)
    node = rng.integers(0, nodes, jobs)
    ranges = np.stack([np.arange(jobs), node * cores, node * cores + rng.integers(1, cores, jobs)],
                      axis=1)
    time_ = np.sort(np.concatenate([submit, start, end]))
    count = rng.integers(0, 500, len(time_)).astype(float)
    return RunData("large", (0.0, float(end.max())), tuple(f"n{i}" for i in range(nodes)),
                   np.full(nodes, cores), nodes * cores, submit, start, end, ranges, time_,
                   count, count, count * 10, count * 300.0)


def test_a_gantt_of_10k_jobs_on_1000_nodes_is_one_collection_and_quick(tmp_path):
    run = large_run()
    began = time.perf_counter()
    paths = write_run_figures(run, tmp_path, "png")
    seconds = time.perf_counter() - began
    assert seconds < 30, f"{seconds:.1f} s"
    figure = gantt(run)
    collections = figure.axes[0].collections
    assert len(collections) == 1 and len(collections[0].get_paths()) == 10_000
    assert all(p.stat().st_size > 10_000 for p in paths)


def broken(run_dir, name, old, new):
    path = run_dir / name
    path.write_text(path.read_text().replace(old, new, 1))
    return path


def test_a_missing_file_is_named(run_dir):
    (run_dir / "timeseries.csv").unlink()
    assert_mentions(error_of(read_run_dir, run_dir), "timeseries.csv: no such file")


def test_a_bad_number_names_file_line_and_field(run_dir):
    broken(run_dir, "jobs.csv", "\nj1,default,,88.6,", "\nj1,default,,soon,")
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.csv, line 3, field "
                    "'submission_time': not a number: 'soon'")


def test_a_core_id_beyond_the_platform_is_refused(run_dir):
    broken(run_dir, "jobs.csv", ",0-3,", ",0-300,")
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.csv, line 2, field "
                    "'allocated_resources'", "'0-300'", "72 slots")


def test_a_summary_without_core_counts_is_refused(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    del summary["nodes"][2]["slots"]
    (run_dir / "summary.json").write_text(json.dumps(summary))
    assert_mentions(error_of(read_run_dir, run_dir), "summary.json, nodes[2], field 'slots'",
                    "older hetsched")


@pytest.mark.parametrize("name, old, new, fragments", [
    ("jobs.csv", "\nj1,default,,88.6,", "\nj1,default,,88.\xe9,",
     ["jobs.csv, line 3", "not UTF-8"]),
    ("timeseries.csv", "\n0.0,0,1,4,", "\n0.0,1e308,1e308,1e308,",
     ["timeseries.csv, line 2, field 'queued'", "'1e308' is out of range"]),
    ("jobs.csv", "\nj1,default,,88.6,", "\nj1,default,,1e300,",
     ["jobs.csv, line 3, field 'submission_time'", "out of range"]),
    ("summary.json", '"slots": 16', '"slots": 1' + "0" * 60,
     ["summary.json, nodes[", "field 'slots'", "not a whole number from 1 to"]),
    ("summary.json", '"name": "fast-0"', '"nam": "fast-0"',
     ["summary.json, nodes[", "field 'name'", "no name"]),
    ("summary.json", '"nodes": [', '"nodes": [3, ', ["summary.json, nodes[0]", "not an object"]),
])
def test_values_no_run_writes_are_refused(run_dir, name, old, new, fragments):
    """Bytes that are not UTF-8, and numbers far beyond anything a run writes (whose sums
    would overflow in the figures), are one-line errors too."""
    path = run_dir / name
    text = path.read_text()
    assert old in text
    path.write_bytes(text.replace(old, new, 1).encode("latin-1"))  # é: one byte, not UTF-8
    assert_mentions(error_of(read_run_dir, run_dir), *fragments)
    assert_one_line_error(runner.invoke(app, ["plot", str(run_dir), "-q"]), fragments[0])


def test_time_going_backwards_is_refused(run_dir):
    lines = (run_dir / "timeseries.csv").read_text().splitlines()
    lines[3], lines[4] = lines[4], lines[3]
    (run_dir / "timeseries.csv").write_text("\n".join(lines) + "\n")
    assert_mentions(error_of(read_run_dir, run_dir), "timeseries.csv, line 5, field 'time'")


def test_a_short_row_and_a_missing_column_are_refused(run_dir):
    with (run_dir / "timeseries.csv").open("a") as f:
        f.write("1e9,0\n")
    assert_mentions(error_of(read_run_dir, run_dir), "timeseries.csv, line", "5 cells expected")
    broken(run_dir, "jobs.csv", "finish_time", "end_time")
    assert_mentions(error_of(read_run_dir, run_dir), "jobs.csv, line 1", "no column "
                    "'finish_time'")


def test_plot_errors_are_one_line_with_exit_code_2(run_dir, tmp_path):
    assert_one_line_error(runner.invoke(app, ["plot", str(tmp_path / "nowhere")]),
                          "nowhere: no such directory")
    broken(run_dir, "timeseries.csv", "\n0.0,", "\nzero,")
    assert_one_line_error(runner.invoke(app, ["plot", str(run_dir)]),
                          "timeseries.csv, line 2, field 'time': not a number: 'zero'")
    assert_one_line_error(runner.invoke(app, ["plot", str(run_dir), "-f", "jpg"]), "jpg")


def test_a_run_stopped_at_its_horizon_draws_running_jobs_up_to_it(tmp_path):
    hetsched.simulate(None, None, "fcfs", horizon=3000).write(tmp_path / "run")
    run = read_run_dir(tmp_path / "run")
    assert run.window[1] - run.window[0] == pytest.approx(3000.0)
    still_running = np.isnan(run.end) & ~np.isnan(run.start)
    assert still_running.any()
    figure = gantt(run)  # minutes: 3000 s is under 3 hours
    right = max(p.vertices[:, 0].max() for p in figure.axes[0].collections[0].get_paths())
    assert right == pytest.approx(50.0) and figure.axes[0].get_xlim()[1] == pytest.approx(50.0)


def test_a_run_without_power_model_says_so(example):
    run = from_result(example.result, "no power")
    run = RunData(**{**run.__dict__, "power_w": np.full(len(run.time), np.nan)})
    texts = [t.get_text() for t in power_energy(run).axes[0].texts]
    assert texts == ["no power: power and energy: the platform has no power model"]
