"""The Gantt chart's options and views: colours by job, size and state (legends, colorbar),
outlined bars, job ids in the bars, node names that never overlap, the aggregate view (a heat
map of busy cores per node group) above a size, a time window, and ``hetsched plot``'s
options and their errors. Read through matplotlib's artists, not pixels."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.collections import PolyCollection
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.report.gantt_colours import MOST_CATEGORIES, OTHER
from hetsched.report.gantt_heatmap import BINS, MAX_ROWS, OVERLAY_ALPHA, busy_share, node_rows
from hetsched.report.gantt_options import DETAILED_LIMIT, GanttOptions
from hetsched.report.node_labels import label_step
from hetsched.report.run_data import RunData, read_run_dir
from hetsched.report.run_figures import (FAILED_LABEL, FAILED_RGB, JOB_ID_LIMIT, KILLED_LABEL,
                                         RESERVED_LABEL, gantt)
from hetsched.report.series import time_unit
from support import assert_one_line_error
from test_gantt_reservations import extents, hand_made
from test_report_run import large_run

runner = CliRunner()


def with_(run: RunData, **changes) -> RunData:
    return RunData(**{**run.__dict__, **changes})


def jobs_of(figure) -> PolyCollection:
    """The jobs' collection: the first one drawn."""
    return figure.axes[0].collections[0]


def legend_texts(figure) -> list[str]:
    return [t.get_text() for t in figure.axes[0].get_legend().get_texts()]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_state_colours_follow_the_legend_and_killed_jobs_stay_outlined():
    run = with_(hand_made(killed=True),
                states=("COMPLETED_WALLTIME_REACHED", "COMPLETED_SUCCESSFULLY"))
    figure = gantt(run, GanttOptions(colour_by="state"))
    assert legend_texts(figure) == ["finished", "killed at its walltime", KILLED_LABEL,
                                    RESERVED_LABEL]
    patches = figure.axes[0].get_legend().get_patches()
    faces = jobs_of(figure).get_facecolors()  # job 0 (killed), then job 1 (finished)
    assert np.allclose(faces[1], patches[0].get_facecolor())
    assert np.allclose(faces[0], patches[1].get_facecolor())
    assert not np.allclose(faces[0], faces[1])


def test_categories_beyond_the_most_fold_into_other():
    jobs = 20
    states = tuple(f"STATE_{i:02d}" for i in range(jobs))
    run = RunData("many", (0.0, 100.0), ("a",), np.array([jobs]), jobs,
                  np.zeros(jobs), np.zeros(jobs), np.full(jobs, 100.0),
                  np.stack([np.arange(jobs), np.arange(jobs), np.arange(jobs) + 1], axis=1),
                  np.array([0.0]), np.array([0.0]), np.array([0.0]), np.array([0.0]),
                  np.zeros(0), states=states)
    figure = gantt(run, GanttOptions(colour_by="state"))
    texts = legend_texts(figure)
    assert len(texts) == MOST_CATEGORIES and texts[-1] == OTHER
    assert texts[:-1] == [f"state_{i:02d}" for i in range(MOST_CATEGORIES - 1)]  # ties by name
    faces = jobs_of(figure).get_facecolors()
    assert len({tuple(face) for face in faces.round(6)}) == MOST_CATEGORIES
    assert np.allclose(faces[MOST_CATEGORIES - 1:], faces[-1])  # all "other"


def test_size_colours_come_from_the_colorbar():
    run = with_(hand_made(), size=np.array([4.0, 40.0]))
    figure = gantt(run, GanttOptions(colour_by="size"))
    bar = figure.axes[0].child_axes[0]  # the colorbar's axes, beside the plot
    assert "tasks requested" in bar.get_ylabel()
    assert legend_texts(figure) == [RESERVED_LABEL]  # no categories
    faces = jobs_of(figure).get_facecolors()
    # from 4 to 40 tasks: the smallest job gets the colormap's bottom, the largest its top
    assert np.allclose(faces[0], colormaps["viridis"](0.0))
    assert np.allclose(faces[1], colormaps["viridis"](1.0))
    ticks = [t.get_text() for t in bar.get_yticklabels()]
    assert "10" in ticks and "20" in ticks  # 1-2-5 ticks on the logarithmic scale


def test_a_run_without_sizes_or_states_says_so_in_one_line():
    for colour_by in ("size", "state"):
        with pytest.raises(hetsched.errors.ConfigError, match=f"colour by {colour_by}"):
            gantt(hand_made(), GanttOptions(colour_by=colour_by))


def test_bars_are_outlined_on_small_charts_only():
    small = jobs_of(gantt(hand_made()))
    assert small.get_linewidths()[0] > 0
    big = jobs_of(gantt(large_run(nodes=100, jobs=5_000)))
    assert big.get_linewidths()[0] == 0


