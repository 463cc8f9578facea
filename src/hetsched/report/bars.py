"""Grouped bar charts of aggregated metrics (mean with a standard-deviation whisker)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hetsched.metrics.catalogue import METRICS
from hetsched.report.mpl import format_axis, pyplot


def metric_bars(rows: Sequence[dict[str, object]], groups: Sequence[str],
                metrics: Sequence[str], labels: dict[str, str], path: str | Path,
                title: str = "") -> Path:
    """One panel per (group, metric): a bar per scheduler with its mean and ``<metric>_std``,
    under ``title`` (what ran on what).

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
            format_axis(ax.yaxis, METRICS[metric].unit if metric in METRICS else "")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def makespans_by_servers(rows: Sequence[dict[str, object]], path: str | Path,
                         title: str = "") -> Path:
    """One panel per DAG: for each server count a bar per scheduler, its mean makespan in
    hours, with the seeds' range (``makespan_min`` to ``makespan_max``) where rows give one;
    ``title`` (what ran on what) above the legend."""
    plt = pyplot()
    dags = sorted({str(row["dag"]) for row in rows})
    schedulers = list(dict.fromkeys(str(row["scheduler"]) for row in rows))
    fig, axes = plt.subplots(1, len(dags), squeeze=False, figsize=(5.5 * len(dags), 3.8))
    width = 0.8 / len(schedulers)
    for ax, name in zip(axes[0], dags):
        mine = [row for row in rows if row["dag"] == name]
        servers = sorted({int(row["servers"]) for row in mine})
        for k, scheduler in enumerate(schedulers):
            values = {int(r["servers"]): r for r in mine if r["scheduler"] == scheduler}
            xs = [i + (k - (len(schedulers) - 1) / 2) * width for i in range(len(servers))]
            hours = [float(values[s]["makespan"]) / 3600 for s in servers]
            # (never negative: a mean of equal values may differ from them in the last bit)
            low = [max(0.0, hour - float(values[s].get("makespan_min", hour * 3600)) / 3600)
                   for s, hour in zip(servers, hours)]
            high = [max(0.0, float(values[s].get("makespan_max", hour * 3600)) / 3600 - hour)
                    for s, hour in zip(servers, hours)]
            ax.bar(xs, hours, width, label=scheduler, yerr=[low, high], capsize=2)
        ax.set_xticks(range(len(servers)), [f"{s} servers" for s in servers])
        ax.set_ylabel("makespan (h)")
        format_axis(ax.yaxis, "")
        ax.set_title(f"{name}: mean makespan over the seeds", fontsize=10)
    axes[0][0].legend(title="scheduler", fontsize=8, ncols=len(schedulers),
                      loc="lower left", bbox_to_anchor=(0.0, 1.08))
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
