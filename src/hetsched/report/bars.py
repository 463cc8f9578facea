"""Grouped bar charts of aggregated metrics (mean with a standard-deviation whisker)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hetsched.report.mpl import pyplot


def metric_bars(rows: Sequence[dict[str, object]], groups: Sequence[str],
                metrics: Sequence[str], labels: dict[str, str], path: str | Path) -> Path:
    """One panel per (group, metric): a bar per scheduler with its mean and ``<metric>_std``.

    ``rows`` carry ``level`` (the group), ``scheduler``, ``<metric>`` and ``<metric>_std``.
    """
    plt = pyplot()
    fig, axes = plt.subplots(len(groups), len(metrics), squeeze=False,
                             figsize=(4.2 * len(metrics), 3.6 * len(groups)))
    for r, group in enumerate(groups):
        mine = [row for row in rows if row["level"] == group]
        names = [str(row["scheduler"]) for row in mine]
        for c, metric in enumerate(metrics):
            ax = axes[r][c]
            ax.bar(range(len(mine)), [float(row[metric]) for row in mine],
                   yerr=[float(row[f"{metric}_std"]) for row in mine], capsize=2,
                   color="tab:blue")
            ax.set_xticks(range(len(mine)), names, rotation=60, ha="right", fontsize=7)
            ax.set_title(f"{group}: {labels.get(metric, metric)}", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
