"""SLF, LET and MOM (Chahal et al., ICPE'19, §4.2) on hand-built cases under DESiDE's model:
two 8-core servers of 40 GB/s, one job already on each; where does a new job go?

With every thread busy (U = 1), B busy threads on a server and a job asking BW GB/s per thread:
sigma = max(0, BW·B/40 − 1), d = 1 + 1.125·sigma (25 % of threads remote, 1.5× slower), rate
factor 1/d. Server A (2.2 GHz) runs X: 4 light threads (2 GB/s) for a long time; server B
(2.0 GHz) runs Y: 4 heavy threads (10 GB/s). A new light job N (4 threads, 2 GB/s) is slowed
nowhere (B = 8 gives 5 GB/s a thread) but Y is: 10·8/40 − 1 = 1, factor 1/2.125. So N ends
first on the faster A (LET), while the server whose last job ends first is B (MOM): X on A
runs far longer than Y, even slowed."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.schedulers import create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.protocol import Start
from hetsched.sim.result import JobState
from hetsched.workload.model import Job, Workload


def server(name: str, ghz: float) -> NodeType:
    return NodeType.of_processors(name, ghz, (Processor(8, mem_bw_gbs=40.0),))


PLATFORM = Platform.from_counts("p", [(server("a", 2.2), 1), (server("b", 2.0), 1)])
X = Job("x", 0.0, 4, 2.2e9 * 1000, 1000.0, mem_bw_gbs=2.0)   # 1,000 s on A
Y = Job("y", 0.0, 4, 2.0e9 * 100, 100.0, mem_bw_gbs=10.0)    # 100 s on B alone
N = Job("n", 10.0, 4, 2.0e9 * 50, 50.0, mem_bw_gbs=2.0)      # 50 s on B, 45.5 s on A


def decide(name: str) -> tuple[Simulation, list[Start]]:
    """X started on A and Y on B at 0; what ``name`` decides for N at 10 s."""
    sim = Simulation(PLATFORM, Workload("w", [X, Y, N]), None, contention="deside")
    sim.advance()
    x, y = sim.view.pending.values()
    sim.apply([Start.on(x, 0), Start.on(y, 1)])
    sim.advance()
    scheduler = create(name)
    scheduler.reset(sim.view, np.random.default_rng(0))
    return sim, list(scheduler.decide(sim.view.now, None))


@pytest.mark.parametrize("name, node", [("let", 0), ("mom", 1), ("slf", 0)])
def test_where_each_places_the_new_job(name: str, node: int) -> None:
    _, decisions = decide(name)
    assert [(d.job.id, d.allocation) for d in decisions] == [("n", ((node, 4),))]


def test_the_what_if_is_what_the_run_then_does() -> None:
    """LET's prediction for N on each server is N's end when it is started there."""
    for node in (0, 1):
        sim, _ = decide("let")
        [n] = sim.view.pending.values()
        predicted = sim.view.project(node, [n])
        sim.apply([Start.on(n, node)])
        while sim.advance() is not None:
            sim.apply([])
        ends = sim.finish().end
        assert predicted == {i: pytest.approx(float(ends[i]), rel=1e-12) for i in predicted}
    assert predicted[2] == pytest.approx(10.0 + 50.0)  # N on B: not slowed (2 <= 5 GB/s)


def test_slf_takes_the_least_threads_per_core_and_the_lowest_index_on_ties() -> None:
    one = NodeType("c", 4, 2.0, oversubscription=4)
    jobs = [Job(f"j{i}", 0.0, t, 1e12, 100.0) for i, t in enumerate([3, 2, 2, 1])]
    result = simulate(Platform.from_counts("p", [(one, 3)]), Workload("w", jobs), create("slf"))
    # j0 (3) -> node 0; j1 (2) -> node 1; j2 (2) -> node 2; j3 (1): loads 3/4, 2/4, 2/4 -> 1
    assert [a[0][0] for a in result.allocation] == [0, 1, 2, 1]


@pytest.mark.parametrize("name", ["slf", "let", "mom"])
def test_every_job_of_a_dag_runs_after_its_parents(name: str) -> None:
    rng = np.random.default_rng(3)
    jobs = []
    for i in range(40):
        parents = tuple(f"j{p}" for p in rng.choice(i, size=min(i, 2), replace=False)) \
            if i else ()
        jobs.append(Job(f"j{i}", 0.0, int(rng.integers(4, 29)), float(rng.uniform(1e11, 1e12)),
                        600.0, mem_bw_gbs=float(rng.uniform(3.6, 10.5)),
                        cpu_util=float(rng.uniform(0.6, 1.0)), parents=parents))
    kind = NodeType.of_processors("s", 2.0, (Processor(28, mem_bw_gbs=40.0),
                                             Processor(28, mem_bw_gbs=40.0)),
                                  oversubscription=4)
    result = simulate(Platform.from_counts("p", [(kind, 3)]), Workload("w", jobs), create(name),
                      contention="deside")
    index = {job.id: i for i, job in enumerate(jobs)}
    assert (result.state == JobState.FINISHED).all()
    for i, job in enumerate(jobs):
        for parent in job.parents:
            assert result.start[i] >= result.end[index[parent]]


def test_heft_plans_the_workflow_on_the_nodes_cores() -> None:
    """A fast 4-core node (2 GHz) and a slow one (1 GHz): the chain a -> b -> c of 4-thread
    jobs (100 s each on the fast node, 200 s on the slow) all go to the fast node, where each
    ends first; d (2 threads, 50 s or 100 s) would wait for the chain's cores there until 300 s
    (ending at 350 s), so it goes to the slow node and ends at 100 s."""
    fast, slow = NodeType("f", 4, 2.0), NodeType("s", 4, 1.0)
    jobs = [Job("a", 0.0, 4, 2e11, 200.0), Job("b", 0.0, 4, 2e11, 200.0, parents=("a",)),
            Job("c", 0.0, 4, 2e11, 200.0, parents=("b",)), Job("d", 0.0, 2, 1e11, 100.0)]
    platform = Platform.from_counts("p", [(fast, 1), (slow, 1)])
    result = simulate(platform, Workload("w", jobs), create("heft"))
    assert [a[0][0] for a in result.allocation] == [0, 0, 0, 1]
    assert result.end.tolist() == [100.0, 200.0, 300.0, 100.0]


def test_heft_runs_a_dag_under_contention_keeping_every_dependency() -> None:
    rng = np.random.default_rng(4)
    jobs = [Job(f"j{i}", 0.0, int(rng.integers(4, 29)), float(rng.uniform(1e11, 1e12)), 600.0,
                mem_bw_gbs=float(rng.uniform(3.6, 10.5)),
                parents=tuple(f"j{p}" for p in rng.choice(i, size=min(i, 2), replace=False)))
            for i in range(30)]
    kind = NodeType.of_processors("s", 2.0, (Processor(28, mem_bw_gbs=40.0),) * 2)
    result = simulate(Platform.from_counts("p", [(kind, 3)]), Workload("w", jobs),
                      create("heft"), contention="deside")
    assert (result.state == JobState.FINISHED).all()
    index = {job.id: i for i, job in enumerate(jobs)}
    assert all(result.start[i] >= result.end[index[p]] for i, job in enumerate(jobs)
               for p in job.parents)


def test_heft_replan_plans_again_at_every_release_around_the_running_jobs() -> None:
    """A chain a -> b and an independent c on two 4-core nodes: the static plan is made once;
    heft_replan plans again when b is released, with c still running fixed on its node."""
    from hetsched.schedulers.plan import WorkflowPlan

    plans: list[list[str]] = []

    class Spy(WorkflowPlan):
        def _plan(self, jobs: list[Job]) -> None:
            plans.append(sorted(job.id for job in jobs)
                         + sorted(f"running:{r.job.id}" for r in self.view.running.values()))
            super()._plan(jobs)

    node = NodeType("n", 4, 1.0)
    jobs = [Job("a", 0.0, 4, 1e11, 100.0), Job("b", 0.0, 4, 1e11, 100.0, parents=("a",)),
            Job("c", 0.0, 4, 3e11, 300.0)]
    platform = Platform.from_counts("p", [(node, 2)])
    for replan, expected in ((False, [["a", "b", "c"]]),
                             (True, [["a", "b", "c"], ["b", "running:c"]])):
        plans.clear()
        result = simulate(platform, Workload("w", jobs), Spy(replan=replan))
        assert plans == expected
        assert result.start[1] >= result.end[0]


def test_heft_plans_no_job_where_it_cannot_fit() -> None:
    """A job too big for any node's cores (but within its slots) is placed first-fit, not a
    crash; a job whose memory only the slow node holds is planned there, not left waiting."""
    small = NodeType("s", 8, 2.0, oversubscription=2)
    result = simulate(Platform.from_counts("p", [(small, 2)]),
                      Workload("w", [Job("wide", 0.0, 12, 1e11, 100.0)]), create("heft"))
    assert result.state.tolist() == [JobState.FINISHED]
    fast, roomy = NodeType("f", 4, 2.0, memory_mb=1000.0), NodeType("r", 4, 1.0,
                                                                     memory_mb=100000.0)
    result = simulate(Platform.from_counts("p", [(fast, 1), (roomy, 1)]),
                      Workload("w", [Job("big", 0.0, 2, 1e11, 100.0, job_memory_mb=5000.0)]),
                      create("heft"))
    assert result.state.tolist() == [JobState.FINISHED] and result.allocation[0][0][0] == 1


@pytest.mark.parametrize("name", ["heft", "cpop", "peft"])
def test_each_plan_is_executed_on_its_nodes(name: str) -> None:
    """Single-core nodes of three speeds and exact estimates: every job of a random DAG runs
    on the node the mapping core's plan gives it, and after its parents."""
    from hetsched.mapping.dag import cpop, heft, peft
    from hetsched.mapping.graph import TaskGraph

    rng = np.random.default_rng(7)
    kinds = [NodeType(f"k{i}", 1, ghz) for i, ghz in enumerate((1.0, 1.5, 2.0))]
    platform = Platform.from_counts("p", [(kind, 1) for kind in kinds])
    ops = rng.uniform(1e10, 5e10, size=15)
    jobs = [Job(f"j{i}", 0.0, 1, float(ops[i]), float(ops[i]) / 1e9,  # exact on the slowest
                parents=tuple(f"j{p}" for p in rng.choice(i, size=min(i, 2), replace=False)))
            for i in range(15)]
    result = simulate(platform, Workload("w", jobs), create(name))
    index = {job.id: i for i, job in enumerate(jobs)}
    cost = np.array([[job.req_ops / (ghz * 1e9) for ghz in (1.0, 1.5, 2.0)] for job in jobs])
    graph = TaskGraph(cost, tuple((index[p], i, 0.0) for i, j in enumerate(jobs)
                                  for p in j.parents))
    plan = {"heft": heft, "cpop": cpop, "peft": peft}[name](graph, [1, 1, 1], [1] * 15)
    assert [a[0][0] for a in result.allocation] == plan.processor.tolist()
    assert all(result.start[i] >= result.end[index[p]] for i, job in enumerate(jobs)
               for p in job.parents)
