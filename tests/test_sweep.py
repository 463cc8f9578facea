"""``hetsched sweep`` and ``hetsched results`` end to end: one row per run, resuming,
failures recorded, per-job records, the same results as ``hetsched.simulate``, reading the
store from the command line and from Python."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.api import load_inputs
from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.sweep import executors, load_jobs, load_results
from hetsched.sweep.results import where_clause
from hetsched.sweep.store import METRICS
from hetsched.sweep.splits import Split, split_workload
from support import assert_one_line_error, shared

runner = CliRunner()
#: The grid of SPEC: 4 parts × 3 schedulers × 2 seeds × 2 horizons.
SPEC = """\
workloads: [{file: workload.json, split: 50 jobs, name: example}]
schedulers: [fcfs, easy, random-random]
seeds: [0, 1]
options: {horizon: [null, 7200]}
"""
PICKY = '''\
import os
from hetsched.schedulers import Scheduler, Start


class Picky(Scheduler):
    """FCFS on node 0 that raises (mode=raise) or kills its process (mode=exit) instead."""

    def __init__(self, mode="ok"):
        self.mode = mode

    def decide(self, now, events):
        if self.mode == "raise":
            raise RuntimeError("picky refuses")
        if self.mode == "exit":
            os._exit(3)
        for job in list(self.view.pending.values()):
            if not self.view.fits(job, 0):
                return
            yield Start.on(job, 0)
'''


def _setup(tmp_path: Path, spec: str = SPEC) -> tuple[Path, Path]:
    shutil.copy(default_workload_path(), tmp_path / "workload.json")
    (tmp_path / "picky.py").write_text(PICKY)
    (tmp_path / "sweep.yaml").write_text(spec)
    return tmp_path / "sweep.yaml", tmp_path / "results.sqlite"


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """SPEC's sweep file and its store, swept once, for the tests that only read it."""
    spec, store = _setup(tmp_path_factory.mktemp("swept"))
    _sweep(spec, store, "-j", "2")
    return spec, store


def _sweep(spec: Path, store: Path, *options: str):
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(store), *options])
    assert result.exit_code == 0, result.output
    return result


def _stored(store: Path) -> dict[str, dict[str, object]]:
    """Every run by key: what identifies it, its status, error and metrics."""
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM runs").fetchall()
    skip = {"wall_seconds", "run_seconds", "finished_at"}
    return {row["key"]: {k: row[k] for k in row.keys() if k not in skip} for row in rows}


def test_a_sweep_stores_one_row_per_run_and_resumes(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path)
    result = _sweep(spec, store, "-j", "2")
    assert "48 runs, 0 already in" in result.stdout and "(48 ok, 0 failed)" in result.stdout
    runs = _stored(store)
    assert len(runs) == 48
    assert {(r["part"], r["scheduler"], r["seed"], r["horizon"]) for r in runs.values()} == \
        {(p, s, seed, h) for p in range(4) for s in ("fcfs", "easy", "random-random")
         for seed in (0, 1) for h in (None, 7200.0)}
    assert {(r["platform"], r["workload"], r["split"], r["status"], r["error"], r["jobs"])
            for r in runs.values()} == {("default_platform", "example", "50 jobs", "ok", None,
                                         50)}
    again = _sweep(spec, store, "-j", "2")
    assert "all 48 runs are already in" in again.stdout
    assert _stored(store) == runs


def test_adding_seeds_runs_only_the_new_runs(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path)
    _sweep(spec, store, "-j", "1")
    before = _stored(store)
    spec.write_text(SPEC.replace("seeds: [0, 1]", "seeds: {first: 0, count: 3}"))
    result = _sweep(spec, store, "-j", "1")
    assert "72 runs, 48 already in" in result.stdout and "ran 24 (24 ok" in result.stdout
    after = _stored(store)
    assert len(after) == 72 and {k: after[k] for k in before} == before


def test_each_run_is_what_hetsched_simulate_gives(swept: tuple[Path, Path]) -> None:
    spec, store = swept
    parts = split_workload(load_inputs(None, spec.parent / "workload.json")[1],
                           Split.parse("50 jobs"))
    for row in load_results(store, "part=2", "scheduler=random-random", "seed=1").itertuples():
        run = hetsched.simulate(None, parts[2].workload, "random-random", seed=1,
                                horizon=None if row.horizon != row.horizon else row.horizon)
        for metric in METRICS:
            expected, got = run.summary[metric], getattr(row, metric)
            assert got == pytest.approx(expected, nan_ok=True), metric


