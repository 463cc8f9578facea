"""The figures of one run (:class:`~hetsched.report.run_data.RunData`): a Gantt chart of
the jobs on the platform's core ids, queued and running jobs over time, power and cumulative
energy over time, utilisation over time.

Built for large runs: the Gantt chart is one collection of rectangles (one per contiguous
core range a job held), not one artist per job, rasterised inside an SVG; time series longer
than :data:`~hetsched.report.series.EXACT_LIMIT` instants are drawn as an envelope per time
bin (lowest to highest value shaded, the time-weighted mean as a line).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hetsched.metrics.formats import fmt_joules
from hetsched.report.mpl import axis_label, format_axis, pyplot, save
from hetsched.report.reserved import failed_blocks, reserved_blocks
from hetsched.report.run_data import RunData
from hetsched.report.series import EXACT_LIMIT, envelope, integral, time_unit

#: Node names on the Gantt chart's axis up to this many nodes (then node numbers).
NAMED_NODES = 40
#: Room above the highest value of a time series, for the legends.
HEADROOM = 1.22
#: Lines between nodes up to this many nodes (more would grey the chart out).
SEPARATED_NODES = 200
WIDTH = 10.0
#: The legend's names of the Gantt chart's reservations, node failures and killed jobs.
RESERVED_LABEL = "reserved / unavailable"
FAILED_LABEL = "node failed"
KILLED_LABEL = "killed"


def gantt(run: RunData) -> Any:
    """Each job a bar over the core ids it held, from its start to its end (or the end of
    the window, lighter, for a job still running), a killed job outlined; the platform's
    reservations hatched grey (:mod:`~hetsched.report.reserved` says on which ids), node
    failures cross-hatched red over the whole node; nodes separated by lines."""
    from matplotlib.collections import PolyCollection

    plt = pyplot()
    scale, unit = _axis(run)
    height = min(9.0, 3.0 + 0.02 * float(run.slots.sum()) ** 0.5 * 10)
    fig, ax = plt.subplots(figsize=(WIDTH, height))
    job, lo, hi = run.ranges.T if len(run.ranges) else (np.zeros(0, int),) * 3
    running = np.isnan(run.end[job])
    end = np.where(running, run.window[1], run.end[job])
    verts = _boxes(run, scale, run.start[job], end, lo, hi)
    colours = plt.get_cmap("tab20")(job % 20)
    colours[running, 3] = 0.45
    ax.add_collection(PolyCollection(verts, facecolors=colours, linewidths=0, rasterized=True))
    killed = run.killed[job] if len(run.killed) else np.zeros(len(job), bool)
    if killed.any():
        ax.add_collection(PolyCollection(verts[killed], facecolors="none", edgecolors="black",
                                         linewidths=0.9, zorder=4, label=KILLED_LABEL))
    blocks = reserved_blocks(run)
    if len(blocks):
        ax.add_collection(PolyCollection(
            _boxes(run, scale, *blocks.T), facecolors=(0.5, 0.5, 0.5, 0.3), edgecolors="0.3",
            linewidths=0, hatch="////", zorder=3, label=RESERVED_LABEL))
    failed = failed_blocks(run)
    if len(failed):
        ax.add_collection(PolyCollection(
            _boxes(run, scale, *failed.T), facecolors=(0.85, 0.1, 0.1, 0.25),
            edgecolors=(0.7, 0.0, 0.0), linewidths=0, hatch="xxxx", zorder=3,
            label=FAILED_LABEL))
    _node_axis(ax, run)
    ax.set_xlim(0, (run.window[1] - run.window[0]) / scale or 1)
    ax.set_xlabel(f"time ({unit})")
    format_axis(ax.xaxis, "")
    title = f"{run.title}: jobs on cores ({np.unique(job).size:,} jobs started)"
    if killed.any() or len(blocks) or len(failed):
        ax.set_title(title, fontsize=10, loc="left")
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=2,
                  frameon=False, borderaxespad=0.2)
    else:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def _boxes(run: RunData, scale: float, t0: np.ndarray, t1: np.ndarray, lo: np.ndarray,
           hi: np.ndarray) -> np.ndarray:
    """The rectangles ``[t0, t1) × [lo, hi)`` as vertices, time from the window's start in
    the axis' unit."""
    x0, x1 = (t0 - run.window[0]) / scale, (t1 - run.window[0]) / scale
    return np.stack([np.stack(p, axis=-1) for p in ((x0, lo), (x0, hi), (x1, hi), (x1, lo))],
                    axis=1).astype(float)


def _node_axis(ax: Any, run: RunData) -> None:
    """Core ids upwards, a line between nodes, node names (or numbers) at their middle."""
    offsets, total = run.offsets, int(run.slots.sum())
    ax.set_ylim(0, total)
    if 1 < len(offsets) <= SEPARATED_NODES:
        ax.hlines(offsets[1:], 0, 1, colors="0.6", linewidths=0.4,
                  transform=ax.get_yaxis_transform())
    middles = offsets + run.slots / 2
    if len(offsets) <= NAMED_NODES:
        ax.set_yticks(middles, run.node_names, fontsize=7)
        ax.set_ylabel("node (core ids)")
    else:  # node numbers, at least 1/NAMED_NODES of the axis apart (nodes differ in size)
        shown = _spread(middles, total / NAMED_NODES)
        ax.set_yticks(middles[shown], [str(i) for i in shown], fontsize=7)
        ax.set_ylabel(f"node number ({len(offsets):,} nodes, core ids)")


def _spread(positions: np.ndarray, gap: float) -> list[int]:
    """Indices of increasing ``positions``, each at least ``gap`` above the previous one."""
    kept: list[int] = []
    for i, position in enumerate(positions.tolist()):
        if not kept or position - positions[kept[-1]] >= gap:
            kept.append(i)
    return kept


