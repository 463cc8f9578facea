"""Where the Gantt chart draws the platform's reservations and the run's node failures: on
which core ids, over which times.

A failure takes the whole node: it is drawn over all the node's ids, from its start to its
repair, clipped to the run's window (:func:`failed_blocks`).

A reservation holds a number of a node's cores, not particular ones, and the core ids of the
jobs (``jobs.csv``, :mod:`hetsched.output.core_ids`) were given without regard to it. The
rule: between two consecutive changes on a node (a job starting or ending there, the reserved
cores changing), the reserved slots are drawn on the **highest ids no job holds then**. Where
the jobs are packed low (always, when a downtime takes the whole node) that is the node's last
rows; where a job still holds a high id, the block steps down around it, so no job is drawn
over a reservation unless it really ran on reserved cores (a job past its estimate keeps its
cores into a reservation that begins: the node then holds more than it has, and the block
takes the highest ids held by jobs for the rest).
"""

from __future__ import annotations

import math

import numpy as np

from hetsched.platform.reservations import steps
from hetsched.report.run_data import RunData


def reserved_blocks(run: RunData) -> np.ndarray:
    """Rows ``(t0, t1, lo, hi)``: reserved core ids ``[lo, hi)`` over ``[t0, t1)``, within
    the run's window, blocks of one node merged where they continue one another."""
    blocks: list[tuple[float, float, int, int]] = []
    nodes = run.reservations[:, 0].astype(int) if len(run.reservations) else []
    for node in sorted(set(nodes)):
        mine = run.reservations[run.reservations[:, 0] == node]
        held = steps((start, end, int(slots)) for _, start, end, slots in mine.tolist())
        blocks += _node_blocks(run, int(node), held)
    return np.array(blocks, float).reshape(-1, 4)


def failed_blocks(run: RunData) -> np.ndarray:
    """Rows ``(t0, t1, lo, hi)``: node failures over all the node's ids ``[lo, hi)``, clipped
    to the run's window (failures wholly outside it left out)."""
    w0, w1 = run.window
    rows = [(max(start, w0), min(end, w1), run.offsets[int(node)],
             run.offsets[int(node)] + run.slots[int(node)])
            for node, start, end in run.failures.tolist() if start < w1 and end > w0]
    return np.array(rows, float).reshape(-1, 4)


def _node_blocks(run: RunData, node: int,
                 held: tuple[list[float], list[int]]) -> list[tuple[float, float, int, int]]:
    """The blocks of one node, in time order."""
    base, size = int(run.offsets[node]), int(run.slots[node])
    job, lo, hi = run.ranges.T if len(run.ranges) else (np.zeros(0, int),) * 3
    lo, hi = np.clip(lo, base, base + size) - base, np.clip(hi, base, base + size) - base
    start = run.start[job]
    end = np.where(np.isnan(run.end[job]), math.inf, run.end[job])
    mine = (hi > lo) & (end > start)
    lo, hi, start, end = lo[mine], hi[mine], start[mine], end[mine]
    times, counts = held
    w0, w1 = run.window
    cuts = sorted({w0, w1, *times, *start.tolist(), *end.tolist()} - {math.inf})
    blocks: list[tuple[float, float, int, int]] = []
    latest: dict[tuple[int, int], int] = {}  # ids -> their latest block
    for t0, t1 in zip(cuts, cuts[1:]):
        k = np.searchsorted(times, t0, side="right") - 1
        count = counts[k] if k >= 0 else 0
        if not count or t1 <= w0 or t0 >= w1:
            continue
        taken = np.zeros(size, bool)
        for a, b in zip(*(x[(start <= t0) & (end > t0)].tolist() for x in (lo, hi))):
            taken[a:b] = True
        for ids in _runs(base + _highest(taken, count)):
            i = latest.get(ids)
            if i is not None and blocks[i][1] == t0:  # the same ids on: one block
                blocks[i] = (blocks[i][0], t1, *ids)
            else:
                latest[ids] = len(blocks)
                blocks.append((t0, t1, *ids))
    return blocks


def _highest(taken: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` highest ids not ``taken``, then the highest taken ones if too few."""
    order = np.concatenate([np.flatnonzero(~taken)[::-1], np.flatnonzero(taken)[::-1]])
    return np.sort(order[:count])


def _runs(ids: np.ndarray) -> list[tuple[int, int]]:
    """Sorted ids as ``[lo, hi)`` runs of consecutive ids."""
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    return [(int(part[0]), int(part[-1]) + 1) for part in np.split(ids, breaks) if len(part)]

