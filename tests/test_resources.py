"""Whole-job memory and disk (sim/resources.py): a job holds its amounts exactly where it runs
all its tasks, a proportional share of them elsewhere, and disk is held like memory."""

from __future__ import annotations

import math

import numpy as np

from hetsched.platform.model import NodeType, Platform, whole_kb
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


def test_memory_is_counted_in_whole_kb_so_sums_are_exact() -> None:
    """Shares taken and given back in any order leave exactly the same free memory: the
    failure this rules out is 299.99999999999994 of 300 MB after every job has ended."""
    assert share(100.0, 1, 3) == math.floor(100 / 3 * 1024) / 1024  # rounded down to a KB
    assert share(1000.3, 5, 5) == whole_kb(1000.3) < 1000.3  # and so is a whole job's
    rng = np.random.default_rng(5)
    for _ in range(200):
        shares = [share(float(rng.uniform(0, 500)), int(rng.integers(1, 9)), 9)
                  for _ in range(int(rng.integers(2, 12)))]
        orders = [rng.permutation(len(shares)) for _ in range(2)]
        left = []
        for order in orders:  # take all, then give back all but the first taken
            free = whole_kb(5000.7)
            for i in order:
                free -= shares[i]
            for i in order[1:][::-1]:
                free += shares[i]
            left.append(free + shares[order[0]])
        assert left == [whole_kb(5000.7)] * 2


def test_a_job_as_large_as_its_node_fits_it_whatever_the_sizes() -> None:
    # 1000.3 MB is no whole number of KB: node and job are both rounded down, so they match
    one = job("a", 0, 2, 10, memory=1000.3, disk=77.77)
    node = NodeType("n", 2, 1.0, memory_mb=1000.3, disk_mb=77.77)
    assert starts(node, [one]) == {"a": 0.0}
    platform = Platform.from_counts("p", [(node, 1)])
    assert platform.arrays.memory_mb.tolist() == [whole_kb(1000.3)]


def test_capacity_is_the_most_tasks_whose_share_fits() -> None:
    """capacity() and room() estimate the count from a division, then correct its rounding:
    they must give exactly the largest t whose share fits, also when a task's share is less
    than a KB (several task counts then share one whole-KB amount)."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        ntasks = int(rng.choice([int(rng.integers(1, 40)), int(rng.integers(1000, 3000))]))
        total = float(rng.choice([rng.uniform(0, 2), rng.uniform(0, 1e4), 29.0, 1.0]))
        whole = [share(total, t, ntasks) for t in range(ntasks + 1)]
        free = whole_kb(float(rng.uniform(0, whole[-1] * 1.1))) if rng.random() < 0.8 else \
            whole[int(rng.integers(ntasks + 1))]
        expected = max(t for t in range(ntasks + 1) if whole[t] <= free)
        a = job("a", 0, ntasks, 1, memory=total)
        got = int(capacity(a, np.array([ntasks]), np.array([free]), NO_DISK)[0])
        assert (got, room(a, ntasks, free, np.inf)) == (expected, expected), \
            (total, ntasks, free)
