"""Node failures in the Gantt chart: what a run directory keeps of them (``summary.json``'s
``failures``), where they are drawn, and bad or missing entries."""

import json

import numpy as np
import pytest

import hetsched
from hetsched.report.reserved import failed_blocks
from hetsched.report.run_data import RunData, from_result, read_run_dir
from hetsched.report.run_figures import FAILED_LABEL, KILLED_LABEL, RESERVED_LABEL, gantt
from support import assert_mentions, error_of, run_directory, write
from test_gantt_reservations import extents, hand_made, labelled

#: Two 4-core hosts; a is off over [50, 80) and from 400 for good (a SimGrid state profile).
PLATFORM = ('<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="AS0" routing="Full">\n'
            '<host id="a" speed="1Gf" core="4" state_file="a.state"/>\n'
            '<host id="b" speed="1Gf" core="4"/>\n</zone>\n</platform>\n')
#: j0 runs on a from 0 (killed at 50), j1 on b from 0 to 300, j2 waits for a's repair.
JOBS = {"jobs": [{"id": "j0", "submit": 0, "ntasks": 4, "run_time": 100},
                 {"id": "j1", "submit": 0, "ntasks": 4, "run_time": 300},
                 {"id": "j2", "submit": 60, "ntasks": 4, "run_time": 30}]}


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    write(folder / "a.state", "50 0\n80 1\n400 0\n")
    platform = write(folder / "platform.xml", PLATFORM)
    workload = write(folder / "jobs.json", JOBS)
    return hetsched.simulate(str(platform), str(workload), "fcfs")


@pytest.fixture
def run_dir(failed_run, tmp_path):
    return run_directory(failed_run, tmp_path)


def test_a_run_directory_keeps_the_failures_and_the_jobs_they_killed(failed_run, run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["failures"] == [{"node": "a", "start": 50.0, "end": 80.0},
                                   {"node": "a", "start": 400.0, "end": None}]
    read, direct = read_run_dir(run_dir), from_result(failed_run.result, "fcfs")
    expected = [[0, 50, 80], [0, 400, np.inf]]
    assert read.failures.tolist() == direct.failures.tolist() == expected
    states = failed_run.jobs["final_state"].tolist()
    assert states == ["COMPLETED_KILLED", "COMPLETED_SUCCESSFULLY", "COMPLETED_SUCCESSFULLY"]
    assert read.killed.tolist() == direct.killed.tolist() == [True, False, False]
    # the window is [0, 300) (j1's end): the failure from 400 is outside it
    assert read.window == (0.0, 300.0)
    assert failed_blocks(read).tolist() == [[50.0, 80.0, 0, 4]]


def test_the_gantt_chart_draws_failures_over_the_whole_node_apart_from_the_rest():
    run = hand_made(killed=True)
    # node b (ids 8-11) fails over [150, 250): clipped to the window's end, 200
    run = RunData(**{**run.__dict__, "failures": np.array([[1, 150.0, 250.0]])})
    assert failed_blocks(run).tolist() == [[150.0, 200.0, 8, 12]]
    figure = gantt(run)
    failed = labelled(figure, FAILED_LABEL)
    assert extents(failed) == [(150, 200, 8, 12)]
    reserved = labelled(figure, RESERVED_LABEL)
    assert failed.get_hatch() != reserved.get_hatch()
    assert tuple(failed.get_facecolor()[0]) != tuple(reserved.get_facecolor()[0])
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == [KILLED_LABEL, RESERVED_LABEL, FAILED_LABEL]


def test_failures_alone_make_the_legend():
    run = hand_made()
    run = RunData(**{**run.__dict__, "reservations": np.zeros((0, 4)),
                     "failures": np.array([[0, 10.0, 20.0]])})
    legend = [t.get_text() for t in gantt(run).axes[0].get_legend().get_texts()]
    assert legend == [FAILED_LABEL]


def test_a_run_directory_from_before_failures_has_none(run_dir):
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    del summary["failures"]
    path.write_text(json.dumps(summary))
    assert read_run_dir(run_dir).failures.shape == (0, 3)


@pytest.mark.parametrize("entry, field, fragment", [
    ({"node": "z", "start": 1, "end": 2}, "node", "no node 'z'"),
    ({"node": "a", "start": -1, "end": 2}, "start", "not a time >= 0"),
    ({"node": "a", "start": 5, "end": 5}, "end", "not a time after start"),
    ({"node": "a", "start": 5}, "end", "missing"),
])
def test_bad_failures_in_a_summary_are_one_line_errors(run_dir, entry, field, fragment):
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    summary["failures"] = [summary["failures"][0], entry]
    path.write_text(json.dumps(summary))
    message = error_of(read_run_dir, run_dir)
    assert "\n" not in message
    assert_mentions(message, "summary.json", "failures[1]", f"field '{field}'", fragment)
