"""``summary.json`` (metrics and their units, inputs' hashes, version, seed, per-node totals,
the platform's reservations, the run's node failures, every job not finished and why) and
``timeseries.csv`` (queue length, running jobs, busy cores, power)."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from hetsched.version import __version__
from hetsched.errors import ConfigError
from hetsched.metrics import UNITS, JobRecords, summarize
from hetsched.output.core_ids import attempt_ranges, killed_attempts
from hetsched.output.jobs_csv import (TEXT_BLOCK, csv_block, csv_matrix, float_cells,
                                      fmt_float, format_ranges, write_text)
from hetsched.sim.result import JobState, SimResult, TimeSeries


def jsonable(value: Any) -> Any:
    """``value`` with NaN/inf floats as ``None`` (JSON ``null``) and numpy scalars as Python."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_entry(source: str) -> dict[str, str | None]:
    """``{"path", "sha256"}`` of an input file; both ``None`` for in-memory inputs."""
    path = Path(source)
    if not path.is_file():
        return {"path": None, "sha256": None}
    return {"path": source, "sha256": file_sha256(path)}


def node_totals(result: SimResult) -> list[dict[str, Any]]:
    """Per node: its cores and slots (cores × oversubscription: the core ids ``jobs.csv``
    numbers), energy (``None`` when not measured), busy, idle and busy-core time."""
    window = result.t_end - result.t0
    energy = result.node_energy_j
    return [{"name": node.name, "type": node.type.name, "cores": node.type.cores,
             "slots": node.type.slots,
             "energy_j": float(energy[i]) if energy is not None else None,
             "busy_seconds": float(result.node_busy_seconds[i]),
             "idle_seconds": window - float(result.node_busy_seconds[i]),
             "busy_core_seconds": float(result.node_busy_core_seconds[i])}
            for i, node in enumerate(result.platform.nodes)]


def reservation_entries(result: SimResult) -> list[dict[str, Any]]:
    """The platform's reservations (a native file's ``downtime`` among them) as a native file
    gives them: node name, start, end (``inf`` for good: ``null`` in JSON), cores held."""
    nodes = result.platform.nodes
    return [{"node": nodes[r.node].name, "start": r.start, "end": r.end, "cores": r.cores}
            for r in result.platform.reservations]


def failure_entries(result: SimResult) -> list[dict[str, Any]]:
    """The run's node failures as a native file gives them: node name, start, end (``inf``,
    never repaired: ``null`` in JSON)."""
    nodes = result.platform.nodes
    return [{"node": nodes[f.node].name, "start": f.start, "end": f.end}
            for f in result.failures]


def requeued_attempt_entries(result: SimResult) -> list[dict[str, Any]]:
    """Each attempt a failure killed and requeued (``on_failure="requeue"``; ``jobs.csv``
    has a job's last): the job, which attempt (1: its first), its start, its kill time and
    the core ids it held (``jobs.csv``'s ``allocated_resources`` text, from the same replay:
    no id held by two at once)."""
    attempts = killed_attempts(result)
    if not attempts:
        return []
    jobs, number = result.workload.jobs, {}
    entries = []
    for (index, (start, end, _)), ranges in zip(attempts, attempt_ranges(result)):
        number[index] = number.get(index, 0) + 1
        entries.append({"job_id": jobs[index].id, "attempt": number[index], "start": start,
                        "end": end, "allocated_resources": format_ranges(ranges)})
    return entries


def jobs_in_state(result: SimResult, state: JobState) -> list[dict[str, str]]:
    """The jobs that ended in ``state`` (:meth:`~hetsched.sim.result.SimResult.ended_in`),
    with their reasons."""
    return _entries(result, result.ended_in(state))


def not_submitted_jobs(result: SimResult) -> list[dict[str, str]]:
    return _entries(result, result.not_submitted)


def _entries(result: SimResult, chosen: np.ndarray) -> list[dict[str, str]]:
    jobs = result.workload.jobs
    return [{"job_id": jobs[i].id, "reason": result.reason.get(i, "")}
            for i in chosen.nonzero()[0].tolist()]


def summary(result: SimResult, options: Mapping[str, Any] | None = None,
            records: JobRecords | None = None) -> dict[str, Any]:
    """Everything ``summary.json`` holds, as plain JSON-ready values (``records``: the run's
    job records, if already computed)."""
    return jsonable({
        "hetsched_version": __version__,
        "scheduler": result.scheduler,
        "seed": result.seed,
        "inputs": {"platform": input_entry(result.platform.source),
                   "workload": input_entry(result.workload.source)},
        "options": {**(options or {}), "contention": result.contention},
        "metrics": summarize(result, records),
        "makespan_cut": result.makespan_cut,
        "units": UNITS,
        "nodes": node_totals(result),
        "reservations": reservation_entries(result),
        "failures": failure_entries(result),
        "rejected": jobs_in_state(result, JobState.REJECTED),
        "unfinished": jobs_in_state(result, JobState.UNFINISHED),
        "not_submitted": not_submitted_jobs(result),
        "killed": jobs_in_state(result, JobState.KILLED),
        "failed_kills": jobs_in_state(result, JobState.FAILED),
        "requeued_attempts": requeued_attempt_entries(result),
        "skipped_records": [{"line": s.line, "job_id": s.job_id, "reason": s.reason}
                            for s in result.workload.skipped],
        "wall_seconds": result.wall_seconds,
    })


