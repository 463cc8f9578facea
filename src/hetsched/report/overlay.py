"""Several runs of the same workload on one figure: cumulative energy, running jobs and queued
jobs over time, one line per run (e.g. each scheduler on a study's representative week).

Times are measured from each run's first submission, so runs of the same workload line up.
Each run has its own line style as well as its colour, so curves that coincide stay told
apart, and a run whose series equal an earlier run's says so in the legend ("identical to …").
Series longer than :data:`~hetsched.report.series.EXACT_LIMIT` instants are drawn as their
time-weighted mean per bin (:func:`~hetsched.report.series.envelope`), cumulative energy
exactly (it is monotone: thinning it loses nothing visible).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hetsched.metrics.formats import fmt_joules
from hetsched.report.mpl import axis_label, format_axis, pyplot
from hetsched.report.run_data import RunData
from hetsched.report.series import EXACT_LIMIT, envelope, integral, time_unit

#: The panels, top to bottom: label and catalogue unit.
PANELS = (("cumulative " + axis_label("energy_j"), "J"), ("running jobs", "count"),
          ("queued jobs", "count"))
#: Line styles, one per run in turn (with the colour cycle).
STYLES = ("-", "--", ":", "-.")


def overlay(runs: Mapping[str, RunData], title: str = "") -> Any:
    """One figure, three panels sharing the time axis, a line per run (labelled by key)."""
    span = max(run.window[1] - run.window[0] for run in runs.values())
    scale, unit = time_unit(span)
    fig, axes = pyplot().subplots(3, 1, sharex=True, figsize=(10.0, 8.0))
    same = identical(runs)
    for k, (name, run) in enumerate(runs.items()):
        style = {"linestyle": STYLES[k % len(STYLES)], "color": f"C{k % 10}"}
        label = f"{name} (identical to {same[name]})" if name in same else name
        time = np.append(run.time, max(run.window[1], float(run.time[-1])))
        x = (time - run.window[0]) / scale
        energy = integral(time, np.append(run.power_w, 0.0))
        axes[0].plot(x, energy, linewidth=1.1, label=f"{label}, {fmt_joules(float(energy[-1]))}",
                     **style)
        for ax, values in zip(axes[1:], (run.running, run.queued)):
            _mean_steps(ax, run, values, scale, style)
    binned = any(len(run.time) > EXACT_LIMIT for run in runs.values())
    for k, (ax, (label, value_unit)) in enumerate(zip(axes, PANELS)):
        ax.set_ylabel(f"{label}\n(mean per bin)" if k and binned else label)
        format_axis(ax.yaxis, value_unit)
        ax.grid(alpha=0.3)
    # one legend for the three panels (the same style per run), above them, off the data
    axes[0].legend(fontsize=8, ncol=min(len(runs), 3), loc="lower left",
                   bbox_to_anchor=(0.0, 1.0), frameon=False, borderaxespad=0.2)
    axes[0].set_ylim(bottom=0)
    axes[-1].set_xlabel(f"time since the first submission ({unit})")
    format_axis(axes[-1].xaxis, "")
    axes[-1].set_xlim(0, span / scale or 1)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def identical(runs: Mapping[str, RunData]) -> dict[str, str]:
    """Each run whose drawn series (instants from its first submission, power, running and
    queued jobs) equal an earlier run's, with the first such run's name."""
    seen: list[tuple[str, RunData]] = []
    same: dict[str, str] = {}
    for name, run in runs.items():
        match = next((first for first, other in seen if _same_series(run, other)), None)
        if match is None:
            seen.append((name, run))
        else:
            same[name] = match
    return same


def _same_series(a: RunData, b: RunData) -> bool:
    return (a.window[1] - a.window[0] == b.window[1] - b.window[0]
            and np.array_equal(a.time - a.window[0], b.time - b.window[0])
            and all(np.array_equal(x, y, equal_nan=True) for x, y in
                    ((a.power_w, b.power_w), (a.running, b.running), (a.queued, b.queued))))


def _mean_steps(ax: Any, run: RunData, values: np.ndarray, scale: float,
                style: dict[str, str]) -> None:
    """The step series exactly, or its time-weighted mean per bin when it is long."""
    end = max(run.window[1], float(run.time[-1]))
    if len(run.time) <= EXACT_LIMIT:
        ax.step((np.append(run.time, end) - run.window[0]) / scale,
                np.append(values, values[-1]), where="post", linewidth=1.0, **style)
        return
    env = envelope(run.time, values, end)
    middle = env.edges[:-1] + np.diff(env.edges) / 2
    ax.plot((middle - run.window[0]) / scale, env.mean, linewidth=1.0, **style)
