"""The scheduler interface as the engine implements it: decisions applied as they are produced,
impossible decisions refused with a clear message, local queues, wake-ups, rejections, jobs left
waiting, the rate-based contention hook, and independence of simulations.

Jobs are given in seconds on a 1 GHz core (``req_ops = seconds * 1e9``); every expected time is
worked out by hand in the comment above it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from hetsched.errors import ConfigError, SchedulerError
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import Enqueue, Events, Reject, Scheduler, Start, WakeUp, create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.result import JobState, SimResult
from hetsched.models.contention import Group
from hetsched.workload.model import SPREAD, Job, Workload

ONE_GHZ = NodeType("n", cores=4, clock_ghz=1.0, idle_w=10, static_w=20, dynamic_w_per_core=5)
BIG = NodeType("big", cores=8, clock_ghz=1.0)


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1,
        mem: float = 0.0, req: float | None = None) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9,
               req_time=seconds if req is None else req, nodes=nodes,
               memory_mb=mem * ntasks)


def platform(*types: tuple[NodeType, int]) -> Platform:
    return Platform.from_counts("p", list(types))


def timeline(result: SimResult) -> dict[str, tuple[float, float]]:
    """Start and end per job id, rounded to the microsecond so float re-rating compares exactly."""
    return {j.id: (round(float(result.start[j.index]), 6), round(float(result.end[j.index]), 6))
            for j in result.workload.jobs}


class Scripted(Scheduler):
    """A scheduler whose ``decide`` is a function given in the test."""

    name = "scripted"

    def __init__(self, fn: Callable[["Scripted", float, Events], Iterator]) -> None:
        self.fn = fn
        self.calls: list[tuple[float, tuple[str, ...], tuple[str, ...], bool]] = []
        self.notes: list[object] = []

    def decide(self, now: float, events: Events):
        self.calls.append((now, tuple(j.id for j in events.submitted),
                           tuple(j.id for j in events.finished), events.woken))
        return self.fn(self, now, events)


# ---- decisions are applied as they are produced ---------------------------------------------

def test_generator_scheduler_sees_state_after_each_start() -> None:
    def fn(s: Scripted, now: float, events: Events):
        view = s.view
        if not events.submitted:
            return
        s.notes.append(("before", int(view.free_cores[0]), sorted(view.pending)))
        for j in events.submitted:
            yield Start.on(j, 0)
            s.notes.append((j.id, int(view.free_cores[0]), int(view.busy_cores[0]),
                            j.index in view.pending, j.index in view.running,
                            len(view.running_on(0))))

    sched = Scripted(fn)
    # one 8-core node; a (2 tasks) and b (3 tasks) submitted at 0
    result = simulate(platform((BIG, 1)), Workload("w", (job("a", 0, 2, 10), job("b", 0, 3, 20))),
                      sched)
    assert sched.notes == [
        ("before", 8, [0, 1]),
        # after a's start: 8 - 2 = 6 free, 2 busy; a left pending, is running; 1 job on node 0
        ("a", 6, 2, False, True, 1),
        # after b's start: 6 - 3 = 3 free, 5 busy; 2 jobs on node 0
        ("b", 3, 5, False, True, 2),
    ]
    assert timeline(result) == {"a": (0.0, 10.0), "b": (0.0, 20.0)}


def test_scheduler_called_once_per_instant_with_that_instants_events() -> None:
    def fn(s: Scripted, now: float, events: Events):
        for j in list(s.view.pending.values()):
            if s.view.fits(j, 0):
                yield Start.on(j, 0)

    sched = Scripted(fn)
    # one 4-core node. a, b (2 tasks each) at 0: [0, 10) and [0, 5). c (4 tasks) at 5: b ends
    # at 5 too but a still holds 2 cores -> c waits; t=10: a ends -> c [10, 20).
    jobs = (job("a", 0, 2, 10), job("b", 0, 2, 5), job("c", 5, 4, 10))
    result = simulate(platform((ONE_GHZ, 1)), Workload("w", jobs), sched)
    assert sched.calls == [(0.0, ("a", "b"), (), False),
                           (5.0, ("c",), ("b",), False),
                           (10.0, (), ("a",), False),
                           (20.0, (), ("c",), False)]
    assert timeline(result)["c"] == (10.0, 20.0)


# ---- impossible decisions ------------------------------------------------------------------

def _raises(jobs: tuple[Job, ...], decide: Callable[[Scripted, float, Events], Iterator],
            match: str, *types: tuple[NodeType, int]) -> None:
    with pytest.raises(SchedulerError, match=match):
        simulate(platform(*(types or ((ONE_GHZ, 1), (BIG, 1)))), Workload("w", jobs),
                 Scripted(decide))


def test_start_with_too_many_cores_on_a_node() -> None:
    # node 0 has 4 cores; a (5 tasks) fits only node 1 (8 cores)
    def fn(s, now, events):
        yield Start.on(events.submitted[0], 0)

    _raises((job("a", 0, 5, 1),), fn,
            r"scripted: start of job 'a' needs 5 cores on node 0, which has room for 4")


def test_start_on_a_node_with_too_few_free_cores() -> None:
    # b needs 2 cores where a already holds 3 of 4
    def fn(s, now, events):
        a, b = events.submitted
        yield Start.on(a, 0)
        yield Start.on(b, 0)

    _raises((job("a", 0, 3, 1), job("b", 0, 2, 1)), fn,
            r"start of job 'b' needs 2 cores on node 0, which has room for 1")


def test_start_without_enough_memory() -> None:
    # node 0 has 1000 MB; 2 tasks * 600 MB = 1200 MB -> room for 1 task
    def fn(s, now, events):
        yield Start.on(events.submitted[0], 0)

    small = NodeType("m", 4, 1.0, memory_mb=1000)
    large = NodeType("l", 4, 1.0, memory_mb=8000)
    _raises((job("a", 0, 2, 1, mem=600),), fn, r"needs 2 cores on node 0, which has room for 1",
            (small, 1), (large, 1))


def test_start_of_a_job_that_is_not_pending() -> None:
    def fn(s, now, events):
        a = events.submitted[0]
        yield Start.on(a, 1)
        yield Start.on(a, 1)

    _raises((job("a", 0, 1, 1),), fn, r"scripted: cannot start job 'a': it is not pending")


def test_start_naming_a_node_twice() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((1, 2), (1, 2)))

    _raises((job("a", 0, 4, 1, nodes=SPREAD),), fn, r"start of job 'a' names a node twice")


def test_start_with_wrong_node_count() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((1, 4),))

    _raises((job("a", 0, 4, 1, nodes=2),), fn,
            r"start of job 'a' uses 1 nodes; the job asks for exactly 2")


def test_start_of_a_single_node_job_on_two_nodes() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((0, 1), (1, 1)))

    _raises((job("a", 0, 2, 1),), fn, r"uses 2 nodes; the job asks for exactly 1")


def test_start_with_wrong_core_total() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((1, 3),))

    _raises((job("a", 0, 4, 1),), fn, r"start of job 'a' allocates 3 cores for 4 tasks")


def test_start_on_a_missing_node() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((7, 1),))

    _raises((job("a", 0, 1, 1),), fn, r"start of job 'a' has an invalid node index")


def test_an_invalid_node_index_is_named_with_the_valid_range() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((0, 1), (7, 1)))

    # two nodes (ONE_GHZ, BIG): 0 and 1
    _raises((job("a", 0, 2, 1, nodes=2),), fn,
            r"start of job 'a' has an invalid node index 7 \(the platform's nodes are 0 to 1\)$")


def test_a_node_given_no_cores_is_named() -> None:
    def fn(s, now, events):
        yield Start(events.submitted[0], ((0, 2), (1, 0)))

    _raises((job("a", 0, 2, 1, nodes=2),), fn,
            r"invalid node index or core count: 0 cores on node 1 \(each node named gets at least")


def test_unknown_decision() -> None:
    def fn(s, now, events):
        yield "start everything"

    _raises((job("a", 0, 1, 1),), fn, r"scripted: unknown decision 'start everything'")


def test_decisions_that_are_not_an_iterable() -> None:
    _raises((job("a", 0, 1, 1),), lambda s, now, events: 5,
            r"scripted: decide\(\) returned 5, not an iterable of decisions")


def test_start_of_a_k_node_job_split_unevenly() -> None:
    def fn(s, now, events):
        for j in events.submitted:
            yield Start(j, ((0, 3), (1, 1)))

    _raises((job("a", 0, 4, 1, nodes=2),), fn, r"job 'a'")


# ---- local queues ----------------------------------------------------------------------------

def test_local_queue_is_fifo_without_overtaking() -> None:
    def fn(s, now, events):
        for j in events.submitted:
            yield Enqueue(j, 0)
        if now == 0.0:
            s.notes.append(([j.id for j in s.view.local_queue(0)], s.view.local_queue_length(1),
                            len(s.view.pending)))

    sched = Scripted(fn)
    # node 0 (4 cores): j1 (3 cores) starts at once [0, 10); j2 (3 cores) does not fit; j3
    # (1 core) would fit but may not overtake j2 -> both start when j1 ends: [10, 20).
    # Node 1 stays idle: local queues never migrate.
    jobs = (job("j1", 0, 3, 10), job("j2", 0, 3, 10), job("j3", 0, 1, 10))
    result = simulate(platform((ONE_GHZ, 2)), Workload("w", jobs), sched)
    assert sched.notes == [(["j2", "j3"], 0, 0)]
    assert timeline(result) == {"j1": (0.0, 10.0), "j2": (10.0, 20.0), "j3": (10.0, 20.0)}
    assert all(a == ((0, j.ntasks),) for a, j in zip(result.allocation, jobs))
    assert result.count(JobState.FINISHED) == 3


def test_local_queue_and_direct_starts_together() -> None:
    # j1 queued on node 0 [0, 10); j2 (4 cores, queued at 0) waits for it; the scheduler
    # starts j3 directly on node 1 at 0. t=10: j2 [10, 30).
    def fn(s, now, events):
        for j in events.submitted:
            yield Start.on(j, 1) if j.id == "j3" else Enqueue(j, 0)

    jobs = (job("j1", 0, 2, 10), job("j2", 0, 4, 20), job("j3", 0, 4, 5))
    result = simulate(platform((ONE_GHZ, 2)), Workload("w", jobs), Scripted(fn))
    assert timeline(result) == {"j1": (0.0, 10.0), "j2": (10.0, 30.0), "j3": (0.0, 5.0)}


def test_enqueue_refuses_multi_node_jobs_and_too_small_nodes() -> None:
    def multi(s, now, events):
        yield Enqueue(events.submitted[0], 0)

    _raises((job("a", 0, 2, 1, nodes=SPREAD),), multi, r"local queues take single-node jobs")
    _raises((job("a", 0, 6, 1),), multi, r"job 'a' queued on node 0, which can never hold it")


def test_enqueue_refuses_a_node_without_enough_memory_ever() -> None:
    # Queued on a node that can never hold it, a job would wait forever and block the local
    # queue behind it: the engine refuses the decision instead.
    def fn(s, now, events):
        for j in events.submitted:
            yield Enqueue(j, 0)

    small = NodeType("small", 4, 1.0, memory_mb=1000)
    large = NodeType("large", 4, 1.0, memory_mb=8000)
    jobs = (job("fat", 0, 1, 10, mem=2000), job("after", 0, 1, 10))
    with pytest.raises(SchedulerError, match=r"job 'fat' queued on node 0, which can never "
                                             r"hold it \(cores, memory or disk\)"):
        simulate(platform((small, 1), (large, 1)), Workload("w", jobs), Scripted(fn))


# ---- wake-ups ------------------------------------------------------------------------------

def test_wakeup_calls_the_scheduler_again_at_that_time() -> None:
    def fn(s, now, events):
        if events.submitted:
            yield WakeUp(50.0)
            yield WakeUp(50.0)  # asked twice: one call
            yield WakeUp(now - 1)  # in the past: ignored
        if events.woken and now == 50.0:
            for j in list(s.view.pending.values()):
                yield Start.on(j, 0)
        if events.finished:
            yield WakeUp(500.0)  # a wake-up after the last job does not stretch the window

    sched = Scripted(fn)
    result = simulate(platform((ONE_GHZ, 1)), Workload("w", (job("a", 0, 2, 10),)), sched)
    assert sched.calls == [(0.0, ("a",), (), False), (50.0, (), (), True),
                           (60.0, (), ("a",), False), (500.0, (), (), True)]
    # a waits for the wake-up: [50, 60)
    assert timeline(result) == {"a": (50.0, 60.0)}
    # window [0, 60]: idle 10 W * 50 + (20 + 5*2) W * 10 = 500 + 300 = 800 J
    assert result.t_end == 60.0
    assert result.node_energy_j.tolist() == pytest.approx([800.0])


class PerEvent(Scripted):
    per_event = True


def test_wakeup_now_comes_after_the_events_still_due_now() -> None:
    # a, b and c end at 10, on nodes 2, 0 and 1 (started in that order): their finishes come
    # one call each, by node (b, c, a). Woken at the first, the scheduler is called again at
    # 10 only after the other two; d (submitted at 10) comes before the wake-up too.
    def fn(s, now, events):
        if now == 0.0:
            yield Start.on(events.submitted[0], {"a": 2, "b": 0, "c": 1}[events.submitted[0].id])
        if events.finished and events.finished[0].id == "b":
            yield WakeUp(now)
            yield WakeUp(now)  # asked twice: one call

    jobs = tuple(job(i, 0, 1, 10) for i in "abc") + (job("d", 10, 1, 10),)
    sched = PerEvent(fn)
    simulate(platform((ONE_GHZ, 3)), Workload("w", jobs), sched)
    assert sched.calls[3:] == [(10.0, (), ("b",), False), (10.0, (), ("c",), False),
                               (10.0, (), ("a",), False), (10.0, ("d",), (), False),
                               (10.0, (), (), True)]


def test_simultaneous_finishes_come_by_node() -> None:
    def fn(s, now, events):
        return [Start.on(j, {"a": 2, "b": 0, "c": 1}[j.id]) for j in events.submitted]

    sched = Scripted(fn)
    simulate(platform((ONE_GHZ, 3)), Workload("w", tuple(job(i, 0, 1, 10) for i in "abc")),
             sched)
    assert sched.calls[-1] == (10.0, (), ("b", "c", "a"), False)


def test_a_scheduler_may_refuse_inputs_before_the_run() -> None:
    class Picky(Scripted):
        def check(self, platform, workload):
            raise ConfigError(f"{self.name}: no workload named {workload.name!r}")

    with pytest.raises(ConfigError, match="no workload named 'w'"):
        Simulation(platform((ONE_GHZ, 1)), Workload("w", (job("a", 0, 1, 1),)),
                   Picky(lambda s, now, events: ()))


def test_view_tells_when_every_job_has_been_submitted() -> None:
    def fn(s, now, events):
        s.notes.append((now, s.view.all_submitted))
        return [Start.on(j, 0) for j in events.submitted]

    sched = Scripted(fn)
    simulate(platform((ONE_GHZ, 1)), Workload("w", (job("a", 0, 1, 1), job("b", 5, 1, 1))), sched)
    assert sched.notes == [(0.0, False), (1.0, False), (5.0, True), (6.0, True)]


def test_view_expects_an_overrunning_job_to_end_now() -> None:
    # a: estimate 10 s, runs 30 s. The scheduler wakes at 20 (past the estimate) and reads the
    # view: estimated end max(10, 20) = 20 = now.
    def fn(s, now, events):
        if events.submitted:
            yield Start.on(events.submitted[0], 0)
            yield WakeUp(20.0)
        if events.woken:
            (run,) = s.view.running.values()
            s.notes.append((run.est_end, s.view.estimated_end(run), s.view.now))

    sched = Scripted(fn)
    result = simulate(platform((ONE_GHZ, 1)), Workload("w", (job("a", 0, 1, 30, req=10),)),
                      sched)
    assert sched.notes == [(10.0, 20.0, 20.0)]
    assert timeline(result) == {"a": (0.0, 30.0)}


# ---- rejections and jobs never started ---------------------------------------------------------

def test_reject_records_the_reason() -> None:
    def fn(s, now, events):
        for j in events.submitted:
            if j.ntasks > 2:
                yield Reject(j, "too wide for this policy")
            else:
                yield Start.on(j, 0)

    result = simulate(platform((ONE_GHZ, 1)),
                      Workload("w", (job("a", 0, 1, 10), job("b", 0, 3, 10))), Scripted(fn))
    assert result.state.tolist() == [JobState.FINISHED, JobState.REJECTED]
    assert result.reason == {1: "too wide for this policy"}
    assert math.isnan(result.start[1]) and result.allocation[1] is None
    assert result.count(JobState.REJECTED) == 1


def test_reject_of_a_job_not_pending() -> None:
    def fn(s, now, events):
        a = events.submitted[0]
        yield Start.on(a, 0)
        yield Reject(a, "changed my mind")

    _raises((job("a", 0, 1, 1),), fn, r"cannot reject job 'a': it is not pending")


def test_job_never_started_is_unfinished() -> None:
    def fn(s, now, events):
        for j in events.submitted:
            if j.id == "a":
                yield Start.on(j, 0)

    result = simulate(platform((ONE_GHZ, 1)),
                      Workload("w", (job("a", 0, 1, 10), job("b", 0, 1, 10))), Scripted(fn))
    assert result.state.tolist() == [JobState.FINISHED, JobState.UNFINISHED]
    assert "never started" in result.reason[1]
    assert math.isnan(result.start[1]) and math.isnan(result.end[1])
    # window [0, 10] (a's end): (20 + 5) W * 10 = 250 J
    assert result.t_end == 10.0
    assert result.node_energy_j.tolist() == pytest.approx([250.0])


# ---- contention ------------------------------------------------------------------------------

class HalfWhenShared:
    """Every job on a node that runs two or more jobs progresses at half speed there."""

    def __init__(self) -> None:
        self.calls = 0

    name = "half-when-shared"

    def factors(self, node_type: NodeType, groups: list[Group]) -> list[float]:
        self.calls += 1
        factor = 0.5 if len({g.job.index for g in groups}) >= 2 else 1.0
        return [factor] * len(groups)


def test_contention_rerates_remaining_work() -> None:
    # one 1 GHz node, FCFS. a: 100 s alone from t=0. b: 30 s alone, submitted at 20.
    # [0, 20): a alone, full speed: 20 s of work done, 80 left.
    # t=20: b starts -> both at half speed. b needs 30 / 0.5 = 60 s -> ends at 80.
    # [20, 80): a does 60 * 0.5 = 30 s of work -> 50 left; t=80 b ends -> a full speed again,
    # ends at 80 + 50 = 130.
    model = HalfWhenShared()
    result = simulate(platform((ONE_GHZ, 1)),
                      Workload("w", (job("a", 0, 1, 100), job("b", 20, 1, 30))), create("fcfs"),
                      contention=model)
    assert timeline(result) == {"a": (0.0, 130.0), "b": (20.0, 80.0)}
    assert model.calls > 0


def test_contention_with_three_jobs() -> None:
    # as above plus c (10 s alone) at 30. Rates: 1 alone, 0.5 with any co-runner.
    # t=30: a has 80 - 10 * 0.5 = 75 left, b 30 - 5 = 25, c 10; all at 0.5.
    # c: 10 / 0.5 = 20 s -> ends 50. Then a: 75 - 10 = 65, b: 25 - 10 = 15, both still at 0.5.
    # b: 15 / 0.5 = 30 s -> ends 80. Then a: 65 - 15 = 50 at full speed -> ends 130.
    jobs = (job("a", 0, 1, 100), job("b", 20, 1, 30), job("c", 30, 1, 10))
    result = simulate(platform((ONE_GHZ, 1)), Workload("w", jobs), create("fcfs"),
                      contention=HalfWhenShared())
    assert timeline(result) == {"a": (0.0, 130.0), "b": (20.0, 80.0), "c": (30.0, 50.0)}


def test_contention_multi_node_job_ends_with_its_slowest_share() -> None:
    # two 1 GHz nodes. m: 2 tasks on exactly 2 nodes (1 each), 100 s alone. b (t=20, 1 task,
    # 30 s) -> FCFS first node 0, which then runs m and b: both at 0.5 there; m's task on
    # node 1 keeps full speed and is done at 100. On node 0 the numbers are the single-node
    # case's: b ends 20 + 60 = 80; m's task there has 80 - 30 = 50 left at 80 -> ends 130,
    # and m with it.
    jobs = (job("m", 0, 2, 100, nodes=2), job("b", 20, 1, 30))
    result = simulate(platform((ONE_GHZ, 2)), Workload("w", jobs), create("fcfs"),
                      contention=HalfWhenShared())
    assert result.allocation[0] == ((0, 1), (1, 1))
    assert result.allocation[1] == ((0, 1),)
    assert timeline(result) == {"m": (0.0, 130.0), "b": (20.0, 80.0)}


def test_contention_on_another_node_does_not_slow_a_job() -> None:
    # two nodes; a on node 0 alone, b and c (t=20) together on node 1.
    def fn(s, now, events):
        for j in events.submitted:
            yield Start.on(j, 0 if j.id == "a" else 1)

    # b, c share node 1 at half speed: 30 / 0.5 = 60 s -> [20, 80). a is untouched: [0, 100).
    jobs = (job("a", 0, 1, 100), job("b", 20, 1, 30), job("c", 20, 1, 30))
    result = simulate(platform((ONE_GHZ, 2)), Workload("w", jobs), Scripted(fn),
                      contention=HalfWhenShared())
    assert timeline(result) == {"a": (0.0, 100.0), "b": (20.0, 80.0), "c": (20.0, 80.0)}


def test_contention_with_local_queue_start() -> None:
    # one node: a (1 core, 100 s) and b (4 cores, 10 s) queued locally at 0; c (1 core, 20 s)
    # queued at 0 behind b. a starts alone; b waits (3 free). a alone: ends 100.
    # t=100: b starts [100, 110) alone; c (1 core) does not fit with b (4) -> [110, 130) alone.
    def fn(s, now, events):
        for j in events.submitted:
            yield Enqueue(j, 0)

    jobs = (job("a", 0, 1, 100), job("b", 0, 4, 10), job("c", 0, 1, 20))
    result = simulate(platform((ONE_GHZ, 1)), Workload("w", jobs), Scripted(fn),
                      contention=HalfWhenShared())
    assert timeline(result) == {"a": (0.0, 100.0), "b": (100.0, 110.0), "c": (110.0, 130.0)}


# ---- independence --------------------------------------------------------------------------

def _workload(n: int, seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    jobs = tuple(job(f"j{i}", float(rng.integers(0, 50)), int(rng.integers(1, 5)),
                     float(rng.integers(1, 40)), req=float(rng.integers(1, 80)))
                 for i in range(n))
    return Workload("w", jobs)


def _same(a: SimResult, b: SimResult) -> bool:
    return (np.array_equal(a.start, b.start, equal_nan=True)
            and np.array_equal(a.end, b.end, equal_nan=True)
            and a.allocation == b.allocation
            and np.array_equal(a.node_energy_j, b.node_energy_j))


def test_two_simulations_in_one_process_do_not_interfere() -> None:
    p1 = platform((ONE_GHZ, 2), (NodeType("f", 8, 2.0, idle_w=5, static_w=9), 1))
    p2 = platform((BIG, 3))
    w1, w2 = _workload(30, 1), _workload(25, 2)
    alone1 = simulate(p1, w1, create("conservative"), seed=3)
    alone2 = simulate(p2, w2, create("random-random"), seed=4)
    nested: list[SimResult] = []

    def progress(done: int, total: int) -> None:
        # a whole other simulation runs in the middle of the first one
        if done == 5:
            nested.append(simulate(p2, w2, create("random-random"), seed=4))

    interleaved = Simulation(p1, w1, create("conservative"), seed=3, progress=progress).run()
    assert len(nested) == 1
    assert _same(interleaved, alone1)
    assert _same(nested[0], alone2)


def test_a_scheduler_object_can_be_reused() -> None:
    p = platform((ONE_GHZ, 2), (BIG, 1))
    w1, w2 = _workload(30, 5), _workload(20, 6)
    for spec in ("conservative", "easy", "random-first"):
        sched = create(spec)
        first = simulate(p, w1, sched, seed=1)
        simulate(p, w2, sched, seed=2)
        again = simulate(p, w1, sched, seed=1)
        assert _same(first, again), spec
        assert _same(first, simulate(p, w1, create(spec), seed=1)), spec
