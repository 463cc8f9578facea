"""Step series (a value that holds from one instant to the next, as ``timeseries.csv`` rows
do) made drawable: their integral, and, for series longer than a figure has pixels, an
envelope per time bin (lowest, highest and time-weighted mean value), so that a run of a
million instants draws as fast as one of a thousand and no peak is lost."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Bins of an envelope: about the width of a figure in pixels.
BINS = 1000
#: Shorter series are drawn exactly, step by step.
EXACT_LIMIT = 2 * BINS


def integral(time: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The integral of the step series from ``time[0]`` to each ``time[i]`` (NaN counts 0)."""
    steps = np.nan_to_num(value[:-1]) * np.diff(time)
    return np.concatenate(([0.0], np.cumsum(steps)))


@dataclass(frozen=True)
class Envelope:
    """Per bin ``[edges[i], edges[i+1])``: the lowest, highest and time-weighted mean value."""

    edges: np.ndarray
    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray


def envelope(time: np.ndarray, value: np.ndarray, end: float, bins: int = BINS) -> Envelope:
    """The envelope of the step series ``value`` (``value[i]`` from ``time[i]`` to
    ``time[i+1]``, the last one until ``end``) over ``[time[0], end]`` in ``bins`` bins."""
    edges = np.linspace(time[0], max(end, time[-1]), bins + 1)
    value = np.nan_to_num(value.astype(float))
    # the value holding at each bin's start, then every value that starts inside the bin
    carry = value[np.searchsorted(time, edges[:-1], side="right") - 1]
    inside = np.clip(np.searchsorted(edges, time, side="right") - 1, 0, bins - 1)
    low, high = carry.copy(), carry.copy()
    np.minimum.at(low, inside, value)
    np.maximum.at(high, inside, value)
    area = np.interp(edges, np.append(time, edges[-1]),
                     integral(np.append(time, edges[-1]), np.append(value, value[-1])))
    mean = np.diff(area) / np.diff(edges) if edges[-1] > edges[0] else carry
    return Envelope(edges, low, high, mean)


def time_unit(span: float) -> tuple[float, str]:
    """``(seconds per unit, unit)`` for an axis spanning ``span`` seconds."""
    for limit, seconds, name in ((600, 1, "s"), (3 * 3600, 60, "min"), (3 * 86400, 3600, "h")):
        if span < limit:
            return seconds, name
    return 86400, "days"
