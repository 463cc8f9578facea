"""Bookings: a ``Reserve`` decision books a window the engine then honours. The job starts at
the window's start; no other start or booking may take its slots meanwhile; the view sees it;
``Dequeue`` cancels it; a fork keeps it."""

from __future__ import annotations

import math

import pytest

from hetsched.errors import SchedulerError
from hetsched.platform.model import Failure, NodeType, Platform, Reservation
from hetsched.schedulers import Dequeue, Reserve, Start, create
from hetsched.sim.engine import Simulation
from hetsched.sim.result import JobState
from hetsched.testing import check_result
from hetsched.workload.model import Job, Workload

FOUR = NodeType("n", 4, 1.0)  # 1 GHz: a job of s seconds takes s seconds


def job(id: str, submit: float, ntasks: int, seconds: float, req: float | None = None) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9,
               req_time=seconds if req is None else req)


def nodes(count: int = 1, *reservations: Reservation) -> Platform:
    return Platform("p", Platform.from_counts("p", [(FOUR, count)]).nodes,
                    reservations=reservations)


def booked(sim: Simulation, decisions: list) -> object:
    """The first instant of ``sim``, with ``decisions`` applied."""
    step = sim.advance()
    sim.apply(decisions)
    return step


def test_a_booked_job_starts_at_its_window_and_others_fit_around_it() -> None:
    # a (4 tasks, 100 s) booked on node 0 from 50; b (4 tasks, 40 s) fits before it; c (4
    # tasks, 60 s) would run into it: the view says so, and the engine refuses its start
    a, b, c = job("a", 0, 4, 100), job("b", 0, 4, 40), job("c", 0, 4, 60)
    sim = Simulation(nodes(), Workload("w", (a, b, c)))
    a, b, c = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0)])
    view = sim.view
    assert view.bookings[0].start == 50.0 and view.bookings[0].end == 150.0
    assert view.fits(b, 0) and not view.fits(c, 0)
    assert view.free_intervals(0, 0, 200) == [(0, 50, 4), (50, 150, 0), (150, 200, 4)]
    assert view.reserved_ahead() == {0: [(50.0, 150.0, 4)]}
    assert list(view.pending) == [1, 2]
    with pytest.raises(SchedulerError, match="would overlap a reservation") as caught:
        sim.apply([Start.on(c, 0)])
    assert len(str(caught.value).splitlines()) == 1


def test_the_engine_starts_the_booked_job_and_tells_the_scheduler() -> None:
    a, b, c = job("a", 0, 4, 100), job("b", 0, 4, 40), job("c", 0, 4, 60)
    sim = Simulation(nodes(), Workload("w", (a, b, c)))
    a, b, c = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0), Start.on(b, 0)])
    step = sim.advance()  # b ends at 40
    assert step.now == 40.0 and step.events.finished == (b,)
    sim.apply([])
    step = sim.advance()  # a's window begins at 50
    assert step.now == 50.0 and step.events.started == (a,)
    assert not sim.view.bookings and 0 in sim.view.running
    sim.apply([])
    assert sim.advance().now == 150.0  # a ends: c starts then
    sim.apply([Start.on(c, 0)])
    result = _drain(sim)
    assert result.start.tolist() == [50.0, 0.0, 150.0]
    assert result.end.tolist() == [150.0, 40.0, 210.0]
    check_result(result)


def test_bookings_must_fit_beside_each_other_reservations_and_the_platform() -> None:
    a, b = job("a", 0, 4, 100), job("b", 0, 2, 100)
    sim = Simulation(nodes(2, Reservation(1, 0, 10, 4)), Workload("w", (a, b)))
    a, b = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0)])
    with pytest.raises(SchedulerError, match="overlap"):  # a's window holds node 0's 4 cores
        sim.apply([Reserve(b, ((0, 2),), 100.0)])
    sim = Simulation(nodes(2, Reservation(1, 0, 10, 4)), Workload("w", (a, b)))
    a, b = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0)])
    sim.apply([Reserve(b, ((0, 2),), 150.0)])  # right after it: fine
    assert sorted(sim.view.bookings) == [0, 1]
    for bad, match in ((Reserve(b, ((1, 2),), 5.0), "overlap"),  # the reservation
                       (Reserve(b, ((0, 5),), 500.0), "5 cores"),  # more than the node has
                       (Reserve(b, ((0, 2),), -1.0), "starts now"),
                       (Reserve(b, ((0, 2),), math.inf), "starts now")):
        sim = Simulation(nodes(2, Reservation(1, 0, 10, 4)), Workload("w", (a, b)))
        a, b = sim.workload.jobs
        sim.advance()
        with pytest.raises(SchedulerError, match=match) as caught:
            sim.apply([bad])
        assert len(str(caught.value).splitlines()) == 1