def test_same_contents_elsewhere_are_the_same_runs(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path)
    _sweep(spec, store, "-j", "1")
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.copy(tmp_path / "workload.json", moved / "workload.json")
    (moved / "sweep.yaml").write_text(SPEC)
    assert "all 48 runs are already in" in _sweep(moved / "sweep.yaml", store).stdout
    data = json.loads((moved / "workload.json").read_text())
    data["jobs"][0]["submit"] += 1
    (moved / "workload.json").write_text(json.dumps(data))
    assert "48 runs, 0 already in" in _sweep(moved / "sweep.yaml", store, "-j", "1").stdout
    assert len(_stored(store)) == 96


def test_a_failing_run_is_recorded_and_the_others_go_on(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path, "workloads: [{file: workload.json, split: 100 jobs}]\n"
                                   "schedulers: [fcfs, 'picky.py:Picky:mode=raise']\n")
    result = _sweep(spec, store, "-j", "2")
    assert "(2 ok, 2 failed)" in result.stdout
    assert result.stderr.strip() == (f"warning: 2 runs failed; see `hetsched results {store} "
                                     "--where status=error`")
    runs = {(r["scheduler"], r["part"]): r for r in _stored(store).values()}
    assert runs["fcfs", 0]["status"] == runs["fcfs", 1]["status"] == "ok"
    failed = runs["picky.py:Picky:mode=raise", 1]
    assert failed["status"] == "error" and failed["makespan"] is None
    assert failed["error"].startswith("RuntimeError: picky refuses (picky.py, line ")
    retried = _sweep(spec, store, "-j", "1", "--retry-failed")
    assert "ran 2 (0 ok, 2 failed)" in retried.stdout
    assert len(_stored(store)) == 4


def test_a_run_that_kills_its_worker_is_recorded_and_the_others_go_on(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path, "workloads: [{file: workload.json, split: 100 jobs}]\n"
                                   "schedulers: [fcfs, 'picky.py:Picky', "
                                   "'picky.py:Picky:mode=exit']\n")
    result = _sweep(spec, store, "-j", "2")
    assert "6 runs" in result.stdout and "(4 ok, 2 failed)" in result.stdout
    runs = _stored(store).values()
    assert {r["status"] for r in runs if r["scheduler"] != "picky.py:Picky:mode=exit"} == {"ok"}
    errors = {r["error"] for r in runs if r["scheduler"] == "picky.py:Picky:mode=exit"}
    assert len(errors) == 1 and errors.pop().startswith("the worker process died: ")


def test_per_job_records(tmp_path: Path) -> None:
    spec, store = _setup(tmp_path)
    _sweep(spec, store, "-j", "2")
    spec.write_text(SPEC + "job_records: true\n")
    result = _sweep(spec, store, "-j", "2")
    assert "48 runs, 0 already in" in result.stdout  # the runs lacked their job records
    jobs = load_jobs(store, "scheduler=easy", "seed=0", "horizon=null")
    assert len(jobs) == 200 and list(jobs.columns[:3]) == ["key", "platform", "workload"]
    assert jobs.job_id.is_unique and set(jobs.job_id) == {f"j{i}" for i in range(200)}
    first = jobs[jobs.part == 0]
    assert (first.submission_time.diff().dropna() >= 0).all()
    assert (first.waiting_time >= 0).all() and set(first.final_state) == \
        {"COMPLETED_SUCCESSFULLY"}
    assert len(load_jobs(store)) == 48 * 50
    csv = runner.invoke(app, ["results", str(store), "--jobs", "-f", "csv", "-w", "part=3",
                              "-w", "scheduler=fcfs", "-w", "seed=1", "-w", "horizon=null"])
    lines = csv.stdout.splitlines()
    assert len(lines) == 51 and lines[0].startswith("key,platform,workload,split,part,")
    assert ",job_id,workload_name,profile,submission_time," in lines[0]
    assert [line.split(",")[lines[0].split(",").index("job_id")] for line in lines[1:]] == \
        [f"j{i}" for i in range(150, 200)]
    assert "all 48 runs are already in" in _sweep(spec, store).stdout


def test_results_on_the_command_line(swept: tuple[Path, Path]) -> None:
    spec, store = swept
    table = runner.invoke(app, ["results", str(store), "--where", "scheduler=easy",
                                "-w", "part<=1", "-w", "horizon=null"])
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].strip() == f"{store}: 4 runs (4 ok, 0 failed)"
    assert all(word in lines[2] for word in ("platform", "part", "scheduler", "seed",
                                             "makespan", "mean wait", "wall time"))
    assert "horizon" not in lines[2]  # the same in every selected run
    rows = json.loads(runner.invoke(app, ["results", str(store), "-f", "json", "-w",
                                          "horizon!=null"]).stdout)
    assert len(rows) == 24 and {r["horizon"] for r in rows} == {7200.0}
    assert set(rows[0]) >= {"key", "scheduler", "seed", "makespan", "energy_j", "status"}
    empty = runner.invoke(app, ["results", str(store), "-f", "csv", "-w", "seed>5",
                                "--columns", "scheduler,seed"])
    assert empty.stdout == "scheduler,seed\n"


