"""The results store: one SQLite file, one row per run in ``runs`` (what identifies the run,
its status and error, every summary metric, wall times) and optionally one row per job in
``jobs`` (the columns of ``jobs.csv``, keyed by the run).

Why a sweep can be killed at any point (``kill -9`` included) and resumed:

- only the sweep's own process writes, and each batch of results (a chunk of runs with their
  job rows) goes in one transaction: after a kill the store holds whole results, never half;
- the file is in WAL mode while a sweep writes (back to one file when it ends,
  :func:`writing`): a transaction that committed survives the process being killed
  (``synchronous=NORMAL``; an operating-system crash or power cut may lose the last few, which
  the next sweep redoes) and one that did not is rolled back when the file is next opened;
- ``runs.key`` is the primary key: a run is stored at most once (a run redone replaces its
  row and job rows in one transaction), and the next sweep skips the keys already there.

Readers (``hetsched results``, :func:`hetsched.sweep.load_results`) may read while a sweep
writes: WAL gives them the last committed state.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from dataclasses import fields
from pathlib import Path
from types import NoneType
from typing import get_args, get_type_hints

from hetsched.errors import InputError
from hetsched.metrics.catalogue import SUMMARY
from hetsched.output import COLUMNS as JOB_COLUMNS
from hetsched.run.options import RunOptions
from hetsched.sweep.grid import RunSpec
from hetsched.sweep.worker import Outcome

SCHEMA_VERSION = 1
_SQL_TYPES = {bool: "INTEGER", int: "INTEGER", float: "REAL", str: "TEXT"}


def option_columns() -> dict[str, str]:
    """One column per run option: its SQL type, NOT NULL unless the option may be None or
    came after stores began (its earlier rows hold NULL)."""
    hints = get_type_hints(RunOptions)
    columns = {}
    for spec in fields(RunOptions):
        kinds = get_args(hints[spec.name]) or (hints[spec.name],)
        kind = next(k for k in kinds if k is not NoneType)
        nullable = NoneType in kinds or "before" in spec.metadata
        columns[spec.name] = _SQL_TYPES[kind] + ("" if nullable else " NOT NULL")
    return columns


#: What identifies a run, as :meth:`RunSpec.columns` gives it (``part`` is NULL for a
#: workload that is not split, ``horizon`` NULL for none, ``contention`` NULL for the
#: platform's model; an option added after stores existed is NULL in the runs stored before
#: it, which ran as its ``before`` value says: ``walltime`` ``ignore``).
IDENTITY: dict[str, str] = {
    "key": "TEXT PRIMARY KEY", "platform": "TEXT NOT NULL", "workload": "TEXT NOT NULL",
    "split": "TEXT", "part": "INTEGER", "part_start": "REAL", "scheduler": "TEXT NOT NULL",
    "seed": "INTEGER NOT NULL", **option_columns(),
    "platform_path": "TEXT NOT NULL",
    "platform_sha256": "TEXT NOT NULL", "workload_path": "TEXT NOT NULL",
    "workload_sha256": "TEXT NOT NULL", "hetsched_version": "TEXT NOT NULL",
}
#: Every summary metric (NULL where undefined, and for failed runs): counts as integers.
METRICS: dict[str, str] = {m.key: "INTEGER" if m.unit == "count" else "REAL" for m in SUMMARY}
#: The outcome: ``status`` is ``ok`` or ``error``; ``wall_seconds`` is the simulation's,
#: ``run_seconds`` the whole run in its worker; ``finished_at`` is UTC.
OUTCOME: dict[str, str] = {
    "status": "TEXT NOT NULL CHECK (status IN ('ok', 'error'))", "error": "TEXT",
    **METRICS, "wall_seconds": "REAL", "run_seconds": "REAL NOT NULL",
    "has_jobs": "INTEGER NOT NULL", "finished_at": "TEXT NOT NULL",
}
RUN_COLUMNS: tuple[str, ...] = (*IDENTITY, *OUTCOME)
_JOB_TYPES = {"requested_number_of_resources": "INTEGER", "success": "INTEGER",
              "attempts": "INTEGER",
              **{name: "TEXT" for name in ("job_id", "workload_name", "profile", "final_state",
                                           "allocated_resources", "metadata", "node",
                                           "node_type")}}


def _job_columns() -> dict[str, str]:
    """The ``jobs`` table's columns (those of ``jobs.csv``) and their types."""
    return {name: _JOB_TYPES.get(name, "REAL") for name in JOB_COLUMNS}


def _schema() -> list[str]:
    runs = ", ".join(f"{name} {kind}" for name, kind in {**IDENTITY, **OUTCOME}.items())
    jobs = ", ".join(f"{name} {kind}" for name, kind in _job_columns().items())
    return ["CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            f"CREATE TABLE runs ({runs})",
            f"CREATE TABLE jobs (run TEXT NOT NULL REFERENCES runs (key), {jobs}, "
            "UNIQUE (run, job_id))",
            f"INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}')"]


