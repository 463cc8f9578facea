"""Reading a results store: conditions such as ``scheduler=easy`` or ``seed>3`` (the
``--where`` of ``hetsched results``), the selected runs as rows or as a pandas DataFrame, and
their per-job records.

A condition is ``COLUMN OP VALUE``: ``OP`` is one of ``= != < <= > >=`` or ``~`` (a glob
pattern on text: ``scheduler~easy*``); the value is the rest of the text, spaces around it
dropped. ``null`` with ``=``/``!=`` tests for no value (``horizon=null``); ``true``/``false``
stand for 1/0 in number columns (``strict=true``). Numbers are compared as numbers, text as
text. With ``=`` and ``!=``, alternatives are separated by ``|``: ``scheduler=fcfs|easy``
holds for either (``!=``: for neither). Several conditions must all hold. Values always reach
SQLite as parameters, and column names are checked against the store's own columns.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hetsched.errors import ConfigError, InputError, did_you_mean
from hetsched.parsing import parse_float, quote
from hetsched.run.options import RUN_OPTIONS
from hetsched.sweep.store import IDENTITY, reading

if TYPE_CHECKING:
    import pandas

_CONDITION = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(!=|<=|>=|=|<|>|~)(.*)", re.DOTALL)
_SQL_OPERATORS = {"=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
                  "~": "GLOB"}
#: Row order of every listing: what identifies a run.
ORDER = ("platform", "workload", "part", "scheduler", "seed", *RUN_OPTIONS, "key")
#: The run columns per-job records come with.
JOB_IDENTITY = tuple(name for name in IDENTITY if not name.endswith(("_path", "_sha256")))


def where_clause(conditions: Iterable[str], columns: Mapping[str, str],
                 table: str = "runs") -> tuple[str, list[Any]]:
    """``WHERE ...`` (or ``""``) and its parameters; ``columns`` maps names to SQL types."""
    parts, params = [], []
    for text in conditions:
        sql, values = _condition(text, columns, table)
        parts.append(sql)
        params.extend(values)
    return (f" WHERE {' AND '.join(parts)}" if parts else ""), params


def _condition(text: str, columns: Mapping[str, str], table: str) -> tuple[str, list[Any]]:
    match = _CONDITION.fullmatch(text)
    if match is None:
        raise ConfigError(f"condition {quote(text)}: expected COLUMN OP VALUE, OP one of "
                          f"{' '.join(_SQL_OPERATORS)} (e.g. scheduler=easy, seed>3)")
    column, op, raw = match[1], match[2], match[3].strip()
    if column not in columns:
        raise ConfigError(f"condition {quote(text)}: no column '{column}'"
                          f"{did_you_mean(column, list(columns))}")
    name = f'{table}."{column}"'
    if raw.lower() == "null" and op in ("=", "!="):
        return f"{name} IS {'NOT ' if op == '!=' else ''}NULL", []
    numeric = columns[column].split()[0] in ("INTEGER", "REAL")
    if op == "~" and numeric:
        raise ConfigError(f"condition {quote(text)}: '~' matches text, and {column} holds "
                          "numbers")
    texts = [part.strip() for part in raw.split("|")] if op in ("=", "!=") else [raw]
    values = [_number(part) if numeric else part for part in texts]
    bad = next((t for t, v in zip(texts, values) if v is None), None)
    if bad is not None:
        raise ConfigError(f"condition {quote(text)}: {column} holds numbers, got {quote(bad)}")
    if len(values) > 1:
        marks = ", ".join("?" * len(values))
        return f"{name} {'NOT ' if op == '!=' else ''}IN ({marks})", values
    return f"{name} {_SQL_OPERATORS[op]} ?", values


def _number(text: str) -> float | None:
    flag = {"true": 1.0, "false": 0.0}.get(text.lower())
    return flag if flag is not None else parse_float(text)


def columns_of(conn: sqlite3.Connection, table: str = "runs") -> dict[str, str]:
    """The columns of ``table`` and their declared SQL types, in order."""
    return {row[1]: row[2] for row in conn.execute(f"PRAGMA table_info({table})")}


def select_runs(store: str | Path, conditions: Sequence[str] = (),
                ) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of the runs that meet every condition."""
    with reading(store) as conn:
        return _query(conn, *_runs_sql(conn, conditions))


