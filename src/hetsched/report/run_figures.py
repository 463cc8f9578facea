"""The figures of one run (:class:`~hetsched.report.run_data.RunData`): a Gantt chart of
the jobs on the platform's core ids, queued and running jobs over time, power and cumulative
energy over time, utilisation over time.

Built for large runs: the Gantt chart is one collection of rectangles (one per contiguous
core range a job held), not one artist per job, rasterised inside an SVG; time series longer
than :data:`~hetsched.report.series.EXACT_LIMIT` instants are drawn as an envelope per time
bin (lowest to highest value shaded, the time-weighted mean as a line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from hetsched.errors import ConfigError
from hetsched.metrics.formats import fmt_joules, fmt_seconds
from hetsched.report.gantt_colours import job_colours
from hetsched.report.gantt_heatmap import OVERLAY_ALPHA, heat_map
from hetsched.report.gantt_options import DETAILED_LIMIT, GanttOptions
from hetsched.report.mpl import axis_label, format_axis, pyplot, save
from hetsched.report.node_labels import thin_labels, y_label
from hetsched.report.reserved import failed_blocks, reserved_blocks
from hetsched.report.run_data import RunData
from hetsched.report.series import EXACT_LIMIT, envelope, integral, time_unit

#: Bars outlined up to this many (beyond, the edges would blacken the chart).
OUTLINED_LIMIT = 3_000
EDGE_COLOUR, EDGE_WIDTH = "0.15", 0.4
#: Job ids written in their bars on runs of up to this many jobs (where the text fits).
JOB_ID_LIMIT = 200
JOB_ID_SIZE = 6
LEGEND_COLUMNS = 6
#: Room above the highest value of a time series, for the legends.
HEADROOM = 1.22
#: Lines between nodes up to this many nodes (more would grey the chart out).
SEPARATED_NODES = 200
WIDTH = 10.0
#: The plot area's left and right margins (inches) in every figure of a run: room for node
#: names, the power figure's energy axis and a colour bar.
MARGINS = (1.4, 1.05)
#: The legend's names of the Gantt chart's reservations, node failures and killed jobs.
RESERVED_LABEL = "reserved / unavailable"
FAILED_LABEL = "node failed"
#: Their colours on the aggregate view.
RESERVED_RGB, FAILED_RGB = (0.55, 0.55, 0.55), (0.85, 0.1, 0.1)
KILLED_LABEL = "killed"
REQUEUED_LABEL = "attempt killed by a node failure (requeued)"
#: How opaque a killed attempt's bar is (its job's colour, lighter).
ATTEMPT_ALPHA = 0.35


def gantt(run: RunData, options: GanttOptions = GanttOptions()) -> Any:
    """Each job a bar over the core ids it held, from its start to its end (or the end of
    the window, lighter, for a job still running), coloured by ``options.colour_by``,
    outlined on charts of up to :data:`OUTLINED_LIMIT` bars, its id written in it on runs of
    up to :data:`JOB_ID_LIMIT` jobs where it fits, a killed job outlined black, an attempt a
    failure killed and requeued lighter in its job's colour, outlined dashed; the
    platform's reservations hatched grey (:mod:`~hetsched.report.reserved` says on which
    ids), node failures cross-hatched red over the whole node; nodes separated by lines. Above
    :data:`DETAILED_LIMIT` bars (``view`` ``auto``, no window) the aggregate view instead:
    busy cores per node group over time (:mod:`~hetsched.report.gantt_heatmap`)."""
    plt = pyplot()
    view = _view(run, options.window)
    scale, unit = time_unit(view[1] - view[0])
    height = min(9.0, 3.0 + 0.02 * float(run.slots.sum()) ** 0.5 * 10)
    fig, ax = plt.subplots(figsize=(WIDTH, height))
    if options.view == "aggregate" or (options.view == "auto" and options.window is None
                                       and len(run.ranges) > DETAILED_LIMIT):
        chart = _aggregate(ax, run, view, scale)
    else:
        chart = _detailed(ax, run, view, scale, options)
    x0, x1 = ((t - run.window[0]) / scale for t in view)
    ax.set_xlim(x0, x1 if x1 > x0 else x0 + 1)
    _time_axis(ax, unit, x0, None if options.window is None else options.window[0])
    if chart.scale is not None:
        _colour_bar(ax, chart)
    _gantt_title(ax, chart)
    _lay_out(fig)
    k = thin_labels(ax, chart.label_at, chart.labels, ax.get_ylim()[1])
    ax.set_ylabel(y_label(chart.what, chart.detail, k, len(chart.labels)))
    _lay_out(fig)
    if chart.job_ids is not None:
        _job_ids(ax, *chart.job_ids)
    return fig


@dataclass
class _Chart:
    """What :func:`gantt` finishes a view with: its title and legend entries, its colour scale
    (a colorbar), the y axis' labels and what they name, the bars to write job ids in."""

    title: str
    what: str
    detail: str
    label_at: np.ndarray
    labels: Sequence[str]
    legend: list[tuple[str, Any]] = field(default_factory=list)
    scale: Any = None
    scale_label: str = ""
    scale_unit: str = ""
    job_ids: tuple[list[str], np.ndarray, np.ndarray] | None = None


