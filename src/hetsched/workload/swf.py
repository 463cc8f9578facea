"""Standard Workload Format (SWF) traces, plain (``.swf``) or gzipped (``.swf.gz``).

Every data line has 18 whitespace-separated numeric fields; lines starting with ``;`` are
comments, and header comments ``; Key: value`` are kept as the workload's metadata. The
conversion rules (processors, run time, estimates, memory, placement) are in ``docs/formats.md``.
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from dataclasses import MISSING, dataclass, fields
from itertools import repeat
from pathlib import Path

import numpy as np

from hetsched.errors import InputError
from hetsched.documents import file_stem
from hetsched.files import check_exists, check_size, decode_text, read_text
from hetsched.parsing import parse_float, parse_number, quote
from hetsched.models.speed import on_slowest, work
from hetsched.limits import (MAX_FILE_BYTES, MAX_JOB_NUMBER, MAX_MEMORY_MB, MAX_TASKS, MAX_TIME,
                             MIN_NONZERO)
from hetsched.platform.model import Platform
from hetsched.options import check_estimate_factor, check_placement, check_reference_speed
from hetsched.workload.bulk import collector_paused
from hetsched.workload.model import SPREAD, Job, SkippedRecord, Workload
from hetsched.workload.swf_text import plain_table

FIELDS = ("job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
          "average_cpu_time", "used_memory", "requested_processors", "requested_time",
          "requested_memory", "status", "user_id", "group_id", "executable", "queue",
          "partition", "preceding_job", "think_time")
COL = {name: i for i, name in enumerate(FIELDS)}
#: Fields that must hold whole numbers.
INTEGER_FIELDS = ("job_number", "allocated_processors", "requested_processors", "user_id",
                  "queue", "partition")
#: Largest magnitude of the fields hetsched uses (negative values mean "unknown" in most).
MAGNITUDES = {"job_number": MAX_JOB_NUMBER, "submit_time": MAX_TIME, "run_time": MAX_TIME,
              "allocated_processors": MAX_TASKS, "requested_processors": MAX_TASKS,
              "requested_time": MAX_TIME, "used_memory": MAX_MEMORY_MB * 1024,
              "requested_memory": MAX_MEMORY_MB * 1024, "queue": MAX_JOB_NUMBER,
              "user_id": MAX_JOB_NUMBER,
              "partition": MAX_JOB_NUMBER}
_HEADER = re.compile(r";\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class SwfOptions:
    """How SWF records become jobs.

    ``placement``: ``auto`` (one node if the job fits the largest node, else spread), ``single``
    (always one node) or ``spread`` (any nodes). ``reference_speed``: ops/s of the machine the
    trace's run times were recorded on (default: the platform's slowest core).
    ``estimate_factor``: ``req_time = run_time * factor`` when a record has no requested time.
    ``strict``: raise on records that cannot be simulated instead of reporting them as skipped.
    """

    placement: str = "auto"
    reference_speed: float | None = None
    estimate_factor: float = 1.0
    strict: bool = False

    def __post_init__(self) -> None:
        check_placement(self.placement)
        check_reference_speed(self.reference_speed)
        check_estimate_factor(self.estimate_factor)


def load_swf(path: str | Path, platform: Platform, options: SwfOptions = SwfOptions()) -> Workload:
    """Read an SWF trace and convert its records to jobs for ``platform``."""
    path = Path(path)
    metadata, lines, rows = _parse(_read_text(path), path)
    return _to_workload(file_stem(path), path, platform, options, metadata, lines, rows,
                        checked=True)


def read_swf_table(path: str | Path) -> tuple[dict[str, object], np.ndarray]:
    """An SWF file's header metadata and its records as checked numbers (n × 18), unconverted."""
    path = Path(path)
    metadata, _, table = _parse(_read_text(path), path)
    return metadata, table


def table_workload(name: str, source: str, platform: Platform, options: SwfOptions,
                   table: np.ndarray, metadata: dict[str, object]) -> Workload:
    """Jobs for ``platform`` from an SWF table built in memory (a generator's: one row per
    job, the columns of :data:`FIELDS`, already valid), by the same rules as a trace file."""
    lines = np.arange(1, len(table) + 1)
    return _to_workload(name, Path(source), platform, options, metadata, lines, table,
                        checked=False)


