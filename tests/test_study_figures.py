"""The studies' figures through matplotlib's API: units by the one helper (``format_axis``),
the catalogue's labels, titles saying what ran, no offset texts (issue 26)."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import pandas
import pytest
from matplotlib.ticker import EngFormatter, PercentFormatter

from hetsched.experiments.node_centric import PAPER
from hetsched.experiments.node_centric_sensitivity import FIGURE_POWER, sensitivity_figure
from hetsched.report.averages import averages_figure
from hetsched.report.bars import makespans_by_servers, metric_bars


@pytest.fixture
def saved(monkeypatch):
    """The figures the functions save, kept open for inspection (instead of closed)."""
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    yield figures
    monkeypatch.undo()
    for fig in figures:
        plt.close(fig)


def _no_offset_texts(fig):
    fig.canvas.draw()
    return all(axis.get_offset_text().get_text() == ""
               for ax in fig.axes for axis in (ax.xaxis, ax.yaxis))


def test_the_sensitivity_figure_gives_changes_in_percent_under_the_catalogues_labels():
    rows = [{**FIGURE_POWER, "clock_spread": spread, "cores": cores, "batching": batching,
             "scheduler": candidate, "metric": metric, "change_pct": change}
            for (candidate, metrics), spread, cores, batching in itertools.product(
                PAPER.items(), (1.45, 2.0), (64, 128), ("instant", "daily"))
            for metric, change in metrics.items()]
    fig = sensitivity_figure(pandas.DataFrame(rows), FIGURE_POWER, "title")
    titles = [ax.get_title() for ax in fig.axes]
    assert "high_gflops: mean het. slowdown" in titles and "low_power: mean wait" in titles
    for ax in fig.axes:
        formatter = ax.yaxis.get_major_formatter()
        assert isinstance(formatter, PercentFormatter) and formatter.xmax == 100.0
        assert ax.get_legend() is None  # one legend for the figure, below the panels
    assert fig.axes[0].get_ylabel() == "change against the baselines"
    assert len(fig.legends) == 1
    assert _no_offset_texts(fig)
    plt.close(fig)


def test_the_bar_charts_name_what_ran_and_give_seconds_with_si_prefixes(saved, tmp_path):
    rows = [{"level": level, "scheduler": name, "makespan": 1.2e7, "makespan_std": 1e6,
             "mean_slowdown": 3.0, "mean_slowdown_std": 0.5}
            for level in ("low", "high") for name in ("fcfs", "min_min")]
    metric_bars(rows, ["low", "high"], ["makespan", "mean_slowdown"],
                {"makespan": "makespan (s)"}, tmp_path / "bars.png", title="512 jobs on 16 nodes")
    fig = saved[0]
    assert fig.get_suptitle() == "512 jobs on 16 nodes"
    makespan = fig.axes[0]
    assert isinstance(makespan.yaxis.get_major_formatter(), EngFormatter)
    assert makespan.yaxis.get_major_formatter().unit == "s"
    assert _no_offset_texts(fig)
    assert (tmp_path / "bars.png").stat().st_size > 0


def test_the_averages_figure_formats_its_value_axes_with_si_prefixes(saved, tmp_path):
    rows = [{"algorithm": "first_fit", "start": 2.5e6}, {"algorithm": "max_q", "start": 4e6}]
    averages_figure(rows, "algorithm", {"start": "average start (time units)"},
                    tmp_path / "windows.png", "title")
    ax = saved[0].axes[0]
    assert isinstance(ax.yaxis.get_major_formatter(), EngFormatter)
    assert ax.get_ylabel() == "average start (time units)"
    assert _no_offset_texts(saved[0])


def test_the_deside_bars_name_what_ran_and_keep_the_legend_above_the_data(saved, tmp_path):
    rows = [{"dag": "DAG-1", "servers": servers, "scheduler": name, "makespan": 3600.0 * servers}
            for servers in (2, 3) for name in ("slf", "let")]
    makespans_by_servers(rows, tmp_path / "makespan.png", "two DAGs on 56-core servers")
    fig = saved[0]
    assert fig.get_suptitle() == "two DAGs on 56-core servers"
    ax = fig.axes[0]
    assert ax.get_ylabel() == "makespan (h)"
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().y0 >= ax.get_window_extent().y1
    assert _no_offset_texts(fig)
