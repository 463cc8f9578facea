"""Box plots of metrics across runs: one panel per metric, one box per scheduler over its runs
(seeds, parts of a split, weeks of a study), every run drawn as a point on its box.

Callable on any table with a scheduler column and metric columns (``hetsched.load_results``
or a study's ``results.csv``)::

    fig = box_plots(pandas.read_csv("results.csv"), ["makespan", "energy"], baseline="min_min",
                    catalogue=node_centric.STUDY.catalogue)  # the study's columns
    fig.savefig("boxes.png")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hetsched.metrics.catalogue import METRICS, NEUTRAL, Catalogue
from hetsched.report.compare import check_columns, schedulers
from hetsched.report.mpl import axis_label, format_axis, pyplot

#: Panels per row.
COLUMNS = 3


def metric_label(metric: str, catalogue: Catalogue = METRICS) -> str:
    """``makespan (s, lower is better)``; ``jobs (count)`` for a neutral metric."""
    declared = catalogue.find(metric)
    if declared.direction is NEUTRAL:
        return f"{metric} ({declared.unit})"
    return f"{metric} ({declared.unit}, {declared.direction} is better)"


def panel_title(metric: str, catalogue: Catalogue = METRICS) -> str:
    """A panel's title: the metric's label and unit, and which values are better
    (``energy (J), lower is better``)."""
    declared = catalogue.find(metric)
    label = axis_label(metric, catalogue)
    return label if declared.direction is NEUTRAL else f"{label}, {declared.direction} is better"


def box_plots(frame: Any, metrics: Sequence[str], by: str = "scheduler",
              baseline: str | None = None, title: str = "",
              catalogue: Catalogue = METRICS) -> Any:
    """A figure with a panel per metric: a box per scheduler (median, quartiles, whiskers to
    1.5 IQR) over its runs' values, missing values left out, and the runs as points; the
    ``baseline`` scheduler's box is shaded differently. ``catalogue`` declares the metrics
    (a study's own columns: the study's)."""
    check_columns(frame, [by, *metrics], "column")
    titles = [panel_title(metric, catalogue) for metric in metrics]
    names = schedulers(frame, by)
    rows = -(-len(metrics) // COLUMNS)
    cols = min(COLUMNS, len(metrics))
    fig, axes = pyplot().subplots(rows, cols, squeeze=False,
                                  figsize=(max(3.6, 0.45 * len(names) + 1.6) * cols,
                                           3.4 * rows + 0.4))
    for ax, metric, label in zip(axes.flat, metrics, titles):
        _panel(ax, frame, metric, by, names, baseline)
        ax.set_title(label, fontsize=9)
        format_axis(ax.yaxis, catalogue.find(metric).unit)
    for ax in axes.flat[len(metrics):]:
        ax.axis("off")
    key = f"{baseline}'s box orange (the baseline)" if baseline in names else ""
    if title or key:
        fig.suptitle(" · ".join(t for t in (title, key) if t), fontsize=10)
    fig.tight_layout()
    return fig


def _panel(ax: Any, frame: Any, metric: str, by: str, names: list[str],
           baseline: str | None) -> None:
    import pandas

    values = pandas.to_numeric(frame[metric], errors="coerce")
    groups = [values[frame[by].astype(str) == name].dropna().to_numpy(float) for name in names]
    positions = [i for i, g in enumerate(groups) if len(g)]
    if positions:
        boxes = ax.boxplot([groups[i] for i in positions], positions=positions, widths=0.6,
                           patch_artist=True, showfliers=False,
                           medianprops={"color": "black"})
        for i, patch in zip(positions, boxes["boxes"]):
            patch.set_facecolor("tab:orange" if names[i] == baseline else "tab:blue")
            patch.set_alpha(0.45)
        rng = np.random.default_rng(0)  # the same jitter every time: figures are reproducible
        for i in positions:
            ax.plot(i + rng.uniform(-0.18, 0.18, len(groups[i])), groups[i], ".", ms=3,
                    color="0.25", alpha=0.6)
    else:
        ax.text(0.5, 0.5, "no values", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks(range(len(names)), names, rotation=45 if len(names) > 3 else 0,
                  ha="right" if len(names) > 3 else "center", fontsize=8)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.grid(axis="y", alpha=0.3)
