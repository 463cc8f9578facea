"""What the contract battery runs a scheduler on: a small heterogeneous platform with 30 varied
jobs, 30 single-task jobs on one-core nodes, and the bundled ds-sim configuration."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from hetsched.platform.model import NodeType, Platform
from hetsched.workload.model import SPREAD, Job, Workload


@dataclass(frozen=True)
class Inputs:
    """A platform and a workload the battery runs a scheduler on."""

    name: str
    platform: Platform
    workload: Workload

    def __repr__(self) -> str:
        return (f"Inputs({self.name!r}: {len(self.platform.nodes)} nodes, "
                f"{len(self.workload.jobs)} jobs)")


@cache
def contract_platform(cores: tuple[int, int, int] = (8, 4, 2)) -> Platform:
    """Seven nodes of three types (by default 32 cores: 2 × 8, 3 × 4, 2 × 2 cores): speeds,
    core counts, memory and power all differ."""
    big, mid, small = cores
    return Platform.from_counts("contract", [
        (NodeType("big", big, clock_ghz=3.0, memory_mb=4000.0 * big, mem_bw_gbs=100.0,
                  idle_w=80.0, static_w=120.0, dynamic_w_per_core=8.0, has_power=True), 2),
        (NodeType("mid", mid, clock_ghz=2.0, memory_mb=2000.0 * mid, mem_bw_gbs=50.0,
                  idle_w=40.0, static_w=60.0, dynamic_w_per_core=6.0, has_power=True), 3),
        (NodeType("small", small, clock_ghz=1.5, memory_mb=2000.0 * small, mem_bw_gbs=20.0,
                  idle_w=10.0, static_w=20.0, dynamic_w_per_core=4.0, has_power=True), 2)])


@cache
def contract_workload(platform: Platform, single_task: bool = False) -> Workload:
    """30 jobs that all fit ``platform``: one node, two nodes or any nodes, with and without
    memory, estimates under and over the run times, bursts of simultaneous submissions and
    four dependencies; with ``single_task``, the same jobs with one task each."""
    rng = np.random.default_rng(2024)
    cores = np.sort(platform.arrays.cores)[::-1]
    most = {1: int(cores[0]), 2: 2 * int(cores[1]) if cores.size > 1 else 0,
            SPREAD: int(cores.sum()) // 2}
    jobs, submit = [], 0.0
    for i in range(30):
        submit += float(rng.choice([0, 0, 5, 20, 60]))
        nodes = 1 if single_task else int(rng.choice([1, 1, 1, 2, SPREAD]))
        nodes = nodes if most[nodes] >= 2 else 1
        ntasks = 1 if single_task else int(rng.integers(1, most[nodes] + 1))
        ntasks = max(ntasks, 2) if nodes == 2 else ntasks
        seconds = float(rng.integers(20, 300))
        jobs.append(Job(
            id=f"j{i}", submit=submit, ntasks=ntasks,
            req_ops=seconds * platform.slowest_speed,
            req_time=seconds * float(rng.choice([0.5, 1.0, 1.5, 3.0])), nodes=nodes,
            job_memory_mb=ntasks * float(rng.choice([0.0, 250.0, 1000.0])),
            parents=(f"j{i - 3}",) if i % 7 == 6 else ()))
    return Workload("contract-single" if single_task else "contract", tuple(jobs))


@cache
def contract_inputs() -> tuple[Inputs, ...]:
    """The inputs a scheduler is tried on, in order (see the module docstring)."""
    from hetsched.examples import dssim_config_path
    from hetsched.platform.load import load_platform
    from hetsched.workload.dssim import workload_for_config

    platform, cores = contract_platform(), contract_platform((1, 1, 1))
    dssim = load_platform(dssim_config_path())
    return (Inputs("mixed", platform, contract_workload(platform)),
            Inputs("single-task", cores, contract_workload(cores, single_task=True)),
            Inputs("ds-sim", dssim, workload_for_config(dssim_config_path(), dssim)))
