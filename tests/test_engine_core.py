"""The engine core: stepping, forking, dependencies, node availability, processors,
oversubscription and IRMaSim's contention model, each checked against hand-derived values."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from hetsched.errors import ConfigError, SchedulerError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.schedulers import Events, Start, create
from hetsched.models.contention.irmasim import DEFAULTS
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.events import Availability
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, Workload

ONE_GHZ = NodeType("n", cores=4, clock_ghz=1.0, idle_w=10, static_w=20, dynamic_w_per_core=5)


def job(id: str, submit: float, ntasks: int, seconds: float, **others: object) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               **others)  # type: ignore[arg-type]


def one_node(node_type: NodeType = ONE_GHZ, count: int = 1, **others: object) -> Platform:
    nodes = Platform.from_counts("p", [(node_type, count)]).nodes
    return Platform("p", nodes, **others)  # type: ignore[arg-type]


def same(a: SimResult, b: SimResult) -> None:
    """Two results are identical, job by job and node by node."""
    assert a.state.tolist() == b.state.tolist()
    np.testing.assert_array_equal(a.start, b.start)
    np.testing.assert_array_equal(a.end, b.end)
    assert a.allocation == b.allocation
    assert a.reason == b.reason
    np.testing.assert_array_equal(a.node_energy_j, b.node_energy_j)
    assert a.timeseries == b.timeseries


def bundled() -> tuple[Platform, Workload]:
    platform = load_platform(default_platform_path())
    return platform, load_workload(default_workload_path(), platform)


# ---- stepping ----
@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative", "shortest-high_gflops"])
def test_rl_loop_one_decision_at_a_time_reproduces_run(scheduler: str) -> None:
    platform, workload = bundled()
    expected = simulate(platform, workload, create(scheduler), seed=3)
    sim = Simulation(platform, workload, seed=3)
    policy = create(scheduler)
    policy.reset(sim.view, np.random.default_rng(3))
    steps = 0
    while (step := sim.advance()) is not None:
        steps += 1
        for decision in policy.decide(step.now, step.events):
            sim.apply([decision])  # one at a time, as an agent would
    result = sim.finish()
    assert steps == len(expected.timeseries.time)
    same(result, expected)


def test_per_event_calls_the_scheduler_once_per_event() -> None:
    jobs = (job("a", 0, 4, 10), job("b", 0, 4, 10), job("c", 5, 1, 1))
    sim = Simulation(one_node(), Workload("w", jobs), per_event=True)
    seen = []
    while (step := sim.advance()) is not None:
        e = step.events
        seen.append((step.now, [j.id for j in e.submitted], [j.id for j in e.finished]))
        sim.apply(Start.on(j, 0) for j in e.submitted if sim.view.fits(j, 0))
        sim.apply(Start.on(j, 0) for j in list(sim.view.pending.values())
                  if e.finished and sim.view.fits(j, 0))
    result = sim.finish()
    assert seen == [(0.0, ["a"], []), (0.0, ["b"], []), (5.0, ["c"], []), (10.0, [], ["a"]),
                    (20.0, [], ["b"]), (21.0, [], ["c"])]
    assert result.end.tolist() == [10.0, 20.0, 21.0]


def test_apply_before_advance_is_refused() -> None:
    sim = Simulation(one_node(), Workload("w", (job("a", 0, 1, 1),)))
    with pytest.raises(SchedulerError, match="after advance"):
        sim.apply([])


def test_finish_early_stops_the_run_now() -> None:
    sim = Simulation(one_node(), Workload("w", (job("a", 0, 1, 10), job("b", 50, 1, 1))))
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0)])
    sim.advance()  # a ends at 10
    result = sim.finish()
    assert result.state.tolist() == [JobState.FINISHED, JobState.UNFINISHED]
    assert result.reason[1] == "pending when the run was stopped"
    assert result.t_end == 10.0


# ---- forking ----
def test_fork_leaves_the_original_untouched() -> None:
    platform, workload = bundled()
    alone = simulate(platform, workload, create("easy"), seed=1)
    sim = Simulation(platform, workload, create("easy"), seed=1)
    sim._begin()
    forks = []
    for _ in range(40):  # fork at 40 instants, run each fork to its end under another policy
        step = sim.advance()
        forks.append(sim.fork(create("conservative")))
        forks[-1].apply(forks[-1].scheduler.decide(step.now, step.events))
        forks[-1].run()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    same(sim.run(), alone)


def test_fork_sees_only_the_jobs_known_at_the_fork() -> None:
    jobs = (job("a", 0, 4, 10), job("b", 0, 4, 10), job("c", 30, 1, 1))
    sim = Simulation(one_node(), Workload("w", jobs), create("fcfs"))
    step = sim.advance()
    sim.apply(sim.scheduler.decide(step.now, step.events))
    fork = sim.fork(create("fcfs"))
    result = fork.run()
    assert result.state.tolist() == [JobState.FINISHED, JobState.FINISHED, JobState.UNFINISHED]
    assert result.reason == {2: "submitted after the fork"}
    assert result.end.tolist()[:2] == [10.0, 20.0]
    assert sim.run().state.tolist() == [JobState.FINISHED] * 3


def test_a_fork_under_another_decision() -> None:
    # two 4-core nodes, one twice as fast. At t=0 the original puts a on node 0 (1 GHz), the
    # fork on node 1 (2 GHz): 10 s vs 5 s.
    fast = NodeType("fast", cores=4, clock_ghz=2.0)
    platform = Platform.from_counts("p", [(ONE_GHZ, 1), (fast, 1)])
    sim = Simulation(platform, Workload("w", (job("a", 0, 4, 10),)))
    step = sim.advance()
    fork = sim.fork()
    fork.apply([Start.on(step.events.submitted[0], 1)])
    sim.apply([Start.on(step.events.submitted[0], 0)])
    while fork.advance() is not None:
        pass
    while sim.advance() is not None:
        pass
    assert fork.finish().end.tolist() == [5.0]
    assert sim.finish().end.tolist() == [10.0]


def test_a_dropped_fork_is_freed_at_once() -> None:
    # no reference cycle (simulation -> view -> simulation): a fork nobody holds is freed by
    # its reference count, not left to the cyclic collector
    platform, workload = bundled()
    sim = Simulation(platform, workload, create("easy"))
    sim.advance()
    gc.disable()
    try:
        forks = [weakref.ref(sim.fork()), weakref.ref(sim.fork(create("conservative")))]
        assert [fork() for fork in forks] == [None, None]
    finally:
        gc.enable()


def test_a_fork_reports_no_progress() -> None:
    platform, workload = bundled()
    calls: list[tuple[int, int]] = []
    sim = Simulation(platform, workload, create("fcfs"), progress=lambda *done: calls.append(done))
    step = sim.advance()
    sim.apply(sim.scheduler.decide(step.now, step.events))
    sim.fork(create("fcfs")).run()
    assert calls == []
    sim.run()
    assert calls[-1] == (len(workload.jobs), len(workload.jobs))


def test_forks_and_the_original_stay_independent() -> None:
    # two forks of one instant: the first runs to its end, then the original, then the
    # second, which must see neither's changes (per-job state, node dicts, time series are
    # shared until written)
    platform, workload = bundled()
    alone = simulate(platform, workload, create("easy"), seed=2)
    sim = Simulation(platform, workload, create("easy"), seed=2)
    for _ in range(30):
        step = sim.advance()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    first, second = sim.fork(create("first-random")), sim.fork(create("first-random"))
    expected = first.run()
    same(sim.run(), alone)
    same(second.run(), expected)


def test_a_fork_of_a_fork_draws_as_a_fork_of_the_original() -> None:
    # a fork without a scheduler keeps the generator's state of its instant for its own forks
    platform, workload = bundled()
    sim = Simulation(platform, workload, create("first-random"), seed=5)
    for _ in range(10):
        step = sim.advance()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    middle = sim.fork()
    direct = sim.fork(create("first-random")).run()
    sim.run()  # draws from the original's generator
    same(middle.fork(create("first-random")).run(), direct)


# ---- dependencies ----
def chain(*extra: Job) -> Workload:
    return Workload("w", (job("a", 0, 1, 100), job("b", 0, 1, 10, parents=("a",)),
                          job("c", 1, 1, 10, parents=("b",)), *extra))


def test_a_job_starts_when_its_last_parent_ends() -> None:
    workload = Workload("w", (job("a", 0, 1, 100), job("x", 0, 1, 30),
                              job("d", 0, 2, 10, parents=("a", "x"))))
    result = simulate(one_node(), workload, create("fcfs"))
    assert result.start.tolist() == [0.0, 0.0, 100.0]
    assert result.end.tolist() == [100.0, 30.0, 110.0]
    result = simulate(one_node(), chain(), create("easy"))
    assert result.start.tolist() == [0.0, 100.0, 110.0]


def test_scheduler_is_told_of_released_jobs() -> None:
    sim = Simulation(one_node(), chain())
    released = []
    while (step := sim.advance()) is not None:
        released += [(step.now, j.id) for j in step.events.released]
        assert not {j.id for j in step.events.submitted} & {"b", "c"}
        sim.apply(Start.on(j, 0) for j in step.events.arrived)
    assert released == [(100.0, "b"), (110.0, "c")]
    assert sim.finish().count(JobState.FINISHED) == 3


def test_descendants_of_a_rejected_job_are_rejected() -> None:
    huge = job("h", 0, 64, 1)  # can never fit on 4 cores
    workload = Workload("w", (huge, job("k", 0, 1, 1, parents=("h",)),
                              job("g", 5, 1, 1, parents=("k",)), job("free", 0, 1, 1)))
    result = simulate(one_node(), workload, create("fcfs"))
    # in submission order: h, k, free (t=0), g (t=5)
    assert result.state.tolist() == [JobState.REJECTED, JobState.REJECTED, JobState.FINISHED,
                                     JobState.REJECTED]
    assert result.reason[1].startswith("parent 'h' was rejected: needs 64 cores")
    assert result.reason[3].startswith("parent 'k' was rejected: parent 'h' was rejected: "
                                       "needs 64 cores")


def test_descendants_of_an_unfinished_job_are_rejected() -> None:
    result = simulate(one_node(), chain(), create("fcfs"), horizon=50.0)
    assert result.state.tolist() == [JobState.UNFINISHED, JobState.REJECTED, JobState.REJECTED]
    assert result.reason[0] == "running at the horizon"
    assert result.reason[1] == "parent 'a' did not finish"
    assert result.reason[2] == "parent 'b' did not finish"


# ---- node availability ----
def test_a_node_under_maintenance_takes_no_work() -> None:
    platform = Platform.from_counts("p", [(ONE_GHZ, 2)])
    jobs = (job("a", 0, 4, 10), job("b", 1, 4, 10), job("c", 2, 4, 10))
    down = [Availability(0.0, 1, 0), Availability(15.0, 1, 4)]
    result = simulate(platform, Workload("w", jobs), create("fcfs"), availability=down)
    # node 1 is down on [0, 15): a runs on node 0 [0, 10], b waits for it [10, 20], c gets
    # node 1 when it comes back at 15
    assert result.start.tolist() == [0.0, 10.0, 15.0]
    assert [a[0][0] for a in result.allocation] == [0, 0, 1]


def test_running_jobs_keep_their_cores_when_a_node_shrinks() -> None:
    jobs = (job("a", 0, 4, 10), job("b", 1, 1, 1))
    result = simulate(one_node(), Workload("w", jobs), create("fcfs"),
                      availability=[Availability(5.0, 0, 2)])
    # a keeps its 4 cores to 10; then only 2 cores are available: b starts at 10
    assert result.end.tolist() == [10.0, 11.0]


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative", "irmasim_minimal"])
def test_a_shrunken_node_does_not_hide_free_cores_elsewhere(scheduler: str) -> None:
    # a holds node 0's 4 cores when node 0 shrinks to 1 core at 5 (3 threads too many); x
    # leaves 2 cores free on node 1. b (2 tasks, at 20) fits there at once: the platform's
    # free slots are 2, not 1 - 4 + 2 = -1
    platform = Platform.from_counts("p", [(ONE_GHZ, 2)])
    jobs = (job("a", 0, 4, 1000), job("x", 0, 2, 1000), job("b", 20, 2, 10))
    result = simulate(platform, Workload("w", jobs), create(scheduler),
                      availability=[Availability(5.0, 0, 1)])
    assert result.start.tolist() == [0.0, 0.0, 20.0]
    assert result.allocation[2] == ((1, 2),)


def test_total_free_cores_counts_no_node_below_zero() -> None:
    platform = Platform.from_counts("p", [(ONE_GHZ, 2)])
    sim = Simulation(platform, Workload("w", (job("a", 0, 4, 1000), job("x", 0, 2, 1000))),
                     availability=[Availability(5.0, 0, 1)])
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0), Start.on(step.events.submitted[1], 1)])
    assert sim.advance().events.available == (0,)
    assert sim.view.free_cores.tolist() == [-3, 2]
    assert sim.view.total_free_cores == 2


def test_bad_availability_is_refused() -> None:
    with pytest.raises(ConfigError, match="0..4 cores"):
        Simulation(one_node(), chain(), availability=[Availability(1.0, 0, 9)])


# ---- processors, oversubscription, power ----
def test_threads_fill_processors_in_order_and_power_is_per_processor() -> None:
    two = NodeType.of_processors("two", 1.0, (Processor(2, idle_w=1, static_w=10,
                                                        dynamic_w_per_core=5),) * 2)
    sim = Simulation(one_node(two), Workload("w", (job("a", 0, 3, 10),)))
    step = sim.advance()
    sim.apply([Start.on(step.events.submitted[0], 0)])
    assert sim.view.processor_threads(0) == (2, 1)
    result = simulate(one_node(two), Workload("w", (job("a", 0, 3, 10),)), create("fcfs"))
    # processor 0: 10 + 2 * 5 = 20 W, processor 1: 10 + 5 = 15 W, for 10 s
    assert result.node_energy_j.tolist() == [pytest.approx(350.0)]


def test_oversubscribed_cores_are_shared() -> None:
    shared = NodeType("shared", cores=2, clock_ghz=1.0, static_w=10, dynamic_w_per_core=5,
                      oversubscription=2)
    jobs = tuple(job(f"j{i}", 0, 1, 10) for i in range(4)) + (job("late", 0, 1, 10),)
    result = simulate(one_node(shared), Workload("w", jobs), create("fcfs"))
    # 4 threads on 2 cores: each at 2/4 -> 10 s of work in 20 s; the fifth waits for a slot
    assert result.end.tolist() == [20.0] * 4 + [30.0]
    # busy cores for power = min(threads, cores): 2 (20 W) for 20 s, then 1 (15 W) for 10 s
    assert result.node_energy_j.tolist() == [pytest.approx(550.0)]


# ---- IRMaSim's contention model ------------------------------------------------------------------
IRMASIM_CPU = Processor(4, idle_w=0.0, static_w=40.0, dynamic_w_per_core=10.0,
                        params=tuple(DEFAULTS.items()))


@pytest.mark.parametrize(("tasks", "makespan", "energy"), [
    (1, 10.0, 500.0), (2, 11.527459, 691.648), (3, 14.554572, 1018.820),
    (4, 21.770458, 1741.637)])
def test_irmasim_golden_values(tasks: int, makespan: float, energy: float) -> None:
    # IRMaSim (modelV1): k identical tasks (req_ops 1e10, mem_vol 2e5) on one 4-core 1 GHz
    # processor, static 40 W, dynamic 10 W per core.
    node = NodeType.of_processors("cpu", 1.0, (IRMASIM_CPU,), has_power=True)
    platform = one_node(node, contention="irmasim")
    one_job = Workload("w", (Job("j", 0, tasks, 1e10, 100, mem_vol=2e5),))
    many = Workload("w", tuple(Job(f"j{i}", 0, 1, 1e10, 100, mem_vol=2e5) for i in range(tasks)))
    for workload in (one_job, many):
        result = simulate(platform, workload, create("fcfs"))
        assert result.t_end - result.t0 == pytest.approx(makespan, abs=5e-7)
        assert float(result.node_energy_j[0]) == pytest.approx(energy, abs=5e-4)
    plain = simulate(platform, one_job, create("fcfs"), contention="none")
    assert plain.t_end == 10.0


def test_unknown_contention_model() -> None:
    with pytest.raises(ConfigError, match="did you mean irmasim"):
        Simulation(one_node(), chain(), contention="irmasin")


def test_events_order_is_documented() -> None:
    # a finish, a submission and a wake-up at the same instant arrive in one call, the finished
    # job's cores already free for the submitted one
    calls = []

    class Probe(create("fcfs").__class__):
        def decide(self, now: float, events: Events):
            calls.append((now, [j.id for j in events.finished], [j.id for j in events.submitted]))
            return super().decide(now, events)

    result = simulate(one_node(), Workload("w", (job("a", 0, 4, 10), job("b", 10, 4, 1))),
                      Probe())
    assert calls == [(0.0, [], ["a"]), (10.0, ["a"], ["b"]), (11.0, ["b"], [])]
    assert result.start.tolist() == [0.0, 10.0]


def test_platform_downtime_applies_to_every_run() -> None:
    nodes = Platform.from_counts("p", [(ONE_GHZ, 2)]).nodes
    platform = Platform("p", nodes, availability=(Availability(0.0, 1, 0),
                                                  Availability(15.0, 1, 4)))
    jobs = (job("a", 0, 4, 10), job("b", 1, 4, 10), job("c", 2, 4, 10))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert result.start.tolist() == [0.0, 10.0, 15.0]


def test_irmasim_contention_is_per_processor() -> None:
    # two 2-core processors in one node: a 4-task job puts 2 tasks on each, so each processor
    # sees IRMaSim's 2-task contention (11.527459 s), not the 4-task one of a single 4-core
    # processor (21.770458 s)
    half = Processor(2, static_w=20.0, dynamic_w_per_core=10.0, params=tuple(DEFAULTS.items()))
    node = NodeType.of_processors("two", 1.0, (half, half), has_power=True)
    result = simulate(one_node(node, contention="irmasim"),
                      Workload("w", (Job("j", 0, 4, 1e10, 100, mem_vol=2e5),)), create("fcfs"))
    assert result.end[0] == pytest.approx(11.527459, abs=5e-7)
    # energy: each processor 20 + 2 * 10 W = 40 W
    assert float(result.node_energy_j[0]) == pytest.approx(80 * 11.527459, abs=1e-3)


def test_a_job_across_two_processors_ends_with_its_slower_share() -> None:
    # one node of two 2-core processors. a: 1 task, 1e10 ops, on processor 0; b: 2 tasks at
    # t=1: threads fill processors in order, so b's take the free core of processor 0 and one
    # of processor 1. Processor 0 then has 2 threads (a and b's): both at IRMaSim's 2-task
    # speedup 0.867493834; b's thread on processor 1 runs alone at 1 and is done at 11. b ends
    # when its share on processor 0 does.
    half = Processor(2, params=tuple(DEFAULTS.items()))
    node = NodeType.of_processors("two", 1.0, (half, half))
    jobs = (Job("a", 0, 1, 1e10, 100, mem_vol=2e5), Job("b", 1, 2, 1e10, 100, mem_vol=2e5))
    result = simulate(one_node(node, contention="irmasim"), Workload("w", jobs), create("fcfs"))
    s = 0.867493834
    # a: 1 s alone (1e9 ops done), then 9e9 ops at s -> ends at 1 + 9 / s
    assert result.end[0] == pytest.approx(1 + 9 / s, rel=1e-9)
    # b's share on processor 0: 10 s of work at s until a ends, then alone
    a_end = 1 + 9 / s
    done = (a_end - 1) * s
    assert result.end[1] == pytest.approx(a_end + (10 - done), rel=1e-9)


def test_irmasim_keeps_a_processors_speedups_until_it_changes() -> None:
    # IRMaSim recomputes a processor's speedups only when a task starts or ends on it. One
    # node of two 4-core processors; every thread requests y = mem_vol / T0 = 2e4. At t=0, in
    # order: A (3 tasks, 6 s of work) -> cores 0-2 of processor 0; J (2 tasks, 10 s) -> the
    # last core of processor 0 and one of processor 1; Z (1 task, 30 s) -> processor 1.
    # Processor 0: 4 threads at s4 = 0.459338058; processor 1: J's thread and Z at
    # s2 = 0.867493834. J's thread on processor 1 is done at 10 / s2 = 11.53, but J holds its
    # core until J ends. A ends at 6 / s4 = 13.06: only processor 0 changes (J's thread there
    # alone: speed 1, 4 s left, so J ends at 17.06). Z keeps s2 until J's end changes
    # processor 1 (re-rating it on A's end, too early, would give Z's end as 31.73).
    s2, s4 = 0.867493834, 0.459338058
    cpu = Processor(4, params=tuple(DEFAULTS.items()))
    node = NodeType.of_processors("two", 1.0, (cpu, cpu))
    jobs = (Job("A", 0, 3, 6e9, 100, mem_vol=1.2e5), Job("J", 0, 2, 1e10, 100, mem_vol=2e5),
            Job("Z", 0, 1, 3e10, 100, mem_vol=6e5))
    result = simulate(one_node(node, contention="irmasim"), Workload("w", jobs), create("fcfs"))
    a_end = 6 / s4
    j_end = a_end + 4
    assert result.end[0] == pytest.approx(a_end, rel=1e-9)
    assert result.end[1] == pytest.approx(j_end, rel=1e-9)
    assert result.end[2] == pytest.approx(j_end + (30 - j_end * s2), rel=1e-9)


def test_deside_in_a_run() -> None:
    # one 4-core 1 GHz processor with 40 GB/s; a 4-task job (10 s of work per task) asking
    # 20 GB/s per thread, U = 1, no remote accesses (ρ = 0): B = 4 busy threads, BWavail =
    # 40 / 4 = 10, σ = (20 - 10) / 10 = 1, dilation 2, factor 1 / 2: it takes 20 s. A 1-task
    # job alone: B = 1, BWavail 40 >= 20, factor 1: 10 s.
    cpu = Processor(4, mem_bw_gbs=40.0)
    node = NodeType.of_processors("bw", 1.0, (cpu,))
    platform = one_node(node, count=2, contention="deside",
                        contention_params=(("remote_fraction", 0.0),))
    jobs = (job("wide", 0, 4, 10, mem_bw_gbs=20.0), job("one", 0, 1, 10, mem_bw_gbs=20.0))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert result.end.tolist() == [20.0, 10.0]
    assert result.contention == "deside"
    assert simulate(platform, Workload("w", jobs), create("fcfs"),
                    contention="none").end.tolist() == [10.0, 10.0]


def test_an_emptied_node_uses_no_memory_bandwidth_exactly() -> None:
    # 0.1 + 0.2 - 0.1 - 0.2 is 2.8e-17 in floating point: A and B end in the order they
    # started, and the node's bandwidth in use is 0 again only because it ran nothing then
    jobs = [job("A", 0, 1, 5, mem_bw_gbs=0.1), job("B", 0, 1, 10, mem_bw_gbs=0.2)]
    sim = Simulation(one_node(), Workload("w", tuple(jobs)), create("fcfs"))
    sim.run()
    assert sim.state.used_mem_bw.tolist() == [0.0]
