"""``jobs.csv``: one row per job, Batsim's columns first (in Batsim's order), then ours.

Rows follow job submission order. Batsim's time and energy columns hold ``-1`` where a job
that did not finish has no value (evalys reads ``execution_time == -1`` as "did not run to its
end"): no start or wait before a job started, no execution, finish, turnaround, stretch or
energy before it finished. ``consumed_energy`` is ``-1`` for every job when the run has no
energy (no power model), as Batsim writes it without its energy plugin. Other values that do
not exist (the stretch of a zero-length job, hetsched's slowdowns of a job that did not finish)
are empty cells, never ``NaN``. Floats are written with ``repr`` (shortest text that reads back
to the same float), so the file is byte-identical for the same inputs and seed.

``allocated_resources`` lists global core ids (node ``n`` owns
``[offset_n, offset_n + cores_n)``), assigned by :mod:`hetsched.output.core_ids` so that no core
is held by two jobs at once.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from hetsched.metrics import job_records
from hetsched.output.core_ids import core_ranges
from hetsched.platform.model import Platform
from hetsched.sim.result import JobState, SimResult

BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
)
EXTRA_COLUMNS = ("node", "node_type", "bounded_slowdown", "het_slowdown")
COLUMNS = BATSIM_COLUMNS + EXTRA_COLUMNS

FINAL_STATE = {
    JobState.FINISHED: "COMPLETED_SUCCESSFULLY",
    JobState.REJECTED: "REJECTED",
    JobState.UNFINISHED: "UNFINISHED",
}

Allocation = tuple[tuple[int, int], ...]


def fmt_float(value: float) -> str:
    """``repr`` of a float; empty for NaN (a value that does not exist)."""
    return "" if math.isnan(value) else repr(float(value))


def float_cells(column: np.ndarray) -> list[str]:
    """:func:`fmt_float` of every element (vectorised for speed)."""
    return [repr(x) if x == x else "" for x in column.astype(float).tolist()]


#: Batsim's cell for a time or energy a job does not have (it did not start, or not finish).
NO_VALUE = "-1"


def known_cells(column: np.ndarray, exists: np.ndarray) -> list[str]:
    """:func:`float_cells` where ``exists``, else :data:`NO_VALUE`."""
    return [cell if ok else NO_VALUE for cell, ok in zip(float_cells(column), exists.tolist())]


def format_ranges(ranges: Iterable[tuple[int, int]]) -> str:
    """Half-open integer ranges ``[a, b)`` as sorted, merged, space-separated closed intervals:
    ``[(8, 9), (0, 4)]`` -> ``0-3 8``."""
    merged: list[list[int]] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return " ".join(str(a) if b == a + 1 else f"{a}-{b - 1}" for a, b in merged)


class _NodeCells:
    """The node-name and node-type cells of a row, memoised per distinct allocation."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.cache: dict[Allocation, tuple[str, str]] = {}

    def __call__(self, allocation: Allocation | None) -> tuple[str, str]:
        if allocation is None:
            return "", ""
        cells = self.cache.get(allocation)
        if cells is None:
            nodes = [self.platform.nodes[node] for node, _ in allocation]
            cells = (" ".join(n.name for n in nodes), " ".join(n.type.name for n in nodes))
            self.cache[allocation] = cells
        return cells


def job_rows(result: SimResult) -> Iterator[list[str]]:
    """The data rows of ``jobs.csv``, in job submission order."""
    rec = job_records(result)
    done, started = rec.finished, ~np.isnan(rec.start)
    energy = result.job_energy_j if result.job_energy_j is not None else np.zeros(len(done))
    measured = done & result.has_energy
    columns = [float_cells(rec.submit), known_cells(rec.start, started),
               *(known_cells(c, done) for c in (rec.run, rec.end)),
               known_cells(rec.wait, started), known_cells(rec.response, done),
               known_cells(rec.slowdown, done), known_cells(energy, measured),
               float_cells(rec.bounded_slowdown), float_cells(rec.het_slowdown)]
    cells = _NodeCells(result.platform)
    name = result.workload.name
    rows = zip(result.workload.jobs, result.state.tolist(), result.allocation,
               core_ranges(result), *columns)
    for job, state, allocation, ranges, submit, start, run, end, wait, response, stretch, \
            joules, bounded, het in rows:
        nodes, types = cells(allocation)
        resources = format_ranges(ranges or ())
        yield [job.id, name, job.profile, submit, str(job.ntasks), fmt_float(job.req_time),
               "1" if state == JobState.FINISHED else "0", FINAL_STATE[state], start, run, end,
               wait, response, stretch, resources, joules, result.reason.get(job.index, ""),
               nodes, types, bounded, het]


def write_jobs_csv(result: SimResult, path: str | Path) -> Path:
    """Write ``jobs.csv`` for ``result`` to ``path`` (``\\n`` line ends, minimal quoting)."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(job_rows(result))
    return path
