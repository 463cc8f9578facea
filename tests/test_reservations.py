"""Reservations: cores held in advance on a node over an interval. The engine refuses a start
that would overlap one, the view's fits and free intervals see them, native downtime becomes
one, and every scheduler family runs on a platform with them."""

from __future__ import annotations

from collections.abc import Callable

import math
from dataclasses import replace

import pytest

from hetsched.errors import ConfigError, SchedulerError
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform, Reservation
from hetsched.schedulers import Start, create, entries
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.events import Availability
from hetsched.sim.result import JobState, SimResult
from hetsched.testing import check_result, contract_inputs
from hetsched.workload.model import Job, Workload
from support import write

SIXTEEN = NodeType("n", 16, 1.0)  # 1 GHz: a job of s seconds takes s seconds


def job(id: str, submit: float, ntasks: int, seconds: float, req: float | None = None) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9,
               req_time=seconds if req is None else req)


def node(*reservations: Reservation, node_type: NodeType = SIXTEEN) -> Platform:
    nodes = Platform.from_counts("p", [(node_type, 1)]).nodes
    return Platform("p", nodes, reservations=reservations)


def test_a_start_across_a_reservation_is_refused_in_one_line() -> None:
    # [100, 300) holds 8 of 16 cores: a 16-task job of 200 s cannot start at 0
    sim = Simulation(node(Reservation(0, 100, 300, 8)), Workload("w", (job("a", 0, 16, 200),)))
    step = sim.advance()
    with pytest.raises(SchedulerError, match="would overlap a reservation") as caught:
        sim.apply([Start.on(step.events.submitted[0], 0)])
    assert len(str(caught.value).splitlines()) == 1


def test_a_job_waits_for_the_reservation_and_fits_beside_it() -> None:
    # a (16 tasks, 200 s) must wait for the end of [100, 300) holding 8 of 16 cores: it
    # starts at 300, not at 0 (where it ran through it and free cores went to -8)
    platform = node(Reservation(0, 100, 300, 8))
    result = simulate(platform, Workload("w", (job("a", 0, 16, 200),)), create("fcfs"))
    assert result.start.tolist() == [300.0]
    with pytest.raises(AssertionError, match="reservations and jobs"):  # started at 0
        check_result(replace(result, start=result.start * 0, end=result.end - 300))
    # b (8 tasks, 500 s) fits beside it from 0; c (8 tasks, 50 s) ends before it; d (1 task,
    # 100 s) at 2 would need a core at 100, where b and the reservation hold all 16: it
    # waits for the reservation's end
    jobs = (job("b", 0, 8, 500), job("c", 1, 8, 50), job("d", 2, 1, 100))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert result.start.tolist() == [0.0, 1.0, 300.0]
    check_result(result)


def test_overlapping_native_downtimes_keep_the_fewer_cores(tmp_path) -> None:
    # [100, 300) leaves 8 of 16 cores and [200, 400) leaves 4: an 8-task job submitted at 350
    # waits until 400 (before, the node was whole again at 300 and it started at 350)
    doc = {"node_types": [{"name": "n", "cores": 16, "clock_ghz": 1.0}],
           "downtime": [{"node": "n-0", "start": 100, "end": 300, "cores": 8},
                        {"node": "n-0", "start": 200, "end": 400, "cores": 4}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    result = simulate(platform, Workload("w", (job("a", 350, 8, 10),)), create("fcfs"))
    assert result.start.tolist() == [400.0]
    check_result(result)


def test_without_an_estimate_only_the_reservations_in_force_count() -> None:
    # a job whose estimate is 0 is checked at its start only: at 0 nothing is reserved yet
    result = simulate(node(Reservation(0, 100, 300, 8)),
                      Workload("w", (job("a", 0, 16, 200, req=0.0),)), create("fcfs"))
    assert result.start.tolist() == [0.0]


def test_reservations_add_up_and_set_points_stay_low_level() -> None:
    # two reservations of 6 cores over [10, 20) leave 4; the set-point at 15 (the low-level
    # form, applied when due) lowers the node to 10 cores, so 10 - 12 -> 0 cores at 15
    sim = Simulation(node(Reservation(0, 10, 20, 6), Reservation(0, 5, 20, 6)),
                     Workload("w", (job("a", 30, 1, 1),)),
                     availability=[Availability(15.0, 0, 10)])
    seen = []
    while (step := sim.advance()) is not None and step.now < 30:
        seen.append((step.now, int(sim.view.free_slots[0])))
    assert seen == [(5.0, 10), (10.0, 4), (15.0, 0), (20.0, 10)]


def test_more_reserved_cores_than_the_node_has_are_refused() -> None:
    with pytest.raises(ConfigError, match="hold up to 20 cores"):
        Simulation(node(Reservation(0, 0, 10, 10), Reservation(0, 5, 15, 10)),
                   Workload("w", (job("a", 0, 1, 1),)))


def test_the_view_answers_free_intervals_and_fits() -> None:
    # 16 cores; a runs 4 tasks until its estimate 50; [100, 300) holds 8, [200, 400) 4 more
    jobs = (job("a", 0, 4, 50), job("b", 0, 16, 10), job("c", 0, 9, 150))
    sim = Simulation(node(Reservation(0, 100, 300, 8), Reservation(0, 200, 400, 4)),
                     Workload("w", jobs))
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0)])
    view = sim.view
    assert view.free_intervals(0, 0, 500) == [(0, 50, 12), (50, 100, 16), (100, 200, 8),
                                              (200, 300, 4), (300, 400, 12), (400, 500, 16)]
    assert view.free_intervals(0, 120, 250) == [(120, 200, 8), (200, 250, 4)]
    b, c = jobs[1], jobs[2]
    assert not view.fits(b, 0)  # 16 tasks: only 12 free now
    assert view.fits(c, 0, 8) and not view.fits(c, 0)  # 9 tasks until 150: 8 free from 100
    assert view.fit_mask(c).tolist() == [False]
    assert view.free_slots_for(c).tolist() == [8]


