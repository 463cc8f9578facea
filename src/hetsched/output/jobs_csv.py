"""``jobs.csv``: one row per job, Batsim's columns first (in Batsim's order), then ours.

Rows follow job submission order. Batsim's time and energy columns hold ``-1`` where a job
that did not finish has no value (evalys reads ``execution_time == -1`` as "did not run to its
end"): no start or wait before a job started, no execution, finish, turnaround, stretch or
energy before it finished. ``consumed_energy`` is ``-1`` for every job when the run has no
energy (no power model), as Batsim writes it without its energy plugin. Other values that do
not exist (the stretch of a zero-length job, hetsched's slowdowns of a job that did not
finish, every job's ``cost`` when no node has a price) are empty cells, never ``NaN``. Floats
are written with ``repr`` (shortest text that reads back to the same float), so the file is
byte-identical for the same inputs and seed.

With ``--on-failure requeue`` a job a failure killed runs again: its row is still one, the
start, end, times and allocation are its last attempt's (none for a job pending again when the
run ended), ``consumed_energy`` counts every attempt, ``attempts`` says how many times it was
started (0: never) and ``first_start`` when the first attempt began (its wait from submission
to first start is ``first_start − submission_time``).

``allocated_resources`` lists global core ids (node ``n`` owns
``[offset_n, offset_n + cores_n)``), assigned by :mod:`hetsched.output.core_ids` so that no core
is held by two jobs at once.
"""

from __future__ import annotations

import csv
import io
import math
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

import numpy as np

from hetsched.metrics import JobRecords, job_records
from hetsched.output.core_ids import id_ranges, job_replay, offsets
from hetsched.platform.model import Platform
from hetsched.sim.resources import Allocation
from hetsched.sim.result import JobState, SimResult
from hetsched.text_block import (ABSENT, Cells, float_matrix, float_parts, rows_text,
                                 text_matrix, whole_matrix)

BATSIM_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
)
EXTRA_COLUMNS = ("node", "node_type", "bounded_slowdown", "het_slowdown", "cost", "attempts",
                 "first_start", "user", "queue")
COLUMNS = BATSIM_COLUMNS + EXTRA_COLUMNS

FINAL_STATE = {
    JobState.FINISHED: "COMPLETED_SUCCESSFULLY",
    JobState.REJECTED: "REJECTED",
    JobState.UNFINISHED: "UNFINISHED",
    JobState.KILLED: "COMPLETED_WALLTIME_REACHED",
    JobState.FAILED: "COMPLETED_KILLED",
}

#: :data:`FINAL_STATE` by the state's number (what ``SimResult.state`` holds; empty for the
#: numbers of states a run never ends in).
_STATE_TEXTS = [FINAL_STATE.get(state, "") for state in  # type: ignore[call-overload]
                map(JobState, range(max(JobState) + 1))]


def fmt_float(value: float) -> str:
    """``repr`` of a float; empty for NaN (a value that does not exist)."""
    return "" if math.isnan(value) else repr(float(value))


def float_cells(column: np.ndarray, absent: np.ndarray | None = None) -> list[str]:
    """:func:`fmt_float` of every element (``NO_VALUE`` where ``absent``), by the rules of
    :func:`~hetsched.text_block.float_parts`: whole numbers by their integer's digits,
    any other value's ``repr`` made once."""
    values = column.astype(float)
    parts = float_parts(values, absent)
    if parts.whole.all():
        return list(map("%d.0".__mod__, values.astype(np.int64).tolist()))
    cells = np.empty(values.size, object)  # the str objects themselves, not numpy's strings
    cells[parts.whole] = np.fromiter(
        map("%d.0".__mod__, values[parts.whole].astype(np.int64).tolist()), object)
    if parts.absent is not None:
        cells[parts.absent] = NO_VALUE
    cells[parts.missing] = ""
    distinct, inverse = np.unique(values[parts.rest], return_inverse=True)
    cells[parts.rest] = np.fromiter(map(repr, distinct.tolist()), object)[inverse]
    return cells.tolist()


#: Batsim's cell for a time or energy a job does not have (it did not start, or not finish).
NO_VALUE = ABSENT.decode()