def _time_axis(ax: Any, unit: str, x0: float, start: float | None) -> None:
    """The time axis from the run's start, or, for a window starting ``start`` s into the
    run, from the window's start (``2.4 k`` h and ``2.405 k`` h would hide a day in the
    ticks' third digit); the label says where the window lies."""
    from matplotlib.ticker import EngFormatter, FuncFormatter

    format_axis(ax.xaxis, "")
    if not start:
        ax.set_xlabel(f"time ({unit})")
        return
    eng = EngFormatter(unit="")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, pos: eng(x - x0, pos)))
    ax.set_xlabel(f"time ({unit}) from {fmt_seconds(start)} after the run's start")


def _view(run: RunData, window: tuple[float, float] | None) -> tuple[float, float]:
    """The times drawn (absolute seconds): the run's window, or ``window`` from its start."""
    if window is None:
        return run.window
    if window[0] >= run.window[1] - run.window[0]:
        raise ConfigError(f"the Gantt chart's window starts at {window[0]:g} s, after the "
                          f"run's end ({run.window[1] - run.window[0]:g} s from its start)")
    return run.window[0] + window[0], run.window[0] + window[1]


def _detailed(ax: Any, run: RunData, view: tuple[float, float], scale: float,
              options: GanttOptions) -> _Chart:
    """The jobs' bars over ``view`` (the jobs overlapping it, clipped), the killed jobs, the
    reservations and the failures on ``ax``."""
    from matplotlib.collections import PolyCollection

    job, lo, hi = run.ranges.T if len(run.ranges) else (np.zeros(0, int),) * 3
    running = np.isnan(run.end[job])
    end = np.where(running, run.window[1], run.end[job])
    shown = (np.ones(len(job), bool) if options.window is None
             else (run.start[job] < view[1]) & (end > view[0]))
    job, lo, hi, running = job[shown], lo[shown], hi[shown], running[shown]
    verts = _boxes(run, scale, np.maximum(run.start[job], view[0]),
                   np.minimum(end[shown], view[1]), lo, hi)
    tried = _overlapping(run.attempts[:, 1:], view)  # the killed attempts in the view
    which = run.attempts[tried, 0].astype(np.intp)
    colouring = job_colours(run, options.colour_by, np.concatenate([job, which]))
    colours = colouring.colours[job]
    colours[running, 3] = 0.45
    outlined = len(verts) <= OUTLINED_LIMIT
    ax.add_collection(PolyCollection(verts, facecolors=colours, edgecolors=EDGE_COLOUR,
                                     linewidths=EDGE_WIDTH if outlined else 0,
                                     rasterized=True))
    killed = run.killed[job] if len(run.killed) else np.zeros(len(job), bool)
    if killed.any():
        ax.add_collection(PolyCollection(verts[killed], facecolors="none", edgecolors="black",
                                         linewidths=0.9, zorder=4, label=KILLED_LABEL))
    attempts = _clipped(run.attempts[:, 1:], view)
    tried_verts = _boxes(run, scale, *attempts.T)
    faded = colouring.colours[which]
    faded[:, 3] = ATTEMPT_ALPHA
    if len(attempts):  # in their job's colour, lighter, outlined dashed
        ax.add_collection(PolyCollection(
            tried_verts, facecolors=faded, edgecolors="black", linewidths=0.9,
            linestyles=(0, (2, 1.5)), zorder=4, label=REQUEUED_LABEL))
    blocks = _clipped(reserved_blocks(run), view)
    if len(blocks):
        ax.add_collection(PolyCollection(
            _boxes(run, scale, *blocks.T), facecolors=(0.5, 0.5, 0.5, 0.3), edgecolors="0.3",
            linewidths=0, hatch="////", zorder=3, label=RESERVED_LABEL))
    failed = _clipped(failed_blocks(run), view)
    if len(failed):
        ax.add_collection(PolyCollection(
            _boxes(run, scale, *failed.T), facecolors=(*FAILED_RGB, 0.25),
            edgecolors=(0.7, 0.0, 0.0), linewidths=0, hatch="xxxx", zorder=3,
            label=FAILED_LABEL))
    _node_lines(ax, run)
    jobs = np.unique(np.concatenate([job, which])).size
    ids = run.job_ids if len(run.job_ids) == len(run.start) else \
        tuple(str(i) for i in range(len(run.start)))
    title = f"{run.title}: jobs on cores ({_counted(jobs)} " + \
        ("started)" if options.window is None else "in the window)")
    alone = ~np.isin(which, job)  # attempts of jobs with no bar of their own: ids there
    on_white = faded[alone].copy()  # (as they look: the text's colour follows)
    on_white[:, :3] = ATTEMPT_ALPHA * on_white[:, :3] + 1 - ATTEMPT_ALPHA
    labelled = ([ids[i] for i in [*job.tolist(), *which[alone].tolist()]],
                np.concatenate([verts, tried_verts[alone]]),
                np.concatenate([colours, on_white]))
    return _Chart(title, "node", "core ids", run.offsets + run.slots / 2, run.node_names,
                  colouring.legend, colouring.scale, colouring.label, colouring.unit,
                  labelled if jobs <= JOB_ID_LIMIT else None)


