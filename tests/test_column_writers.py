"""The column-wise CSV and SWF writers write the bytes the row-wise csv module and the former
SWF writer wrote."""

from __future__ import annotations

import csv
import gc
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.metrics import records
from hetsched.output.jobs_csv import (NO_VALUE, cells_text, csv_matrix, float_cells,
                                      fmt_float, write_text)
from hetsched.text_block import rows_text
from hetsched.workload.writers.swf import write_table

cell = st.text(alphabet=st.sampled_from(list('ab ,"\r\n;-1.é')), max_size=6)


rows_of = st.integers(1, 4).flatmap(lambda width: st.tuples(st.just(width), st.lists(
    st.lists(cell, min_size=width, max_size=width), max_size=6)))


@settings(max_examples=200, deadline=None)
@given(table=rows_of)
def test_python_made_rows_are_what_csv_writer_writes(tmp_path_factory, table) -> None:
    width, rows = table
    if width == 1:  # a row of one empty cell is quoted by csv ('""'): never written here
        rows = [row for row in rows if row[0]]
    header = [f"c{i}" for i in range(width)]
    folder = tmp_path_factory.mktemp("csv")
    half = len(rows) // 2  # two blocks of rows
    blocks = [[[row[i] for row in part] for i in range(width)]
              for part in (rows[:half], rows[half:])]
    ours = write_text(folder / "ours.csv", header, (cells_text(block).encode()
                                                    for block in blocks if block[0])).read_bytes()
    with (folder / "csv.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    assert ours == (folder / "csv.csv").read_bytes()


whole_floats = st.integers(-2**60, 2**60).map(float)
edge_floats = st.sampled_from([0.0, -0.0, 1e16, -1e16, 1e16 - 2, 2.0**53 + 2, 5e-324, 0.1])


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.floats() | whole_floats | edge_floats, max_size=40),
       data=st.data())
def test_float_cells_are_each_values_repr(values, data) -> None:
    # whole numbers take another path (their integer's digits and ".0"), repeated values are
    # formatted once: the text is repr's all the same (-0.0, 1e16's exponent, NaN empty)
    column = np.array(values + values, float)
    assert float_cells(column) == [fmt_float(v) for v in column.tolist()]
    absent = np.array(data.draw(st.lists(st.booleans(), min_size=column.size,
                                         max_size=column.size)), bool)
    expected = [NO_VALUE if gone else fmt_float(v)
                for v, gone in zip(column.tolist(), absent.tolist())]
    assert float_cells(column, absent) == expected


def test_write_table_writes_whole_numbers_column_by_column(tmp_path: Path) -> None:
    table = np.full((3, 18), -1.0)
    table[:, 0] = [1, 2, 3]
    table[:, 1] = [0.4, 2.5, 1e20]  # rounded half to even; beyond int64 written whole
    table[:, 3] = [-0.4, 7, 7]
    text = write_table(table, tmp_path / "t.swf", {"Note": "x"}).read_text()
    lines = text.splitlines()
    assert lines[:2] == ["; Version: 2.2", "; Note: x"]
    rest = " -1" * 14
    assert lines[2:] == [f"1 0 -1 0{rest}", f"2 2 -1 7{rest}",
                         f"3 100000000000000000000 -1 7{rest}"]


def test_hetsched_run_computes_the_job_records_once(tmp_path: Path, monkeypatch) -> None:
    calls = []
    costs = records.job_costs
    monkeypatch.setattr(records, "job_costs", lambda result: calls.append(1) or costs(result))
    done = CliRunner().invoke(app, ["run", "--out", str(tmp_path / "run"), "--quiet"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "run" / "jobs.csv").is_file()
    assert len(calls) == 1  # job_records calls job_costs once: for every file and the table


@pytest.mark.parametrize("command", ["run", "compare"])
def test_hetsched_run_and_compare_keep_the_loaded_inputs_out_of_the_collectors_sight(
        tmp_path: Path, command: str) -> None:
    """The inputs live to the end of the command: frozen (``gc.freeze``) once loaded, so that
    no full collection of the run walks a million jobs again."""
    gc.unfreeze()
    try:
        args = [command, "-s", "fcfs", "--out", str(tmp_path / "run"), "--quiet"]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


ascii_cell = st.text(alphabet=st.sampled_from(list('ab ,"\r\n;-1.')), max_size=6)
ints = st.integers(-2**63, 2**63 - 1)


@settings(max_examples=300, deadline=None)
@given(rows=st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(ints, min_size=n, max_size=n),
    st.lists(st.floats() | whole_floats | edge_floats, min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(ascii_cell, min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 7, -12345]), min_size=n, max_size=n))))
def test_numpy_made_rows_are_what_csv_writer_writes(rows) -> None:
    # the byte-matrix path (jobs.csv's and timeseries.csv's): integers of any sign and size,
    # floats by repr (-1 where absent, NaN empty), text quoted as the csv module quotes it,
    # a column of one value made once
    numbers, floats, absent, texts, few = rows
    columns = [np.array(numbers, np.int64), np.array(floats), texts, np.array(few, np.int64)]
    gone = np.array(absent, bool)
    made = rows_text([csv_matrix(columns[0]), csv_matrix(columns[1], gone),
                      csv_matrix(texts), csv_matrix(columns[3])], b",")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for number, value, lost, text, one in zip(numbers, floats, absent, texts, few):
        writer.writerow([number, NO_VALUE if lost else fmt_float(value), text, one])
    assert made == out.getvalue().encode()


def test_text_not_ascii_or_with_nul_is_left_to_python() -> None:
    assert csv_matrix(["a", "é"]) is None
    assert csv_matrix(["a", "b\x00c"]) is None
    assert csv_matrix(["a", "b"]).tobytes() == b"ab"
