"""``jobs.swf``: a run's outcome in SWF, read back by hetsched's own SWF reader."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from hetsched.output import write_run
from hetsched.workload.swf import COL, load_swf, read_swf_table as _swf
from hetsched.workload.writers.swf import plain_numbers
from test_output import default_run, tiny_run


def _csv_column(path: Path, name: str) -> np.ndarray:
    with path.open(newline="") as f:
        return np.array([float(row[name]) for row in csv.DictReader(f)])


def test_waits_and_run_times_are_the_runs(tmp_path: Path) -> None:
    result = default_run("easy", 1)
    write_run(result, tmp_path)
    metadata, table = _swf(tmp_path / "jobs.swf")
    assert metadata["MaxProcs"] == result.platform.total_cores == 72
    assert metadata["MaxNodes"] == 8 and metadata["MaxJobs"] == 200
    jobs = tmp_path / "jobs.csv"
    for swf_field, csv_column in (("submit_time", "submission_time"),
                                  ("wait_time", "waiting_time"), ("run_time", "execution_time"),
                                  ("requested_processors", "requested_number_of_resources")):
        assert np.array_equal(table[:, COL[swf_field]], np.rint(_csv_column(jobs, csv_column)))
    assert (table[:, COL["status"]] == 1).all()
    assert (table[:, COL["wait_time"]] > 0).any()
    # hetsched reads it as a workload on the same platform: the same jobs, run times as run
    back = load_swf(tmp_path / "jobs.swf", result.platform)
    assert [j.ntasks for j in back.jobs] == [j.ntasks for j in result.workload.jobs]


def test_unfinished_and_rejected_jobs_have_swf_status_codes(tmp_path: Path) -> None:
    write_run(tiny_run(horizon=5.0), tmp_path)
    _, table = _swf(tmp_path / "jobs.swf")
    # a started and was cut by the horizon (0), b never fits (5), c-e arrive after it (5)
    assert table[:, COL["status"]].tolist() == [0, 5, 5, 5, 5]
    assert table[:, COL["wait_time"]].tolist() == [0, -1, -1, -1, -1]
    assert (table[:, COL["run_time"]] == -1).all()
    assert table[:, COL["allocated_processors"]].tolist() == [4, -1, -1, -1, -1]
    assert table[0, COL["job_number"]] == 1  # ids a..e are not numbers: positions


def test_a_run_time_beyond_int64_is_written_with_every_digit(tmp_path: Path) -> None:
    """A legal job of 1e29 operations runs for about 4e19 s, beyond int64: written as the
    rounded number (it was cast to int64: a negative garbage value and a RuntimeWarning)."""
    import warnings

    import hetsched
    from hetsched.workload.model import Job, Workload

    job = Job(id="long", submit=0.0, ntasks=1, req_ops=1e29, req_time=100.0)
    run = hetsched.simulate(None, Workload("w", (job,)), "fcfs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run.write(tmp_path)
    row = (tmp_path / "jobs.swf").read_text().splitlines()[-1].split()
    duration = float(run.jobs["execution_time"].iloc[0])
    assert duration > 2**63 and int(row[COL["run_time"]]) == int(np.rint(duration))


def _plain_by_python(texts: list[str], limit: int) -> list[int] | None:
    """The rule plain_numbers reads by numpy, text by text."""
    if not all(t.isascii() and t.isdigit() and str(int(t)) == t for t in texts):
        return None
    numbers = [int(t) for t in texts]
    return None if max(numbers, default=0) > limit else numbers


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(st.text(alphabet=st.sampled_from(list("0123456789 -a\x00²")), max_size=12)
                      | st.integers(0, 10**12).map(str), max_size=8),
       limit=st.sampled_from([9, 10**6, 10**10]))
def test_plain_numbers_read_by_numpy_as_text_by_text(texts: list[str], limit: int) -> None:
    assert plain_numbers(texts, limit) == _plain_by_python(texts, limit)