def _aggregate(ax: Any, run: RunData, view: tuple[float, float], scale: float) -> _Chart:
    """The heat map of busy cores per node group over ``view``, the reservations' and the
    failures' share of each row over it (grey, red; in the legend when there are some)."""
    overlays = [(reserved_blocks(run), RESERVED_RGB, RESERVED_LABEL),
                (failed_blocks(run), FAILED_RGB, FAILED_LABEL)]
    image, middles, names, drawn = heat_map(ax, run, view, scale,
                                            [(blocks, rgb) for blocks, rgb, _ in overlays])
    jobs = np.unique(np.concatenate([run.ranges[:, 0], run.attempts[:, 0]])).size
    legend = [(f"{label} (opacity: share of the row)", (*rgb, OVERLAY_ALPHA))
              for (_, rgb, label), shown in zip(overlays, drawn) if shown]
    bars = _counted(len(run.ranges) + len(run.attempts), "bar")
    return _Chart(f"{run.title}: busy cores per node group ({_counted(jobs)} started, "
                  f"{bars}: aggregated)",
                  "node group", "consecutive nodes of one type", middles, names,
                  legend=legend, scale=image, scale_label="busy cores (% of the row's)",
                  scale_unit="fraction")


def _counted(count: int, noun: str = "job") -> str:
    """``1 job``, ``2,500 jobs``: what a Gantt chart's title counts (the jobs with a bar, their
    own or a killed attempt's; the bars)."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def _clipped(blocks: np.ndarray, view: tuple[float, float]) -> np.ndarray:
    """Rows ``(t0, t1, lo, hi)`` overlapping ``view``, their times clipped to it."""
    blocks = blocks[_overlapping(blocks, view)]
    blocks[:, :2] = np.clip(blocks[:, :2], *view)
    return blocks


def _overlapping(blocks: np.ndarray, view: tuple[float, float]) -> np.ndarray:
    """Which rows ``(t0, t1, …)`` of ``blocks`` overlap ``view``."""
    return (blocks[:, 0] < view[1]) & (blocks[:, 1] > view[0])


def _colour_bar(ax: Any, chart: _Chart) -> None:
    """The colour scale's bar right of the plot, ticks 1-2-5 on a logarithmic scale."""
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import LogLocator

    bar = ax.figure.colorbar(chart.scale, cax=ax.inset_axes((1.012, 0.0, 0.018, 1.0)))
    bar.set_label(chart.scale_label, fontsize=8)
    format_axis(bar.ax.yaxis, chart.scale_unit)
    if isinstance(chart.scale.norm, LogNorm):
        bar.ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))


