"""Sweeps at scale: 2,000 runs with a local pool of two processes and on a local Dask
cluster, one row per run; and a sweep killed with SIGKILL mid-way, twice, then run again to
the end: no run lost or stored twice, the same results as the sweep that was never stopped."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.examples import default_workload_path

pytestmark = pytest.mark.slow  # about 25 s together
runner = CliRunner()
SCHEDULERS = ("fcfs", "easy", "conservative", "high_gflops", "low_power", "random-random",
              "shortest-high_gflops", "smallest-first", "longest-low_power", "first-high_cores")
#: 20 parts of 10 jobs × 10 schedulers × 10 seeds.
SPEC = f"""\
workloads: [{{file: {default_workload_path()}, split: 10 jobs, name: example}}]
schedulers: [{', '.join(SCHEDULERS)}]
seeds: {{first: 0, count: 10}}
"""
RUNS = 2000


def _sweep(spec: Path, store: Path, *options: str) -> str:
    result = runner.invoke(app, ["sweep", str(spec), "--store", str(store), *options])
    assert result.exit_code == 0, result.output
    return result.stdout


def _stored(store: Path) -> dict[str, tuple[object, ...]]:
    """Every run by key: all its columns but the times measured (wall, run, finish)."""
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM runs").fetchall()
    measured = {"wall_seconds", "run_seconds", "finished_at"}
    return {row["key"]: tuple(row[k] for k in row.keys() if k not in measured) for row in rows}


def _count(store: Path) -> int:
    """Rows in the store now (0 while it does not exist yet), read as another process would."""
    try:
        with sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True, timeout=10) as conn:
            return conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scale") / "sweep.yaml"
    path.write_text(SPEC)
    return path


@pytest.fixture(scope="module")
def reference(spec: Path) -> Path:
    """The sweep run once, without interruption, on two local processes."""
    store = spec.parent / "reference.sqlite"
    out = _sweep(spec, store, "-j", "2")
    assert f"{RUNS:,} runs, 0 already in" in out and f"({RUNS:,} ok, 0 failed)" in out
    return store


def test_2000_runs_on_two_processes_one_row_each(reference: Path) -> None:
    with sqlite3.connect(reference) as conn:
        rows = conn.execute("SELECT part, scheduler, seed, status FROM runs").fetchall()
    assert len(rows) == RUNS
    assert {(p, s, seed) for p, s, seed, _ in rows} == \
        {(p, s, seed) for p in range(20) for s in SCHEDULERS for seed in range(10)}
    assert {status for *_, status in rows} == {"ok"}


def test_2000_runs_on_local_dask_give_the_same_rows(spec: Path, reference: Path,
                                                    tmp_path: Path) -> None:
    store = tmp_path / "dask.sqlite"
    out = _sweep(spec, store, "-j", "2", "--dask", "local")
    assert f"({RUNS:,} ok, 0 failed)" in out
    assert _stored(store) == _stored(reference)


def _start(spec: Path, store: Path, marker: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "hetsched.cli.main", "sweep", str(spec), "--store", str(store),
         "-j", "2", "-q"], env={**os.environ, "HETSCHED_TEST_SWEEP": marker},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill_when(process: subprocess.Popen[bytes], store: Path, rows: int) -> int:
    """SIGKILL the sweep once the store holds at least ``rows`` runs; the rows then."""
    deadline = time.monotonic() + 120
    while _count(store) < rows:
        assert process.poll() is None, "the sweep ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return _count(store)


def _processes_with(marker: str) -> list[int]:
    """Processes (Linux) whose environment holds ``marker``: the sweep's workers."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"HETSCHED_TEST_SWEEP={marker}".encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            pass
    return found


def test_a_sweep_killed_mid_way_resumes_with_no_run_lost_or_twice(spec: Path, reference: Path,
                                                                  tmp_path: Path) -> None:
    store = tmp_path / "killed.sqlite"
    marker = uuid.uuid4().hex
    done = []
    for rows in (300, 1200):
        done.append(_kill_when(_start(spec, store, marker), store, rows))
        if sys.platform == "linux":  # the workers end with the sweep's process
            deadline = time.monotonic() + 10
            while _processes_with(marker) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _processes_with(marker) == []
    assert 300 <= done[0] <= done[1] < RUNS
    out = _sweep(spec, store, "-j", "2")
    assert f"{RUNS:,} runs, {done[1]:,} already in" in out
    assert f"ran {RUNS - done[1]:,} ({RUNS - done[1]:,} ok, 0 failed)" in out
    assert _stored(store) == _stored(reference)
