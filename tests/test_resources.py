"""Whole-job memory and disk (sim/resources.py): a job holds its amounts exactly where it runs
all its tasks, a proportional share of them elsewhere, and disk is held like memory."""

from __future__ import annotations

import numpy as np

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.resources import capacity, fits, room, share
from hetsched.workload.model import SPREAD, Job, Workload


NO_DISK = np.array(np.inf)  # unlimited free disk on every node

def job(id: str, submit: float, ntasks: int, seconds: float, memory: float = 0.0,
        disk: float = 0.0, nodes: int = 1) -> Job:
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes, memory_mb=memory, disk_mb=disk)


def starts(node_type: NodeType, jobs: list[Job], count: int = 1) -> dict[str, float]:
    result = simulate(Platform.from_counts("p", [(node_type, count)]), Workload("w", tuple(jobs)),
                      create("fcfs"))
    return {j.id: float(result.start[j.index]) for j in result.workload.jobs}


def test_a_whole_job_amount_fits_exactly_where_per_task_floats_would_not() -> None:
    assert 7 * (29 / 7) != 29  # why the job keeps its total
    seven = job("a", 0, 7, 10, memory=29)
    free = (np.array([7]), np.array([29.0]), np.array([np.inf]))
    assert fits(seven, 7, 0, *free) and share(29, 7, 7) == 29
    assert capacity(seven, np.array([7, 7]), np.array([29.0, 28.0]), NO_DISK).tolist() == [7, 6]
    # a node of 7 cores and 29 MB runs it at once; twice on 58 MB, both at once
    assert starts(NodeType("n", 7, 1.0, memory_mb=29), [seven]) == {"a": 0.0}
    both = [seven, job("b", 0, 7, 10, memory=29)]
    assert starts(NodeType("n", 14, 1.0, memory_mb=58), both) == {"a": 0.0, "b": 0.0}


def test_a_spread_job_takes_its_share_of_memory_on_each_node() -> None:
    # 6 tasks, 60 MB in all: 10 MB a task. Nodes of 4 cores and 30 MB hold 3 tasks each.
    wide = job("w", 0, 6, 10, memory=60, nodes=SPREAD)
    assert capacity(wide, np.array([4, 4]), np.array([30.0, 30.0]), NO_DISK).tolist() == [3, 3]
    result = simulate(Platform.from_counts("p", [(NodeType("n", 4, 1.0, memory_mb=30), 2)]),
                      Workload("w", (wide,)), create("fcfs"))
    assert result.allocation[0] == ((0, 3), (1, 3))


def test_disk_is_held_like_memory() -> None:
    # 100 MB of disk: the second 60 MB job waits for the first to end (10 s), though cores
    # and memory would hold both
    node = NodeType("n", 4, 1.0, memory_mb=1000, disk_mb=100)
    jobs = [job("a", 0, 1, 10, memory=10, disk=60), job("b", 0, 1, 10, memory=10, disk=60)]
    assert starts(node, jobs) == {"a": 0.0, "b": 10.0}


def test_a_job_needing_more_disk_than_any_node_is_rejected() -> None:
    node = NodeType("n", 4, 1.0, disk_mb=100)
    result = simulate(Platform.from_counts("p", [(node, 1)]),
                      Workload("w", (job("a", 0, 1, 10, disk=200),)), create("fcfs"))
    assert result.reason[0] == "needs 200 MB of disk on one node; no node has that much"


def test_the_scalar_room_is_capacity_on_one_node() -> None:
    """Backfilling's projections count tasks with room(); it must agree with capacity() (up
    to the job's task count, beyond which neither is exact)."""
    rng = np.random.default_rng(3)
    for _ in range(2000):
        ntasks = int(rng.integers(1, 12))
        total = float(rng.choice([0.0, 29.0, 1.0, 7.0 / 3.0, float(rng.uniform(0, 100))]))
        a = job("a", 0, ntasks, 1, memory=total)
        slots = int(rng.integers(0, 16))
        free = float(rng.choice([total, total * rng.uniform(0, 1.2), np.inf, 0.0]))
        expected = int(capacity(a, np.array([slots]), np.array([free]), NO_DISK)[0])
        assert min(room(a, slots, free, np.inf), ntasks) == min(expected, ntasks), \
            (total, slots, free)
        # the same amounts as disk, and both at once
        b = job("b", 0, ntasks, 1, disk=total)
        expected = int(capacity(b, np.array([slots]), np.array([np.inf]), np.array([free]))[0])
        assert min(room(b, slots, np.inf, free), ntasks) == min(expected, ntasks)
        c = job("c", 0, ntasks, 1, memory=total, disk=total / 2)
        expected = int(capacity(c, np.array([slots]), np.array([free]),
                                np.array([free / 3]))[0])
        assert min(room(c, slots, free, free / 3), ntasks) == min(expected, ntasks)
