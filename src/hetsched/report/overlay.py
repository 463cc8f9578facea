"""Several runs of the same workload on one figure: cumulative energy, running jobs and queued
jobs over time, one line per run (e.g. each scheduler on a study's representative week).

Times are measured from each run's first submission, so runs of the same workload line up.
Series longer than :data:`~hetsched.report.series.EXACT_LIMIT` instants are drawn as their
time-weighted mean per bin (:func:`~hetsched.report.series.envelope`), cumulative energy
exactly (it is monotone: thinning it loses nothing visible).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hetsched.report.mpl import pyplot
from hetsched.report.run_data import RunData
from hetsched.report.series import EXACT_LIMIT, envelope, integral, time_unit

#: The panels, top to bottom: label and how each run's values are got.
PANELS = ("cumulative energy (kWh)", "running jobs", "queued jobs")


def overlay(runs: Mapping[str, RunData], title: str = "") -> Any:
    """One figure, three panels sharing the time axis, a line per run (labelled by key)."""
    span = max(run.window[1] - run.window[0] for run in runs.values())
    scale, unit = time_unit(span)
    fig, axes = pyplot().subplots(3, 1, sharex=True, figsize=(10.0, 8.0))
    for name, run in runs.items():
        time = np.append(run.time, max(run.window[1], float(run.time[-1])))
        x = (time - run.window[0]) / scale
        energy = integral(time, np.append(run.power_w, 0.0)) / 3.6e6
        axes[0].plot(x, energy, linewidth=1.1, label=f"{name} ({energy[-1]:,.0f} kWh)")
        for ax, values in zip(axes[1:], (run.running, run.queued)):
            _mean_steps(ax, run, values, scale, name)
    for ax, label in zip(axes, PANELS):
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=min(len(runs), 3), loc="upper left")
    axes[0].set_ylim(bottom=0)
    axes[-1].set_xlabel(f"time since the first submission ({unit})")
    axes[-1].set_xlim(0, span / scale or 1)
    if title:
        axes[0].set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def _mean_steps(ax: Any, run: RunData, values: np.ndarray, scale: float, name: str) -> None:
    """The step series exactly, or its time-weighted mean per bin when it is long."""
    end = max(run.window[1], float(run.time[-1]))
    if len(run.time) <= EXACT_LIMIT:
        ax.step((np.append(run.time, end) - run.window[0]) / scale,
                np.append(values, values[-1]), where="post", linewidth=1.0, label=name)
        return
    env = envelope(run.time, values, end)
    middle = env.edges[:-1] + np.diff(env.edges) / 2
    ax.plot((middle - run.window[0]) / scale, env.mean, linewidth=1.0,
            label=f"{name} (mean per bin)")
