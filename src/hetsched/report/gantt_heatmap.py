"""The Gantt chart's aggregate view, for runs too big to draw job by job: busy cores per node
group over time as a heat map. A group is a run of consecutive nodes of one type, split into
rows so that there are at most :data:`MAX_ROWS`; a cell's colour is the share of the row's
core ids (slots) that jobs held over the time bin.

The busy core-seconds of every cell come from the jobs' rectangles without a loop over time
bins: each rectangle, cut at the rows' boundaries, adds ``+w`` cores at its start and ``-w`` at
its end; the busy core-seconds up to a bin edge ``x`` are ``Σ w·(x − t)`` over the changes
before ``x``, that is ``x·Σw − Σw·t``, two cumulative sums per row. O(rectangles + rows × bins).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hetsched.report.run_data import RunData

#: Most rows of the heat map.
MAX_ROWS = 60
#: Time bins across the heat map (about one per pixel of a 10-inch figure's plot area).
BINS = 800
#: How opaque a cell of reserved or failed slots is where they take all the row's slots.
OVERLAY_ALPHA = 0.85


def node_rows(run: RunData) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The rows' first nodes (plus the node count at the end), the groups' first rows (plus
    the row count) and the groups' names (``type (n nodes)``). More groups than
    :data:`MAX_ROWS`: equal runs of nodes, named by their node range."""
    nodes = len(run.slots)
    types = run.node_types if len(run.node_types) == nodes else ("",) * nodes
    change = [0] + [i for i in range(1, nodes) if types[i] != types[i - 1]] + [nodes]
    if len(change) - 1 > MAX_ROWS:
        rows = np.linspace(0, nodes, MAX_ROWS + 1).round().astype(int)
        names = [f"nodes {a}-{b - 1}" for a, b in zip(rows, rows[1:])]
        return rows, np.arange(MAX_ROWS + 1), names
    sizes = np.diff(change)
    budget = MAX_ROWS - len(sizes)
    counts = np.minimum(sizes, 1 + budget * sizes // nodes)
    rows = np.concatenate([np.linspace(a, b, n + 1)[:-1].round().astype(int)
                           for a, b, n in zip(change, change[1:], counts)] + [[nodes]])
    names = [f"{types[a] or 'nodes'} ({b - a:,} node{'s' * (b - a != 1)})"
             for a, b in zip(change, change[1:])]
    return rows, np.concatenate([[0], np.cumsum(counts)]), names


def busy_share(run: RunData, rows: np.ndarray, view: tuple[float, float],
               bins: int = BINS) -> np.ndarray:
    """``(rows, bins)``: the share of each row's slots the jobs held in each time bin of
    ``view`` (seconds, absolute), their killed and requeued attempts included; a job still
    running at the end holds its cores to it."""
    job, lo, hi = run.ranges.T if len(run.ranges) else (np.zeros(0, int),) * 3
    end = np.where(np.isnan(run.end[job]), view[1], run.end[job])
    blocks = np.concatenate([np.column_stack([run.start[job], end, lo, hi]),
                             run.attempts[:, 1:]])
    return share_of(blocks, run, rows, view, bins)


def share_of(blocks: np.ndarray, run: RunData, rows: np.ndarray, view: tuple[float, float],
             bins: int = BINS) -> np.ndarray:
    """``(rows, bins)``: the share of each row's slots that ``blocks`` (rows ``(t0, t1, lo,
    hi)``: core ids ``[lo, hi)`` over ``[t0, t1)``, not overlapping one another) cover in
    each time bin of ``view``."""
    bounds = np.append(run.offsets, run.slots.sum())[rows]
    t0, t1 = (np.clip(blocks[:, k], *view) - view[0] for k in (0, 1))
    lo, hi = blocks[:, 2].astype(np.int64), blocks[:, 3].astype(np.int64)
    first = np.searchsorted(bounds, lo, side="right") - 1
    spans = np.searchsorted(bounds, hi - 1, side="right") - first  # rows each rectangle spans
    piece = np.repeat(np.arange(len(blocks)), spans)  # one piece per rectangle and row
    row = first[piece] + np.arange(len(piece)) - np.repeat(np.cumsum(spans) - spans, spans)
    width = np.minimum(hi[piece], bounds[row + 1]) - np.maximum(lo[piece], bounds[row])
    edges = np.linspace(0.0, view[1] - view[0], bins + 1)
    ones = np.zeros((len(rows) - 1, bins + 1))
    moments = np.zeros_like(ones)
    for times, sign in ((t0[piece], 1.0), (t1[piece], -1.0)):
        at = np.searchsorted(edges, times, side="left")
        np.add.at(ones, (row, at), sign * width)
        np.add.at(moments, (row, at), sign * width * times)
    area = edges * np.cumsum(ones, axis=1) - np.cumsum(moments, axis=1)
    return np.diff(area, axis=1) / (np.diff(edges)[0] or 1.0) / np.diff(bounds)[:, None]


def heat_map(ax: Any, run: RunData, view: tuple[float, float], scale: float,
             unavailable: Sequence[tuple[np.ndarray, tuple[float, float, float]]] = ()
             ) -> tuple[Any, np.ndarray, list[str], list[bool]]:
    """The heat map on ``ax`` (time in the axis' unit from the window's start; rows upwards,
    a line between groups), and over it each of ``unavailable`` (blocks as
    :func:`share_of` reads them, and an RGB colour: reservations, failures) as that colour,
    as opaque as the share of the row's slots it takes; returns the image (for its
    colorbar), the groups' middles on the y axis, their names, and which of
    ``unavailable`` are drawn (those with a block in the view)."""
    rows, groups, names = node_rows(run)
    share = busy_share(run, rows, view)
    x0, x1 = ((t - run.window[0]) / scale for t in view)
    extent = (x0, x1, 0, len(rows) - 1)
    image = ax.imshow(share, origin="lower", aspect="auto", interpolation="nearest",
                      extent=extent, cmap="viridis", vmin=0.0, vmax=1.0)
    drawn = []
    for blocks, colour in unavailable:
        taken = share_of(blocks, run, rows, view) if len(blocks) else np.zeros((1, 1))
        drawn.append(bool(taken.any()))
        if drawn[-1]:
            layer = np.empty((*taken.shape, 4))
            layer[..., :3], layer[..., 3] = colour, np.clip(taken, 0.0, 1.0) * OVERLAY_ALPHA
            ax.imshow(layer, origin="lower", aspect="auto", interpolation="nearest",
                      extent=extent)
    ax.hlines(groups[1:-1], 0, 1, colors="white", linewidths=0.8,
              transform=ax.get_yaxis_transform())
    ax.set_ylim(0, len(rows) - 1)
    return image, (groups[:-1] + groups[1:]) / 2, names, drawn
