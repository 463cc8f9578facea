"""On-demand nodes on the engine (sim/ondemand.py): off until a job is started there, a boot
event, jobs holding their resources while the node boots and starting when it is up, node
states in the view, and the time each node is charged. Times worked out by hand."""

from __future__ import annotations

import math

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import Events, Scheduler, Start
from hetsched.sim.engine import Simulation, simulate
from hetsched.workload.model import Job, Workload

OFF = NodeType("off", cores=4, clock_ghz=1.0, memory_mb=100, boot_time=60, on_demand=True)
ON = NodeType("on", cores=4, clock_ghz=1.0)


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1,
        memory: float = 0.0) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes, memory_mb=memory)


class Placed(Scheduler):
    """Starts each job on the nodes ``where`` names for it; notes the view at every call."""

    name = "placed"

    def __init__(self, where: dict[str, tuple[tuple[int, int], ...]]) -> None:
        self.where = where
        self.notes: list[tuple] = []

    def decide(self, now: float, events: Events):
        view = self.view
        nodes = range(len(view.platform.nodes))
        self.notes.append((now, events.booted, [view.node_state(n) for n in nodes],
                           [view.up_since(n) for n in nodes], view.free_cores.tolist()))
        return [Start(j, self.where[j.id]) for j in events.submitted]


def test_a_job_started_on_an_inactive_node_boots_it_and_starts_when_it_is_up() -> None:
    platform = Platform.from_counts("p", [(OFF, 2)])
    jobs = (job("a", 0, 2, 100, memory=30), job("b", 10, 2, 50, memory=30))
    sched = Placed({"a": ((0, 2),), "b": ((0, 2),)})
    result = simulate(platform, Workload("w", jobs), sched)
    # a boots node 0 at 0 (up at 60) and b joins it at 10: both hold 2 cores at once and
    # start at 60; b ends at 110, a at 160
    assert result.start.tolist() == [60.0, 60.0] and result.end.tolist() == [160.0, 110.0]
    # the view when the scheduler is called (before its decisions)
    states = [(now, booted, state, free) for now, booted, state, _, free in sched.notes]
    assert states == [(0.0, (), ["inactive", "inactive"], [4, 4]),
                      (10.0, (), ["booting", "inactive"], [2, 4]),
                      (60.0, (0,), ["active", "inactive"], [0, 4]),
                      (110.0, (), ["active", "inactive"], [2, 4]),
                      (160.0, (), ["idle", "inactive"], [4, 4])]
    assert sched.notes[1][3][0] == 60.0 and math.isnan(sched.notes[1][3][1])
    # charged from boot completion to the last end: node 0 for 100 s, node 1 never used;
    # busy while a job runs, [60, 160)
    assert result.node_charged_seconds.tolist() == [100.0, 0.0]
    assert result.node_busy_seconds.tolist() == [100.0, 0.0]
    assert result.node_busy_core_seconds.tolist() == [300.0, 0.0]
    # waiting for the boot counts as queued in the time series
    assert [row[:4] for row in result.timeseries.rows()] == [
        (0.0, 1, 0, 0), (10.0, 2, 0, 0), (60.0, 0, 2, 4), (110.0, 0, 1, 2), (160.0, 0, 0, 0)]


def test_memory_is_held_during_the_boot() -> None:
    platform = Platform.from_counts("p", [(OFF, 1)])
    sim = Simulation(platform, Workload("w", (job("a", 0, 1, 10, memory=70),)),
                     Placed({"a": ((0, 1),)}))
    step = sim.advance()
    sim.apply(sim.scheduler.decide(step.now, step.events))
    assert sim.view.free_mem.tolist() == [30.0] and sim.view.busy_cores.tolist() == [0]
    assert list(sim.view.running) == [0] and sim.view.running[0].start == 60.0


def test_a_job_on_several_nodes_waits_for_the_last_one_up() -> None:
    # node 1 is always on; node 0 boots (60): the 2-node job starts at 60 on both
    platform = Platform.from_counts("p", [(OFF, 1), (ON, 1)])
    result = simulate(platform, Workload("w", (job("a", 0, 2, 10, nodes=2),)),
                      Placed({"a": ((0, 1), (1, 1))}))
    assert (result.start[0], result.end[0]) == (60.0, 70.0)
    # the always-on node is charged for the whole window [0, 70]
    assert result.node_charged_seconds.tolist() == [10.0, 70.0]


def test_platforms_without_on_demand_nodes_report_no_charged_time() -> None:
    result = simulate(Platform.from_counts("p", [(ON, 1)]), Workload("w", (job("a", 0, 1, 5),)),
                      Placed({"a": ((0, 1),)}))
    assert result.start.tolist() == [0.0] and result.node_charged_seconds is None
