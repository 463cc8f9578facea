"""Figure axes through matplotlib's API: units with SI prefixes, the catalogue's labels, no
offset texts, whole-number counts, utilisation up to 100 % with its time average, titles
naming the workload and platform (issue 26)."""

import json
import shutil

import numpy as np
import pandas
import pytest
from matplotlib.ticker import EngFormatter, PercentFormatter

import hetsched
from hetsched.report.mpl import axis_label
from hetsched.report.overlay import identical, overlay
from hetsched.report.run_data import RunData, from_result, read_run_dir
from hetsched.report.run_figures import FIGURES, jobs_over_time, power_energy, utilisation


def test_axis_labels_come_from_the_catalogue():
    assert axis_label("energy_j") == "energy (J)"
    assert axis_label("utilisation") == "utilisation (%)"
    assert axis_label("makespan") == "makespan (s)"
    assert axis_label("edp_js") == "EDP (J·s)"
    assert axis_label("busy_core_seconds") == "busy core·s"
    assert axis_label("finished") == "jobs finished"


def test_power_and_energy_are_in_watts_and_joules_with_si_prefixes(easy_run_dir):
    fig = power_energy(read_run_dir(easy_run_dir))
    power, energy = fig.axes
    assert isinstance(power.yaxis.get_major_formatter(), EngFormatter)
    assert power.yaxis.get_major_formatter().unit == "W"
    assert isinstance(energy.yaxis.get_major_formatter(), EngFormatter)
    assert energy.yaxis.get_major_formatter().unit == "J"
    assert energy.get_ylabel() == "energy (J)"
    texts = [t.get_text() for t in power.get_legend().get_texts()]
    assert texts[-1].startswith("cumulative energy (") and texts[-1].endswith(" MJ)")
    assert not any("kWh" in t for t in texts)


def test_utilisation_stops_at_100_percent_and_draws_its_time_average(easy_run_dir):
    ax = utilisation(read_run_dir(easy_run_dir)).axes[0]
    assert isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)
    assert ax.get_ylim() == (0.0, 1.0)
    mean = json.loads((easy_run_dir / "summary.json").read_text())["metrics"]["utilisation"]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_ydata()[0] == pytest.approx(mean, rel=1e-9)
    assert dashed[0].get_label() == f"time average ({mean:.1%})"
    assert ax.get_ylabel() == "utilisation (%)"


def test_job_counts_have_whole_number_ticks(easy_run_dir):
    ax = jobs_over_time(read_run_dir(easy_run_dir)).axes[0]
    ax.figure.canvas.draw()
    ticks = ax.get_yticks()
    assert len(ticks) > 2 and np.array_equal(ticks, np.round(ticks))


def test_no_axis_draws_an_offset_text_even_for_huge_values(easy_run_dir):
    run = read_run_dir(easy_run_dir)
    huge = RunData(**{**run.__dict__, "power_w": run.power_w * 1e12,
                      "running": run.running + 10**9, "queued": run.queued + 10**9})
    for name, draw in FIGURES.items():
        fig = draw(huge)
        fig.canvas.draw()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                assert axis.get_offset_text().get_text() == "", (name, axis)


def test_titles_name_the_workload_and_the_platform_once_each(easy_run_dir, tmp_path):
    title = read_run_dir(easy_run_dir).title
    assert title == "easy · default_workload on default_platform · seed 0"
    assert jobs_over_time(read_run_dir(easy_run_dir)).get_suptitle().startswith(title)
    copy = shutil.copytree(easy_run_dir, tmp_path / "easy")
    summary = json.loads((copy / "summary.json").read_text())
    summary["inputs"] = {"platform": {"path": None}, "workload": {"path": None}}
    (copy / "summary.json").write_text(json.dumps(summary))
    assert read_run_dir(copy).title == "easy · easy · seed 0"  # in-memory: the folder's name


def test_overlaid_runs_differ_in_line_style_and_equal_ones_say_so():
    runs = {name: from_result(hetsched.simulate(None, None, name).result, name)
            for name in ("fcfs", "easy")}
    runs["fcfs again"] = runs["fcfs"]
    assert identical(runs) == {"fcfs again": "fcfs"}
    fig = overlay(runs, title="default_workload on default_platform")
    energy, running, queued = fig.axes
    for ax in fig.axes:
        assert len({line.get_linestyle() for line in ax.get_lines()}) == 3
    texts = [t.get_text() for t in energy.get_legend().get_texts()]
    assert texts[2].startswith("fcfs again (identical to fcfs), ") and texts[2].endswith(" MJ")
    assert running.get_legend() is None and queued.get_legend() is None  # one legend
    assert energy.yaxis.get_major_formatter().unit == "J"
    assert energy.get_ylabel() == "cumulative energy (J)"
    fig.canvas.draw()
    for ax in (running, queued):
        ticks = ax.get_yticks()
        assert np.array_equal(ticks, np.round(ticks))


def test_box_plots_use_the_catalogues_labels_and_si_prefixes():
    from hetsched.experiments.node_centric import STUDY
    from hetsched.report.box_plots import box_plots

    frame = pandas.DataFrame({"scheduler": ["a", "a", "b", "b"], "energy": [4e9, 5e9, 6e9, 7e9],
                              "edp": [2e16, 3e16, 4e16, 5e16], "makespan": [1e5, 2e5, 3e5, 4e5]})
    fig = box_plots(frame, ["energy", "edp", "makespan"], catalogue=STUDY.catalogue)
    fig.canvas.draw()
    energy, edp, makespan = fig.axes[:3]
    assert energy.get_title() == "energy (J), lower is better"
    assert edp.get_title() == "EDP (J·s), lower is better"
    assert [ax.yaxis.get_major_formatter().unit for ax in (energy, edp, makespan)] == [
        "J", "J·s", "s"]
    assert all(ax.yaxis.get_offset_text().get_text() == "" for ax in fig.axes)


def test_box_plots_title_says_which_box_is_the_baseline():
    from hetsched.report.box_plots import box_plots

    frame = pandas.DataFrame({"scheduler": ["a", "a", "b", "b"], "makespan": [1.0, 2, 3, 4]})
    with_baseline = box_plots(frame, ["makespan"], baseline="b", title="w on p")
    assert with_baseline._suptitle.get_text() == "w on p · b's box orange (the baseline)"
    faces = [patch.get_facecolor()[:3] for patch in with_baseline.axes[0].patches]
    assert faces[1] != faces[0]  # b's box is the orange one
    absent = box_plots(frame, ["makespan"], baseline="c", title="w on p")
    assert absent._suptitle.get_text() == "w on p"


def test_a_reports_box_plots_name_the_workload_and_platform():
    from hetsched.report.sweep_report import _subject

    one = pandas.DataFrame({"workload": ["ex", "ex"], "split": ["50 jobs"] * 2,
                            "platform": ["p8", "p8"]})
    assert _subject(one) == "ex (50 jobs) on p8"
    two = pandas.DataFrame({"workload": ["ex", "kit"], "split": ["a", "b"],
                            "platform": ["p8", "p8"]})
    assert _subject(two) == "2 workloads on p8"
