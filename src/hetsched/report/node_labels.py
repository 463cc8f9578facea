"""Node names on a vertical axis that never overlap: every k-th name, k the smallest step that
leaves a label's height between any two names shown, from the axis' height in points (so the
same rule thins 5 nodes on a tall chart and 1,173 on the KIT machine's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: The names' font size (points).
FONT_SIZE = 7
#: Room a name needs, in font sizes (a line of text and a gap).
PITCH = 1.4


def label_step(positions: np.ndarray, span: float, height_pt: float,
               font_size: float = FONT_SIZE) -> int:
    """The smallest ``k`` such that any two positions ``k`` apart (increasing, in data units
    of an axis ``span`` long drawn ``height_pt`` points tall) are a label's pitch apart."""
    need = PITCH * font_size * span / max(height_pt, 1e-9)
    for k in range(1, len(positions)):
        if float((positions[k:] - positions[:-k]).min()) >= need:
            return k
    return max(len(positions), 1)


def thin_labels(ax: Any, positions: np.ndarray, names: Sequence[str], span: float) -> int:
    """Every k-th of ``names`` at ``positions`` on ``ax``'s y axis (whose limits are
    ``[0, span]``); returns k. Call once the figure's layout is final (it reads the axis'
    height)."""
    box = ax.get_window_extent()
    k = label_step(positions, span, box.height * 72 / ax.figure.dpi)
    ax.set_yticks(positions[::k], list(names[::k]), fontsize=FONT_SIZE)
    return k


def y_label(what: str, detail: str, k: int, count: int) -> str:
    """``node (core ids)``; thinned: ``node (core ids; every 21st of 1,173 named)``."""
    if k == 1:
        return f"{what} ({detail})"
    suffix = "th" if 10 <= k % 100 < 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{what} ({detail}; every {k}{suffix} of {count:,} named)"
