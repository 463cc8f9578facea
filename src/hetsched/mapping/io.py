"""Reading ETC matrices: the Braun et al. text format and plain CSV.

Braun format (the 12 classic instances): a first line ``<tasks> <machines> <flag>`` (the third
number is ignored when present), then ``tasks × machines`` numbers separated by white space
(one per line in the published files), task-major: task 0 on machines 0..m-1, then task 1, ...

CSV: one row per task, one column per machine, comma separated. Blank lines and lines starting
with ``#`` are skipped; a first row in which no cell is a number is a header and is skipped.

Every problem raises :class:`hetsched.errors.InputError` naming the file, the line and the
cell (``etc[task, machine]``): wrong counts, a value that is not a number, NaN/infinity, a
negative value or one above :data:`~hetsched.limits.MAX_ETC`. The values are counted before
the matrix is allocated, so a header announcing more than the file holds fails at once.
"""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path

import numpy as np

from hetsched.errors import InputError
from hetsched.files import read_text
from hetsched.mapping.values import parse_time, whole_number
from hetsched.parsing import parse_float

CSV_SUFFIXES = (".csv",)


def read_etc(path: str | Path) -> np.ndarray:
    """Read an ETC matrix (tasks × machines, float64): ``.csv`` as CSV, anything else as the
    Braun format."""
    path = Path(path)
    if path.suffix.lower() in CSV_SUFFIXES:
        return read_csv_etc(path)
    return read_braun(path)


def _value(text: str, path: Path, line: int, task: int, machine: int) -> float:
    return parse_time(text, path, f"line {line}", f"etc[{task},{machine}]")


def read_braun(path: str | Path) -> np.ndarray:
    """Read a matrix in the Braun et al. format (see the module docstring)."""
    path = Path(path)
    lines = read_text(path).splitlines()
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first == len(lines):
        raise InputError(path, "empty file: expected a header '<tasks> <machines> [flag]'")
    header = lines[first].split()
    head_rec = f"line {first + 1}"
    if len(header) not in (2, 3):
        raise InputError(path, "expected a header '<tasks> <machines> [flag]', "
                               f"got {len(header)} fields", record=head_rec)
    n, m = (whole_number(text, path, head_rec, name) for name, text in zip(("tasks", "machines"),
                                                                         header[:2]))
    _check_value_count(lines, first + 1, n, m, path)
    values = np.empty(n * m, dtype=np.float64)
    k = 0
    for lineno in range(first + 1, len(lines)):
        for text in lines[lineno].split():
            values[k] = _value(text, path, lineno + 1, k // m, k % m)
            k += 1
    return values.reshape(n, m)


def _check_value_count(lines: list[str], start: int, n: int, m: int, path: Path) -> None:
    """The lines from ``start`` on hold exactly the ``n × m`` values the header announces."""
    expected = n * m
    totals = list(accumulate(len(line.split()) for line in lines[start:]))
    found = totals[-1] if totals else 0
    if found > expected:
        over = next(i for i, total in enumerate(totals) if total > expected)
        raise InputError(path, f"more values than the header's {n} × {m} = {expected}",
                         record=f"line {start + over + 1}")
    if found < expected:
        raise InputError(path, f"{found} values, the header announces {n} × {m} = {expected}",
                         record=f"line {len(lines)}")


def read_csv_etc(path: str | Path) -> np.ndarray:
    """Read a CSV matrix: rows are tasks, columns machines (see the module docstring)."""
    path = Path(path)
    rows: list[list[float]] = []
    width = 0
    for lineno, raw in enumerate(read_text(path).splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if not rows and width == 0 and not any(_is_number(c) for c in cells):
            width = len(cells)  # header row: remember its width, skip it
            continue
        if width and len(cells) != width:
            raise InputError(path, f"{len(cells)} columns, expected {width}",
                             record=f"line {lineno}")
        width = len(cells)
        task = len(rows)
        rows.append([_value(c, path, lineno, task, j) for j, c in enumerate(cells)])
    if not rows:
        raise InputError(path, "no rows: expected one row of ETC values per task")
    return np.array(rows, dtype=np.float64).reshape(len(rows), width)


def _is_number(text: str) -> bool:
    return parse_float(text) is not None


def write_braun(path: str | Path, etc: np.ndarray) -> None:
    """Write ``etc`` in the Braun format (values with ``repr`` precision)."""
    etc = np.asarray(etc, dtype=np.float64)
    n, m = etc.shape
    lines = [f"{n} {m} 0"] + [repr(float(v)) for v in etc.reshape(-1)]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
