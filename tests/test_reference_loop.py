"""hetsched's fcfs and easy give the same schedule as the minimal reference loops of
benchmarks/reference_loop.py on P identical processors (lublin_256 as one 256-core machine,
requested time = 2 x run time): an independent check of the queue and backfilling rules."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions
from support import shared

LOOP = Path(__file__).resolve().parents[1] / "benchmarks" / "reference_loop.py"
_spec = importlib.util.spec_from_file_location("reference_loop", LOOP)
reference_loop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference_loop)


@pytest.mark.parametrize("name", ["fcfs", "easy"])
def test_same_starts_as_the_reference_loop(name: str) -> None:
    machine = Platform.from_counts("m256", [(NodeType("m", 256, 1.0), 1)])
    full = load_workload(shared("traces/lublin_256.swf"), machine,
                         SwfOptions(estimate_factor=2.0))
    workload = Workload("lublin", full.jobs[:3000])
    jobs = [(j.submit, j.ntasks, j.req_ops / (j.ipc * 1e9), j.req_time) for j in workload.jobs]
    expected = getattr(reference_loop, name)(jobs, 256)
    result = simulate(machine, workload, create(name))
    assert result.start.tolist() == pytest.approx(expected, abs=1e-6)
    waited = sum(start > job.submit for start, job in zip(expected, workload.jobs))
    assert waited > len(jobs) // 3  # a saturated machine: a real queue, not everything at once
