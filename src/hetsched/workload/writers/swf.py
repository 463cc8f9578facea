"""Writing the Standard Workload Format: 18 integer fields per line, ``; Key: value`` header.

SWF's fields are whole numbers (seconds, processors, KB), so every value is rounded to the
nearest integer (``-1``, unknown, stays ``-1``); the Parallel Workloads Archive's tools read
the result. A workload written from jobs gives each job's run time on the reference machine,
``req_ops / reference_speed`` (default: the platform's slowest core, the SWF reader's rule, so
reading the file back on the same platform gives the same jobs up to the rounding).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from hetsched.limits import MAX_JOB_NUMBER
from hetsched.models.speed import run_time
from hetsched.platform.model import Platform
from hetsched.text_block import rows_text, whole_matrix
from hetsched.workload.writers import Writer, loss_rules as lost, unwritable
from hetsched.workload.model import SPREAD, Job, Workload
from hetsched.workload.swf import COL, FIELDS, MAGNITUDES


def header_lines(header: Mapping[str, object]) -> list[str]:
    """``; Key: value`` lines; a value with line breaks becomes one line per part, ``None``
    none (a key left out)."""
    return [f"; {key}: {part}" for key, value in header.items() if value is not None
            for part in str(value).splitlines() or [""]]


def write_table(table: np.ndarray, path: Path, header: Mapping[str, object]) -> Path:
    """Write an SWF table (one row per job, the columns of ``FIELDS``) with ``header``."""
    if table.ndim != 2 or table.shape[1] != len(FIELDS):
        raise ValueError(f"an SWF table has {len(FIELDS)} columns, got shape {table.shape}")
    return write_blocks((table[begin:begin + BLOCK] for begin in range(0, len(table), BLOCK)),
                        path, header)


def write_blocks(blocks: Iterable[np.ndarray], path: Path, header: Mapping[str, object]) -> Path:
    """Write an SWF table given a block of rows at a time (a million jobs' table need never
    be whole in memory) with ``header``."""
    with path.open("w", encoding="utf-8") as f:
        f.write("\n".join(header_lines({"Version": 2.2, **header})) + "\n")
        for block in blocks:  # a block's numbers and text at a time
            f.write(_rows_text(np.where(block == -1, -1, np.rint(block))))
    return path


def _rows_text(block: np.ndarray) -> str:
    """A block of whole numbers as SWF lines, made by numpy (:mod:`~hetsched.text_block`);
    column by column beyond int64 (a run time of 1e20 s)."""
    if not block.size:
        return ""
    if np.abs(block).max() >= 2**63:
        return "\n".join(map(" ".join, zip(*map(_cells, block.T)))) + "\n"
    numbers = block.astype(np.int64)
    return rows_text([whole_matrix(column) for column in numbers.T], b" ").decode()


#: Rows written at once.
BLOCK = 1 << 15


def _cells(column: np.ndarray) -> list[str]:
    """A column of whole numbers as text, column by column (a column of one value, as most
    of a run's are, without converting each row)."""
    if column.size > 1 and np.all(column == column[0]):
        return _cells(column[:1]) * column.size
    if np.abs(column).max(initial=0) < 2**63:
        return list(map(str, column.astype(np.int64).tolist()))
    return [str(int(v)) for v in column.tolist()]  # beyond int64 (a run time of 1e20 s)


def workload_table(workload: Workload, reference_speed: float) -> np.ndarray:
    """The SWF table of ``workload``'s jobs; run times on a core of ``reference_speed``."""
    jobs = workload.jobs
    table = job_table(workload)
    table[:, COL["run_time"]] = [run_time(j, reference_speed) for j in jobs]
    table[:, COL["allocated_processors"]] = table[:, COL["requested_processors"]]
    table[:, COL["status"]] = 1
    return table


def job_table(workload: Workload, rows: slice = slice(None),
              numbers: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """An SWF table of what ``workload``'s jobs ask for (number, submit time, processors,
    requested time and memory per processor, user, queue and partition); every other field unknown
    (-1). Job numbers are
    the ids when every id is a whole number, else positions from 1. ``rows``: only those
    jobs' rows (``numbers``: every job's number, if already known)."""
    if numbers is None:
        numbers = job_numbers([j.id for j in workload.jobs])
    table = np.full((len(workload.jobs[rows]), len(FIELDS)), -1.0)
    table[:, COL["job_number"]] = numbers[rows]
    for column, name, kind in (("submit_time", "submit", float),
                               ("requested_processors", "ntasks", np.int64),
                               ("requested_time", "req_time", float),
                               ("queue", "queue", np.int64), ("partition", "partition", np.int64),
                               ("user_id", "user", np.int64)):
        table[:, COL[column]] = workload.column(name, kind)[rows]
    memory = workload.column("job_memory_mb")[rows]  # per processor, in KB
    table[:, COL["requested_memory"]] = np.where(
        memory != 0, memory / table[:, COL["requested_processors"]] * 1024, -1)
    return table


def job_numbers(ids: list[str]) -> list[int]:
    """The ids as SWF job numbers if they all are distinct whole numbers written plainly
    (``"12"``, not ``"012"``), else the positions 1, 2, …"""
    numbers = plain_numbers(ids)
    if numbers is not None and len(set(numbers)) == len(numbers):
        return numbers
    return list(range(1, len(ids) + 1))


def is_job_number(text: str, limit: int = MAX_JOB_NUMBER) -> bool:
    """Whether an id is a whole number written plainly, at most ``limit`` (SWF's job
    numbers')."""
    return plain_numbers([text], limit) is not None


def plain_numbers(texts: list[str], limit: int = MAX_JOB_NUMBER) -> list[int] | None:
    """The whole numbers ``texts`` write plainly (ASCII digits, no leading zero), if every
    one does and is at most ``limit``; else ``None``. Read by numpy from the texts' bytes
    (a pass per digit place), not a Python call per text: a million ids in a tenth of a
    second."""
    if not texts:
        return []
    try:
        data = np.array(texts, "S")
    except UnicodeEncodeError:  # not ASCII
        return None
    width = data.dtype.itemsize
    if width > len(str(limit)):  # a text longer than the limit's digits: beyond it, or not plain
        return None
    digits = data.view(np.uint8).reshape(len(texts), width) - np.uint8(ord("0"))
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    inside = np.arange(width) < lengths[:, None]  # numpy drops a trailing NUL: counted here
    if (lengths.min() < 1 or np.any((digits <= 9) != inside)
            or np.any((digits[:, 0] == 0) & (lengths > 1))):
        return None
    value = np.zeros(len(texts), np.int64)
    for place in range(width):
        value = np.where(inside[:, place], value * 10 + digits[:, place], value)
    return None if value.max() > limit else value.tolist()


def write_swf(workload: Workload, path: Path, platform: Platform,
              header: Mapping[str, object]) -> Path:
    """``workload`` as an SWF file; run times on the platform's slowest core."""
    info = {"Note": f"run times in seconds on the slowest core of {platform.name} "
                    f"({platform.slowest_speed:g} ops/s)",
            "MaxJobs": len(workload.jobs), "MaxRecords": len(workload.jobs),
            "MaxProcs": platform.total_cores, **header}
    table = workload_table(workload, platform.slowest_speed)
    for name, most in MAGNITUDES.items():  # what an SWF reader takes: its own limits
        beyond = np.flatnonzero(np.abs(table[:, COL[name]]) > most)
        if beyond.size:
            row = int(beyond[0])
            raise unwritable(workload, workload.jobs[row], "SWF",
                             f"{name} would be {table[row, COL[name]]:.6g}", f"{most:g}")
    return write_table(table, path, info)


def _auto_nodes(job: Job, platform: Platform) -> int:
    """The node count SWF's reader gives a job (its ``auto`` placement)."""
    return 1 if job.ntasks <= platform.max_node_cores else SPREAD


_CANNOT_HOLD = (
    lost.Loss.each("have ids that are not whole numbers", lambda j, p: not is_job_number(j.id),
              "SWF numbers its jobs: written as their positions 1, 2, …"),
    lost.not_whole("submit times", lambda j, p: j.submit, "SWF"),
    lost.not_whole("run times on the slowest core", lost.slowest_run_time, "SWF"),
    lost.not_whole("estimates (req_time)", lambda j, p: j.req_time, "SWF"),
    lost.not_whole("memory per task in KB", lambda j, p: j.task_memory_mb * 1024, "SWF"),
    lost.ipc("SWF"),
    lost.nodes_other_than(_auto_nodes, "one node when a job fits the largest node, else spread",
                          "SWF"),
    lost.disk("SWF"), lost.mem_bw("SWF"), lost.mem_vol("SWF"), lost.cpu_util("SWF"),
    lost.cpu_util_sd("SWF"), lost.profile("SWF", "swf"), lost.parents("SWF"),
)

WRITER = Writer("swf", ".swf", write_swf, "Standard Workload Format (Parallel Workloads Archive)",
                _CANNOT_HOLD)