def test_job_ids_are_written_in_bars_that_fit_on_small_runs_only(easy_run_dir):
    run = read_run_dir(easy_run_dir)
    assert len(run.start) <= JOB_ID_LIMIT
    figure = gantt(run)
    ax = figure.axes[0]
    texts = {t.get_text(): t.get_position() for t in ax.texts}
    assert len(texts) == len(ax.texts) > 10 and set(texts) <= set(run.job_ids)
    scale, _ = time_unit(run.window[1] - run.window[0])
    for name, (x, y) in texts.items():  # each in the middle of one of its job's bars
        index = run.job_ids.index(name)
        t0, t1 = ((t - run.window[0]) / scale for t in (run.start[index], run.end[index]))
        assert t0 < x < t1
        assert any(lo < y < hi for _, lo, hi in run.ranges[run.ranges[:, 0] == index])
    tiny = [i for i in range(len(run.start)) if run.end[i] - run.start[i] < 60]
    assert tiny and not {run.job_ids[i] for i in tiny} & set(texts)  # no room in a sliver
    assert not gantt(large_run(nodes=100, jobs=1_000)).axes[0].texts


@pytest.mark.parametrize("nodes, cores", [(3, 8), (40, 4), (300, 16), (1173, 20)])
def test_visible_node_names_never_overlap(nodes, cores):
    rng = np.random.default_rng(nodes)
    slots = rng.integers(1, cores + 1, nodes) if nodes > 3 else np.full(nodes, cores)
    run = RunData("nodes", (0.0, 100.0), tuple(f"node-{i}" for i in range(nodes)), slots,
                  int(slots.sum()), np.zeros(1), np.zeros(1), np.full(1, 50.0),
                  np.array([[0, 0, 1]]), np.array([0.0]), np.array([0.0]), np.array([0.0]),
                  np.array([0.0]), np.zeros(0))
    figure = gantt(run)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = sorted((label.get_window_extent(renderer) for label in
                    figure.axes[0].get_yticklabels() if label.get_visible()
                    and label.get_text()), key=lambda box: box.y0)
    assert boxes
    assert all(lower.y1 <= upper.y0 for lower, upper in zip(boxes, boxes[1:]))
    label = figure.axes[0].get_ylabel()
    assert label.startswith("node (core ids") and (len(boxes) == nodes) == ("named" not in label)


def test_the_label_step_is_the_smallest_that_leaves_room():
    positions = np.arange(10) * 5.0  # 5 units apart; a label needs 1.4 × 10 pt = 14 pt
    assert label_step(positions, 50.0, 200.0, 10) == 1  # 5 units = 20 pt
    assert label_step(positions, 50.0, 100.0, 10) == 2  # 10 pt apart: every 2nd (20 pt)
    assert label_step(positions, 50.0, 30.0, 10) == 5  # 3 pt apart: every 5th (15 pt)


def test_the_aggregate_view_above_the_limit_is_an_image_and_no_bars():
    run = large_run(nodes=200, jobs=DETAILED_LIMIT + 1)
    ax = gantt(run).axes[0]
    assert len(ax.images) == 1
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert not ax.texts
    share = ax.images[0].get_array()  # (the random jobs overlap: shares above 1 too)
    assert share.shape[0] <= MAX_ROWS and share.min() >= 0 and share.max() > 0
    detailed = gantt(run, GanttOptions(view="detailed")).axes[0]
    assert not detailed.images and len(detailed.collections[0].get_paths()) == len(run.ranges)
    forced = gantt(hand_made(), GanttOptions(view="aggregate")).axes[0]
    assert len(forced.images) == 2  # (and hand_made's reservations over it)


def test_the_aggregate_view_shows_reservations_and_failures_as_shares_of_rows():
    # hand_made: node a (8 slots) has 4 reserved over [50, 150), b (4 slots) all from 180; a
    # failure of a over [20, 40). One row per node; opacity OVERLAY_ALPHA x the share taken.
    run = with_(hand_made(), failures=np.array([[0, 20.0, 40.0]]))
    figure = gantt(run, GanttOptions(view="aggregate"))
    ax = figure.axes[0]
    busy, reserved, failed = (image.get_array() for image in ax.images)
    assert reserved.shape == failed.shape == (2, BINS, 4)
    at = {t: int(t / 200.0 * BINS) for t in (10.0, 30.0, 100.0, 190.0)}
    alpha = OVERLAY_ALPHA
    assert reserved[0, at[100.0], 3] == pytest.approx(0.5 * alpha)
    assert reserved[1, at[190.0], 3] == pytest.approx(alpha)
    assert reserved[0, at[10.0], 3] == reserved[1, at[100.0], 3] == 0.0
    assert failed[0, at[30.0], 3] == pytest.approx(alpha) and failed[1, at[30.0], 3] == 0.0
    assert tuple(failed[0, at[30.0], :3]) == FAILED_RGB
    assert busy[0, at[10.0]] == pytest.approx(0.5)  # (job 0: 4 of a's 8 ids)
    texts = legend_texts(figure)
    assert any(t.startswith(RESERVED_LABEL) for t in texts)
    assert any(t.startswith(FAILED_LABEL) for t in texts)
    plain = gantt(with_(run, reservations=np.zeros((0, 4)), failures=np.zeros((0, 3))),
                  GanttOptions(view="aggregate"))
    assert len(plain.axes[0].images) == 1 and plain.axes[0].get_legend() is None


