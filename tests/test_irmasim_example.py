"""IRMaSim's bundled dual-core example, worked out by hand."""


import pytest

from hetsched.metrics import summarize
from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload
from support import SHARED_DATA

DATA = SHARED_DATA


@pytest.mark.skipif(not DATA.is_dir(), reason="shared data not available")
def test_dual_core_example_times_and_joules() -> None:
    platform = load_platform(DATA / "platforms" / "irmasim_dual_core.json")
    workload = load_workload(DATA / "traces" / "irmasim_dual_core_jobs.json", platform)
    result = simulate(platform, workload, create("fcfs"))
    # 1 processor, 2 cores at 0.001 GHz x 1 flop/cycle = 1e6 ops/s; each job: 1 task of 1e6 ops
    # -> 1 s. Submitted at 2 and 2.5, both start at once on the two cores.
    assert list(result.start) == [2.0, 2.5]
    assert list(result.end) == [3.0, 3.5]
    # Power (IRMaSim per-core values): one core busy 2*50 + 100 = 200 W, two busy 2*50 + 2*100
    # = 300 W. Window [2, 3.5]: 0.5 s at 200 W + 0.5 s at 300 W + 0.5 s at 200 W = 350 J.
    assert result.node_energy_j[0] == pytest.approx(350.0, rel=1e-12)
    metrics = summarize(result)
    assert metrics["makespan"] == 1.5
    assert metrics["energy_j"] == pytest.approx(350.0, rel=1e-12)
    # Busy core-seconds 2 of 2 cores x 1.5 s.
    assert metrics["utilisation"] == pytest.approx(2 / 3, rel=1e-12)
