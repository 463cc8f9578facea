"""The SWF reader's fast path (numpy over the whole text) gives what the line-by-line path
gives, and steps aside for anything that is not plain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from hetsched.workload.swf import FIELDS, _parse_lines
from hetsched.workload.swf_text import plain_table

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"
WIDTH = len(FIELDS)


def line_by_line(text: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    metadata: dict[str, object] = {}
    lines, table = _parse_lines(text.splitlines(), Path("x.swf"), metadata)
    comments = [line.lstrip() for line in text.splitlines() if line.lstrip()[:1] == ";"]
    return comments, lines, table


def assert_same(text: str) -> None:
    fast = plain_table(text, WIDTH)
    assert fast is not None
    slow = line_by_line(text)
    assert fast[0] == slow[0]
    assert fast[1].tolist() == slow[1].tolist()
    assert fast[2].shape == (len(slow[1]), WIDTH)
    assert fast[2].tolist() == np.asarray(slow[2], float).reshape(-1, WIDTH).tolist()


@pytest.mark.parametrize("name", ["lublin_256.swf", "kit_fh2_2016_first25k.swf"])
def test_the_shared_traces_take_the_fast_path_with_the_same_numbers(name: str) -> None:
    assert_same((DATA / name).read_text(encoding="utf-8"))


numbers = st.integers(-10**17, 10**17).map(str) | st.sampled_from(["-1", "0", "-0", "007"])
spaces = st.sampled_from([" ", "  ", "\t", " \t "])
data_line = st.tuples(st.lists(numbers, min_size=WIDTH, max_size=WIDTH), spaces, spaces).map(
    lambda t: t[2] + t[1].join(t[0]) + t[2])  # spaces between fields and around the line
other_line = st.sampled_from(["", "   ", "; Version: 2.2", "  ;MaxJobs: 3", "\t; Note: é ü",
                              ";"])


@settings(max_examples=150, deadline=None)
@given(st.lists(data_line | other_line, max_size=30), st.sampled_from(["\n", "\r\n"]),
       st.booleans())
def test_plain_texts_read_as_line_by_line(lines: list[str], end: str, last_end: bool) -> None:
    text = end.join(lines) + (end if last_end else "")
    assert_same(text)


@pytest.mark.parametrize("field", ["1.5", "1e3", "+1", "nan", "--1", "-", "1-2", "x",
                                   "1" * 19, "١"])
def test_anything_else_is_left_to_the_line_by_line_path(field: str) -> None:
    row = ["1"] * WIDTH
    row[3] = field
    assert plain_table("; Version: 2.2\n" + " ".join(row) + "\n", WIDTH) is None


@pytest.mark.parametrize("text", ["1 2 3\n", "1 2 ; 3\n", "1\f2\n", "1\r2\n"])
def test_wrong_counts_stray_semicolons_and_other_breaks_are_not_plain(text: str) -> None:
    assert plain_table(text, WIDTH) is None


@pytest.mark.parametrize("name", ["lublin_256.swf", "kit_fh2_2016_first25k.swf"])
def test_the_columns_the_reader_keeps_are_the_jobs_own(name: str) -> None:
    # a run's records and files read these columns from the workload, not from its jobs
    from hetsched.platform.load import load_platform
    from hetsched.workload.model import job_column
    from hetsched.workload.swf import load_swf

    platform = load_platform(DATA.parent / "platforms" / "irmasim_lublin_20node.json")
    workload = load_swf(DATA / name, platform)
    kept = dict(workload._columns)
    assert len(kept) == 8
    for (field, kind), column in kept.items():
        expected = job_column(workload.jobs, field, kind)
        assert column.dtype == expected.dtype
        assert np.array_equal(column, expected), field
        assert workload.column(field, kind) is column