def test_busy_shares_by_hand():
    # hand_made: node a (ids 0-7), b (8-11), no types: one group, one row per node. A third
    # job holds ids 6-9 (both nodes) over [150, 200). Bins of 50 s over [0, 200):
    # row a: job 0 holds 4 of 8 over [0, 100) -> 0.5, 0.5; the third 2 of 8 -> 0.25 in bin 3
    # row b: job 1 holds 2 of 4 over [20, 60) -> 30 s·2/(50 s·4) = 0.3, then 0.1; the third
    # 2 of 4 -> 0.5 in bin 3
    run = hand_made()
    run = with_(run, start=np.array([0.0, 20.0, 150.0]), end=np.array([100.0, 60.0, 200.0]),
                ranges=np.array([[0, 2, 6], [1, 8, 10], [2, 6, 10]]))
    rows, groups, names = node_rows(run)
    assert rows.tolist() == [0, 1, 2] and groups.tolist() == [0, 2]
    assert names == ["nodes (2 nodes)"]
    share = busy_share(run, rows, run.window, bins=4)
    assert np.allclose(share, [[0.5, 0.5, 0.0, 0.25], [0.3, 0.1, 0.0, 0.5]])


def test_node_groups_follow_the_types_within_the_row_limit():
    types = ("thin",) * 384 * 3 + ("fat",) * 21
    run = with_(large_run(nodes=len(types), jobs=10), node_types=types)
    rows, groups, names = node_rows(run)
    assert len(rows) - 1 <= MAX_ROWS and rows[0] == 0 and rows[-1] == len(types)
    assert names == ["thin (1,152 nodes)", "fat (21 nodes)"]
    assert rows[groups[1]] == 1152  # a row never mixes the two types


def test_the_aggregate_holds_the_jobs_busy_core_seconds(easy_run_dir):
    run = read_run_dir(easy_run_dir)
    rows, _, _ = node_rows(run)
    share = busy_share(run, rows, run.window, bins=37)
    bounds = np.append(run.offsets, run.slots.sum())[rows]
    total = (share * np.diff(bounds)[:, None]).sum() * (run.window[1] - run.window[0]) / 37
    job, lo, hi = run.ranges.T
    assert total == pytest.approx(((run.end[job] - run.start[job]) * (hi - lo)).sum())


def test_a_window_draws_the_jobs_overlapping_it_clipped():
    run = hand_made()  # job 0 over [0, 100), job 1 over [20, 60); reserved from 50
    figure = gantt(run, GanttOptions(window=(30.0, 80.0)))
    assert extents(jobs_of(figure)) == [(30, 60, 8, 10), (30, 80, 2, 6)]
    reserved = [c for c in figure.axes[0].collections if c.get_label() == RESERVED_LABEL]
    assert extents(reserved[0]) == [(50, 80, 0, 2), (50, 80, 6, 8)]
    assert figure.axes[0].get_xlim() == (30.0, 80.0)
    later = gantt(run, GanttOptions(window=(70.0, 90.0)))
    assert extents(jobs_of(later)) == [(70, 90, 2, 6)]  # job 1 ended before: left out


def test_a_window_of_a_big_run_is_detailed():
    run = large_run(nodes=200, jobs=DETAILED_LIMIT + 1)
    ax = gantt(run, GanttOptions(window=(3600.0, 7200.0))).axes[0]
    assert not ax.images
    x0, x1 = ax.get_xlim()
    for path in ax.collections[0].get_paths():
        assert x0 - 1e-9 <= path.vertices[:, 0].min() <= path.vertices[:, 0].max() <= x1 + 1e-9
    # the ticks count from the window's start; the label says where it lies in the run
    assert ax.get_xlabel() == "time (min) from 60.0 min after the run's start"
    formatter = ax.xaxis.get_major_formatter()
    assert [formatter(x, 0) for x in (x0, (x0 + x1) / 2)] == ["0", "30"]


