"""What the benchmark scripts share: the best CPU time of repeated calls, and their tables."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any


def best_cpu(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` calls, and the last call's value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        began = time.process_time()
        value = fn()
        best = min(best, time.process_time() - began)
    return best, value


def print_table(rows: Sequence[Sequence[str]], left: int = 1) -> None:
    """``rows`` in aligned columns: the first ``left`` to the left, the others (figures) to
    the right."""
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    for row in rows:
        print("  ".join(cell.ljust(w) if i < left else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))))
