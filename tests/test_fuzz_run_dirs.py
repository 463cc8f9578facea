"""Run directories as ``hetsched plot`` reads them, mutated: each either reads or fails with one
line naming the file (an :class:`InputError`), never another exception. The tables in both
formats (CSV, Parquet) and ``summary.json``'s lists (the killed attempts' among them)."""

from __future__ import annotations

import json
import shutil
import traceback
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hetsched
from hetsched.output import write_run
from hetsched.report.run_data import read_run_dir
from support import shared
from test_fuzz_loaders import MUTATIONS, NASTY, outcome

TABLES = ("jobs.csv", "timeseries.csv", "jobs.parquet", "timeseries.parquet", "summary.json")


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory) -> dict[str, Path]:
    """lublin_256's first 10,000 s under EASY with failures that requeue, written in both
    table formats."""
    run = hetsched.simulate(shared("platforms/irmasim_lublin_20node.json"),
                            shared("traces/lublin_256.swf"), "easy", failure_mtbf=20_000.0,
                            on_failure="requeue", horizon=10_000.0)
    assert run.result.requeued
    folder = tmp_path_factory.mktemp("runs")
    dirs = {}
    for table_format in ("csv", "parquet"):
        dirs[table_format] = folder / table_format
        write_run(run.result, dirs[table_format], {"table_format": table_format})
    return dirs


def _copy(run_dirs: dict[str, Path], name: str, target: Path) -> Path:
    """The run directory holding ``name``, copied to ``target``."""
    source = run_dirs["parquet" if name.endswith(".parquet") else "csv"]
    shutil.copytree(source, target)
    return target


@pytest.mark.parametrize("name", TABLES)
def test_mutated_run_files_read_or_fail_cleanly(run_dirs, name: str, tmp_path: Path) -> None:
    refused = 0
    for seed in range(25):
        run_dir = _copy(run_dirs, name, tmp_path / f"run{seed}")
        rng = np.random.default_rng([seed, sum(name.encode())])
        data = (run_dir / name).read_bytes()
        applied = []
        for _ in range(int(rng.integers(1, 4))):
            mutation = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
            data = mutation(rng, data)
            applied.append(mutation.__name__)
        (run_dir / name).write_bytes(data)
        try:
            refused += outcome(lambda: read_run_dir(run_dir), run_dir / name) is None
        except Exception as err:  # name the input that broke the property
            raise AssertionError(f"{name}, seed {seed}, mutations {applied}: "
                                 f"{type(err).__name__}: {err}\n"
                                 f"{traceback.format_exc()}") from err
    assert refused >= 3, f"{name}: the mutations broke only {refused} of 25 files"


ATTEMPT = st.fixed_dictionaries({}, optional={
    "job_id": NASTY, "attempt": NASTY, "start": NASTY, "end": NASTY,
    "allocated_resources": st.one_of(NASTY, st.sampled_from(["0-3", "5", "3-1", "0-99999",
                                                             "a-b", "1 2-4", ""]))})


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.one_of(NASTY, st.lists(st.one_of(ATTEMPT, NASTY), max_size=3)),
       keep=st.booleans())
def test_any_requeued_attempts_read_or_fail_cleanly(run_dirs, entries, keep: bool,
                                                    tmp_path_factory) -> None:
    run_dir = _copy(run_dirs, "summary.json", tmp_path_factory.mktemp("run") / "run")
    path = run_dir / "summary.json"
    document = json.loads(path.read_text())
    if keep and isinstance(entries, list):  # beside the run's own, valid ones
        entries = document["requeued_attempts"] + entries
    document["requeued_attempts"] = entries
    path.write_text(json.dumps(document, allow_nan=True))
    outcome(lambda: read_run_dir(run_dir), path)
