"""What a fork shares with the run it came from until either changes it: the per-job state in
chunks, the time series in blocks, each node's running jobs; and the event heap a fork copies
without its pending submission."""

from __future__ import annotations

import heapq
import math
import random
import tracemalloc

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import Start
from hetsched.sim.engine import Simulation
from hetsched.sim.events import FINISH, SUBMIT, WAKE, EventQueue
from hetsched.sim.jobs import CHUNK, PENDING, RUNNING, JobTable
from hetsched.sim.result import TimeSeries
from hetsched.sim.shared import SharedParts
from hetsched.workload.model import Job, Workload


def test_shared_parts_are_copied_by_the_holder_that_changes_them() -> None:
    original = SharedParts([[1], [2]])
    copy = original.copy()
    assert copy.parts[0] is original.parts[0] and copy.parts[1] is original.parts[1]
    copy.writable(0).append(3)
    original.writable(1).append(4)
    assert copy.parts == [[1, 3], [2]] and original.parts == [[1], [2, 4]]
    assert copy.writable(0) is copy.parts[0]  # its own now: not copied again


def test_a_job_table_copy_shares_every_chunk_until_one_changes() -> None:
    table = JobTable([0] * (3 * CHUNK))
    table.start(5, 1.0, ((0, 1),))
    copy = table.copy()
    assert all(a is b for a, b in zip(copy.parts, table.parts))  # O(chunks), not O(jobs)
    copy.start(CHUNK + 1, 2.0, ((1, 1),))
    table.end(5, 3, 9.0, 0.5)
    assert copy.parts[2] is table.parts[2]  # untouched by both: still shared
    assert (table.state(CHUNK + 1), copy.state(CHUNK + 1)) == (PENDING, RUNNING)
    assert (table.state(5), copy.state(5)) == (3, RUNNING)
    assert math.isnan(copy.ends()[5]) and table.ends()[5] == 9.0
    assert table.done == 1 and copy.done == 0


def test_a_time_series_copy_shares_its_last_block_until_either_appends() -> None:
    series = TimeSeries()
    for t in range(TimeSeries.BLOCK + 3):
        series.append(float(t), 0, 0, 0, 0.0)
    copy = series.copy()
    copy.append(1000.0, 1, 1, 1, 1.0)
    series.append(float(TimeSeries.BLOCK + 2), 9, 9, 9, 9.0)  # replaces its last row
    assert len(copy) == TimeSeries.BLOCK + 4 and len(series) == TimeSeries.BLOCK + 3
    assert copy.rows()[-2] == (TimeSeries.BLOCK + 2.0, 0, 0, 0, 0.0)
    assert series.rows()[-1] == (TimeSeries.BLOCK + 2.0, 9, 9, 9, 9.0)


def test_a_long_time_series_takes_about_40_bytes_a_row_and_reads_back_the_same() -> None:
    """Full blocks are kept as numpy columns (a million-job run has two million rows: 300 MB
    as tuples of Python numbers); a block with a value of another type (a time given as an
    int) stays rows, so that it reads back as given."""
    rows = [(t * 0.5, t % 7, t % 5, t * 3, t * 1.25) for t in range(20 * TimeSeries.BLOCK)]
    rows[3] = (3, 0, 0, 0, 0.0)  # an int time: that block is kept as rows
    tracemalloc.start()
    series = TimeSeries()
    for row in rows:
        series.append(*row)
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert size < 60 * len(rows)
    assert series.rows() == rows and type(series.rows()[3][0]) is int
    assert series.power_w == [row[4] for row in rows]
    assert series.copy().rows() == rows and series.copy() == series
    blocks = list(series.column_blocks())  # what timeseries.csv is written from
    assert [type(block) for block in blocks[:2]] == [list, tuple]  # rows, numpy columns
    assert [column.dtype.kind for column in blocks[1]] == ["f", "i", "i", "i", "f"]
    assert [[list(c) for c in block] for block in blocks] == list(series.blocks())


def test_a_queue_without_its_submission_keeps_the_heap_order() -> None:
    draw = random.Random(4)
    jobs = [Job(f"j{i}", draw.uniform(0, 200), 1, 1.0, 1.0) for i in range(100)]
    for _ in range(300):
        events = EventQueue(jobs)
        for _ in range(draw.randrange(0, 30)):
            events.push(draw.uniform(0, 200), draw.choice([FINISH, WAKE]))
        events.push_submission()
        for _ in range(draw.randrange(1, 60)):
            events.push(draw.uniform(0, 200), draw.choice([FINISH, WAKE]))
            if draw.random() < 0.3 and heapq.heappop(events.heap)[1] == SUBMIT:
                events.push_submission()  # as the engine does when it pops one
        fork = events.without_submission()
        assert is_heap(fork.heap)
        expected = sorted(e for e in events.heap if e[1] != SUBMIT)
        assert [heapq.heappop(fork.heap) for _ in range(len(fork.heap))] == expected
        fork.push_submission()
        assert not fork.heap  # a fork submits no more jobs


def test_the_entry_taking_the_submissions_place_may_move_up() -> None:
    # heap [1, 50, 2, 51, 52 (the submission), 3, 4]: 4 takes its place, below 50
    events = EventQueue([Job("s", 52.0, 1, 1.0, 1.0)])
    for time in (1.0, 50.0, 2.0, 51.0):
        events.push(time, WAKE)
    events.push_submission()
    for time in (3.0, 4.0):
        events.push(time, WAKE)
    assert [e[0] for e in events.heap] == [1.0, 50.0, 2.0, 51.0, 52.0, 3.0, 4.0]
    fork = events.without_submission()
    assert is_heap(fork.heap) and [e[0] for e in fork.heap] == [1.0, 4.0, 2.0, 51.0, 50.0, 3.0]


def is_heap(heap: list) -> bool:
    return all(heap[(k - 1) // 2] <= heap[k] for k in range(1, len(heap)))


def test_a_fork_shares_each_nodes_running_jobs_until_either_changes_them() -> None:
    platform = Platform.from_counts("p", [(NodeType("n", 4, 1.0), 2)])
    jobs = tuple(Job(f"j{i}", 0.0, 1, 1e9 * (i + 1), 10.0) for i in range(4))
    sim = Simulation(platform, Workload("w", jobs))
    step = sim.advance()
    a, b, c, d = step.events.submitted
    sim.apply([Start.on(a, 0), Start.on(b, 1)])
    fork = sim.fork()
    assert fork.state.jobs_on(0) is sim.state.jobs_on(0)
    fork.apply([Start.on(c, 0)])
    sim.apply([Start.on(d, 1)])
    assert sorted(sim.view.running_on(0)) == [0] and sorted(fork.view.running_on(0)) == [0, 2]
    assert sorted(sim.view.running_on(1)) == [1, 3] and sorted(fork.view.running_on(1)) == [1]
    ran, fork_ran = sim.finish().start, fork.finish().start
    assert [i for i in range(4) if not math.isnan(ran[i])] == [0, 1, 3]
    assert [i for i in range(4) if not math.isnan(fork_ran[i])] == [0, 1, 2]
