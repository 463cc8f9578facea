"""Bad sweep files and stores: one line naming the file and the field, exit code 2, nothing
run and no store created."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.examples import default_workload_path
from support import assert_one_line_error

runner = CliRunner()
WORKLOAD = default_workload_path()


def _sweep(tmp_path: Path, text: str, *options: str):
    spec = tmp_path / "sweep.yaml"
    spec.write_text(text)
    store = tmp_path / "results.sqlite"
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(store), "-j", "1",
                                 *options])
    return result, spec, store


@pytest.mark.parametrize("text, fragments", [
    ("schedulrs: [fcfs]\n", ["field 'schedulrs'", "did you mean 'schedulers'"]),
    ("schedulers: [fcfs]\nseed: [1]\n", ["field 'seed'", "did you mean 'seeds'"]),
    ("seeds: [1]\n", ["field 'schedulers'", "required field is missing"]),
    ("schedulers: []\n", ["field 'schedulers'", "at least 1 item"]),
    ("schedulers: [fcfs, eazy]\n", ["field 'schedulers[1]'", "unknown scheduler 'eazy'",
                                    "did you mean easy"]),
    ("schedulers: ['easy:nod=random']\n", ["field 'schedulers[0]'", "has no option 'nod'"]),
    ("schedulers: [fcfs, fcfs]\n", ["field 'schedulers[1]'", "'fcfs' is listed twice"]),
    ("schedulers: [fcfs]\nseeds: [-1]\n", ["field 'seeds[0]'", "greater than or equal to 0"]),
    ("schedulers: [fcfs]\nseeds: [1, x]\n", ["field 'seeds[1]'", "valid integer"]),
    ("schedulers: [fcfs]\nseeds: [true]\n", ["field 'seeds[0]'", "valid integer"]),
    ("schedulers: [fcfs]\nseeds: [1.5]\n", ["field 'seeds[0]'", "valid integer"]),
    ("schedulers: [fcfs]\nseeds: [3, 3]\n", ["field 'seeds[1]'", "3 is listed twice"]),
    ("schedulers: [fcfs]\nseeds: {count: 0}\n", ["field 'seeds'", "1 <= count"]),
    ("schedulers: [fcfs]\nseeds: {start: 2, count: 3}\n", ["field 'seeds'", "{first: N"]),
    ("schedulers: [fcfs]\nworkloads: [nope.swf]\n", ["field 'workloads[0].file'",
                                                     "no such file: nope.swf"]),
    ("schedulers: [fcfs]\nplatforms: [{file: nope.json, name: p}]\n",
     ["field 'platforms[0].file'", "no such file"]),
    (f"schedulers: [fcfs]\nworkloads: [{{file: {WORKLOAD}, split: weak}}]\n",
     ["field 'workloads[0].split'", "week, day or '<N> jobs'"]),
    (f"schedulers: [fcfs]\nworkloads: [{{file: {WORKLOAD}, max_parts: 0}}]\n",
     ["field 'workloads[0].max_parts'", "greater than or equal to 1"]),
    (f"schedulers: [fcfs]\nworkloads: [{WORKLOAD}, {WORKLOAD}]\n",
     ["field 'workloads[1].name'", "'default_workload' is listed twice; give one another"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poison}]\n",
     ["field 'workloads[0].generator'", "unknown workload generator 'poison'",
      "did you mean poisson"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poisson, params: {jobs: 0}}]\n",
     ["field 'workloads[0].params.jobs'", "greater than or equal to 1"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poisson, params: {jobs: 9, "
     "mean_interarrival: 1, runtime: [5, 1]}}]\n",
     ["field 'workloads[0].params.runtime'", "low <= high"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poisson, params: {jobs: 9, "
     "mean_interarival: 1, runtime: [1, 5]}}]\n",
     ["field 'workloads[0].params.mean_interarival'", "did you mean 'mean_interarrival'"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poisson, instances: 0}]\n",
     ["field 'workloads[0].instances'", "greater than or equal to 1"]),
    (f"schedulers: [fcfs]\nworkloads: [{{file: {WORKLOAD}, seed: 3}}]\n",
     ["field 'workloads[0]'", "go with 'generator'"]),
    ("schedulers: [fcfs]\nworkloads: [{generator: poisson, split: week}]\n",
     ["field 'workloads[0]'", "not split"]),
    ("schedulers: [fcfs]\nworkloads: [{name: x}]\n",
     ["field 'workloads[0]'", "either 'file' or 'generator'"]),
    ("schedulers: [fcfs]\noptions: {contention: [none, nope]}\n",
     ["field 'options.contention[1]'", "unknown contention model 'nope'"]),
    ("schedulers: [fcfs]\noptions: {horizon: -5}\n", ["field 'options.horizon[0]'"]),
    ("schedulers: [fcfs]\noptions: {walltime: []}\n", ["field 'options.walltime'",
                                                       "an empty list gives no runs"]),
    ("schedulers: [fcfs]\noptions: {swf_placement: any}\n", ["field 'options.swf_placement[0]'",
                                                            "'auto', 'single' or 'spread'"]),
    ("schedulers: [fcfs]\noptions: {horizn: 5}\n", ["field 'options.horizn'",
                                                    "did you mean 'horizon'"]),
    ("schedulers: [fcfs]\njob_records: 1\n", ["field 'job_records'", "valid boolean"]),
    ("- fcfs\n", ["expected an object"]),
    ("schedulers: [fcfs\n", ["malformed YAML"]),
])
def test_a_bad_sweep_file_is_one_line_naming_the_field(tmp_path: Path, text: str,
                                                       fragments: list[str]) -> None:
    result, spec, store = _sweep(tmp_path, text)
    assert_one_line_error(result, str(spec), *fragments)
    assert not store.exists()


def test_a_grid_too_large_is_refused_before_it_is_built(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 horizons × 5,000 estimate factors: 25 million runs, refused from the lists'
    lengths, without building one run's options."""
    def never(*args: object) -> None:
        raise AssertionError("the grid of options was built before its size was checked")

    monkeypatch.setattr("hetsched.sweep.spec.RunOptions", never)
    many = ", ".join(str(i) for i in range(1, 5001))
    result, spec, store = _sweep(tmp_path, f"schedulers: [fcfs]\noptions: {{horizon: [{many}], "
                                           f"estimate_factor: [{many}]}}\n")
    assert_one_line_error(result, str(spec), "25,000,000 runs", "more than 10,000,000")
    assert not store.exists()