def test_conservative_backfilling_books_beside_the_reservations() -> None:
    # [100, 300) holds 8 of 16 cores. a (16 tasks, 200 s) is booked at 300, its end; b (8
    # tasks, 50 s) fits before 100 beside nothing; c (8 tasks, 150 s) fits beside b now and
    # beside the reservation from 100: both start at once, a at 300
    jobs = (job("a", 0, 16, 200), job("b", 1, 8, 50), job("c", 2, 8, 150))
    result = simulate(node(Reservation(0, 100, 300, 8)), Workload("w", jobs),
                      create("conservative"))
    assert result.start.tolist() == [300.0, 1.0, 2.0]
    check_result(result)


def test_a_reservation_for_good_leaves_a_job_waiting() -> None:
    # the node keeps 4 of 16 cores from 50 on: b (4 tasks) runs beside it, a (16 tasks)
    # cannot end by 50 and waits for ever
    jobs = (job("b", 0, 4, 100), job("a", 0, 16, 100))
    for name in ("fcfs", "easy", "conservative"):
        result = simulate(node(Reservation(0, 50, math.inf, 12)), Workload("w", jobs),
                          create(name))
        assert result.state.tolist() == [JobState.FINISHED, JobState.UNFINISHED], name
        check_result(result)


def _reserved(platform: Platform) -> Platform:
    """``platform`` with reservations on every other node: half its cores over [50, 400),
    the whole node over [600, 900)."""
    held = [Reservation(n.index, start, end, cores)
            for n in platform.nodes[::2]
            for start, end, cores in ((50.0, 400.0, max(n.type.cores // 2, 1)),
                                      (600.0, 900.0, n.type.cores))]
    return replace(platform, reservations=tuple(held))


def _one_per_family() -> list[str]:
    chosen: dict[str, str] = {}
    for entry in entries():
        chosen.setdefault(entry.family, entry.name)
    return sorted({*chosen.values(), "conservative"})


def runs_on_every_family(name: str, change: Callable[[Platform], Platform],
                         **options: object) -> SimResult:
    """Scheduler ``name`` on the first contract input it accepts, its platform changed by
    ``change``, with the engine's ``options``: the invariants hold (no job on reserved or
    failed cores, every job in an end state) and no job is left unfinished; the result."""
    scheduler = create(name)
    for inputs in contract_inputs():
        platform = change(inputs.platform)
        try:
            scheduler.check(platform, inputs.workload)
        except ConfigError:
            continue
        result = simulate(platform, inputs.workload, scheduler, **options)
        # irmasim_minimal's tasks go anywhere; coalloc's one per node (docs/coalloc.md)
        anywhere = range(len(inputs.workload.jobs)) \
            if name in ("irmasim_minimal", "coalloc") else ()
        check_result(result, anywhere)
        assert not any(state == JobState.UNFINISHED for state in result.state.tolist()), \
            result.reason
        return result
    pytest.fail(f"{name} runs on none of the contract inputs")


@pytest.mark.parametrize("name", _one_per_family())
def test_every_scheduler_family_runs_beside_reservations(name: str) -> None:
    runs_on_every_family(name, _reserved)

