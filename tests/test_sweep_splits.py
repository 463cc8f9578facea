"""Cutting a workload into parts by week, by day and by job count (hetsched.sweep.splits)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetsched.api import load_inputs
from hetsched.errors import ConfigError
from hetsched.sweep.splits import Split, split_workload
from hetsched.workload.model import Job, Workload
from support import shared

WEEK, DAY = 7 * 86400.0, 86400.0


def _workload(submits: list[float], parents: dict[str, tuple[str, ...]] | None = None) -> Workload:
    parents = parents or {}
    jobs = tuple(Job(f"j{i}", s, 1, 1e9, 10.0, parents=parents.get(f"j{i}", ()))
                 for i, s in enumerate(submits))
    return Workload("w", jobs, metadata={"MaxProcs": 8})


def test_a_week_split_rebases_each_week_to_its_start_and_skips_empty_weeks() -> None:
    parts = split_workload(_workload([0, 100, WEEK + 5, 3 * WEEK + 7]), Split.parse("week"))
    assert [p.index for p in parts] == [0, 1, 3]
    assert [p.start for p in parts] == [0, WEEK, 3 * WEEK]
    assert [[(j.id, j.submit) for j in p.workload.jobs] for p in parts] == \
        [[("j0", 0), ("j1", 100)], [("j2", 5)], [("j3", 7)]]
    assert [p.workload.name for p in parts] == ["w week 0", "w week 1", "w week 3"]
    assert parts[2].workload.metadata == {"MaxProcs": 8}


def test_a_day_split_keeps_the_time_of_day() -> None:
    parts = split_workload(_workload([3600, DAY + 7200, DAY + 7300]), Split.parse("day"))
    assert [(p.index, [j.submit for j in p.workload.jobs]) for p in parts] == \
        [(0, [3600]), (1, [7200, 7300])]


def test_a_job_count_split_starts_each_part_at_its_first_job() -> None:
    parts = split_workload(_workload([5, 6, 50, 70, 90]), Split.parse("2 jobs"))
    assert [(p.index, p.start) for p in parts] == [(0, 5), (1, 50), (2, 90)]
    assert [[j.submit for j in p.workload.jobs] for p in parts] == [[0, 1], [0, 20], [0]]
    assert [[j.index for j in p.workload.jobs] for p in parts] == [[0, 1], [0, 1], [0]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 30 * DAY, allow_nan=False), min_size=1, max_size=40),
       st.sampled_from(["week", "day", "1 jobs", "3 jobs"]))
def test_every_job_is_in_exactly_one_part_within_its_period(submits: list[float],
                                                            text: str) -> None:
    split = Split.parse(text)
    parts = split_workload(_workload(submits), split)
    ids = [job.id for part in parts for job in part.workload.jobs]
    assert sorted(ids) == sorted(f"j{i}" for i in range(len(submits)))
    original = {f"j{i}": s for i, s in enumerate(submits)}
    for part in parts:
        assert part.workload.jobs
        for job in part.workload.jobs:
            assert job.submit == original[job.id] - part.start
            assert 0 <= job.submit < (split.period or float("inf"))


def test_a_dependency_across_parts_is_refused_and_one_within_a_part_kept() -> None:
    with pytest.raises(ConfigError, match="job 'j1' depends on 'j0', which is in another part"):
        split_workload(_workload([0, DAY + 1], {"j1": ("j0",)}), Split.parse("day"))
    parts = split_workload(_workload([0, 10], {"j1": ("j0",)}), Split.parse("day"))
    assert parts[0].workload.jobs[1].parents == ("j0",)


@pytest.mark.parametrize("text", ["weak", "0 jobs", "jobs", "-3 jobs", "2.5 jobs", "Week"])
def test_a_bad_split_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="week, day or '<N> jobs'"):
        Split.parse(text)


def test_the_kit_trace_splits_into_41_weeks() -> None:
    platform, trace = load_inputs(shared("platforms/irmasim_kit_80node.json"),
                                  shared("traces/kit_fh2_2016_first25k.swf"))
    parts = split_workload(trace, Split.parse("week"))
    assert [p.index for p in parts] == list(range(41))
    assert sum(len(p.workload.jobs) for p in parts) == len(trace.jobs) == 25_326
    assert all(0 <= j.submit < WEEK for p in parts for j in p.workload.jobs)


def test_windows_every_s_jobs_overlap_and_stop_at_the_first_that_reaches_the_end() -> None:
    # 7 jobs, windows of 4 every 2: jobs 0-3, 2-5, 4-6 (reaches job 6: the last window)
    parts = split_workload(_workload([0, 1, 10, 11, 20, 30, 40]), Split.parse("4 jobs every 2"))
    assert [[j.id for j in p.workload.jobs] for p in parts] == [
        ["j0", "j1", "j2", "j3"], ["j2", "j3", "j4", "j5"], ["j4", "j5", "j6"]]
    assert [(p.index, p.start) for p in parts] == [(0, 0), (1, 10), (2, 20)]
    assert [j.submit for j in parts[1].workload.jobs] == [0, 1, 10, 20]
    # every N: the N jobs split
    assert [[j.id for j in p.workload.jobs] for p in split_workload(
        _workload([0, 1, 2]), Split.parse("2 jobs every 2"))] == [["j0", "j1"], ["j2"]]


@pytest.mark.parametrize("text", ["4 jobs every 0", "4 jobs every 5", "4 jobs every"])
def test_a_bad_window_stride_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="every <S>' with 1 <= S <= N"):
        Split.parse(text)