def test_dequeue_cancels_a_booking() -> None:
    a = job("a", 0, 4, 100)
    sim = Simulation(nodes(), Workload("w", (a,)))
    a, = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0), Dequeue(a)])
    assert not sim.view.bookings and list(sim.view.pending) == [0]
    sim.apply([Reserve(a, ((0, 4),), 80.0)])  # booked again, later: the 50 s event is stale
    assert _drain(sim).start.tolist() == [80.0]


def _drain(sim: Simulation):
    while sim.advance() is not None:
        sim.apply([])
    return sim.finish()


def test_a_job_past_its_estimate_delays_the_booked_job_until_its_nodes_are_free() -> None:
    # b runs 100 s but asked for 30: a, booked from 30, starts when b ends
    a, b = job("a", 0, 4, 10), job("b", 0, 4, 100, req=30)
    sim = Simulation(nodes(), Workload("w", (a, b)), walltime="ignore")
    a, b = sim.workload.jobs
    booked(sim, [Start.on(b, 0), Reserve(a, ((0, 4),), 30.0)])
    result = _drain(sim)
    assert result.start.tolist() == [100.0, 0.0]
    check_result(result)


def test_a_booked_job_whose_node_never_comes_back_ends_unfinished_with_the_reason() -> None:
    a = job("a", 0, 4, 10)
    platform = nodes()
    sim = Simulation(platform, Workload("w", (a,)), failures=[Failure(0, 20, math.inf)])
    a, = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 30.0)])
    result = _drain(sim)
    assert result.state[0] == JobState.UNFINISHED
    assert result.reason[0].startswith("booked from 30 s, never started")


def test_a_fork_keeps_the_bookings() -> None:
    a, b = job("a", 0, 4, 100), job("b", 0, 4, 40)
    sim = Simulation(nodes(), Workload("w", (a, b)))
    a, b = sim.workload.jobs
    booked(sim, [Reserve(a, ((0, 4),), 50.0), Start.on(b, 0)])
    fork = sim.fork()
    assert list(fork.view.bookings) == [0]
    assert _drain(fork).start.tolist() == [50.0, 0.0]
    assert list(sim.view.bookings) == [0]  # the original's is its own
    assert _drain(sim).start.tolist() == [50.0, 0.0]


@pytest.mark.parametrize("spec", ["easy", "conservative", "fcfs"])
def test_queue_schedulers_plan_around_a_booking(spec: str) -> None:
    # a booking made before the run (by a caller) holds node 0 over [50, 150); the
    # scheduler's jobs fit around it on the one node
    a = job("a", 0, 4, 100)
    rest = (job("b", 1, 4, 40), job("c", 2, 4, 60), job("d", 3, 2, 10))
    sim = Simulation(nodes(), Workload("w", (a, *rest)), create(spec))
    step = sim.advance()
    sim.apply([Reserve(step.events.submitted[0], ((0, 4),), 50.0)])
    result = sim.run()
    check_result(result)
    assert result.start[0] == 50.0
    for index in (1, 2, 3):  # nobody overlaps a's window
        assert result.end[index] <= 50.0 or result.start[index] >= 150.0


def test_an_on_demand_node_is_booted_ahead_to_be_up_when_its_window_begins() -> None:
    # one on-demand node that boots for 60 s: a window from 100 boots it at 40, so the job
    # starts at 100; a window from 10 (too soon for a boot) boots it at once: it starts at 60
    off = NodeType("off", cores=4, clock_ghz=1.0, boot_time=60, on_demand=True)
    for start, began in ((100.0, 100.0), (10.0, 60.0)):
        sim = Simulation(Platform("p", Platform.from_counts("p", [(off, 1)]).nodes),
                         Workload("w", (job("a", 0, 4, 10),)))
        a, = sim.workload.jobs
        booked(sim, [Reserve(a, ((0, 4),), start)])
        assert sim.view.node_state(0) == ("booting" if began == 60.0 else "inactive")
        result = _drain(sim)
        assert (result.start[0], result.end[0]) == (began, began + 10)