def test_plot_takes_the_gantt_options(easy_run_dir, tmp_path):
    for args in (["--colour-by", "state"], ["--color-by", "SIZE"], ["--gantt", "aggregate"],
                 ["--gantt-window", "600:1800.5"]):
        result = runner.invoke(app, ["plot", str(easy_run_dir), "--out", str(tmp_path), "-q",
                                     *args])
        assert result.exit_code == 0, result.output
        assert (tmp_path / "gantt.png").stat().st_size > 10_000
    help_text = runner.invoke(app, ["plot", "--help"]).output
    for choice in ("--colour-by", "job", "size", "state", "--gantt", "aggregate", "auto",
                   "--gantt-window"):
        assert choice in help_text


@pytest.mark.parametrize("args, fragment", [
    (["--colour-by", "user"], "user"),
    (["--gantt", "heat"], "heat"),
    (["--gantt-window", "10"], "START:END"),
    (["--gantt-window", "20:10"], "START < END"),
    (["--gantt-window", "-5:10"], "START < END"),
    (["--gantt-window", "a:b"], "START:END"),
    (["--gantt-window", "1e9:2e9"], "after the run's end"),
])
def test_bad_gantt_options_are_one_line_errors(easy_run_dir, tmp_path, args, fragment):
    assert_one_line_error(runner.invoke(app, ["plot", str(easy_run_dir), "--out",
                                              str(tmp_path), *args]), fragment)


def test_a_runs_figures_share_their_time_axis_position(easy_run_dir):
    from hetsched.report.run_figures import FIGURES

    run = read_run_dir(easy_run_dir)
    figures = [*(draw(run) for draw in FIGURES.values()),
               gantt(run, GanttOptions(colour_by="size")),  # with a colour bar
               gantt(run, GanttOptions(view="aggregate"))]
    spans = []
    for figure in figures:
        figure.canvas.draw()
        box = figure.axes[0].get_position()
        spans.append((round(box.x0, 6), round(box.x1, 6)))
    assert len(set(spans)) == 1, spans  # stacked in a report, their time axes line up


def test_started_ahead_flags_jobs_that_overtook_an_earlier_submission():
    from hetsched.report.gantt_colours import started_ahead

    submit = np.array([0.0, 10.0, 10.0, 20.0, 30.0])
    start = np.array([50.0, 5.0 + 10, 60.0, 40.0, np.nan])
    # job 1 (submitted 10) starts at 15, before job 0 (submitted 0, starts 50): ahead;
    # job 2 ties job 1's submission and starts after every earlier job: in order;
    # job 3 starts at 40 before jobs 0 and 2: ahead; job 4 never started: not drawn, not ahead
    assert started_ahead(submit, start).tolist() == [False, True, False, True, False]
    assert started_ahead(np.zeros(0), np.zeros(0)).tolist() == []


def test_decision_colours_show_no_backfilling_under_fcfs_and_some_under_easy(tmp_path):
    from hetsched.report.gantt_colours import AHEAD, IN_ORDER

    texts = {}
    for scheduler in ("fcfs", "easy"):
        result = runner.invoke(app, ["run", "-s", scheduler, "--out", str(tmp_path / scheduler),
                                     "-q"])
        assert result.exit_code == 0, result.output
        figure = gantt(read_run_dir(tmp_path / scheduler), GanttOptions(colour_by="decision"))
        texts[scheduler] = legend_texts(figure)
    assert texts["fcfs"] == [IN_ORDER]
    assert set(texts["easy"]) == {IN_ORDER, AHEAD}


def test_user_and_queue_colours_come_from_the_workload(tmp_path):
    from hetsched.report.gantt_colours import UNKNOWN

    # SWF fields: number submit wait run procs cpu mem req_procs req_time req_mem status
    #             user group exe queue partition preceding think
    rows = ["1 0 -1 100 2 -1 -1 2 200 -1 1 7 -1 -1 1 -1 -1 -1",
            "2 5 -1 100 2 -1 -1 2 200 -1 1 9 -1 -1 2 -1 -1 -1",
            "3 9 -1 100 2 -1 -1 2 200 -1 1 -1 -1 -1 1 -1 -1 -1"]
    trace = tmp_path / "users.swf"
    trace.write_text("\n".join(rows) + "\n")
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "-w", str(trace), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    run = read_run_dir(out)
    assert (run.users, run.queues) == (("7", "9", "-1"), ("1", "2", "1"))
    by_user = legend_texts(gantt(run, GanttOptions(colour_by="user")))
    assert sorted(by_user) == sorted(["user 7", "user 9", UNKNOWN])
    assert sorted(legend_texts(gantt(run, GanttOptions(colour_by="queue")))) == [
        "queue 1", "queue 2"]


def test_colour_by_user_without_users_is_a_one_line_error(easy_run_dir):
    result = runner.invoke(app, ["plot", str(easy_run_dir), "--colour-by", "user", "-q"])
    assert_one_line_error(result, "colour by user: this run names no user")