def write_summary_json(result: SimResult, path: str | Path,
                       options: Mapping[str, Any] | None = None,
                       records: JobRecords | None = None) -> Path:
    path = Path(path)
    text = json.dumps(summary(result, options, records), indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def timeseries_columns(result: SimResult) -> dict[str, list[float] | list[int]]:
    """The columns of ``timeseries.csv``; ``power_w`` is NaN when the run has no energy (no
    power model)."""
    columns: dict[str, list] = {name: [] for name in TimeSeries.FIELDS}
    for block in timeseries_blocks(result):
        for name, values in zip(TimeSeries.FIELDS, block):
            columns[name].extend(values)
    return columns


def timeseries_blocks(result: SimResult, arrays: bool = False) -> Iterator[list]:
    """The columns of ``timeseries.csv``, a block of rows at a time (lists; with ``arrays``,
    a full block's numpy columns); ``power_w`` is NaN when the run has no energy (no power
    model)."""
    ts = result.timeseries
    if ts is None:
        raise ConfigError("this run has no time series: it was simulated with "
                          "timeseries=False")
    for block in (ts.column_blocks() if arrays else ts.blocks()):
        block = list(block)
        if not result.has_energy:
            block[-1] = [math.nan] * len(block[-1])
        yield block


def write_timeseries_csv(result: SimResult, path: str | Path) -> Path:
    """One row per instant at which something happened (state after the scheduler answered);
    ``power_w`` is empty when the run has no energy (no power model). Written
    :data:`~hetsched.output.jobs_csv.TEXT_BLOCK` rows at a time: a million-job run's two
    million rows are never all text at once."""
    blocks = map(_series_text, joined_blocks(timeseries_blocks(result, arrays=True), TEXT_BLOCK))
    return write_text(Path(path), TimeSeries.FIELDS, blocks)


def _series_text(block: list) -> bytes:
    """A block of the series' rows as text: by numpy where each column is of floats or of
    integers (:func:`~hetsched.output.jobs_csv.csv_matrix`), else cell by cell."""
    typed = [_numbers(column) for column in block]
    return csv_block([None if column is None else csv_matrix(column) for column in typed],
                     lambda: [_cells(column) for column in block])


def _numbers(values: list | np.ndarray) -> np.ndarray | None:
    """A column as numpy's floats or integers when each value is a float, or each an int
    (of int64's range); ``None`` for any other."""
    if type(values) is np.ndarray:
        return values
    kinds = set(map(type, values))
    if kinds <= {float}:
        return np.array(values, float)
    if values and kinds <= {int} and -2**63 < min(values) and max(values) < 2**63:
        return np.array(values, np.int64)
    return None


def joined_blocks(blocks: Iterable[list], size: int) -> Iterator[list]:
    """``blocks`` of columns joined into blocks of at least ``size`` rows (the last may be
    shorter): the series keeps its rows in small blocks, text is made quicker in big ones."""
    parts: list[list] = []
    rows = 0
    for block in blocks:
        parts.append(block)
        rows += len(block[0])
        if rows >= size:
            yield _concatenated(parts)
            parts, rows = [], 0
    if parts:
        yield _concatenated(parts)


def _concatenated(parts: list[list]) -> list:
    """Each column of the blocks ``parts`` joined: by numpy where every block's is numpy's,
    else as a list of Python values."""
    joined: list = []
    for columns in zip(*parts):
        if all(type(column) is np.ndarray for column in columns):
            joined.append(np.concatenate(columns))
        else:
            joined.append([value for column in columns for value in
                           (column.tolist() if type(column) is np.ndarray else column)])
    return joined


def _cells(values: list[object] | np.ndarray) -> list[str]:
    """:func:`_cell` of each value; a column of numbers (:func:`_numbers`: floats by
    :func:`~hetsched.output.jobs_csv.float_cells`) without a call per value."""
    numbers = _numbers(values)
    if numbers is None:
        return list(map(_cell, values))
    if numbers.dtype.kind == "f":
        return float_cells(numbers)
    return list(map(str, numbers.tolist()))


def _cell(value: object) -> str:
    return fmt_float(value) if isinstance(value, float) else str(value)


def write_rows(rows: Sequence[Mapping[str, object]], stream: TextIO) -> None:
    """One CSV row per mapping; columns: every key, in first-seen order (NaN: empty cell)."""
    keys = list(dict.fromkeys(key for row in rows for key in row))
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(keys)
    for row in rows:
        writer.writerow([_cell(row.get(k, math.nan)) for k in keys])


def write_rows_csv(rows: Sequence[Mapping[str, object]], path: str | Path) -> Path:
    """:func:`write_rows` into the file ``path``."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        write_rows(rows, f)
    return path


def write_comparison_csv(runs: Mapping[str, Mapping[str, float | int]],
                         path: str | Path) -> Path:
    """One row per scheduler: its name, then each of its metrics (NaN as an empty cell)."""
    return write_rows_csv([{"scheduler": name, **values} for name, values in runs.items()], path)