def test_results_csv_lists_each_selected_run(swept: tuple[Path, Path]) -> None:
    spec, store = swept
    csv = runner.invoke(app, ["results", str(store), "-w", "seed>0", "-w", "scheduler~*dom*",
                              "-f", "csv", "--columns", "part,seed,horizon,jobs"])
    assert csv.stdout.splitlines() == ["part,seed,horizon,jobs"] + [
        f"{p},1,{h},50" for p in range(4) for h in ("", "7200.0")]


@pytest.mark.parametrize("options, fragment", [
    (["--columns", "scheduler,makespn"], "--columns: no column 'makespn'; did you mean makespan"),
    (["-w", "sed=1"], "condition 'sed=1': no column 'sed'; did you mean seed"),
    (["-w", "horizon<null"], "horizon holds numbers, got 'null'"),
])
def test_results_refuses_bad_options(swept: tuple[Path, Path], options: list[str],
                                     fragment: str) -> None:
    assert_one_line_error(runner.invoke(app, ["results", str(swept[1]), *options]), fragment)


def test_load_results_is_a_dataframe_of_every_column(swept: tuple[Path, Path]) -> None:
    spec, store = swept
    frame = hetsched.load_results(store, "scheduler=fcfs")
    assert len(frame) == 16 and set(frame.scheduler) == {"fcfs"}
    assert {"key", "platform", "workload", "split", "part", "seed", "status", "error",
            "makespan", "mean_bounded_slowdown", "energy_j", "wall_seconds"} <= set(frame)
    assert frame.makespan.dtype == float and frame.seed.dtype == "int64"
    assert list(frame.part) == sorted(frame.part)


def test_where_values_are_parameters_never_sql() -> None:
    columns = {"scheduler": "TEXT NOT NULL", "seed": "INTEGER NOT NULL", "strict": "INTEGER",
               "horizon": "REAL"}
    sql, params = where_clause(["scheduler=x' OR 1=1 --", "seed >= 3", "strict=true",
                                "horizon=NULL", "scheduler~easy*"], columns)
    assert sql == (' WHERE runs."scheduler" = ? AND runs."seed" >= ? AND runs."strict" = ? '
                   'AND runs."horizon" IS NULL AND runs."scheduler" GLOB ?')
    assert params == ["x' OR 1=1 --", 3.0, 1.0, "easy*"]
    with pytest.raises(ConfigError, match="expected COLUMN OP VALUE"):
        where_clause(["seed"], columns)
    with pytest.raises(ConfigError, match="expected COLUMN OP VALUE"):
        where_clause(['"seed"=1'], columns)
    with pytest.raises(ConfigError, match="no column 'seeds'; did you mean seed"):
        where_clause(["seeds=1"], columns)


def test_where_alternatives(swept: tuple[Path, Path]) -> None:
    """``a|b`` with ``=`` selects either, with ``!=`` neither; each alternative is checked."""
    _, store = swept
    every = load_results(store)
    either = load_results(store, "scheduler=fcfs|easy", "seed = 0 | 1")
    assert len(either) == len(every[every["scheduler"].isin(["fcfs", "easy"])]) > 0
    neither = load_results(store, "scheduler!=fcfs|easy")
    assert set(neither["scheduler"]) == {"random-random"}
    sql, params = where_clause(["seed!=1|2"], {"seed": "INTEGER"})
    assert (sql, params) == (' WHERE runs."seed" NOT IN (?, ?)', [1.0, 2.0])
    with pytest.raises(ConfigError, match="seed holds numbers, got 'x'"):
        where_clause(["seed=1|x"], {"seed": "INTEGER"})


def test_dask_local_gives_the_same_results(swept: tuple[Path, Path], tmp_path: Path) -> None:
    spec, store = swept
    dask_store = tmp_path / "dask.sqlite"
    result = _sweep(spec, dask_store, "-j", "2", "--dask", "local")
    assert "(48 ok, 0 failed)" in result.stdout and "on 2 workers" in result.stdout
    assert _stored(dask_store) == _stored(store)


