"""The Gantt chart's reservations (and downtime) and killed jobs: on which core ids and times
they are drawn, what a run directory keeps of them, and old run directories without them."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.models.speed import SpeedModel
from hetsched.cli.main import app
from hetsched.report.reserved import reserved_blocks
from hetsched.report.run_data import RunData, from_result, read_run_dir
from hetsched.report.run_figures import KILLED_LABEL, RESERVED_LABEL, gantt
from support import assert_mentions, assert_one_line_error, error_of, run_directory, write

runner = CliRunner()

PLATFORM = {
    "name": "reserved",
    "node_types": [{"name": "fast", "cores": 8, "clock_ghz": 3.0, "count": 2},
                   {"name": "shared", "cores": 2, "clock_ghz": 2.0, "oversubscription": 2}],
    "downtime": [{"node": "fast-1", "start": 600, "end": 1500}],
    "reservations": [{"node": "fast-0", "start": 300, "end": 1200, "cores": 4},
                     {"node": "shared-0", "start": 900, "cores": 1}],
}
JOBS = {"jobs": [{"id": f"j{i}", "submit": 30 * i, "ntasks": 1 + i % 6, "run_time": 240 + 60 * i,
                  "req_time": 300 + 60 * i} for i in range(14)]
        + [{"id": "w", "submit": 60, "ntasks": 4, "run_time": 1500, "walltime": 600}]}


def hand_made(killed: bool = False) -> RunData:
    """Node a (8 slots, ids 0-7) and b (4 slots, ids 8-11) over [0, 200) s. Job 0 holds ids
    2-5 over [0, 100); job 1 ids 8-9 over [20, 60). Reservations: 4 slots of a over
    [50, 150), all of b from 180 for good."""
    empty = np.zeros(0)
    return RunData("hand", (0.0, 200.0), ("a", "b"), np.array([8, 4]), 12,
                   np.array([0.0, 20.0]), np.array([0.0, 20.0]), np.array([100.0, 60.0]),
                   np.array([[0, 2, 6], [1, 8, 10]]), np.array([0.0]), np.array([0.0]),
                   np.array([0.0]), np.array([0.0]), empty,
                   np.array([[0, 50.0, 150.0, 4], [1, 180.0, np.inf, 4]]),
                   np.array([killed, False]))


def extents(collection) -> list[tuple[float, float, float, float]]:
    """Each rectangle of a collection as ``(x0, x1, y0, y1)``, sorted."""
    corners = [p.vertices for p in collection.get_paths()]
    return sorted((float(v[:, 0].min()), float(v[:, 0].max()), float(v[:, 1].min()),
                   float(v[:, 1].max())) for v in corners)


def labelled(figure, label):
    (collection,) = [c for c in figure.axes[0].collections if c.get_label() == label]
    return collection


def test_reserved_cores_take_the_highest_ids_no_job_holds():
    # [50, 100): job 0 holds 2-5, so the 4 reserved slots are 6-7 and 0-1; from 100 on, 4-7;
    # node b: 8-11 from 180 to the end of the window (job 1 left at 60)
    assert reserved_blocks(hand_made()).tolist() == [
        [50.0, 100.0, 0, 2], [50.0, 100.0, 6, 8], [100.0, 150.0, 4, 8], [180.0, 200.0, 8, 12]]


def test_the_gantt_chart_draws_reservations_hatched_and_killed_jobs_outlined():
    figure = gantt(hand_made(killed=True))
    reserved = labelled(figure, RESERVED_LABEL)
    assert extents(reserved) == [(50, 100, 0, 2), (50, 100, 6, 8), (100, 150, 4, 8),
                                 (180, 200, 8, 12)]  # seconds: the window is 200 s
    jobs = figure.axes[0].collections[0]
    assert reserved.get_hatch() and reserved.get_zorder() > jobs.get_zorder()
    assert extents(labelled(figure, KILLED_LABEL)) == [(0, 100, 2, 6)]
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == [KILLED_LABEL, RESERVED_LABEL]


def test_a_run_without_reservations_or_kills_has_one_collection_and_no_legend():
    run = hand_made()
    run = RunData(**{**run.__dict__, "reservations": np.zeros((0, 4))})
    figure = gantt(run)
    labels = {c.get_label() for c in figure.axes[0].collections}
    assert not labels & {RESERVED_LABEL, KILLED_LABEL} and figure.axes[0].get_legend() is None


@pytest.fixture(scope="module")
def reserved_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    platform = write(folder / "platform.json", PLATFORM)
    workload = write(folder / "jobs.json", JOBS)
    return hetsched.simulate(str(platform), str(workload), "easy", walltime="kill")


@pytest.fixture
def run_dir(reserved_run, tmp_path):
    return run_directory(reserved_run, tmp_path)


def test_a_run_directory_keeps_the_reservations_and_the_kills(reserved_run, run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["reservations"] == [  # the downtime as the reservation it is
        {"node": "fast-1", "start": 600.0, "end": 1500.0, "cores": 8},
        {"node": "fast-0", "start": 300.0, "end": 1200.0, "cores": 4},
        {"node": "shared-0", "start": 900.0, "end": None, "cores": 1}]
    read, direct = read_run_dir(run_dir), from_result(reserved_run.result, "easy")
    # node, start, end, slots: shared-0's one core is 2 slots (oversubscription 2)
    expected = [[1, 600, 1500, 8], [0, 300, 1200, 4], [2, 900, np.inf, 2]]
    assert read.reservations.tolist() == direct.reservations.tolist() == expected
    states = reserved_run.jobs["final_state"].to_numpy()
    assert (states == "COMPLETED_WALLTIME_REACHED").sum() == 1
    assert read.killed.tolist() == direct.killed.tolist() == list(
        states == "COMPLETED_WALLTIME_REACHED")


def test_no_job_of_a_real_run_is_drawn_over_a_reservation_before_its_reserved_end(
        reserved_run, run_dir):
    """The engine keeps jobs off reserved cores until their reserved ends (start plus
    estimate there); a job slowed past its own by sharing its cores (shared-0 is
    oversubscribed) holds them into the reservation: only then may a block meet a job (on
    that node, the block takes the ids it can)."""
    run = read_run_dir(run_dir)
    blocks = reserved_blocks(run)
    assert len(blocks) >= 3
    result = reserved_run.result
    speed = SpeedModel(result.platform)
    reserved_end = [start + speed.estimate_on(job, [node for node, _ in allocation])
                    for job, start, allocation in zip(result.workload.jobs, result.start,
                                                      result.allocation)]
    nodes = [{node for node, _ in allocation} for allocation in result.allocation]

    def overdue(job: int, t0: float, t1: float) -> bool:
        """Whether a job on ``job``'s nodes runs past its reserved end within [t0, t1)."""
        return any(nodes[k] & nodes[job] and run.start[k] < t1 and run.end[k] > t0
                   and reserved_end[k] < min(t1, run.end[k]) for k in range(len(nodes)))

    met = 0
    for t0, t1, lo, hi in blocks.tolist():
        for job, a, b in run.ranges.tolist():
            if run.start[job] < t1 and run.end[job] > t0 and a < hi and b > lo:
                assert overdue(job, t0, t1), (job, (t0, t1, lo, hi))
                met += 1
    assert met <= 1  # shared-0's, from 900 s
    # each instant, the blocks of a node hold as many ids as its reservations hold slots
    for t in (400.0, 1000.0, 1300.0):
        held = sum(hi - lo for t0, t1, lo, hi in blocks.tolist() if t0 <= t < t1)
        assert held == {400.0: 4, 1000.0: 4 + 8 + 2, 1300.0: 8 + 2}[t]