def _read_text(path: Path) -> str:
    if not path.name.lower().endswith(".gz"):
        return read_text(path)
    check_exists(path)
    try:
        with gzip.open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)  # a gzip bomb stops here
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, f"cannot read: {exc}") from None
    check_size(path, len(data), "decompressed, it holds")
    return decode_text(data, path)


def _parse(text: str, path: Path) -> tuple[dict[str, object], np.ndarray, np.ndarray]:
    """Header metadata, 1-based line numbers of data lines, and their checked fields (n × 18
    floats): numpy's passes over a plain file (:mod:`~hetsched.workload.swf_text`), else line
    by line."""
    metadata: dict[str, object] = {}
    plain = plain_table(text, len(FIELDS))
    if plain is None:
        lines, table = _parse_lines(text.splitlines(), path, metadata)
    else:
        comments, lines, table = plain
        for comment in comments:
            _header(comment, metadata)
    table = table + 0.0  # -0 becomes 0
    _check_table(table, lines, path)
    return metadata, lines, table


def _parse_lines(text_lines: list[str], path: Path,
                 metadata: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """Line numbers of data lines and their fields, line by line (headers into
    ``metadata``)."""
    numbers: list[int] = []
    data: list[str] = []
    for lineno, line in enumerate(text_lines, 1):
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped[0] == ";":
            _header(stripped, metadata)
        else:
            numbers.append(lineno)
            data.append(line)
    lines = np.array(numbers, dtype=np.int64)
    return lines, _table(data, lines, path)


def _table(data: list[str], lines: np.ndarray, path: Path) -> np.ndarray:
    """The data lines as an n × 18 array: numpy's fast parser, else line by line in Python
    (which names the bad line and field)."""
    if not data:
        return np.empty((0, len(FIELDS)))
    try:
        table = np.loadtxt(data, dtype=float, comments=None, ndmin=2)
        if table.shape[1] == len(FIELDS):
            return table
    except ValueError:
        pass
    return np.array([_parse_line(line.split(), lineno, path)
                     for lineno, line in zip(lines.tolist(), data)], dtype=float)


def _parse_line(parts: list[str], lineno: int, path: Path) -> list[float]:
    if len(parts) != len(FIELDS):
        field = FIELDS[len(parts)] if len(parts) < len(FIELDS) else None
        raise InputError(path, f"expected {len(FIELDS)} fields, found {len(parts)}",
                         record=f"line {lineno}", field=field)
    values = []
    for name, part in zip(FIELDS, parts):
        value = parse_float(part)
        if value is None:
            raise InputError(path, f"not a number: {quote(part)}", record=f"line {lineno}",
                             field=name)
        values.append(value)
    return values


def _header(line: str, metadata: dict[str, object]) -> None:
    match = _HEADER.match(line)
    if not match:
        return
    key, value = match.group(1), _header_value(match.group(2))
    if key in metadata:  # repeated keys (Note, Queue, Partition) are joined
        metadata[key] = f"{metadata[key]}\n{value}"
    else:
        metadata[key] = value


def _header_value(text: str) -> object:
    """A header value as a number when it is a plain finite one (``parsing`` rules), else
    the text as written: ``1e400``, ``nan`` or ``1_000`` are kept, not turned into another
    value."""
    number = parse_number(text)
    return number if number is not None and math.isfinite(number) else text


def _check_table(table: np.ndarray, lines: np.ndarray, path: Path) -> None:
    """Reject non-finite numbers, values out of range (before any conversion to integers),
    fractional integer fields, negative submits, repeated ids."""
    def fail(mask: np.ndarray, problem: str, column: int | None = None) -> None:
        bad = np.flatnonzero(mask.any(axis=1) if mask.ndim == 2 else mask)
        if bad.size:
            row = int(bad[0])
            col = column if column is not None else int(np.flatnonzero(mask[row])[0])
            raise InputError(path, problem.format(value=_show(table[row, col])),
                             record=f"line {lines[row]}", field=FIELDS[col])

    fail(~np.isfinite(table), "not a finite number: {value}")
    for name, limit in MAGNITUDES.items():
        fail(np.abs(table[:, COL[name]]) > limit,
             f"{{value}} is out of range (at most {limit:g} in magnitude)", COL[name])
    for name in INTEGER_FIELDS:
        column = table[:, COL[name]]
        fail(column != np.round(column), "must be a whole number, got {value}", COL[name])
    fail(table[:, COL["submit_time"]] < 0, "negative submit time {value}", COL["submit_time"])
    for name in ("submit_time", "run_time", "requested_time"):
        column = np.abs(table[:, COL[name]])
        fail((column > 0) & (column < MIN_NONZERO),
             f"must be 0 or at least {MIN_NONZERO:g} in magnitude, got {{value}}", COL[name])
    _check_unique_ids(table[:, COL["job_number"]], lines, path)


def _check_unique_ids(ids: np.ndarray, lines: np.ndarray, path: Path) -> None:
    if np.unique(ids).size == ids.size:
        return
    first: dict[float, int] = {}
    for row, value in enumerate(ids.tolist()):
        if value in first:
            raise InputError(path, f"duplicate job number {_show(value)} (first on line "
                                   f"{lines[first[value]]})",
                             record=f"line {lines[row]}", field="job_number")
        first[value] = row


def _show(value: float) -> str:
    """Whole numbers without ``.0`` (as the trace writes them), huge ones as ``1e+21``."""
    if np.isfinite(value) and value == int(value) and abs(value) < 1e16:
        return str(int(value))
    return f"{value:g}" if np.isfinite(value) else str(value)


def _to_workload(name: str, path: Path, platform: Platform, options: SwfOptions,
                 metadata: dict[str, object], lines: np.ndarray, t: np.ndarray,
                 checked: bool) -> Workload:
    """The jobs of the table ``t``; ``checked``: the table passed :func:`_check_table`, so
    that the workload need not check its jobs again."""
    ids = t[:, COL["job_number"]].astype(np.int64)
    run = t[:, COL["run_time"]]
    procs = np.where(t[:, COL["allocated_processors"]] > 0, t[:, COL["allocated_processors"]],
                     t[:, COL["requested_processors"]]).astype(np.int64)
    ok, skipped = _simulable(path, lines, ids, run, procs, options.strict)

    slowest = platform.slowest_speed
    reference = options.reference_speed or slowest
    requested = t[:, COL["requested_time"]]
    estimate = np.where(requested > 0, requested, run * options.estimate_factor)
    req_time = on_slowest(estimate, reference, slowest)
    req_ops = work(run, 1.0, reference)  # SWF has no ipc
    mem_kb = np.where(t[:, COL["requested_memory"]] > 0, t[:, COL["requested_memory"]],
                      np.maximum(t[:, COL["used_memory"]], 0))
    nodes = _placement(procs, platform, options.placement)
    submit = t[:, COL["submit_time"]]

    # in submission order (the Workload's, a stable sort), each job made with its place, so
    # that the Workload need not copy it to set its index
    rows = np.flatnonzero(ok)[np.argsort(submit[ok], kind="stable")]
    columns = {"id": ids[rows], "submit": submit[rows], "ntasks": procs[rows],
               "req_ops": req_ops[rows], "req_time": req_time[rows], "nodes": nodes[rows],
               "job_memory_mb": procs[rows] * (mem_kb[rows] / 1024),
               **{f: t[rows, COL[c]].astype(np.int64)
                  for f, c in (("queue", "queue"), ("partition", "partition"),
                               ("user", "user_id"))}}
    walltime = requested[rows] > 0
    jobs: list[Job] = []
    with collector_paused():
        for begin in range(0, rows.size, _BLOCK):  # a block's Python numbers at a time
            block = slice(begin, begin + _BLOCK)
            jobs.extend(_jobs(begin, {name: c[block] for name, c in columns.items()},
                              walltime[block]))
        if not checked:  # a generator's table: the workload's own checks
            return Workload(name, tuple(jobs), str(path), tuple(skipped), metadata)
        # sorted above, indexed, ids unique and every number checked in the table
        workload = Workload.of_checked(name, tuple(jobs), str(path), tuple(skipped), metadata)
    workload.keep_columns(_kept_columns(columns))
    return workload


def _kept_columns(columns: dict[str, np.ndarray]) -> dict[tuple[str, type], np.ndarray]:
    """The columns of the jobs that a run's records and files read more than once
    (:meth:`Workload.column`), as the jobs hold them: from the reader's, not read back from
    a million jobs; a column of one value (a trace's queue or user, and what every SWF job
    has) as a view of it per job, which takes no memory."""
    count = len(columns["submit"])
    return {**{(name, float): columns[name] for name in ("submit", "req_time")},
            **{(name, np.int64): _one_value(columns[name])
               for name in ("ntasks", "queue", "user")},
            ("ipc", float): np.broadcast_to(_CONSTANT["ipc"], count),
            ("fixed_duration", bool): np.broadcast_to(_CONSTANT["fixed_duration"], count),
            ("etc", bool): np.broadcast_to(bool(_CONSTANT["etc"]), count)}


def _one_value(column: np.ndarray) -> np.ndarray:
    """An integer ``column``, or a view of its one value per row if it has only one."""
    if column.size > 1 and column.min() == column.max():
        return np.broadcast_to(column[0], column.size)
    return column


#: Jobs made at once from the table's columns.
_BLOCK = 1 << 15
#: What every SWF job has, and the fields' defaults: the rest of a job's arguments.
_CONSTANT = {**{spec.name: spec.default for spec in fields(Job) if spec.default is not MISSING},
             "profile": "swf"}


def _jobs(first: int, columns: dict[str, np.ndarray], walltime: np.ndarray) -> list[Job]:
    """The jobs of a block of columns, the first at index ``first``, made by a map over
    the columns (no Python code per job but ``Job``'s own). A walltime (the user's limit,
    when the trace gives a requested time) is the same float as ``req_time``, a memory of
    0 one float for all, not one each."""
    given: dict[str, object] = {name: c.tolist() for name, c in columns.items()}
    given["id"] = list(map(str, given["id"]))
    req_time = np.array(given["req_time"], object)  # the same float objects
    req_time[~walltime] = None
    given["walltime"] = req_time.tolist()
    memory = np.array(given["job_memory_mb"], object)
    memory[columns["job_memory_mb"] == 0] = 0.0
    given["job_memory_mb"] = memory.tolist()
    given["index"] = range(first, first + len(given["id"]))
    args = [given[spec.name] if spec.name in given else repeat(_CONSTANT[spec.name])
            for spec in fields(Job)]
    return list(map(Job, *args))


def _simulable(path: Path, lines: np.ndarray, ids: np.ndarray, run: np.ndarray,
               procs: np.ndarray, strict: bool) -> tuple[np.ndarray, list[SkippedRecord]]:
    """Mask of the records that can be simulated, and the others (unknown run time or
    processor count) as skipped records, or an InputError for the first one if ``strict``."""
    negative = (run < 0) & (run != -1)
    if negative.any():
        row = int(np.flatnonzero(negative)[0])
        raise InputError(path, f"negative run time {_show(run[row])} (only -1, unknown, is "
                               "allowed)", record=f"line {lines[row]}", field="run_time")
    unusable = (run == -1) | (procs <= 0)
    out = []
    for row in np.flatnonzero(unusable).tolist():
        if run[row] == -1:
            reason, field = "run time unknown (-1)", "run_time"
        else:
            reason, field = ("no processor count (allocated_processors and "
                             "requested_processors <= 0)", "allocated_processors")
        if strict:
            raise InputError(path, f"cannot be simulated: {reason}",
                             record=f"line {lines[row]}", field=field)
        out.append(SkippedRecord(int(lines[row]), str(ids[row]), reason))
    return ~unusable, out


def _placement(procs: np.ndarray, platform: Platform, placement: str) -> np.ndarray:
    if placement == "single":
        return np.ones_like(procs)
    if placement == "spread":
        return np.full_like(procs, SPREAD)
    return np.where(procs <= platform.max_node_cores, 1, SPREAD)