def open_store(path: str | Path) -> sqlite3.Connection:
    """The store at ``path`` for a sweep to write, created if it does not exist."""
    path = Path(path)
    if path.is_dir():
        raise InputError(path, "is a directory, not a results store")
    conn = _connect(str(path), path, isolation_level=None)
    try:
        with _store_errors(path):
            if _tables(conn):
                _check(conn, path)  # before anything changes another program's file
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            with transaction(conn):
                if not _tables(conn):
                    for statement in _schema():
                        conn.execute(statement)
            _check(conn, path)
            _add_new_columns(conn)
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def writing(path: str | Path) -> Iterator[sqlite3.Connection]:
    """The store for a sweep to write (:func:`open_store`), closed afterwards as one file
    again: its WAL folded in and no ``-wal``/``-shm`` file left beside it (unless another
    program still reads it: then they stay, as SQLite leaves them)."""
    with closing(open_store(path)) as conn:
        try:
            yield conn
        finally:
            try:
                conn.execute("PRAGMA journal_mode = DELETE")
            except sqlite3.OperationalError:  # a reader holds it: WAL it stays
                pass


def open_readonly(path: str | Path) -> sqlite3.Connection:
    """An existing store, to read (never created, never changed)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "is a directory, not a results store" if path.is_dir()
                         else "no such file")
    conn = _connect(f"{path.resolve().as_uri()}?mode=ro", path, uri=True)
    try:
        _check(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def reading(path: str | Path) -> Iterator[sqlite3.Connection]:
    """An existing store to read (:func:`open_readonly`), closed afterwards; a damaged file
    found while reading (a malformed page, text that is not UTF-8) is one InputError."""
    path = Path(path)
    with closing(open_readonly(path)) as conn, _store_errors(path):
        yield conn


def _connect(target: str, path: Path, **options: object) -> sqlite3.Connection:
    try:
        return sqlite3.connect(target, timeout=60, **options)  # type: ignore[arg-type]
    except sqlite3.Error as err:
        raise InputError(path, f"cannot open the results store: {err}") from None


@contextmanager
def _store_errors(path: Path) -> Iterator[None]:
    """SQLite's errors (not a database, locked, read-only) as one-line InputErrors."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        raise InputError(path, f"cannot use the file as a results store: {err}") from None
    except UnicodeDecodeError as err:  # a damaged file: SQLite hands Python bytes as text
        raise InputError(path, f"damaged results store: text that is not UTF-8 ({err.reason})"
                         ) from None


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


def _check(conn: sqlite3.Connection, path: Path) -> None:
    """A hetsched store of this schema version."""
    with _store_errors(path):
        tables = _tables(conn)
        if not {"meta", "runs", "jobs"} <= tables:
            raise InputError(path, "not a hetsched results store (no 'runs' table)")
        row = conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
    if row is None or row[0] != str(SCHEMA_VERSION):
        raise InputError(path, f"results store of schema version {row and row[0]}, this "
                               f"hetsched reads version {SCHEMA_VERSION}")


def _add_new_columns(conn: sqlite3.Connection) -> None:
    """A column for each run option, metric or ``jobs.csv`` column this hetsched has and the
    store does not (a newer version adds one): its earlier rows hold NULL there."""
    with transaction(conn):
        for table, added in (("runs", {**IDENTITY, **METRICS}), ("jobs", _job_columns())):
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            for name in sorted(added.keys() - present):
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {added[name]}")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def finished_keys(conn: sqlite3.Connection, job_records: bool, retry_failed: bool) -> set[str]:
    """Keys of the runs a sweep need not run again: those that succeeded (with their job
    records, if the sweep wants them) and, unless ``retry_failed``, those that failed."""
    rows = conn.execute("SELECT key, status, has_jobs FROM runs")
    return {key for key, status, has_jobs in rows
            if (status == "ok" and (has_jobs or not job_records))
            or (status == "error" and not retry_failed)}


def write(conn: sqlite3.Connection, results: Sequence[tuple[RunSpec, Outcome]]) -> None:
    """Store ``results`` in one transaction, replacing any earlier row of the same runs."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    runs = [_run_row(run, outcome, now) for run, outcome in results]
    jobs = [(run.key, *job) for run, outcome in results for job in outcome.jobs or ()]
    marks = ", ".join("?" * len(RUN_COLUMNS))
    with transaction(conn):
        conn.executemany("DELETE FROM jobs WHERE run = ?", [(run.key,) for run, _ in results])
        conn.executemany(f"INSERT OR REPLACE INTO runs ({', '.join(RUN_COLUMNS)}) "
                         f"VALUES ({marks})", runs)
        conn.executemany(f"INSERT INTO jobs (run, {', '.join(JOB_COLUMNS)}) "
                         f"VALUES ({', '.join('?' * (len(JOB_COLUMNS) + 1))})", jobs)


def _run_row(run: RunSpec, outcome: Outcome, now: str) -> tuple[object, ...]:
    identity = run.columns()
    values = {**{name: outcome.metrics.get(name) for name in (*METRICS, "wall_seconds")},
              "status": outcome.status, "error": outcome.error,
              "run_seconds": outcome.run_seconds, "has_jobs": outcome.jobs is not None,
              "finished_at": now}
    return (*(identity[name] for name in IDENTITY), *(values[name] for name in OUTCOME))
