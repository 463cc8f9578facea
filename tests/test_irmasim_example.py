"""IRMaSim's bundled dual-core example, worked out by hand, each part of the model on its own:
the contention factor, the finish times it implies, and IRMaSim's per-processor power."""

import pytest

from hetsched.metrics import summarize
from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.models.contention.irmasim import parameters, speedup
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload
from support import shared


def example():
    platform = load_platform(shared("platforms/irmasim_dual_core.json"))
    return platform, load_workload(shared("traces/irmasim_dual_core_jobs.json"), platform)


def test_power_is_per_processor() -> None:
    platform, _ = example()
    (proc,) = platform.nodes[0].type.processors
    # static_power 50 is the processor's, min_power 0.005 of it when idle, 100 W per busy core
    assert (proc.cores, proc.static_w, proc.idle_w, proc.dynamic_w_per_core) == \
        (2, 50.0, 0.25, 100.0)
    assert platform.contention == "irmasim"


def test_speedup_while_both_run() -> None:
    platform, _ = example()
    p = parameters(platform.nodes[0].type.processors[0])
    # 1e6 ops at 1e6 ops/s: T0 = 1 s; y = mem_vol / T0 = 1e6. Alone: x = 1e6 >= c, n = 0:
    # d(y, 0) = 1 / (1 + 0) = 1 and 1 + b (x - c) < 1, so the speedup is 1.
    assert speedup(1e6, 1e6, 0, p) == 1.0
    # Both: x = 2e6, n = 1: z = (1e6 - 0.75 * 3500) / (45000 - 3000) > 1, S(z) = 0,
    # d = 1 / 1.6 = 0.625 > 1 + b (x - c) = 1 - 1.85e-5 * 1968000 < 0.
    assert speedup(2e6, 1e6, 1, p) == 0.625


def test_dual_core_example_times_and_joules() -> None:
    platform, workload = example()
    result = simulate(platform, workload, create("fcfs"))
    # Submitted at 2 and 2.5 (1 s of work each), both start at once on the two cores.
    # [2, 2.5): the first alone, 0.5 s of work done. From 2.5 both at 0.625: the first needs
    # 0.5 / 0.625 = 0.8 s -> ends 3.3 (1.3 s after the first submission); the second did
    # 0.8 * 0.625 = 0.5 s of work by then, and ends alone 0.5 s later at 3.8 (1.8 s).
    assert list(result.start) == [2.0, 2.5]
    assert list(result.end) == pytest.approx([3.3, 3.8], rel=1e-12)
    # Power: one busy core 50 + 100 = 150 W, two 50 + 200 = 250 W. Window [2, 3.8]:
    # 0.5 s * 150 + 0.8 s * 250 + 0.5 s * 150 = 350 J.
    assert result.node_energy_j[0] == pytest.approx(350.0, rel=1e-12)
    metrics = summarize(result)
    assert metrics["makespan"] == pytest.approx(1.8, rel=1e-12)
    assert metrics["energy_j"] == pytest.approx(350.0, rel=1e-12)
    # busy core-seconds 0.5 + 2 * 0.8 + 0.5 = 2.6 of 2 cores x 1.8 s
    assert metrics["utilisation"] == pytest.approx(2.6 / 3.6, rel=1e-12)


def test_without_contention() -> None:
    platform, workload = example()
    result = simulate(platform, workload, create("fcfs"), contention="none")
    # 1 s each: ends 3 and 3.5. Energy: 0.5 s * 150 + 0.5 s * 250 + 0.5 s * 150 = 275 J
    # (today's 350 J agrees only with contention; doubled static power without contention
    # would also give 350 J, by coincidence).
    assert list(result.end) == [3.0, 3.5]
    assert result.node_energy_j[0] == pytest.approx(275.0, rel=1e-12)