def test_an_old_run_directory_without_reservations_still_plots(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    del summary["reservations"]
    (run_dir / "summary.json").write_text(json.dumps(summary))
    assert read_run_dir(run_dir).reservations.shape == (0, 4)
    result = runner.invoke(app, ["plot", str(run_dir), "-q"])
    assert result.exit_code == 0, result.output
    assert (run_dir / "gantt.png").stat().st_size > 10_000


@pytest.mark.parametrize("change, fragments", [
    (lambda rs: rs.__setitem__(1, 3), ["reservations[1]", "not an object"]),
    (lambda rs: rs[1].update(node="fast-9"), ["reservations[1], field 'node'", "'fast-9'"]),
    (lambda rs: rs[1].pop("end"), ["reservations[1], field 'end'", "missing"]),
    (lambda rs: rs[1].update(end=300.0), ["reservations[1], field 'end'", "after start"]),
    (lambda rs: rs[0].update(start=-1), ["reservations[0], field 'start'", ">= 0"]),
    (lambda rs: rs[0].update(cores=9), ["reservations[0], field 'cores'", "8 cores", "'9'"]),
])
def test_bad_reservations_in_a_summary_are_one_line_errors(run_dir, change, fragments):
    summary = json.loads((run_dir / "summary.json").read_text())
    change(summary["reservations"])
    (run_dir / "summary.json").write_text(json.dumps(summary))
    assert_mentions(error_of(read_run_dir, run_dir), "summary.json", *fragments)
    assert_one_line_error(runner.invoke(app, ["plot", str(run_dir), "-q"]), fragments[0])
