"""SimGrid hosts' state and speed profiles: failures and reservations of the platform, what a
run does with them, and bad profiles as one-line errors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hetsched.errors import InputError
from hetsched.platform.load import load_platform
from hetsched.platform.model import Failure, Reservation
from hetsched.platform.simgrid_profiles import MAX_PERIODS
from hetsched.schedulers.registry import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of, write

HEADER = ('<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
          '\n<platform version="4.1">\n<zone id="AS0" routing="Full">\n')
FOOTER = "</zone>\n</platform>\n"


def platform_file(tmp_path: Path, body: str, **profiles: str) -> Path:
    """A SimGrid platform of ``body`` beside the profile files ``profiles`` (name: text)."""
    for name, text in profiles.items():
        write(tmp_path / name.replace("_", "."), text)
    return write(tmp_path / "platform.xml", HEADER + body + FOOTER)


def test_a_state_file_gives_a_failure_per_off_period(tmp_path: Path) -> None:
    # off at 100, on at 250; off again at 400 for good (no loop)
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" core="4" state_file="a.state"/>\n'
                                   '<host id="b" speed="1Gf" core="4"/>\n',
                         a_state="# host a\n0 1\n100 0\n250 1\n\n400 0\n")
    platform = load_platform(path)
    assert platform.failures == (Failure(0, 100.0, 250.0), Failure(0, 400.0, math.inf))
    assert platform.reservations == () and platform.notes == ()


def test_periodicity_and_loopafter_repeat_the_pattern(tmp_path: Path) -> None:
    # a: PERIODICITY 100, off over [10, 20) of every period; b: SimGrid's own example
    # (1 0 / 2 1 / LOOPAFTER 8): period 2 + 8 = 10, off over [1, 2), [11, 12), ...
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" state_file="a.state"/>\n'
                                   '<host id="b" speed="1Gf" state_file="b.state"/>\n',
                         a_state="PERIODICITY 100\n10 0\n20 1\n",
                         b_state="1 0.0\n2 1.0\nLOOPAFTER 8\n")
    platform = load_platform(path)
    a = [(f.start, f.end) for f in platform.failures if f.node == 0]
    b = [(f.start, f.end) for f in platform.failures if f.node == 1]
    assert a[:3] == [(10.0, 20.0), (110.0, 120.0), (210.0, 220.0)]
    assert b[:3] == [(1.0, 2.0), (11.0, 12.0), (21.0, 22.0)]
    assert len(a) == len(b) == MAX_PERIODS  # unrolled over its first periods, and noted
    assert a[-1] == (100.0 * (MAX_PERIODS - 1) + 10, 100.0 * (MAX_PERIODS - 1) + 20)
    (note,) = platform.notes
    assert_mentions(note, "a, b", "repeat", f"{MAX_PERIODS} periods", "t = 10000 s")


def test_an_off_period_open_at_the_end_of_a_loop_joins_the_next_one(tmp_path: Path) -> None:
    # off from 50 to the period's end (60), on again at 5 into the next: [50, 65), [110, 125)
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" state_file="a.state"/>\n',
                         a_state="5 1\n50 0\nPERIODICITY 60\n")
    failures = load_platform(path).failures
    assert [(f.start, f.end) for f in failures[:2]] == [(50.0, 65.0), (110.0, 125.0)]
    assert failures[-1].end == 60.0 * MAX_PERIODS  # the last one ends where unrolling stops


def test_speed_zero_is_a_reservation_of_the_whole_node_other_factors_a_note(
        tmp_path: Path) -> None:
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" core="8" speed_file="a.speed"/>\n'
                                   '<host id="b" speed="1Gf" core="2" '
                                   'availability_file="b.avail"/>\n',
                         a_speed="0 1\n300 0\n600 0.5\n900 1\n", b_avail="1000 0\n")
    platform = load_platform(path)
    assert platform.reservations == (Reservation(0, 300.0, 600.0, 8),
                                     Reservation(1, 1000.0, math.inf, 2))
    assert platform.failures == ()
    (note,) = platform.notes
    assert_mentions(note, "speed profiles of host(s) a ", "other than 0 and 1", "ignored")


def test_inline_traces_connected_to_hosts(tmp_path: Path) -> None:
    body = ('<cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" core="4" bw="1GBps"'
            ' lat="0us"/>\n'
            '<trace id="down" periodicity="0">\n30 0\n40 1\n</trace>\n'
            '<trace id="slow" file="slow.txt" periodicity="0"/>\n'
            '<trace_connect kind="HOST_AVAIL" trace="down" element="n1"/>\n'
            '<trace_connect kind="SPEED" trace="slow" element="n0"/>\n'
            '<trace_connect kind="BANDWIDTH" trace="slow" element="some-link"/>\n')
    platform = load_platform(platform_file(tmp_path, body, slow_txt="5 0\n6 1\n"))
    assert platform.failures == (Failure(1, 30.0, 40.0),)
    assert platform.reservations == (Reservation(0, 5.0, 6.0, 4),)


def test_a_run_on_a_state_profile_kills_the_job_on_the_failed_host(tmp_path: Path) -> None:
    # a (4 tasks, 100 s) starts at 0 on a, which is off over [50, 80): a is killed at 50;
    # b (4 tasks, 30 s) at 60 waits for the repair (host b is busy with c until 1000)
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" core="4" state_file="a.state"/>\n'
                                   '<host id="b" speed="1Gf" core="4"/>\n',
                         a_state="50 0\n80 1\n")
    jobs = (Job("a", 0, 4, 100e9, 100), Job("c", 0, 4, 1000e9, 1000), Job("b", 60, 4, 30e9, 30))
    result = simulate(load_platform(path), Workload("w", jobs), create("fcfs"))
    assert result.state.tolist() == [JobState.FAILED, JobState.FINISHED, JobState.FINISHED]
    assert result.reason[0] == "node a failed at 50 s"
    assert (result.end[0], result.start[2], result.end[2]) == (50.0, 80.0, 110.0)


@pytest.mark.parametrize("text, record, field, fragment", [
    ("0 1\n10 2\n", "line 2", "value", "0 (off) or 1 (on), got 2.0"),
    ("0 1\nten 0\n", "line 2", "date", "not a finite number: 'ten'"),
    ("5 0\n3 1\n", "line 2", "date", "must not decrease"),
    ("-1 0\n", "line 1", "date", "from 0 to"),
    ("1 0 7\n", "line 1", "date", "expected 2 words"),
    ("1 nan\n", "line 1", "value", "not a finite number"),
    ("PERIODICITY 0\n1 0\n", "line 1", "PERIODICITY", "> 0"),
    ("0 0\nLOOPAFTER 0\n", "<profile>", "LOOPAFTER", "period > 0"),
    ("5 0\n9 1\nPERIODICITY 4\n", "<profile>", "PERIODICITY", "shorter than the last date"),
    ("STOCHASTIC\nEXP 10 0\n", "line 1", "date", "stochastic profiles are not supported"),
])
def test_bad_profile_lines_are_one_line_errors(tmp_path: Path, text: str, record: str,
                                               field: str, fragment: str) -> None:
    path = platform_file(tmp_path, '<host id="a" speed="1Gf" state_file="a.state"/>\n',
                         a_state=text)
    message = error_of(load_platform, path)
    assert "\n" not in message
    assert_mentions(message, str(tmp_path / "a.state"), record, f"field '{field}'", fragment)


@pytest.mark.parametrize("body, fragment", [
    ('<host id="a" speed="1Gf" state_file="missing.state"/>\n', "missing.state"),
    ('<host id="a" speed="1Gf" speed_file="s"/>\n<trace id="t" periodicity="0">1 0</trace>\n'
     '<trace_connect kind="SPEED" trace="t" element="a"/>\n', "already has a speed profile"),
    ('<host id="a" speed="1Gf"/>\n<trace_connect kind="SPEED" trace="t" element="a"/>\n',
     "no <trace> with id 't'"),
    ('<host id="a" speed="1Gf"/>\n<trace id="t" periodicity="0">1 0</trace>\n'
     '<trace_connect kind="SPEED" trace="t" element="z"/>\n', "no host named 'z'"),
    ('<host id="a" speed="1Gf"/>\n<trace id="t" periodicity="0">1 0</trace>\n'
     '<trace_connect trace="t" element="a"/>\n', "field 'kind': missing attribute"),
    ('<host id="a" speed="1Gf"/>\n<trace id="t" periodicity="x">1 0</trace>\n'
     '<trace_connect kind="SPEED" trace="t" element="a"/>\n', "field 'periodicity'"),
    ('<host id="a" speed="1Gf"/>\n<trace id="t" periodicity="0">1 0\n2 -1</trace>\n'
     '<trace_connect kind="SPEED" trace="t" element="a"/>\n',
     "<trace id='t'>, line 2, field 'value': a speed profile's value must be"),
    ('<cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="0us" '
     'state_file="c.state"/>\n', "SimGrid 4 gives a cluster no profile"),
])
def test_bad_profile_references_are_one_line_errors(tmp_path: Path, body: str,
                                                    fragment: str) -> None:
    write(tmp_path / "s", "0 1\n")
    with pytest.raises(InputError) as caught:
        load_platform(platform_file(tmp_path, body))
    message = str(caught.value)
    assert "\n" not in message and fragment in message


def test_profiles_of_batsims_master_are_ignored_with_a_note(tmp_path: Path) -> None:
    path = platform_file(tmp_path, '<host id="master_host" speed="1Gf" state_file="m.state"/>\n'
                                   '<host id="a" speed="1Gf"/>\n', m_state="1 0\n")
    platform = load_platform(path)
    assert platform.failures == ()
    assert_mentions(platform.notes[0], "master_host", "ignored", "not compute nodes")