def test_a_missing_sweep_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(tmp_path / "none.yaml")])
    assert_one_line_error(result, "none.yaml: no such file")


def test_a_bad_trace_names_its_line(tmp_path: Path) -> None:
    trace = tmp_path / "bad.swf"
    trace.write_text("1 0 -1 ten 1 -1 -1 1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    result, _, store = _sweep(tmp_path, "schedulers: [fcfs]\nworkloads: [bad.swf]\n")
    assert_one_line_error(result, "bad.swf, line 1", "run_time")
    assert not store.exists()


def test_a_dependency_across_parts_names_the_split(tmp_path: Path) -> None:
    (tmp_path / "dag.yaml").write_text(
        "jobs:\n  - {id: a, submit: 0, ntasks: 1, run_time: 10}\n"
        "  - {id: b, submit: 90000, ntasks: 1, run_time: 10, parents: [a]}\n")
    result, spec, _ = _sweep(tmp_path, "schedulers: [fcfs]\n"
                                       "workloads: [{file: dag.yaml, split: day}]\n")
    assert_one_line_error(result, str(spec), "field 'workloads[0].split'",
                          "job 'b' depends on 'a', which is in another part")


@pytest.mark.parametrize("content, fragment", [
    (b"not a database at all, just text" * 10, "cannot use the file as a results store"),
    (None, "not a hetsched results store (no 'runs' table)"),
])
def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path, content: bytes | None,
                                               fragment: str) -> None:
    store = tmp_path / "results.sqlite"
    if content is None:
        with sqlite3.connect(store) as conn:
            conn.execute("CREATE TABLE other (x)")
    else:
        store.write_bytes(content)
    before = store.read_bytes()
    result, _, _ = _sweep(tmp_path, "schedulers: [fcfs]\n")
    assert_one_line_error(result, str(store), fragment)
    assert_one_line_error(runner.invoke(app, ["results", str(store)]), str(store), fragment)
    assert store.read_bytes() == before


def test_results_of_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["results", str(tmp_path / "none.sqlite")])
    assert_one_line_error(result, "none.sqlite: no such file")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("options, fragment", [
    (["-j", "0"], "workers must be at least 1, got 0"),
    (["-j", "x"], "Invalid value for '--workers' / '-j'"),
    (["--dask", " "], "--dask needs 'local' or a scheduler's address"),
])
def test_bad_sweep_options(tmp_path: Path, options: list[str], fragment: str) -> None:
    result, _, _ = _sweep(tmp_path, "schedulers: [fcfs]\n", *options)
    assert_one_line_error(result, fragment)


def _damaged_copy(store: Path, tmp_path: Path, name: str, sql: str) -> Path:
    copy = tmp_path / name
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute(sql)
    return copy


def test_a_damaged_store_is_one_error_line(tmp_path: Path) -> None:
    """Text that is not UTF-8, or text where a metric belongs: an error naming the store
    (and the run and column), never an exception from SQLite or pandas."""
    pytest.importorskip("pandas")
    from hetsched.sweep.results import load_results

    result, _, store = _sweep(tmp_path, "schedulers: [fcfs]\njob_records: true\n", "-q")
    assert result.exit_code == 0, result.output
    key = load_results(store)["key"].iloc[0]
    latin1 = _damaged_copy(store, tmp_path, "latin1.sqlite",
                           "UPDATE runs SET scheduler = CAST(X'66ff' AS TEXT)")
    for command in (["results", str(latin1)], ["results", str(latin1), "--jobs"],
                    ["report", str(latin1), "--out", str(tmp_path / "r"), "-q"]):
        assert_one_line_error(runner.invoke(app, command), str(latin1), "UTF-8")
    with sqlite3.connect(store) as conn:  # a byte of the meta table's page flipped
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'meta'").fetchone()
    data = bytearray(store.read_bytes())
    data[page * size - 16] ^= 0xFF
    (malformed := tmp_path / "malformed.sqlite").write_bytes(bytes(data))
    assert_one_line_error(runner.invoke(app, ["results", str(malformed)]), str(malformed),
                          "cannot use the file as a results store")
    data = bytearray(store.read_bytes())  # a column's name in the schema, not UTF-8 any more
    data[data.index(b"dssim_utilisation") + 3] = 0xFF
    (schema := tmp_path / "schema.sqlite").write_bytes(bytes(data))
    result = runner.invoke(app, ["sweep", str(tmp_path / "sweep.yaml"), "--store", str(schema),
                                 "-j", "1", "-q"])
    assert_one_line_error(result, str(schema), "cannot use the file as a results store")
    text = _damaged_copy(store, tmp_path, "text.sqlite", "UPDATE runs SET mean_wait = 'soon'")
    assert_one_line_error(runner.invoke(app, ["report", str(text), "--out", str(tmp_path / "r")]),
                          str(text), f"run {key}", "field 'mean_wait'", "not a number: 'soon'")
