"""Batsim's external events (machine_unavailable, machine_available) as availability changes:
Batsim's machine numbering, what a run does with them, Batsim 5's generic form, other events
and bad lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hetsched.platform.batsim_events import batsim_events, with_batsim_events
from hetsched.platform.model import Availability, NodeType, Platform
from hetsched.schedulers.registry import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of, write

FOUR = NodeType("four", 4, 1.0)  # 1 GHz: a job of s seconds takes s seconds


def hosts(count: int) -> Platform:
    """Nodes host0 … host<count-1>, in that order (not the order of their names)."""
    nodes = Platform.from_counts("p", [(FOUR, count)]).nodes
    renamed = tuple(type(n)(n.index, f"host{n.index}", n.type, n.cluster) for n in nodes)
    return Platform("p", renamed)


def events(tmp_path: Path, *lines: object) -> Path:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    return write(tmp_path / "events.txt", text + "\n")


def test_machines_are_numbered_by_host_name_as_batsim_does(tmp_path: Path) -> None:
    # by name: host0, host1, host10, host11, host2, ...: machine 2 is host10, 4 is host2
    path = events(tmp_path,
                  {"timestamp": 50, "type": "machine_available", "resources": "2"},
                  "",
                  {"timestamp": 10.5, "type": "machine_unavailable", "resources": "0 2-4"})
    changes, others = batsim_events(path, hosts(12))
    assert changes == (Availability(10.5, 0, 0), Availability(10.5, 10, 0),
                       Availability(10.5, 11, 0), Availability(10.5, 2, 0),
                       Availability(50.0, 10, 4))
    assert others == 0


def test_unavailable_machines_keep_their_running_jobs_and_take_no_new_one(
        tmp_path: Path) -> None:
    # a (4 tasks, 100 s) runs on host0 from 0; host0 is unavailable from 20 to 300: a is not
    # killed (ends at 100), b (submitted at 150) waits until 300
    platform = with_batsim_events(hosts(1), events(
        tmp_path, {"timestamp": 20, "type": "machine_unavailable", "resources": "0"},
        {"timestamp": 300, "type": "machine_available", "resources": "0"}))
    jobs = (Job("a", 0, 4, 100e9, 100), Job("b", 150, 4, 30e9, 30))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert result.state.tolist() == [JobState.FINISHED, JobState.FINISHED]
    assert result.end.tolist() == [100.0, 330.0] and result.start[1] == 300.0


def test_batsim_5_generic_events_and_other_types(tmp_path: Path) -> None:
    data = json.dumps({"type": "machine_unavailable", "resources": "1"})
    path = events(tmp_path, {"type": "generic", "timestamp": 5, "data": data},
                  {"type": "generic", "timestamp": 6, "data": "some data 6"},
                  {"type": "user_specific_type", "timestamp": 7, "some_field": 1})
    platform = with_batsim_events(hosts(2), path)
    assert platform.availability == (Availability(5.0, 1, 0),)
    (note,) = platform.notes
    assert_mentions(note, "events.txt", "2 event(s) of other types", "ignored")


@pytest.mark.parametrize("line, field, fragment", [
    ("{not json", None, "not JSON"),
    ("[1, 2]", None, "not a JSON object"),
    ({"timestamp": -1, "type": "machine_available", "resources": "0"}, "timestamp",
     "from 0 to"),
    ({"type": "machine_available", "resources": "0"}, "timestamp", "null"),
    ({"timestamp": 1, "resources": "0"}, "type", "missing"),
    ({"timestamp": 1, "type": "machine_available", "resources": "0-9"}, "resources",
     "'0-9' is not a machine id or range a-b of the platform's 2 machines"),
    ({"timestamp": 1, "type": "machine_available"}, "resources", "missing"),
    ({"timestamp": 1, "type": "generic", "data": "{oops"}, "data", "not JSON"),
])
def test_bad_events_are_one_line_errors(tmp_path: Path, line: object, field: str | None,
                                        fragment: str) -> None:
    path = events(tmp_path, {"timestamp": 0, "type": "machine_available", "resources": "0"},
                  line)
    message = error_of(batsim_events, path, hosts(2))
    assert "\n" not in message
    assert_mentions(message, str(path), "line 2", fragment)
    if field:
        assert f"field '{field}'" in message


def test_the_run_option_takes_machines_out_of_any_platform(tmp_path: Path) -> None:
    # the bundled example's machines 0-5 (by name: efficient-0 … medium-1) are unavailable
    # from 0 to 2000: until then only medium-2 and medium-3 take jobs
    import hetsched

    events_file = Path(__file__).parent / "data" / "batsim_events" / "default_platform.jsonl"
    run = hetsched.simulate(scheduler="fcfs", batsim_events=str(events_file))
    platform, result = run.result.platform, run.result
    by_name = sorted(range(len(platform.nodes)), key=lambda i: platform.nodes[i].name)
    out = set(by_name[:6])
    for i, allocation in enumerate(result.allocation):
        if allocation is not None and result.start[i] < 2000:
            assert not out & {node for node, _ in allocation}, (i, allocation)
    assert any(result.start[i] >= 2000 and out & {n for n, _ in result.allocation[i]}
               for i in range(len(result.allocation)) if result.allocation[i])
    plain = hetsched.simulate(scheduler="fcfs")
    assert run.summary["mean_wait"] > plain.summary["mean_wait"]
