"""What the figures of one run need, from a run directory (``jobs.csv``, ``summary.json``,
``timeseries.csv``, as ``hetsched run`` writes them) or from a simulation result: when each
job waited and ran, on which core ids and whether it was killed, the platform's nodes and
reservations, the run's node failures, and the time series.

Reading a run directory checks every value the figures use: a missing file or column, or a
value that is not a number, is one :class:`~hetsched.errors.InputError` naming the file, the
line (or JSON record) and the field.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hetsched.files import read_text
from hetsched.errors import InputError
from hetsched.limits import (MAX_CORES_PER_NODE, MAX_NODES, MAX_OUTPUT_VALUE,
                             MAX_OVERSUBSCRIPTION)
from hetsched.options import NEEDS_PYARROW
from hetsched.output.jobs_csv import FINAL_STATE
from hetsched.parsing import parse_float, parse_int, quote
from hetsched.sim.result import JobState, TimeSeries

RUN_FILES = ("jobs.csv", "summary.json", "timeseries.csv")
#: A run table's file suffixes, in the order looked for (``table_format``'s formats).
TABLE_SUFFIXES = (".csv", ".parquet")
JOB_FIELDS = ("job_id", "submission_time", "starting_time", "finish_time",
              "allocated_resources")
#: The tasks a job asked for (the Gantt chart's colours by size); absent: unknown.
SIZE = "requested_number_of_resources"
#: Columns read as text when present (the Gantt chart's colours by state, user and queue).
CATEGORY_FIELDS = ("final_state", "user", "queue")
#: Columns read when present (the Gantt chart's colours).
OPTIONAL_FIELDS = (*CATEGORY_FIELDS, SIZE)
#: The fields of a reservation in ``summary.json`` (``end`` ``null``: for good).
RESERVATION_FIELDS = ("node", "start", "end", "cores")
#: The fields of a node failure in ``summary.json`` (``end`` ``null``: never repaired).
FAILURE_FIELDS = ("node", "start", "end")
#: The fields of an attempt a failure killed and requeued, in ``summary.json``.
ATTEMPT_FIELDS = ("job_id", "start", "end", "allocated_resources")
#: ``jobs.csv``'s ``final_state`` of a killed job (drawn outlined): at its walltime, or by
#: a failure of its node.
KILLED = FINAL_STATE[JobState.KILLED]
KILLED_STATES = (KILLED, FINAL_STATE[JobState.FAILED])
#: Most cores and slots (threads it can run) of a node in ``summary.json``.
NODE_LIMITS = {"cores": MAX_CORES_PER_NODE, "slots": MAX_CORES_PER_NODE * MAX_OVERSUBSCRIPTION}


@dataclass(frozen=True)
class RunData:
    """One run, as its figures draw it. Times in seconds; NaN where a job has none (never
    started, not finished). ``window`` is the run's accounting window: first submission to
    last job end, or to the horizon (its length is the makespan). ``ranges`` are the core-id
    ranges ``[lo, hi)`` jobs held, one row ``(job, lo, hi)`` each; node ``n`` owns ids
    ``[offsets[n], offsets[n] + slots[n])``. ``reservations`` are the platform's, one row
    ``(node, start, end, slots held)`` each (``end`` inf: for good; slots: the reserved cores
    times the node's slots per core); ``failures`` the run's node failures, one row ``(node,
    start, end)`` each (``end`` inf: never repaired); ``killed`` says which jobs were killed
    (at their walltime or by a failure). ``job_ids``, ``size`` (the tasks each job asked for,
    NaN where unknown), ``states`` (``jobs.csv``'s ``final_state``), ``users`` and ``queues``
    (``jobs.csv``'s ``user`` and ``queue``, as text; empty for a file without them) are per job,
    ``node_types`` per node; empty when not known (data built by hand). ``attempts`` are the
    attempts failures killed and requeued (``summary.json``'s ``requeued_attempts``), one row
    ``(job, start, kill time, lo, hi)`` per core-id range each held."""

    title: str
    window: tuple[float, float]
    node_names: tuple[str, ...]
    slots: np.ndarray
    cores: int
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    ranges: np.ndarray
    time: np.ndarray
    queued: np.ndarray
    running: np.ndarray
    busy_cores: np.ndarray
    power_w: np.ndarray
    reservations: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    killed: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    failures: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    job_ids: tuple[str, ...] = ()
    size: np.ndarray = field(default_factory=lambda: np.zeros(0))
    states: tuple[str, ...] = ()
    node_types: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    queues: tuple[str, ...] = ()
    attempts: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))

    @property
    def offsets(self) -> np.ndarray:
        return np.cumsum(self.slots) - self.slots

    @property
    def has_energy(self) -> bool:
        return bool(len(self.power_w)) and not np.isnan(self.power_w).all()


def from_result(result: Any, title: str) -> RunData:
    """The figures' data of a :class:`~hetsched.sim.result.SimResult` (the same columns the
    run's files would hold)."""
    from hetsched.output.jobs_csv import job_columns
    from hetsched.output.summary_json import (failure_entries, node_totals,
                                              requeued_attempt_entries, reservation_entries,
                                              timeseries_columns)

    jobs = job_columns(result)
    return _assemble(title, (result.t0, result.t_end), node_totals(result), jobs,
                     timeseries_columns(result), lambda index: f"job {jobs['job_id'][index]}",
                     reservation_entries(result), failure_entries(result),
                     requeued_attempt_entries(result))


def read_run_dir(run_dir: str | Path) -> RunData:
    """The figures' data of a run directory, every value checked; its tables as CSV
    (``jobs.csv``, ``timeseries.csv``) or Parquet (``jobs.parquet``, ``timeseries.parquet``:
    ``--table-format parquet``)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(run_dir, "no such directory" if not run_dir.exists()
                         else "not a directory (a run directory holds " + ", ".join(RUN_FILES)
                         + ")")
    jobs_path, series_path = (_table(run_dir, name) for name in ("jobs", "timeseries"))
    if not (run_dir / "summary.json").is_file():
        raise InputError(run_dir / "summary.json", "no such file (a run directory of "
                                                   f"`hetsched run` holds {', '.join(RUN_FILES)})")
    summary = _read_summary(run_dir / "summary.json")
    jobs, records = _read_jobs(jobs_path)
    series = _read_series(series_path)
    title = _title(summary, run_dir)
    start = min(jobs["submission_time"], default=series["time"][0])
    window = (start, start + summary["metrics"]["makespan"])
    return _assemble(title, window, summary["nodes"], jobs, series, records.__getitem__,
                     summary.get("reservations", []), summary.get("failures", []),
                     summary.get("requeued_attempts", []), jobs_path,
                     run_dir / "summary.json")


def _table(run_dir: Path, name: str) -> Path:
    """The run's table ``name`` (``jobs``, ``timeseries``): its CSV file, else its Parquet
    one."""
    for suffix in TABLE_SUFFIXES:
        path = run_dir / f"{name}{suffix}"
        if path.is_file():
            return path
    raise InputError(run_dir / f"{name}.csv", "no such file (a run directory of `hetsched run` "
                                              f"holds {', '.join(RUN_FILES)}; with "
                                              f"table_format parquet, {name}.parquet instead)")


def _title(summary: Mapping[str, Any], run_dir: Path) -> str:
    """``easy · default_workload on default_platform · seed 0``: what ran, on what; the run
    directory's name when ``summary.json`` has no input paths (an in-memory input)."""
    names = [_input_name(summary, key) for key in ("workload", "platform")]
    what = (f"{names[0] or 'in-memory workload'} on {names[1] or 'in-memory platform'}"
            if any(names) else run_dir.name)
    return f"{summary.get('scheduler', '?')} · {what} · seed {summary.get('seed', '?')}"


def _input_name(summary: Mapping[str, Any], key: str) -> str | None:
    """The file name (without suffix) of ``summary.json``'s ``inputs.<key>.path``, if any."""
    inputs = summary.get("inputs")
    entry = inputs.get(key) if isinstance(inputs, dict) else None
    path = entry.get("path") if isinstance(entry, dict) else None
    return Path(path).stem if isinstance(path, str) else None


def _assemble(title: str, window: tuple[float, float], nodes: Sequence[Mapping[str, Any]],
              jobs: Mapping[str, Any], series: Mapping[str, Any], record: Any,
              reservations: Sequence[Mapping[str, Any]], failures: Sequence[Mapping[str, Any]],
              attempts: Sequence[Mapping[str, Any]], path: Path | str = "jobs",
              summary_path: Path | str = "summary") -> RunData:
    slots = np.array([node["slots"] for node in nodes], np.int64)
    ranges = _core_ranges(jobs["allocated_resources"], int(slots.sum()), record, path)
    attempt_rows = _attempt_rows(attempts, jobs["job_id"], int(slots.sum()), summary_path,
                                 Path(path).name)
    start, end = (np.asarray(jobs[name], float) for name in ("starting_time", "finish_time"))
    for index in np.nonzero(end < start)[0][:1]:
        raise InputError(path, f"finishes at {end[index]!r} before it starts at "
                               f"{start[index]!r}", record(int(index)), "finish_time")
    return RunData(title, window, tuple(str(node["name"]) for node in nodes), slots,
                   int(sum(node["cores"] for node in nodes)),
                   np.asarray(jobs["submission_time"], float), start, end, ranges,
                   *(np.asarray(series[name], float) for name in TimeSeries.FIELDS),
                   _reservation_rows(reservations, nodes),
                   np.array([state in KILLED_STATES for state in jobs["final_state"]], bool),
                   _failure_rows(failures, nodes), tuple(str(i) for i in jobs["job_id"]),
                   np.asarray(jobs["requested_number_of_resources"], float),
                   tuple(jobs["final_state"]), tuple(str(node.get("type", "")) for node in nodes),
                   users=tuple(str(u) for u in jobs["user"]),
                   queues=tuple(str(q) for q in jobs["queue"]), attempts=attempt_rows)


def _reservation_rows(reservations: Sequence[Mapping[str, Any]],
                      nodes: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """``(node, start, end, slots held)`` rows of ``summary.json``'s reservations."""
    index = {str(node["name"]): i for i, node in enumerate(nodes)}
    rows = []
    for r in reservations:
        node = nodes[index[r["node"]]]
        end = math.inf if r["end"] is None else r["end"]
        rows.append((index[r["node"]], r["start"], end,
                     r["cores"] * node["slots"] // node["cores"]))
    return np.array(rows, float).reshape(-1, 4)


def _failure_rows(failures: Sequence[Mapping[str, Any]],
                  nodes: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """``(node, start, end)`` rows of ``summary.json``'s failures."""
    index = {str(node["name"]): i for i, node in enumerate(nodes)}
    return np.array([(index[f["node"]], f["start"], math.inf if f["end"] is None else f["end"])
                     for f in failures], float).reshape(-1, 3)


def _attempt_rows(attempts: Sequence[Mapping[str, Any]], job_ids: Sequence[Any], total: int,
                  path: Path | str, jobs_table: str) -> np.ndarray:
    """``(job, start, kill time, lo, hi)`` rows of ``summary.json``'s requeued attempts, one
    per core-id range (each attempt's job among ``job_ids``, ``jobs_table``'s)."""
    if not attempts:
        return np.zeros((0, 5))
    index = {str(job): i for i, job in enumerate(job_ids)}
    for i, attempt in enumerate(attempts):
        if str(attempt["job_id"]) not in index:
            raise InputError(path, f"no job {quote(str(attempt['job_id']))} in {jobs_table}",
                             f"requeued_attempts[{i}]", "job_id")
    ranges = _core_ranges([a["allocated_resources"] for a in attempts], total,
                          lambda i: f"requeued_attempts[{i}]", path)
    which = ranges[:, 0]
    times = np.array([(index[str(a["job_id"])], a["start"], a["end"]) for a in attempts],
                     float).reshape(-1, 3)
    return np.column_stack([times[which], ranges[:, 1:]]).astype(float)


def _core_ranges(cells: Sequence[str], total: int, record: Any, path: Path | str) -> np.ndarray:
    """``(job, lo, hi)`` rows from ``allocated_resources`` cells such as ``0-3 8``."""
    rows = []
    for index, cell in enumerate(cells):
        for token in cell.split():
            lo, _, hi = token.partition("-")
            first, last = parse_int(lo), parse_int(hi or lo)
            if first is None or last is None or not 0 <= first <= last < total:
                raise InputError(path, f"{quote(token)} is not a core id or range a-b within "
                                       f"the platform's {total} slots (summary.json)",
                                 record(index), "allocated_resources")
            rows.append((index, first, last + 1))
    return np.array(rows, np.int64).reshape(-1, 3)


def _read_summary(path: Path) -> dict[str, Any]:
    try:
        summary = json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON: {err}") from None
    if not isinstance(summary, dict):
        raise InputError(path, "not a JSON object")
    makespan = (summary.get("metrics") or {}).get("makespan")
    if not isinstance(makespan, (int, float)) or isinstance(makespan, bool) or \
            not 0 <= makespan <= MAX_OUTPUT_VALUE:
        raise InputError(path, f"not a duration >= 0: {makespan!r}", "metrics", "makespan")
    nodes = summary.get("nodes")
    if not isinstance(nodes, list) or not 1 <= len(nodes) <= MAX_NODES:
        raise InputError(path, f"no list of 1 to {MAX_NODES:,} nodes", field="nodes")
    for i, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise InputError(path, "not an object", f"nodes[{i}]")
        if not isinstance(node.get("name"), str):
            raise InputError(path, "no name (text)", f"nodes[{i}]", "name")
        for key, most in NODE_LIMITS.items():
            value = node.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
                problem = ("missing (written by an older hetsched? run it again)"
                           if value is None else
                           f"not a whole number from 1 to {most:,}: {quote(str(value))}")
                raise InputError(path, problem, f"nodes[{i}]", key)
    _check_windows(path, "reservations", summary.get("reservations", []), nodes)
    _check_windows(path, "failures", summary.get("failures", []), nodes)
    _check_attempts(path, summary.get("requeued_attempts", []))
    return summary


def _check_attempts(path: Path, entries: Any) -> None:
    """``summary.json``'s ``requeued_attempts`` (absent from runs written before them: none):
    each names a job (text), a start, a kill time no earlier and the core ids held (text)."""
    if not isinstance(entries, list):
        raise InputError(path, "not a list", field="requeued_attempts")
    for i, attempt in enumerate(entries):
        record = f"requeued_attempts[{i}]"
        if not isinstance(attempt, dict):
            raise InputError(path, "not an object", record)
        for name in ATTEMPT_FIELDS:
            if name not in attempt:
                raise InputError(path, "missing", record, name)
        for name in ("job_id", "allocated_resources"):
            if not isinstance(attempt[name], str):
                raise InputError(path, f"not text: {quote(str(attempt[name]))}", record, name)
        if not _is_time(attempt["start"]) or attempt["start"] < 0:
            raise InputError(path, f"not a time >= 0: {quote(str(attempt['start']))}", record,
                             "start")
        if not _is_time(attempt["end"]) or attempt["end"] < attempt["start"]:
            raise InputError(path, f"not a time from start on: {quote(str(attempt['end']))}",
                             record, "end")


def _check_windows(path: Path, key: str, entries: Any, nodes: list[dict[str, Any]]) -> None:
    """``summary.json``'s ``reservations`` or ``failures`` (absent from runs written before
    them: none): each names a node, a start and an end (``null``: for good); a reservation
    also the cores it holds."""
    if not isinstance(entries, list):
        raise InputError(path, "not a list", field=key)
    cores = {node["name"]: node["cores"] for node in nodes}
    for i, r in enumerate(entries):
        record = f"{key}[{i}]"
        if not isinstance(r, dict):
            raise InputError(path, "not an object", record)
        for name in RESERVATION_FIELDS if key == "reservations" else FAILURE_FIELDS:
            if name not in r:
                raise InputError(path, "missing", record, name)
        if r["node"] not in cores:
            raise InputError(path, f"no node {quote(str(r['node']))} in 'nodes'", record,
                             "node")
        if not _is_time(r["start"]) or r["start"] < 0:
            raise InputError(path, f"not a time >= 0: {quote(str(r['start']))}", record,
                             "start")
        if r["end"] is not None and not (_is_time(r["end"]) and r["end"] > r["start"]):
            raise InputError(path, f"not a time after start, nor null (for good): "
                                   f"{quote(str(r['end']))}", record, "end")
        if key == "reservations":
            _check_held(path, record, r["cores"], cores[r["node"]])


def _check_held(path: Path, record: str, held: Any, most: int) -> None:
    """A reservation's ``cores``: a whole number from 1 to the node's cores."""
    if not isinstance(held, int) or isinstance(held, bool) or not 1 <= held <= most:
        raise InputError(path, f"not a whole number from 1 to the node's {most} cores: "
                               f"{quote(str(held))}", record, "cores")


def _is_time(value: Any) -> bool:
    """Whether ``value`` is a JSON number within :data:`MAX_OUTPUT_VALUE` in magnitude."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        abs(value) <= MAX_OUTPUT_VALUE


def _rows(path: Path, fields: Sequence[str],
          optional: Sequence[str] = ()) -> Iterator[tuple[str, dict[str, str]]]:
    """``(record, row)`` of a table (CSV, or Parquet by its suffix) that has every one of
    ``fields`` (and maybe some of ``optional``: a Parquet file's other columns are not read):
    each cell as text (a Parquet file's as its CSV twin writes it, null empty), so that both
    are checked alike; ``record`` names the row (``line 2``, ``row 1``)."""
    parquet = path.suffix == ".parquet"
    header, rows = _parquet_rows(path, [*fields, *optional]) if parquet else _csv_rows(path)
    for name in fields:
        if name not in header:
            raise InputError(path, f"no column '{name}' (columns: {', '.join(header)})",
                             "schema" if parquet else "line 1")
    return rows


def _csv_rows(path: Path) -> tuple[list[str], Iterator[tuple[str, dict[str, str]]]]:
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = list(reader.fieldnames or [])

    def rows() -> Iterator[tuple[str, dict[str, str]]]:
        for row in reader:
            if None in row or None in row.values():
                raise InputError(path, f"{len(header)} cells expected",
                                 f"line {reader.line_num}")
            yield f"line {reader.line_num}", row
    return header, rows()


def _parquet_rows(path: Path, wanted: Sequence[str]
                  ) -> tuple[list[str], Iterator[tuple[str, dict[str, str]]]]:
    """The header of a Parquet table (every column) and its rows, of the ``wanted`` columns
    it has, each a number, text or nothing (null)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(path, f"reading Parquet {NEEDS_PYARROW}") from None
    try:
        schema = pq.read_schema(path)
        header = list(schema.names)
        read = [name for name in dict.fromkeys(wanted) if name in header]
        for name in read:
            if not _plain(schema.field(name).type):
                raise InputError(path, f"column '{name}' holds {schema.field(name).type}, "
                                       "not numbers or text", "schema")
        table = pq.read_table(path, columns=read)
        columns = [list(map(_cell_text, table.column(name).to_pylist())) for name in read]
    except InputError:
        raise
    except Exception as err:  # pyarrow's errors have no common base of their own
        raise InputError(path, "not a Parquet file: "
                               f"{(str(err).splitlines() or [type(err).__name__])[0]}") from None
    rows = (dict(zip(read, row)) for row in zip(*columns))
    return header, ((f"row {i}", row) for i, row in enumerate(rows, 1))


def _plain(kind: Any) -> bool:
    """Whether a Parquet column of type ``kind`` holds numbers, text or nothing (as CSV
    cells can), text by code (a dictionary) included."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_null(kind)
            or pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _cell_text(value: Any) -> str:
    """A Parquet cell as its CSV twin writes it (floats by ``repr``; null empty)."""
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _number(path: Path, record: str, row: Mapping[str, str], name: str,
            absent: bool) -> float:
    """The cell as a float; an empty cell (and Batsim's -1 where ``absent``) as NaN."""
    text = row[name].strip()
    value = parse_float(text) if text else math.nan
    if value is None or math.isinf(value):
        raise InputError(path, f"not a number: {quote(text)}", record, name)
    if abs(value) > MAX_OUTPUT_VALUE:
        raise InputError(path, f"{quote(text)} is out of range (at most "
                               f"{MAX_OUTPUT_VALUE:g} in magnitude)", record, name)
    return math.nan if absent and value == -1 else value


def _read_jobs(path: Path) -> tuple[dict[str, list[Any]], list[str]]:
    jobs: dict[str, list[Any]] = {name: [] for name in (*JOB_FIELDS, *OPTIONAL_FIELDS)}
    records = []
    for record, row in _rows(path, JOB_FIELDS, OPTIONAL_FIELDS):
        records.append(record)
        jobs["job_id"].append(row["job_id"])
        for name in CATEGORY_FIELDS:
            jobs[name].append(row.get(name, ""))
        jobs[SIZE].append(_number(path, record, row, SIZE, True) if SIZE in row else math.nan)
        jobs["allocated_resources"].append(row["allocated_resources"])
        for name in ("submission_time", "starting_time", "finish_time"):
            jobs[name].append(_number(path, record, row, name, name != "submission_time"))
        if math.isnan(jobs["submission_time"][-1]):
            raise InputError(path, "empty", record, "submission_time")
    return jobs, records


def _read_series(path: Path) -> dict[str, list[float]]:
    series: dict[str, list[float]] = {name: [] for name in TimeSeries.FIELDS}
    for record, row in _rows(path, TimeSeries.FIELDS):
        for name in TimeSeries.FIELDS:
            value = _number(path, record, row, name, False)
            if math.isnan(value) and name != "power_w":
                raise InputError(path, "empty", record, name)
            series[name].append(value)
        if len(series["time"]) > 1 and series["time"][-1] < series["time"][-2]:
            raise InputError(path, "time goes backwards", record, "time")
    if not series["time"]:
        raise InputError(path, "no rows")
    return series