def select_jobs(store: str | Path, conditions: Sequence[str] = (),
                ) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of the per-job records of the runs that meet every condition:
    what identifies the run, then the columns of ``jobs.csv``."""
    with reading(store) as conn:
        return _query(conn, *_jobs_sql(conn, conditions))


def load_results(store: str | Path, *conditions: str) -> pandas.DataFrame:
    """One row per run (every column of the store's ``runs`` table) that meets every
    condition, e.g. ``load_results("results.sqlite", "scheduler=easy", "seed<4")``. Columns
    of numbers are floats (NULL as NaN) unless they are whole numbers in every row."""
    return _frame(store, conditions, _runs_sql)


def load_jobs(store: str | Path, *conditions: str) -> pandas.DataFrame:
    """One row per job of the runs that meet every condition (stored with
    ``job_records: true``): what identifies its run, then the columns of ``jobs.csv``."""
    return _frame(store, conditions, _jobs_sql)


def _runs_sql(conn: sqlite3.Connection, conditions: Sequence[str]) -> tuple[str, list[Any]]:
    where, params = where_clause(conditions, columns_of(conn))
    return f"SELECT * FROM runs{where} ORDER BY {', '.join(ORDER)}", params


def _jobs_sql(conn: sqlite3.Connection, conditions: Sequence[str]) -> tuple[str, list[Any]]:
    where, params = where_clause(conditions, columns_of(conn))
    identity = ", ".join(f"runs.{name}" for name in JOB_IDENTITY)
    jobs = ", ".join(f"jobs.{name}" for name in columns_of(conn, "jobs") if name != "run")
    order = ", ".join(f"runs.{name}" for name in ORDER)
    return (f"SELECT {identity}, {jobs} FROM jobs JOIN runs ON jobs.run = runs.key{where} "
            f"ORDER BY {order}, jobs.rowid", params)


def _query(conn: sqlite3.Connection, sql: str,
           params: list[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
    cursor = conn.execute(sql, params)
    return [d[0] for d in cursor.description], cursor.fetchall()


def _frame(store: str | Path, conditions: Sequence[str], sql: Any) -> pandas.DataFrame:
    from hetsched.api import require_pandas

    pandas = require_pandas()
    with reading(store) as conn:
        names, rows = _query(conn, *sql(conn, conditions))
        types = {**columns_of(conn, "jobs"), **columns_of(conn)}
    frame = pandas.DataFrame.from_records(rows, columns=names)
    for name in frame.columns:
        kind = types.get(name, "").partition(" ")[0]
        if kind == "REAL" or (kind == "INTEGER" and frame[name].isna().any()):
            numbers = pandas.to_numeric(frame[name], errors="coerce")
            bad = numbers.isna() & frame[name].notna()
            if bad.any():  # a damaged or hand-edited store: text where a number belongs
                row = int(bad.to_numpy().argmax())
                raise InputError(store, f"not a number: {quote(str(frame[name].iloc[row]))}",
                                 _row_label(frame, row), name)
            frame[name] = numbers.astype(float)  # NULL as NaN, whatever the other rows
    return frame


def _row_label(frame: pandas.DataFrame, row: int) -> str:
    """A row of a runs or jobs listing as an error names it: its run's key (and job id)."""
    key = frame["key"].iloc[row] if "key" in frame else None
    job = f", job {frame['job_id'].iloc[row]}" if "job_id" in frame else ""
    return f"run {key}{job}" if key is not None else f"row {row + 1}{job}"