def test_dask_address_of_a_running_cluster(swept: tuple[Path, Path], tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    spec, store = swept
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as cluster:
        result = _sweep(spec, tmp_path / "remote.sqlite", "--dask", cluster.scheduler_address)
    assert "(48 ok, 0 failed)" in result.stdout and "on 1 worker\n" in result.stdout
    assert _stored(tmp_path / "remote.sqlite") == _stored(store)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "bogus", "tcp://"])
def test_dask_address_that_does_not_answer(swept: tuple[Path, Path], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    """No scheduler there, or no address at all (no port, no host): one error line."""
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1.0)
    spec, _ = swept
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"),
                                 "--dask", address])
    assert_one_line_error(result, f"--dask {address}: cannot connect to the scheduler")


def test_walltime_is_a_sweep_option_and_old_stores_get_its_column(tmp_path: Path) -> None:
    workload = {"profiles": {"d": {"type": "delay", "delay": 10}},
                "jobs": [{"id": "a", "subtime": 0, "res": 1, "walltime": 5, "profile": "d"},
                         {"id": "b", "subtime": 0, "res": 1, "walltime": 50, "profile": "d"}]}
    (tmp_path / "batsim.json").write_text(json.dumps(workload))
    spec = tmp_path / "sweep.yaml"
    spec.write_text("workloads: [batsim.json]\nschedulers: [fcfs]\n"
                    "options: {walltime: [auto, kill, ignore]}\n")
    store = tmp_path / "results.sqlite"
    hetsched.sweep.store.open_store(store).close()
    with sqlite3.connect(store) as conn:  # as a store made before the walltime option
        conn.execute("ALTER TABLE runs DROP COLUMN walltime")
        conn.execute("ALTER TABLE runs DROP COLUMN killed")
    _sweep(spec, store)
    killed = {r["walltime"]: r["killed"] for r in _stored(store).values()}
    assert killed == {"auto": 1, "kill": 1, "ignore": 0}


def test_a_platform_catalogue_is_part_of_a_run_s_identity(tmp_path: Path) -> None:
    """An IRMaSim platform whose node and processor types are in catalogue files beside it:
    editing a catalogue makes new runs (it used to reuse the stored ones)."""
    doc = json.loads(shared("platforms/irmasim_dual_core.json").read_text())
    (tmp_path / "node_types.json").write_text(json.dumps(doc.pop("node")))
    processors = doc.pop("processor")
    (tmp_path / "processor_types.json").write_text(json.dumps(processors))
    (tmp_path / "dual.json").write_text(json.dumps(doc))
    (tmp_path / "w.json").write_text(json.dumps({"jobs": [
        {"id": i, "submit": 0, "ntasks": 1, "req_ops": 1e9} for i in range(3)]}))
    spec = tmp_path / "sweep.yaml"
    spec.write_text("platforms: [dual.json]\nworkloads: [w.json]\nschedulers: [fcfs]\n")
    store = tmp_path / "results.sqlite"
    _sweep(spec, store)
    [before] = _stored(store).values()
    processors["proc_n1134"]["clock_rate"] *= 2
    (tmp_path / "processor_types.json").write_text(json.dumps(processors))
    assert "1 runs, 0 already in" in _sweep(spec, store).stdout
    after = next(r for k, r in _stored(store).items() if r["key"] != before["key"])
    assert after["platform_sha256"] != before["platform_sha256"]
    assert after["makespan"] == pytest.approx(before["makespan"] / 2)


def test_only_the_catalogues_a_platform_reads_are_part_of_its_identity(
        tmp_path: Path) -> None:
    """Catalogue files beside a platform count only when its loader takes types from them."""
    from hetsched.output.summary_json import file_sha256
    from hetsched.sweep.spec import input_sha256

    own = tmp_path / "own.json"  # an IRMaSim platform with its own node and processor types
    shutil.copy(shared("platforms/irmasim_dual_core.json"), own)
    native = tmp_path / "native.json"
    shutil.copy(default_platform_path(), native)
    (tmp_path / "node_types.json").write_text("{}")
    (tmp_path / "processor_types.json").write_text("{}")
    assert input_sha256(own, "platform") == file_sha256(own)
    assert input_sha256(native, "platform") == file_sha256(native)


def test_a_store_is_one_file_once_its_writer_and_readers_end(tmp_path: Path) -> None:
    from hetsched.sweep.store import reading, writing

    store = tmp_path / "results.sqlite"
    with writing(store) as conn, reading(store) as reader:   # a reader during the sweep
        assert reader.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    with reading(store) as reader:
        reader.execute("SELECT COUNT(*) FROM runs").fetchall()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite"]