def _gantt_title(ax: Any, chart: _Chart) -> None:
    """The title; with a legend (categories, kills, reservations, failures), the title at the
    figure's left and the legend under it, above the plot (as the time series')."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    handles = [Patch(facecolor=colour, edgecolor=EDGE_COLOUR, linewidth=EDGE_WIDTH)
               for _, colour in chart.legend] + handles
    labels = [name for name, _ in chart.legend] + labels
    if not handles:
        ax.set_title(chart.title, fontsize=10)
        return
    ax.figure.suptitle(chart.title, fontsize=10, x=0.01, ha="left")
    ax.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8,
              ncol=min(len(labels), LEGEND_COLUMNS), frameon=False, borderaxespad=0.2)


def _job_ids(ax: Any, ids: list[str], verts: np.ndarray, colours: np.ndarray) -> None:
    """Each job's id in the middle of its widest bar, where the text fits (in points, from
    the axes' final size), black or white against the bar's colour."""
    box = ax.get_window_extent()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    per_point = 72 / ax.figure.dpi
    width = np.ptp(verts[:, :, 0], axis=1) * box.width * per_point / (x1 - x0)
    height = np.ptp(verts[:, :, 1], axis=1) * box.height * per_point / (y1 - y0)
    fits = ((width >= np.array([len(i) for i in ids]) * 0.62 * JOB_ID_SIZE + 2)
            & (height >= 1.2 * JOB_ID_SIZE))
    best: dict[str, int] = {}
    for i in np.flatnonzero(fits).tolist():
        if ids[i] not in best or width[i] > width[best[ids[i]]]:
            best[ids[i]] = i
    for name, i in best.items():
        dark = colours[i, :3] @ (0.299, 0.587, 0.114) < 0.5
        ax.text(verts[i, :, 0].mean(), verts[i, :, 1].mean(), name, ha="center", va="center",
                fontsize=JOB_ID_SIZE, color="white" if dark else "black", clip_on=True,
                zorder=5)


def _boxes(run: RunData, scale: float, t0: np.ndarray, t1: np.ndarray, lo: np.ndarray,
           hi: np.ndarray) -> np.ndarray:
    """The rectangles ``[t0, t1) × [lo, hi)`` as vertices, time from the window's start in
    the axis' unit."""
    x0, x1 = (t0 - run.window[0]) / scale, (t1 - run.window[0]) / scale
    return np.stack([np.stack(p, axis=-1) for p in ((x0, lo), (x0, hi), (x1, hi), (x1, lo))],
                    axis=1).astype(float)


def _node_lines(ax: Any, run: RunData) -> None:
    """Core ids upwards, a line between nodes (up to :data:`SEPARATED_NODES`)."""
    offsets = run.offsets
    ax.set_ylim(0, int(run.slots.sum()))
    if 1 < len(offsets) <= SEPARATED_NODES:
        ax.hlines(offsets[1:], 0, 1, colors="0.6", linewidths=0.4,
                  transform=ax.get_yaxis_transform())


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
    _lay_out(axes[0].figure)


def _lay_out(fig: Any) -> None:
    """Tight vertically; horizontally, the plot area between the same margins in every figure
    of a run (:data:`MARGINS`), so that their time axes line up when shown one above the
    other (the report's page, docs); a wider margin only where the labels need more."""
    fig.tight_layout()
    width = fig.get_size_inches()[0]
    tight = fig.subplotpars
    fig.subplots_adjust(left=max(tight.left, MARGINS[0] / width),
                        right=min(tight.right, 1 - MARGINS[1] / width))


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


def write_run_figures(run: RunData, out_dir: str | Path, fmt: str = "png",
                      gantt_options: GanttOptions = GanttOptions()) -> list[Path]:
    """Every figure of ``run`` as ``<out_dir>/<name>.<fmt>`` (``png`` or ``svg``), the Gantt
    chart as ``gantt_options`` ask."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    draws = {**FIGURES, "gantt": partial(gantt, options=gantt_options)}
    return [save(draw(run), out / f"{name}.{fmt}", fmt) for name, draw in draws.items()]