def jobs_over_time(run: RunData) -> Any:
    """Queued (submitted, not started) and running jobs."""
    return _series_figure(run, "jobs", "count",
                          [("running", run.running, "tab:green"),
                           ("queued", run.queued, "tab:orange")],
                          title="queued and running jobs")


def utilisation(run: RunData) -> Any:
    """Busy cores as a share of the platform's cores, up to 100 %, with its time average
    over the window (the run's ``utilisation``) as a dashed line."""
    share = run.busy_cores / run.cores
    fig = _series_figure(run, axis_label("utilisation"), "fraction",
                         [("busy cores / cores", share, "tab:blue")], top=1.0)
    ax = fig.axes[0]
    time, _ = _extended(run)
    mean = integral(time, np.append(share, 0.0))[-1] / ((run.window[1] - run.window[0]) or 1.0)
    ax.axhline(mean, color="black", linestyle="--", linewidth=1.0,
               label=f"time average ({mean:.1%})")
    _legend(ax)
    return fig


def power_energy(run: RunData) -> Any:
    """The platform's power (left axis) and the energy used since the start (right axis),
    in W and J with SI prefixes (the tables' unit of ``energy_j``)."""
    if not run.has_energy:
        return _empty(run, "power and energy: the platform has no power model")
    fig = _series_figure(run, "power (W)", "W", [("power", run.power_w, "tab:red")],
                         title="power and cumulative energy")
    ax = fig.axes[0]
    scale, _ = _axis(run)
    time, end = _extended(run)
    energy = integral(time, np.append(run.power_w, 0.0))
    right = ax.twinx()
    right.plot((time - run.window[0]) / scale, energy, color="black", linewidth=1.2,
               label=f"cumulative energy ({fmt_joules(float(energy[-1]))})")
    right.set_ylabel(axis_label("energy_j"))
    format_axis(right.yaxis, "J")
    right.set_ylim(0, max(float(energy[-1]), 1e-9) * HEADROOM)
    _legend(ax, right)
    return fig


def _extended(run: RunData) -> tuple[np.ndarray, float]:
    """The instants and the end of the window (the last value holds until then)."""
    end = max(run.window[1], float(run.time[-1]))
    return np.append(run.time, end), end


def _series_figure(run: RunData, label: str, unit: str,
                   lines: list[tuple[str, np.ndarray, str]], top: float | None = None,
                   title: str | None = None) -> Any:
    """Step series against time, the value axis in ``unit`` (a catalogue unit); ``top``: the
    axis' fixed top (else the highest value, with room above)."""
    plt = pyplot()
    scale, time_name = _axis(run)
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    for name, values, colour in lines:
        _steps(ax, run, values, scale, name, colour)
    ax.set_xlim(0, (run.window[1] - run.window[0]) / scale or 1)
    highest = max(float(np.nanmax(values)) for _, values, _ in lines) * HEADROOM or 1.0
    ax.set_ylim(0, top or highest)
    ax.set_xlabel(f"time ({time_name})")
    format_axis(ax.xaxis, "")
    ax.set_ylabel(label)
    format_axis(ax.yaxis, unit)
    fig.suptitle(f"{run.title}: {title or label}", fontsize=10, x=0.01, ha="left")
    ax.grid(alpha=0.3)
    _legend(ax)
    return fig


def _legend(*axes: Any) -> None:
    """One legend for the lines of ``axes`` (twin axes share it), between the title and the
    plot area, off the data."""
    handles: list[Any] = []
    labels: list[str] = []
    for ax in axes:
        more_handles, more_labels = ax.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    axes[0].legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8,
                   ncol=len(labels), frameon=False, borderaxespad=0.2)
    axes[0].figure.tight_layout()


def _steps(ax: Any, run: RunData, values: np.ndarray, scale: float, name: str,
           colour: str) -> None:
    """The step series exactly, or its envelope when it is longer than the figure is wide."""
    time, end = _extended(run)
    origin = run.window[0]
    if len(run.time) <= EXACT_LIMIT:
        ax.step((time - origin) / scale, np.append(values, values[-1]), where="post",
                color=colour, linewidth=1.0, label=name)
        return
    env = envelope(run.time, values, end)
    x = (env.edges[:-1] + np.diff(env.edges) / 2 - origin) / scale
    seconds, unit = time_unit(float(env.edges[1] - env.edges[0]))
    ax.fill_between(x, env.low, env.high, color=colour, alpha=0.25, linewidth=0,
                    label=f"{name} (lowest to highest per "
                          f"{(env.edges[1] - env.edges[0]) / seconds:.3g} {unit})")
    ax.plot(x, env.mean, color=colour, linewidth=1.0, label=f"{name} (mean)")


def _empty(run: RunData, text: str) -> Any:
    fig, ax = pyplot().subplots(figsize=(WIDTH, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"{run.title}: {text}", ha="center", va="center")
    return fig


def _axis(run: RunData) -> tuple[float, str]:
    lo, hi = run.window
    return time_unit(hi - lo)


#: Every figure of a run, by file stem.
FIGURES: dict[str, Callable[[RunData], Any]] = {
    "gantt": gantt, "jobs": jobs_over_time, "power_energy": power_energy,
    "utilisation": utilisation,
}


def write_run_figures(run: RunData, out_dir: str | Path, fmt: str = "png") -> list[Path]:
    """Every figure of ``run`` as ``<out_dir>/<name>.<fmt>`` (``png`` or ``svg``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [save(draw(run), out / f"{name}.{fmt}", fmt) for name, draw in FIGURES.items()]