def format_ranges(ranges: Iterable[tuple[int, int]]) -> str:
    """Half-open integer ranges ``[a, b)`` as sorted, merged, space-separated closed intervals:
    ``[(8, 9), (0, 4)]`` -> ``0-3 8``. (procset's ``str(ProcSet(...))`` writes the same text
    but took 23 times as long on the KIT trace's 25,326 jobs: 3.1 s against 0.13 s.)"""
    merged: list[list[int]] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return " ".join(str(a) if b == a + 1 else f"{a}-{b - 1}" for a, b in merged)


@dataclass(frozen=True)
class Coded:
    """A column of few distinct texts: each row's text is ``texts[codes[row]]`` (so that
    each text is made, and turned into bytes, once)."""

    texts: list[str]
    codes: np.ndarray

    def cells(self) -> list[str]:
        return list(map(self.texts.__getitem__, self.codes.tolist()))

    def __getitem__(self, rows: slice) -> Coded:
        return Coded(self.texts, self.codes[rows])


#: A column of :func:`_columns`: numbers, texts, or texts by code.
Column = list[object] | np.ndarray | Coded


class _NodeCells:
    """The node-name and node-type cells of rows, made once per distinct allocation."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.code: dict[Allocation | None, int] = {None: 0}
        self.names, self.types = [""], [""]

    def __call__(self, allocations: list[Allocation | None]) -> tuple[Coded, Coded]:
        """The node and node-type cells of each of ``allocations`` (by a lookup in C per
        row: the engine shares one tuple among the one-node jobs of a node and count)."""
        for allocation in set(allocations).difference(self.code):
            nodes = [self.platform.nodes[node] for node, _ in allocation]
            self.code[allocation] = len(self.names)
            self.names.append(" ".join(n.name for n in nodes))
            self.types.append(" ".join(n.type.name for n in nodes))
        codes = np.fromiter(map(self.code.__getitem__, allocations), np.int64,
                            len(allocations))
        return Coded(self.names, codes), Coded(self.types, codes)


def job_columns(result: SimResult,
                records: JobRecords | None = None) -> dict[str, list[object] | np.ndarray]:
    """Every column of ``jobs.csv``, typed, one element per job in submission order: numbers as
    floats with NaN where a value does not exist (the Python API's ``jobs`` DataFrame).
    ``records``: the run's :func:`~hetsched.metrics.job_records`, if already computed. Each
    array is the caller's own (the writers read some straight from the workload, read-only)."""
    columns = _columns(result, records or job_records(result), _whole_columns(result),
                       slice(None))
    return {name: values.cells() if isinstance(values, Coded) else
            np.array(values) if isinstance(values, np.ndarray) and not values.flags.writeable
            else values for name, values in columns.items()}


def _whole_columns(result: SimResult) -> dict[str, Column]:
    """The columns made for the whole run at once (a replay, a walk of the requeued jobs or
    of the reasons), which :func:`_columns` slices."""
    return {"allocated_resources": _core_cells(result), "metadata": _reasons(result),
            "attempts": result.attempts, "first_start": result.first_start}


def _columns(result: SimResult, rec: JobRecords, whole: dict[str, Column],
             rows: slice) -> dict[str, Column]:
    """The columns of :func:`job_columns` for the jobs ``rows`` (a block of the file's, so
    that a million jobs' columns are never all in memory), ``whole``'s sliced."""
    jobs = result.workload.jobs[rows]
    ended = ~np.isnan(result.end[rows])  # finished or killed
    energy = (np.where(ended, result.job_energy_j[rows], np.nan) if result.has_energy
              else np.full(len(jobs), np.nan))
    names, types = _NodeCells(result.platform)(result.allocation[rows])
    return {
        "job_id": list(map(attrgetter("id"), jobs)),
        "workload_name": [result.workload.name] * len(jobs),
        "profile": list(map(attrgetter("profile"), jobs)), "submission_time": rec.submit[rows],
        "requested_number_of_resources": result.workload.column("ntasks", np.int64)[rows],
        "requested_time": result.workload.column("req_time")[rows],
        "success": rec.finished[rows].astype(np.int64),
        "final_state": Coded(_STATE_TEXTS, result.state[rows]),
        "starting_time": rec.start[rows], "execution_time": rec.run[rows],
        "finish_time": rec.end[rows], "waiting_time": rec.wait[rows],
        "turnaround_time": rec.response[rows], "stretch": rec.slowdown[rows],
        "allocated_resources": whole["allocated_resources"][rows],
        "consumed_energy": energy,
        "metadata": whole["metadata"][rows],
        "node": names, "node_type": types,
        "bounded_slowdown": rec.bounded_slowdown[rows], "het_slowdown": rec.het_slowdown[rows],
        "cost": rec.cost[rows], "attempts": whole["attempts"][rows],
        "first_start": whole["first_start"][rows],
        "user": result.workload.column("user", np.int64)[rows],
        "queue": result.workload.column("queue", np.int64)[rows],
    }


def _core_cells(result: SimResult) -> Coded:
    """Each job's ``allocated_resources`` cell (empty if it never started), formatted as the
    replay gives its cores (:func:`~hetsched.output.core_ids.replay`)."""
    texts, codes = [""], array("q", bytes(8 * len(result.allocation)))  # 0: ""
    first = offsets(result)
    one: dict[tuple[int, int], int] = {}  # a one-node cell's code: made once, jobs share it
    allocations = result.allocation
    for index, held in job_replay(result):
        allocation = allocations[index]
        assert allocation is not None
        if len(held) == 1:
            node = allocation[0][0]
            code = one.get((node, held[0]))
            if code is None:
                code = one[node, held[0]] = len(texts)
                texts.append(format_ranges(id_ranges(allocation, held, first)))
        else:
            code = len(texts)
            texts.append(format_ranges(id_ranges(allocation, held, first)))
        codes[index] = code
    return Coded(texts, np.frombuffer(codes, np.int64))


def _reasons(result: SimResult) -> list[str]:
    """Each job's reason (empty where it has none): a job's index is its position."""
    cells = [""] * len(result.workload.jobs)
    for index, reason in result.reason.items():
        cells[index] = reason
    return cells


def _batsim_absent(columns: dict[str, Column],
                   has_energy: bool) -> dict[str, np.ndarray]:
    """Per Batsim time/energy column, the jobs that have no such value (written ``-1``): no
    start or wait before a job started, nothing else before it finished, no energy without a
    power model."""
    not_started = np.isnan(columns["starting_time"])
    not_done = np.isnan(np.asarray(columns["finish_time"], float))  # killed jobs ended
    after_end = dict.fromkeys(("execution_time", "finish_time", "turnaround_time", "stretch"),
                              not_done)
    return {"starting_time": not_started, "waiting_time": not_started, **after_end,
            "consumed_energy": not_done | (not has_energy)}


#: Rows formatted at once: a block's text is in memory, never the whole file's.
BLOCK = 1 << 13
#: Rows whose text numpy makes at once (:mod:`~hetsched.text_block`): its cost per
#: call is paid per column and block, its memory ~0.3 KB a row.
TEXT_BLOCK = 1 << 15


def job_cell_blocks(result: SimResult, records: JobRecords | None = None,
                    size: int = BLOCK) -> Iterator[list[list[str]]]:
    """The cells of ``jobs.csv``'s data rows as the csv module would write them before
    quoting, ``size`` rows at a time, column by column (the order of :data:`COLUMNS`)."""
    for columns, absent in column_blocks(result, records, size):
        yield _cell_columns(columns, absent)


def _cell_columns(columns: dict[str, Column], absent: dict[str, np.ndarray]
                  ) -> list[list[str]]:
    """Each column's cells (:func:`_cells`), in the order of :data:`COLUMNS`."""
    return [_cells(columns[name], absent.get(name)) for name in COLUMNS]


def column_blocks(result: SimResult, records: JobRecords | None,
                   size: int) -> Iterator[tuple[dict[str, Column],
                                                dict[str, np.ndarray]]]:
    """The typed columns of ``jobs.csv``'s rows ``size`` at a time, and where each Batsim
    time or energy column has no value (:func:`_batsim_absent`); one block of no rows for a
    run without jobs (its columns' types)."""
    rec, whole = records or job_records(result), _whole_columns(result)
    for begin in range(0, max(len(result.workload.jobs), 1), size):
        columns = _columns(result, rec, whole, slice(begin, begin + size))
        yield columns, _batsim_absent(columns, result.has_energy)


def _text_blocks(result: SimResult, records: JobRecords | None) -> Iterator[bytes]:
    """The text of ``jobs.csv``'s data rows, a block at a time: made by numpy
    (:mod:`~hetsched.text_block`), or cell by cell where a text cell is not ASCII."""
    for columns, absent in column_blocks(result, records, TEXT_BLOCK):
        yield csv_block([csv_matrix(columns[name], absent.get(name)) for name in COLUMNS],
                        lambda: _cell_columns(columns, absent))


def csv_block(matrices: list[Cells | None], cells: Callable[[], list[list[str]]]) -> bytes:
    """A block's CSV text: numpy's (:func:`~hetsched.text_block.rows_text`) where every
    column has a byte matrix, else :func:`cells_text` of its cells (``cells()``, made only
    then)."""
    if all(matrix is not None for matrix in matrices):
        return rows_text(matrices, b",")  # type: ignore[arg-type]
    return cells_text(cells()).encode()


def csv_matrix(values: list[str] | np.ndarray | Coded,
               absent: np.ndarray | None = None) -> Cells | None:
    """A column's cells as :func:`_cells` makes them and the csv module quotes them, as a
    byte matrix (:mod:`~hetsched.text_block`); ``None`` for text that is not ASCII,
    or a numpy column neither of floats nor of integers."""
    if isinstance(values, Coded):
        texts = text_matrix(quoted_cells(values.texts))
        return None if texts is None else texts[values.codes]
    if not isinstance(values, np.ndarray):
        return text_matrix(quoted_cells(values))
    if values.dtype.kind == "f":
        return float_matrix(values, absent)
    if values.dtype.kind == "i" or (values.dtype.kind == "u" and
                                    (not values.size or values.max() < 2**63)):
        return whole_matrix(values)
    return None


def _cells(values: list[object] | np.ndarray | Coded, absent: np.ndarray | None) -> list[str]:
    """A column's cells: floats by :func:`float_cells` (``-1`` where ``absent``), anything
    else by ``str`` (a numpy column of one value's once)."""
    if isinstance(values, Coded):
        return values.cells()
    if not isinstance(values, np.ndarray):
        return list(map(str, values))
    if values.dtype.kind == "f":
        return float_cells(values, absent)
    if values.size and (values == values[0]).all():  # one value (a trace's user or queue)
        return [str(values[0].item())] * values.size
    return list(map(str, values.tolist()))


def job_rows(result: SimResult) -> Iterator[list[str]]:
    """The data rows of ``jobs.csv``, in job submission order."""
    return (list(row) for block in job_cell_blocks(result) for row in zip(*block))


#: What makes the csv module quote a cell (its delimiter, quote character, line breaks).
_QUOTED = frozenset(',"\r\n')


def quoted_cells(cells: list[str]) -> list[str]:
    """``cells`` as the csv module writes them in a row (minimal quoting): the few that need
    quotes through the module itself, the others as they are (the same list if none does)."""
    text = "".join(cells)
    if not any(char in text for char in _QUOTED):  # a search per character: quicker
        return cells
    return [_quoted(cell) if not _QUOTED.isdisjoint(cell) else cell for cell in cells]


def _quoted(cell: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([cell])
    return out.getvalue()[:-1]


def write_text(path: Path, header: Iterable[str], blocks: Iterable[bytes]) -> Path:
    """A CSV file: its header (quoted as the csv module quotes) and its rows' text, a block
    at a time."""
    with path.open("wb") as f:
        f.write((",".join(quoted_cells(list(header))) + "\n").encode())
        for text in blocks:
            f.write(text)
    return path


def cells_text(columns: list[list[str]]) -> str:
    """A block's rows as CSV text, its cells quoted only if one needs it. A text with no
    quote or carriage return and exactly a block's separators and line breaks has no cell
    that holds one: four passes of C over the block's text, not a join per column."""
    text = "\n".join(map(",".join, zip(*columns))) + "\n"
    rows = len(columns[0])
    if ('"' in text or "\r" in text or text.count("\n") != rows
            or text.count(",") != rows * (len(columns) - 1)):
        cells = [quoted_cells(column) for column in columns]
        text = "\n".join(map(",".join, zip(*cells))) + "\n"
    return text


def write_jobs_csv(result: SimResult, path: str | Path,
                   records: JobRecords | None = None) -> Path:
    """Write ``jobs.csv`` for ``result`` to ``path`` (``\\n`` line ends, minimal quoting);
    ``records``: the run's job records, if already computed."""
    return write_text(Path(path), COLUMNS, _text_blocks(result, records))
