"""The Gantt chart's job colours, by :data:`~hetsched.report.gantt_options.COLOUR_BY`: by job
(``tab20`` by job number, no legend), by a category (a colour per value, the most frequent
first, the rest folded into "other", a legend) or by a number (a sequential colormap, a
colorbar)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hetsched.errors import ConfigError
from hetsched.output.jobs_csv import FINAL_STATE
from hetsched.report.run_data import SIZE, RunData
from hetsched.sim.result import JobState

#: Most categories with a colour of their own; beyond, the least frequent share "other".
MOST_CATEGORIES = 12
OTHER = "other"
OTHER_COLOUR = (0.6, 0.6, 0.6, 1.0)
#: The legend's names of the scheduler's decisions (``--colour-by decision``).
IN_ORDER = "in submission order"
AHEAD = "ahead of an earlier job (backfilled)"
#: The legend's name of a job whose user (queue) the workload does not say (-1).
UNKNOWN = "unknown"
#: The legend's names of ``jobs.csv``'s final states.
STATE_NAMES = {
    FINAL_STATE[JobState.FINISHED]: "finished",
    FINAL_STATE[JobState.KILLED]: "killed at its walltime",
    FINAL_STATE[JobState.FAILED]: "killed by a node failure",
    FINAL_STATE[JobState.UNFINISHED]: "unfinished",
}


@dataclass(frozen=True)
class Colouring:
    """One RGBA row per job; ``legend``: ``(name, colour)`` per category; ``scale``: the
    ``ScalarMappable`` of a colorbar labelled ``label``, its ticks in ``unit`` (a catalogue
    unit, :func:`~hetsched.report.mpl.format_axis`)."""

    colours: np.ndarray
    legend: list[tuple[str, Any]] = field(default_factory=list)
    scale: Any = None
    label: str = ""
    unit: str = ""


def job_colours(run: RunData, by: str, drawn: np.ndarray) -> Colouring:
    """Every job's colour by ``by``; ``drawn``: the jobs on the chart (the categories and the
    colour scale are theirs)."""
    from matplotlib import colormaps

    jobs = len(run.start)
    if by == "job":
        return Colouring(colormaps["tab20"](np.arange(jobs) % 20))
    if by == "size":
        sizes = run.size if len(run.size) == jobs else np.full(jobs, np.nan)
        return _by_number(sizes, drawn, f"tasks requested ({SIZE})")
    if by == "decision":
        ahead = started_ahead(run.submit, run.start)
        return _by_category([AHEAD if a else IN_ORDER for a in ahead.tolist()], drawn)
    if by in ("user", "queue"):
        values = run.users if by == "user" else run.queues
        if len(values) != jobs or all(v in ("", "-1") for v in values):
            raise ConfigError(f"colour by {by}: this run names no {by} (jobs.csv's {by} column "
                              "is absent, or -1 for every job: the workload does not say)")
        return _by_category([UNKNOWN if v in ("", "-1") else f"{by} {v}" for v in values],
                            drawn)
    if len(run.states) != jobs:
        raise ConfigError("colour by state: this run has no final states (jobs.csv's "
                          "final_state column)")
    return _by_category([STATE_NAMES.get(s, s.lower() or "?") for s in run.states], drawn)


def started_ahead(submit: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Which jobs started ahead of a job submitted before them: one submitted strictly
    earlier started strictly later, or never (a backfilling decision; under FCFS none).
    O(n log n): the latest start among the jobs submitted earlier is a running maximum in
    submission order."""
    order = np.argsort(submit, kind="stable")
    starts = np.where(np.isnan(start[order]), np.inf, start[order])
    latest = np.maximum.accumulate(starts) if len(starts) else starts
    first_of_tie = np.searchsorted(submit[order], submit[order], side="left")
    before = np.where(first_of_tie > 0, latest[np.maximum(first_of_tie - 1, 0)], -np.inf)
    ahead = np.zeros(len(submit), bool)
    ahead[order] = ~np.isnan(start[order]) & (before > starts)
    return ahead


def _by_category(values: list[str], drawn: np.ndarray) -> Colouring:
    """A colour per value among the drawn jobs, the most frequent first (ties by name)."""
    from matplotlib import colormaps

    counts = Counter(values[i] for i in np.unique(drawn).tolist())
    order = sorted(counts, key=lambda name: (-counts[name], name))
    if len(order) > MOST_CATEGORIES:
        order = order[:MOST_CATEGORIES - 1]
    palette = colormaps["tab20"](np.r_[0:20:2, 1:20:2])
    colour = {name: tuple(palette[i]) for i, name in enumerate(order)}
    legend = list(colour.items())
    if len(order) < len(counts):
        legend.append((OTHER, OTHER_COLOUR))
    return Colouring(np.array([colour.get(v, OTHER_COLOUR) for v in values]).reshape(-1, 4),
                     legend)


def _by_number(values: np.ndarray, drawn: np.ndarray, label: str) -> Colouring:
    """``viridis`` over the drawn jobs' range (logarithmic when it spans a factor of 10 or
    more), grey where a value is unknown; a one-line error when no value is known."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LogNorm, Normalize

    known = values[np.unique(drawn)] if len(drawn) else values  # none drawn: every job's
    known = known[~np.isnan(known)]
    if not len(known):
        raise ConfigError(f"colour by size: this run has no requested sizes (jobs.csv's "
                          f"{SIZE} column)")
    low, high = float(known.min()), float(known.max())
    norm = (LogNorm(low, high) if low > 0 and high >= 10 * low
            else Normalize(low, max(high, low + 1)))
    scale = ScalarMappable(norm, colormaps["viridis"])
    colours = scale.to_rgba(np.nan_to_num(values, nan=low))
    colours[np.isnan(values)] = OTHER_COLOUR
    return Colouring(colours, scale=scale, label=label,
                     unit="" if isinstance(norm, LogNorm) else "count")
