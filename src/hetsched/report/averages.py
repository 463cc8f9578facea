"""Averages per algorithm, one panel per quantity: a labelled bar per algorithm, its value
written on it, and reference lines named beside the panel (no legend to decode)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from hetsched.report.mpl import DPI, format_axis, pyplot

#: A reference line of a panel: its value and what it is ("budget C = 644").
Reference = tuple[float, str]


def averages_figure(rows: Sequence[Mapping[str, object]], key: str,
                    panels: Mapping[str, str], path: str | Path, title: str,
                    references: Mapping[str, Sequence[Reference]] | None = None) -> Path:
    """One panel per column of ``panels`` (column -> axis label with its unit): a bar per row
    (named by ``row[key]``) with its value, and the panel's ``references`` as dashed lines."""
    plt = pyplot()
    names = [str(row[key]) for row in rows]
    fig, axes = plt.subplots(1, len(panels), squeeze=False,
                             figsize=(4.6 * len(panels), 3.9))
    for ax, (column, label) in zip(axes[0], panels.items()):
        values = [float(row[column]) for row in rows]  # type: ignore[arg-type]
        bars = ax.bar(range(len(rows)), values, color="tab:blue")
        ax.bar_label(bars, labels=[f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"
                                   for v in values], fontsize=7, padding=1)
        for value, text in (references or {}).get(column, ()):
            ax.axhline(value, color="tab:red", linestyle="--", linewidth=1)
            ax.annotate(text, (1.0, value), xycoords=("axes fraction", "data"),
                        xytext=(4, 0), textcoords="offset points", fontsize=7,
                        color="tab:red", ha="left", va="center")
        ax.set_xticks(range(len(rows)), names, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(label, fontsize=9)
        format_axis(ax.yaxis, "")  # the panels' units are the label's (time or cost units)
        ax.margins(y=0.15)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(w_pad=4.0)
    path = Path(path)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")  # the lines' names are right of the axes
    plt.close(fig)
    return path
