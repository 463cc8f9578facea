"""Every built-in scheduler family on small cases worked out on paper.

Conventions of this file: the slowest node of every platform runs at 1 GHz (1e9 ops/s), so a
job "of s seconds" has ``req_ops = s * 1e9`` and takes ``s`` seconds on a 1 GHz core, ``s / 2``
on a 2 GHz core, ``s / 4`` on a 4 GHz core. Unless said otherwise ``req_time`` equals that
slowest-node run time (exact estimates). Each expected number is derived by hand in the comment
above it; none is computed by library code.

Power model (DESIGN.md): a node draws ``idle_w`` when no core is busy, otherwise
``static_w + dynamic_w_per_core * busy_cores``; energy integrates it over
[first submission, last end] (or the horizon).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from hetsched.errors import InputError
from hetsched.metrics import job_records, summarize
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create, entries
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.model import SPREAD, Job, Workload

INF = float("inf")

# 1 GHz, 4 cores: 10 W idle, busy: 20 W + 5 W per busy core (4 busy -> 40 W, 2 busy -> 30 W)
SLOW = NodeType("slow", cores=4, clock_ghz=1.0, idle_w=10, static_w=20, dynamic_w_per_core=5)
# 2 GHz, 4 cores: 20 W idle, busy: 40 W + 10 W per busy core (4 busy -> 80 W, 2 busy -> 60 W)
FAST = NodeType("fast", cores=4, clock_ghz=2.0, idle_w=20, static_w=40, dynamic_w_per_core=10)


def job(id: str, submit: float, ntasks: int, seconds: float, req: float | None = None,
        nodes: int = 1, mem: float = 0.0, bw: float = 0.0) -> Job:
    """A job taking ``seconds`` on a 1 GHz core; ``req`` (default: ``seconds``) is its
    estimate on the slowest node."""
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9,
               req_time=seconds if req is None else req, nodes=nodes,
               memory_mb=mem * ntasks,
               mem_bw_gbs=bw)


def run(types: list[tuple[NodeType, int]], jobs: list[Job], scheduler: str,
        **options: object) -> SimResult:
    platform = Platform.from_counts("hand", types)
    return simulate(platform, Workload("hand", tuple(jobs)), create(scheduler), **options)


def timeline(result: SimResult) -> dict[str, tuple[float, float, tuple[tuple[int, int], ...]]]:
    """job id -> (start, end, allocation)."""
    return {j.id: (float(result.start[j.index]), float(result.end[j.index]),
                   result.allocation[j.index]) for j in result.workload.jobs}


def state_of(result: SimResult, job_id: str) -> JobState:
    return JobState(result.state[result.workload.by_id[job_id].index])


def reason_of(result: SimResult, job_id: str) -> str:
    return result.reason.get(result.workload.by_id[job_id].index, "")


def test_every_builtin_family_is_registered() -> None:
    names = {e.name for e in entries()}
    assert {"fcfs", "high_gflops", "low_power", "easy", "conservative"} <= names
    for js in ("first", "random", "shortest", "longest", "smallest", "low_mem", "low_mem_bw"):
        for ns in ("first", "random", "high_gflops", "high_cores", "high_mem", "high_mem_bw",
                   "low_power"):
            assert f"{js}-{ns}" in names


# ---- FCFS, HighGFlops, LowPower ---------------------------------------------------------------

FOUR_JOBS = [
    job("a", 0, 4, 100),
    job("b", 0, 2, 40),
    job("c", 10, 4, 60),
    job("d", 20, 2, 10),
]


def test_fcfs_by_hand_times_energy_and_metrics() -> None:
    # Nodes: 0 = slow (1 GHz), 1 = fast (2 GHz); FCFS puts the queue head on the first node
    # that fits and never lets a later job overtake it.
    # t=0:  a (4 tasks) -> node 0, 100 s: [0, 100).  b (2 tasks) -> node 0 full -> node 1,
    #       40/2 = 20 s: [0, 20).
    # t=10: c (4 tasks): node 0 has 0 free, node 1 has 2 -> blocked.
    # t=20: b ends, d arrives. c -> node 1 (4 free), 60/2 = 30 s: [20, 50). d: no room.
    # t=50: c ends; d -> node 0 full -> node 1, 10/2 = 5 s: [50, 55).
    # t=100: a ends. Makespan = 100 - 0 = 100.
    result = run([(SLOW, 1), (FAST, 1)], FOUR_JOBS, "fcfs")
    assert timeline(result) == {
        "a": (0.0, 100.0, ((0, 4),)),
        "b": (0.0, 20.0, ((1, 2),)),
        "c": (20.0, 50.0, ((1, 4),)),
        "d": (50.0, 55.0, ((1, 2),)),
    }
    # node 0: 4 busy cores over [0, 100): (20 + 5*4) W * 100 s = 4000 J
    # node 1: [0,20) 2 busy: (40 + 10*2) * 20 = 1200; [20,50) 4 busy: 80 * 30 = 2400;
    #         [50,55) 2 busy: 60 * 5 = 300; [55,100) idle: 20 * 45 = 900 -> 4800 J
    assert result.node_energy_j.tolist() == pytest.approx([4000.0, 4800.0])
    s = summarize(result)
    assert (s["finished"], s["rejected"], s["unfinished"]) == (4, 0, 0)
    # makespan = 100 - 0
    assert s["makespan"] == pytest.approx(100.0)
    # waits: a 0, b 0, c 20 - 10 = 10, d 50 - 20 = 30 -> mean 40 / 4 = 10, max 30
    assert s["mean_wait"] == pytest.approx(10.0)
    assert s["max_wait"] == pytest.approx(30.0)
    # 4000 + 4800
    assert s["energy_j"] == pytest.approx(8800.0)
    # 8800 J * 100 s
    assert s["edp_js"] == pytest.approx(880000.0)
    # busy core-s: node 0 4*100 = 400; node 1 2*20 + 4*30 + 2*5 = 170 -> 570 / (8 * 100)
    assert s["utilisation"] == pytest.approx(0.7125)
    # bounded slowdown max(response / max(run, 10), 1):
    # a 100/100 = 1; b 20/20 = 1; c 40/30 = 4/3; d response 35, run 5 -> 35/10 = 3.5
    # mean = (1 + 1 + 4/3 + 3.5) / 4 = 20.5 / 12
    assert s["mean_bounded_slowdown"] == pytest.approx(20.5 / 12)
    # heterogeneous slowdown = response / time alone on the slowest node:
    # a 100/100 = 1; b 20/40 = 0.5; c 40/60 = 2/3; d 35/10 = 3.5 -> mean = (17/3) / 4
    assert s["mean_het_slowdown"] == pytest.approx(17 / 12)
    rec = job_records(result)
    # d: wait 30, run 5, response 35, plain slowdown 35 / 5 = 7
    d = result.workload.by_id["d"].index
    assert (rec.wait[d], rec.run[d], rec.response[d], rec.slowdown[d]) == \
        pytest.approx((30.0, 5.0, 35.0, 7.0))
    rec.submit[:] -= rec.submit.min()  # the records' arrays are theirs to change
    assert result.workload.jobs[d].submit == result.workload.column("submit")[d]


def test_high_gflops_by_hand() -> None:
    # Same platform (0 slow, 1 fast) and jobs; the head goes to the fastest node that fits.
    # t=0:  a -> node 1 (fast), 100/2 = 50 s: [0, 50). b -> node 1 full -> node 0, 40 s: [0, 40).
    # t=10: c (4): node 1 0 free, node 0 2 free -> blocked; t=20: d arrives behind c.
    # t=40: b ends: c -> node 0 (only fit), 60 s: [40, 100). d: no room anywhere.
    # t=50: a ends: d -> node 1, 10/2 = 5 s: [50, 55).
    result = run([(SLOW, 1), (FAST, 1)], FOUR_JOBS, "high_gflops")
    assert timeline(result) == {
        "a": (0.0, 50.0, ((1, 4),)),
        "b": (0.0, 40.0, ((0, 2),)),
        "c": (40.0, 100.0, ((0, 4),)),
        "d": (50.0, 55.0, ((1, 2),)),
    }
    # node 0: [0,40) 2 busy: 30 W * 40 = 1200; [40,100) 4 busy: 40 W * 60 = 2400 -> 3600
    # node 1: [0,50) 4 busy: 80 W * 50 = 4000; [50,55) 2 busy: 60 * 5 = 300;
    #         [55,100) idle 20 * 45 = 900 -> 5200
    assert result.node_energy_j.tolist() == pytest.approx([3600.0, 5200.0])
    # waits: 0, 0, 40 - 10 = 30, 50 - 20 = 30 -> 60 / 4
    assert summarize(result)["mean_wait"] == pytest.approx(15.0)
    assert create("high_gflops").name == "high_gflops"


def test_low_power_by_hand() -> None:
    # Nodes: 0 = fast (full power 40 + 10*4 = 80 W), 1 = slow (20 + 5*4 = 40 W): low_power
    # prefers node 1 although it is listed second; FCFS ("first") would take node 0.
    # t=0:  a -> node 1 (slow), 100 s: [0, 100). b -> node 1 full -> node 0, 20 s: [0, 20).
    # t=20: c -> node 0, 30 s: [20, 50). t=50: d -> node 0 (node 1 full), 5 s: [50, 55).
    result = run([(FAST, 1), (SLOW, 1)], FOUR_JOBS, "low_power")
    assert timeline(result) == {
        "a": (0.0, 100.0, ((1, 4),)),
        "b": (0.0, 20.0, ((0, 2),)),
        "c": (20.0, 50.0, ((0, 4),)),
        "d": (50.0, 55.0, ((0, 2),)),
    }
    # mirror of the FCFS case: fast node 4800 J, slow node 4000 J
    assert result.node_energy_j.tolist() == pytest.approx([4800.0, 4000.0])
    # FCFS on this order starts a on the fast node 0: 100/2 = 50 s
    assert timeline(run([(FAST, 1), (SLOW, 1)], FOUR_JOBS, "fcfs"))["a"] == \
        (0.0, 50.0, ((0, 4),))


def test_energy_window_starts_at_first_submission_and_counts_idle_gaps() -> None:
    # Two slow nodes. j1 submitted at 100 (1 task, 10 s): [100, 110) on node 0;
    # j2 submitted at 150 (1 task, 10 s): [150, 160) on node 0. Window = [100, 160].
    result = run([(SLOW, 2)], [job("j1", 100, 1, 10), job("j2", 150, 1, 10)], "fcfs")
    assert timeline(result)["j2"] == (150.0, 160.0, ((0, 1),))
    # node 0: busy 1 core (20 + 5) W * 10 = 250, idle 10 W * 40 = 400, busy again 250 -> 900
    # node 1: idle 10 W * 60 s = 600 (nothing before t = 100 is counted)
    assert result.node_energy_j.tolist() == pytest.approx([900.0, 600.0])
    s = summarize(result)
    # 160 - 100
    assert s["makespan"] == pytest.approx(60.0)
    # 900 + 600
    assert s["energy_j"] == pytest.approx(1500.0)
    # 1500 J * 60 s
    assert s["edp_js"] == pytest.approx(90000.0)
    # busy core-s 10 + 10 = 20 over 8 cores * 60 s = 480 -> 1/24
    assert s["utilisation"] == pytest.approx(1 / 24)
    # both jobs: response 10 = run 10 -> bounded slowdown max(10 / max(10, 10), 1) = 1
    assert s["mean_bounded_slowdown"] == pytest.approx(1.0)


# ---- the job selections of the grid -------------------------------------------------------------

SOLO = [(SLOW, 1)]
# One 1 GHz node with 4 cores (and 16000 MB, ample for the jobs below; same power as SLOW).
# x holds the node over [0, 10); p, q, r queue behind it and no two of them fit together
# (3+4, 3+2, 4+2 > 4), so they run one after the other from t=10 in the order of the job
# selection. Actual run times: p 20 s, q 5 s, r 30 s.
SOLO_MEM = [(NodeType("solo", cores=4, clock_ghz=1.0, memory_mb=16000, idle_w=10, static_w=20,
                      dynamic_w_per_core=5), 1)]
QUEUED = [
    job("x", 0, 4, 10),
    job("p", 1, 3, 20, req=20, mem=200, bw=3.0),
    job("q", 2, 4, 5, req=40, mem=100, bw=2.0),
    job("r", 3, 2, 30, req=30, mem=300, bw=1.0),
]


@pytest.mark.parametrize("selection, starts, mean_wait", [
    # submission order p, q, r: p [10,30), q [30,35), r [35,65)
    # waits p 10-1 = 9, q 30-2 = 28, r 35-3 = 32, x 0 -> 69 / 4
    ("first", {"p": 10, "q": 30, "r": 35}, 17.25),
    # req_time p 20 < r 30 < q 40: p [10,30), r [30,60), q [60,65)
    # waits 9 + 27 + 58 = 94 -> 94 / 4
    ("shortest", {"p": 10, "r": 30, "q": 60}, 23.5),
    # req_time q 40 > r 30 > p 20: q [10,15), r [15,45), p [45,65)
    # waits 8 + 12 + 44 = 64 -> 64 / 4
    ("longest", {"q": 10, "r": 15, "p": 45}, 16.0),
    # ntasks r 2 < p 3 < q 4: r [10,40), p [40,60), q [60,65)
    # waits 7 + 39 + 58 = 104 -> 104 / 4
    ("smallest", {"r": 10, "p": 40, "q": 60}, 26.0),
    # mem per task q 100 < p 200 < r 300: q [10,15), p [15,35), r [35,65)
    # waits 8 + 14 + 32 = 54 -> 54 / 4
    ("low_mem", {"q": 10, "p": 15, "r": 35}, 13.5),
    # mem bandwidth per task r 1 < q 2 < p 3: r [10,40), q [40,45), p [45,65)
    # waits 7 + 38 + 44 = 89 -> 89 / 4
    ("low_mem_bw", {"r": 10, "q": 40, "p": 45}, 22.25),
])
def test_job_selection_order(selection: str, starts: dict[str, float], mean_wait: float) -> None:
    result = run(SOLO_MEM, QUEUED, f"{selection}-first")
    runs = {"x": 10.0, "p": 20.0, "q": 5.0, "r": 30.0}
    expected = {"x": 0.0, **starts}
    assert {k: v[0] for k, v in timeline(result).items()} == expected
    assert {k: v[1] for k, v in timeline(result).items()} == \
        {k: expected[k] + runs[k] for k in runs}
    s = summarize(result)
    # all run back to back from 0 to 10 + 20 + 5 + 30 = 65
    assert s["makespan"] == pytest.approx(65.0)
    assert s["mean_wait"] == pytest.approx(mean_wait)
    # the node is busy all the time: energy = 20 W * 65 s + 5 W * busy core-s, and busy
    # core-s = 4*10 + 3*20 + 4*5 + 2*30 = 180 -> 1300 + 900 = 2200 J, for any order
    assert s["energy_j"] == pytest.approx(2200.0)


def test_job_selection_ties_keep_submission_order() -> None:
    # x holds the 4-core node over [0, 10); a, b, c (4 tasks each, 10 s, same req_time) tie for
    # "shortest": they go in submission order a [10,20), b [20,30), c [30,40).
    jobs = [job("x", 0, 4, 10), job("a", 1, 4, 10), job("b", 2, 4, 10), job("c", 3, 4, 10)]
    result = run(SOLO, jobs, "shortest-first")
    assert {k: v[0] for k, v in timeline(result).items()} == \
        {"x": 0.0, "a": 10.0, "b": 20.0, "c": 30.0}


def test_random_job_selection_properties_and_determinism() -> None:
    # Whatever the random order, x runs over [0, 10) and p, q, r run back to back, each alone,
    # from t=10 to t=65 (they never fit together); the order depends only on the seed.
    runs = {"p": 20.0, "q": 5.0, "r": 30.0}
    orders = set()
    for seed in range(12):
        result = run(SOLO_MEM, QUEUED, "random-first", seed=seed)
        tl = timeline(result)
        assert tl["x"][:2] == (0.0, 10.0)
        order = sorted(runs, key=lambda k: tl[k][0])
        t = 10.0
        for k in order:
            assert tl[k][:2] == (t, t + runs[k])
            t += runs[k]
        assert t == 65.0
        again = run(SOLO_MEM, QUEUED, "random-first", seed=seed)
        assert np.array_equal(again.start, result.start)
        assert np.array_equal(again.end, result.end)
        orders.add(tuple(order))
    assert len(orders) > 1  # 12 seeds, 6 possible orders: not always the same one


# ---- the node selections of the grid ------------------------------------------------------------

# Six nodes, each the unique favourite of one node selection on an empty platform:
#        cores GHz  memory  bw   idle static dyn   full power = static + dyn * cores
# base     2   1    1000     5    15    30   10    50          <- first (index 0)
# fast     4   4    2000    10    30    60   10   100          <- high_gflops
# wide    16   2    4000    20    50   100    5   180          <- high_cores (16 free)
# fat      8   2   64000    30    40    80    5   120          <- high_mem
# bw       8   1    8000   100    20    50    5    90          <- high_mem_bw
# green    4   1    2000     5     5    10    2    18          <- low_power
SIX = [
    (NodeType("base", 2, 1.0, memory_mb=1000, mem_bw_gbs=5, idle_w=15, static_w=30,
              dynamic_w_per_core=10), 1),
    (NodeType("fast", 4, 4.0, memory_mb=2000, mem_bw_gbs=10, idle_w=30, static_w=60,
              dynamic_w_per_core=10), 1),
    (NodeType("wide", 16, 2.0, memory_mb=4000, mem_bw_gbs=20, idle_w=50, static_w=100,
              dynamic_w_per_core=5), 1),
    (NodeType("fat", 8, 2.0, memory_mb=64000, mem_bw_gbs=30, idle_w=40, static_w=80,
              dynamic_w_per_core=5), 1),
    (NodeType("bw", 8, 1.0, memory_mb=8000, mem_bw_gbs=100, idle_w=20, static_w=50,
              dynamic_w_per_core=5), 1),
    (NodeType("green", 4, 1.0, memory_mb=2000, mem_bw_gbs=5, idle_w=5, static_w=10,
              dynamic_w_per_core=2), 1),
]
# sum of idle powers = 15 + 30 + 50 + 40 + 20 + 5 = 160 W


@pytest.mark.parametrize("scheduler, node, end, energy", [
    # base, 40 s at 1 GHz. busy node: 30 + 10*2 = 50 W * 40 = 2000; others idle
    # (160 - 15) * 40 = 5800 -> 7800
    ("first-first", 0, 40.0, 7800.0),
    ("fcfs", 0, 40.0, 7800.0),
    # fast, 40/4 = 10 s. 60 + 10*2 = 80 W * 10 = 800; (160 - 30) * 10 = 1300 -> 2100
    ("first-high_gflops", 1, 10.0, 2100.0),
    ("high_gflops", 1, 10.0, 2100.0),
    # wide, 40/2 = 20 s. 100 + 5*2 = 110 W * 20 = 2200; (160 - 50) * 20 = 2200 -> 4400
    ("first-high_cores", 2, 20.0, 4400.0),
    # fat, 20 s. 80 + 5*2 = 90 W * 20 = 1800; (160 - 40) * 20 = 2400 -> 4200
    ("first-high_mem", 3, 20.0, 4200.0),
    # bw, 40 s. 50 + 5*2 = 60 W * 40 = 2400; (160 - 20) * 40 = 5600 -> 8000
    ("first-high_mem_bw", 4, 40.0, 8000.0),
    # green, 40 s. 10 + 2*2 = 14 W * 40 = 560; (160 - 5) * 40 = 6200 -> 6760
    ("first-low_power", 5, 40.0, 6760.0),
    ("low_power", 5, 40.0, 6760.0),
])
def test_node_selection_on_empty_platform(scheduler: str, node: int, end: float,
                                          energy: float) -> None:
    result = run(SIX, [job("j", 0, 2, 40)], scheduler)
    assert timeline(result)["j"] == (0.0, end, ((node, 2),))
    assert summarize(result)["energy_j"] == pytest.approx(energy)


@pytest.mark.parametrize("scheduler, first, second", [
    # a: 10 tasks -> only "wide" has >= 10 cores -> node 2, leaving 6 free there.
    # b: free cores 2, 4, 6, 8, 8, 4 -> most is 8 on fat (3) and bw (4): tie -> lower index 3
    ("first-high_cores", (job("a", 0, 10, 40), ((2, 10),)), (job("b", 0, 2, 40), ((3, 2),))),
    # a: 2 tasks * 30000 MB -> only fat (64000 MB) fits -> node 3, 4000 MB left there.
    # b: free memory 1000, 2000, 4000, 4000, 8000, 2000 -> most on bw (node 4)
    ("first-high_mem", (job("a", 0, 2, 40, mem=30000), ((3, 2),)),
     (job("b", 0, 2, 40), ((4, 2),))),
    # a: 2 tasks * 40 GB/s -> most unused bandwidth is bw (100) -> node 4, 100 - 80 = 20 left.
    # b: unused 5, 10, 20, 30, 20, 5 -> fat (node 3)
    ("first-high_mem_bw", (job("a", 0, 2, 40, bw=40.0), ((4, 2),)),
     (job("b", 0, 2, 40), ((3, 2),))),
])
def test_dynamic_node_selections_follow_the_state(scheduler, first, second) -> None:
    result = run(SIX, [first[0], second[0]], scheduler)
    tl = timeline(result)
    assert tl["a"][2] == first[1]
    assert tl["b"][2] == second[1]
    assert tl["b"][0] == 0.0


def test_random_node_selection_properties_and_determinism() -> None:
    # j (2 tasks, 40 s at 1 GHz) fits every node of SIX; whichever node is drawn, the run
    # time is 40 / GHz of that node: base 40, fast 10, wide 20, fat 20, bw 40, green 40.
    runs = {0: 40.0, 1: 10.0, 2: 20.0, 3: 20.0, 4: 40.0, 5: 40.0}
    chosen = set()
    for seed in range(20):
        result = run(SIX, [job("j", 0, 2, 40)], "first-random", seed=seed)
        start, end, allocation = timeline(result)["j"]
        ((node, cores),) = allocation
        assert (start, cores) == (0.0, 2)
        assert end == runs[node]
        again = run(SIX, [job("j", 0, 2, 40)], "first-random", seed=seed)
        assert again.allocation == result.allocation
        chosen.add(node)
    assert len(chosen) > 1  # 20 seeds over 6 nodes: not always the same node


def test_random_random_fits_where_it_places() -> None:
    # 3-task jobs cannot go on "base" (2 cores); 3 * 3000 MB = 9000 MB fits only "fat" (64000).
    jobs = [job(f"j{i}", 0, 3, 10) for i in range(4)] + [job("m", 0, 3, 10, mem=3000)]
    for seed in range(5):
        result = run(SIX, jobs, "random-random", seed=seed)
        tl = timeline(result)
        for i in range(4):
            ((node, _),) = tl[f"j{i}"][2]
            assert node != 0
        ((node, _),) = tl["m"][2]
        assert node == 3


# ---- memory ------------------------------------------------------------------------------------

def test_memory_constraints_by_hand() -> None:
    # node 0: 4 cores, 1000 MB; node 1: 4 cores, 8000 MB; both 1 GHz; FCFS.
    small = NodeType("small-mem", 4, 1.0, memory_mb=1000)
    large = NodeType("large-mem", 4, 1.0, memory_mb=8000)
    jobs = [
        job("a", 0, 2, 10, mem=1000),  # 2000 MB > 1000 -> node 1 (2 cores, 6000 MB left)
        job("b", 0, 1, 20, mem=600),  # node 0 (3 cores, 400 MB left)
        job("c", 0, 1, 30, mem=600),  # node 0: 400 < 600 -> node 1 (1 core, 5400 MB left)
        job("d", 0, 1, 40, mem=500),  # node 0: 400 < 500 -> node 1 (0 cores, 4900 MB left)
        job("e", 0, 1, 50, mem=300),  # node 0: 300 <= 400 -> node 0
        job("f", 0, 1, 5, mem=5000),  # node 0 never (1000 MB); node 1: no core, 4900 MB
        # g: 9000 MB on one node: no node has that much -> rejected at submission
        job("g", 0, 1, 5, mem=9000),
    ]
    result = run([(small, 1), (large, 1)], jobs, "fcfs")
    # t=10: a ends on node 1 -> 2 cores, 6900 MB free -> f starts there: [10, 15)
    tl = timeline(result)
    del tl["g"]
    assert tl == {
        "a": (0.0, 10.0, ((1, 2),)),
        "b": (0.0, 20.0, ((0, 1),)),
        "c": (0.0, 30.0, ((1, 1),)),
        "d": (0.0, 40.0, ((1, 1),)),
        "e": (0.0, 50.0, ((0, 1),)),
        "f": (10.0, 15.0, ((1, 1),)),
    }
    assert state_of(result, "g") == JobState.REJECTED
    assert "9000 MB" in reason_of(result, "g")
    assert math.isnan(result.start[result.workload.by_id["g"].index])


# ---- rejection ---------------------------------------------------------------------------------

def test_job_bigger_than_any_node_is_rejected_with_a_reason() -> None:
    # slow: 4 cores, fast: 4 cores, total 8. "huge" asks 16 cores on one node; "wide" asks
    # 9 cores spread over any nodes (the platform has 8). "ok" runs normally: [0, 10).
    jobs = [job("huge", 0, 16, 10), job("wide", 0, 9, 10, nodes=SPREAD), job("ok", 0, 1, 10)]
    result = run([(SLOW, 1), (FAST, 1)], jobs, "fcfs")
    assert state_of(result, "huge") == JobState.REJECTED
    assert "16 cores" in reason_of(result, "huge")
    assert "largest node has 4" in reason_of(result, "huge")
    assert state_of(result, "wide") == JobState.REJECTED
    assert "9 cores" in reason_of(result, "wide")
    assert timeline(result)["ok"] == (0.0, 10.0, ((0, 1),))
    s = summarize(result)
    assert (s["jobs"], s["finished"], s["rejected"], s["unfinished"]) == (3, 1, 2, 0)


def test_job_bigger_than_any_node_is_an_error_when_strict() -> None:
    with pytest.raises(InputError, match=r"huge.*16 cores"):
        run([(SLOW, 1), (FAST, 1)], [job("ok", 0, 1, 10), job("huge", 0, 16, 10)], "fcfs",
            strict=True)


# ---- horizon -----------------------------------------------------------------------------------

HORIZON_JOBS = [job("A", 0, 4, 100), job("B", 10, 4, 10), job("C", 200, 1, 1)]


def test_horizon_cuts_running_and_pending_jobs() -> None:
    # One slow node. A [0, 100) would run past the horizon 50; B (t=10) waits behind it;
    # C is submitted after the horizon.
    result = run(SOLO, HORIZON_JOBS, "fcfs", horizon=50.0)
    assert [state_of(result, k) for k in "ABC"] == [JobState.UNFINISHED] * 3
    assert "running" in reason_of(result, "A") and "horizon" in reason_of(result, "A")
    assert "pending" in reason_of(result, "B") and "horizon" in reason_of(result, "B")
    assert "not submitted" in reason_of(result, "C")
    assert result.start[0] == 0.0 and math.isnan(result.end[0])
    assert result.t_end == 50.0
    # energy only up to the horizon: 4 busy cores, (20 + 5*4) W * 50 s = 2000 J
    assert result.node_energy_j.tolist() == pytest.approx([2000.0])
    s = summarize(result)
    # A and B were submitted and are unfinished; C, never submitted, is counted apart
    assert (s["finished"], s["unfinished"], s["not_submitted"], s["makespan"]) \
        == (0, 2, 1, 50.0)
    assert result.makespan_cut


def test_horizon_after_some_jobs_finished() -> None:
    # horizon 150: A [0, 100), B [100, 110) finish; C (t=200) is cut.
    result = run(SOLO, HORIZON_JOBS, "fcfs", horizon=150.0)
    assert timeline(result)["B"][:2] == (100.0, 110.0)
    assert [state_of(result, k) for k in "ABC"] == \
        [JobState.FINISHED, JobState.FINISHED, JobState.UNFINISHED]
    assert "not submitted" in reason_of(result, "C")
    # [0, 110) 4 busy cores: 40 W * 110 = 4400; [110, 150) idle: 10 W * 40 = 400 -> 4800
    assert result.node_energy_j.tolist() == pytest.approx([4800.0])
    assert summarize(result)["makespan"] == pytest.approx(150.0)


def test_horizon_before_the_first_submission() -> None:
    # The only job is submitted at 10, the horizon is 5: nothing happens, the accounting
    # window [10, 10] is empty -> makespan 0, energy 0; the job is unfinished.
    result = run(SOLO, [job("late", 10, 1, 10)], "fcfs", horizon=5.0)
    assert state_of(result, "late") == JobState.UNFINISHED
    assert "not submitted" in reason_of(result, "late")
    s = summarize(result)
    assert s["energy_j"] == 0.0
    assert s["makespan"] == 0.0


# ---- multi-node jobs ---------------------------------------------------------------------------

# nodes: 0 fast (2 GHz), 1 slow (1 GHz), 2 fast (2 GHz), 4 cores each
FSF = [(FAST, 1), (SLOW, 1), (FAST, 1)]


@pytest.mark.parametrize("scheduler, the_job, allocation, end", [
    # SPREAD, 6 tasks, first nodes first: node 0 gives 4, node 1 the last 2. The slowest
    # allocated node is 1 GHz -> 20 s.
    ("fcfs", job("s", 0, 6, 20, nodes=SPREAD), ((0, 4), (1, 2)), 20.0),
    # SPREAD on the fastest nodes first: 0 (4), then 2 (2); both 2 GHz -> 20/2 = 10 s
    ("high_gflops", job("s", 0, 6, 20, nodes=SPREAD), ((0, 4), (2, 2)), 10.0),
    # exactly 3 nodes, 7 tasks: 7 = 3 + 2 + 2 over nodes 0, 1, 2; slowest is 1 GHz -> 20 s
    ("fcfs", job("k", 0, 7, 20, nodes=3), ((0, 3), (1, 2), (2, 2)), 20.0),
    # exactly 2 nodes, 4 tasks, fastest first: nodes 0 and 2, 2 tasks each -> 10 s
    ("high_gflops", job("k", 0, 4, 20, nodes=2), ((0, 2), (2, 2)), 10.0),
    # exactly 2 nodes, first nodes first: 0 and 1 -> slowest 1 GHz -> 20 s
    ("fcfs", job("k", 0, 4, 20, nodes=2), ((0, 2), (1, 2)), 20.0),
])
def test_multi_node_run_time_follows_slowest_node(scheduler, the_job, allocation, end) -> None:
    result = run(FSF, [the_job], scheduler)
    assert timeline(result)[the_job.id] == (0.0, end, allocation)


def test_spread_job_energy_by_hand() -> None:
    # fcfs, SPREAD 6 tasks over [0, 20): node 0 (fast) 4 busy, node 1 (slow) 2 busy, node 2 idle
    result = run(FSF, [job("s", 0, 6, 20, nodes=SPREAD)], "fcfs")
    # node 0: (40 + 10*4) W * 20 = 1600; node 1: (20 + 5*2) * 20 = 600; node 2: 20 W * 20 = 400
    assert result.node_energy_j.tolist() == pytest.approx([1600.0, 600.0, 400.0])
    s = summarize(result)
    # 1600 + 600 + 400
    assert s["energy_j"] == pytest.approx(2600.0)
    # response 20 over 20 s alone on the slowest node
    assert s["mean_het_slowdown"] == pytest.approx(1.0)
    # busy core-s 6 * 20 = 120 over 12 cores * 20 s = 240
    assert s["utilisation"] == pytest.approx(0.5)


def test_k_node_job_waits_for_k_nodes() -> None:
    # fcfs on FSF. a: 4 tasks on node 0 (2 GHz): 20/2 = 10 s, [0, 10).
    # k: nodes=3, 3 tasks (1 per node): node 0 is full -> only 2 nodes usable -> waits.
    # t=10: k -> nodes 0, 1, 2; slowest 1 GHz -> 30 s: [10, 40).
    result = run(FSF, [job("a", 0, 4, 20), job("k", 0, 3, 30, nodes=3)], "fcfs")
    assert timeline(result) == {"a": (0.0, 10.0, ((0, 4),)),
                                "k": (10.0, 40.0, ((0, 1), (1, 1), (2, 1)))}


# ---- EASY and conservative backfilling ---------------------------------------------------------

# Two slow nodes (1 GHz, 4 cores, 10 W idle, 20 W + 5 W/core busy).
DIFFER = [
    job("A", 0, 4, 100),  # -> node 0, [0, 100)
    job("B", 0, 2, 105),  # -> node 1, [0, 105)
    job("H", 1, 4, 10),  # head: a whole node, first at t=100 (node 0)
    job("S", 2, 4, 10),  # second in queue
    job("L", 3, 2, 300),  # long, 2 cores: fits now on node 1
]


def test_easy_may_delay_the_second_job_but_not_the_head() -> None:
    # EASY. t=1: H fits nowhere; shadow: at 100 A ends -> node 0 has 4 -> H reserved on node 0
    # at 100; extra cores at 100: node 0 4 - 4 = 0, node 1 2 (B runs to 105).
    # t=2: S (4 cores) fits nowhere now. t=3: L (2 cores, ends 303 > shadow 100) uses only
    # node 1's 2 extra cores -> backfilled on node 1: [3, 303).
    # t=100: A ends -> H on node 0: [100, 110). t=105: B ends: node 1 has 2 free -> S waits.
    # t=110: H ends -> S on node 0: [110, 120). L ends at 303 = makespan.
    result = run([(SLOW, 2)], DIFFER, "easy")
    assert timeline(result) == {
        "A": (0.0, 100.0, ((0, 4),)),
        "B": (0.0, 105.0, ((1, 2),)),
        "H": (100.0, 110.0, ((0, 4),)),
        "S": (110.0, 120.0, ((0, 4),)),
        "L": (3.0, 303.0, ((1, 2),)),
    }
    # node 0: [0,120) 4 busy: 40 W * 120 = 4800; [120,303) idle 10 W * 183 = 1830 -> 6630
    # node 1: [0,3) 2 busy: 30 W * 3 = 90; [3,105) 4 busy: 40 * 102 = 4080;
    #         [105,303) 2 busy: 30 * 198 = 5940 -> 10110
    assert result.node_energy_j.tolist() == pytest.approx([6630.0, 10110.0])
    s = summarize(result)
    # 303 - 0
    assert s["makespan"] == pytest.approx(303.0)
    # waits 0, 0, 99, 108, 0 -> 207 / 5
    assert s["mean_wait"] == pytest.approx(41.4)


def test_conservative_delays_nobody() -> None:
    # Conservative. t=0: A -> node 0 [0,100), B -> node 1 [0,105).
    # t=1: H: earliest 4 free cores for 10 s: node 0 at 100 -> reserved [100, 110) node 0.
    # t=2: S: node 0 is taken by H over [100, 110); node 1 frees at 105 -> [105, 115) node 1.
    # t=3: L (2 cores, 300 s): now on node 1 it would overlap S's [105, 115) (all 4 cores);
    #      node 0 is free from 110 on -> reserved [110, 410) node 0.
    # Everyone starts at its reservation: H 100, S 105, L 110.
    result = run([(SLOW, 2)], DIFFER, "conservative")
    assert timeline(result) == {
        "A": (0.0, 100.0, ((0, 4),)),
        "B": (0.0, 105.0, ((1, 2),)),
        "H": (100.0, 110.0, ((0, 4),)),
        "S": (105.0, 115.0, ((1, 4),)),
        "L": (110.0, 410.0, ((0, 2),)),
    }
    # node 0: [0,110) 4 busy: 40 W * 110 = 4400; [110,410) 2 busy: 30 W * 300 = 9000 -> 13400
    # node 1: [0,105) 2 busy: 30 * 105 = 3150; [105,115) 4 busy: 40 * 10 = 400;
    #         [115,410) idle: 10 * 295 = 2950 -> 6500
    assert result.node_energy_j.tolist() == pytest.approx([13400.0, 6500.0])
    s = summarize(result)
    # 410 - 0
    assert s["makespan"] == pytest.approx(410.0)
    # waits 0, 0, 99, 103, 107 -> 309 / 5
    assert s["mean_wait"] == pytest.approx(61.8)


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
def test_backfilling_counts_disk(scheduler: str) -> None:
    # One node, 5 cores, 100 MB of disk. A (2 cores, 50 MB) runs [0, 10). t=1: H (4 cores,
    # 100 MB) fits at 10, when A ends. t=2: B (1 core, 50 MB, 100 s) fits now, and at 10 the
    # node keeps 1 core beyond H's needs, but no disk: starting B would hold H back to 102.
    # So B waits for H: [20, 120).
    disk = NodeType("disk", cores=5, clock_ghz=1.0, disk_mb=100)
    jobs = [replace(job("A", 0, 2, 10), disk_mb=50.0), replace(job("H", 1, 4, 10), disk_mb=100.0),
            replace(job("B", 2, 1, 100), disk_mb=50.0)]
    assert timeline(run([(disk, 1)], jobs, scheduler)) == {
        "A": (0.0, 10.0, ((0, 2),)), "H": (10.0, 20.0, ((0, 4),)), "B": (20.0, 120.0, ((0, 1),))}


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
@pytest.mark.parametrize("req, expected_j", [
    # J: 2 cores, 190 s on the slow node, 95 s on the fast one. Estimate req_time = 190 ->
    # 190 * 1/2 = 95 on the fast node: 2 + 95 = 97 <= shadow 100 -> backfilled there at t=2
    # (on the slow node it would end at 192 > 100, so it backfills only thanks to speed).
    (190.0, (2.0, 97.0, ((1, 2),))),
    # Estimate 210 -> 105 on the fast node: 2 + 105 = 107 > 100, no extra cores -> J waits
    # for H [100, 110); then J goes to node 0 (first fit, slow): 190 s, [110, 300).
    (210.0, (110.0, 300.0, ((0, 2),))),
])
def test_heterogeneity_aware_estimates_let_a_job_backfill(scheduler, req, expected_j) -> None:
    # nodes: 0 slow, 1 fast. A: 4 tasks -> node 0, [0, 100). B: 2 tasks, 200 s on 1 GHz ->
    # node 1 (fast), 200/2 = 100 s: [0, 100). H (t=1): 8 tasks SPREAD: needs both nodes whole
    # -> shadow 100, no extra cores; it runs at the slow node's pace: 10 s, [100, 110).
    jobs = [job("A", 0, 4, 100), job("B", 0, 2, 200), job("H", 1, 8, 10, nodes=SPREAD),
            job("J", 2, 2, 190, req=req)]
    result = run([(SLOW, 1), (FAST, 1)], jobs, scheduler)
    tl = timeline(result)
    assert tl["A"] == (0.0, 100.0, ((0, 4),))
    assert tl["B"] == (0.0, 100.0, ((1, 2),))
    assert tl["H"] == (100.0, 110.0, ((0, 4), (1, 4)))
    assert tl["J"] == expected_j


# nodes: 0 slow, 1 fast (4 cores each)
NODE_OPTION_JOBS = [
    job("A", 0, 4, 20),
    job("B", 0, 2, 10),
    job("H", 1, 4, 20),
    job("J", 2, 2, 100),
]


@pytest.mark.parametrize("scheduler", ["easy:node=high_gflops", "conservative:node=high_gflops"])
def test_backfilling_with_high_gflops_nodes(scheduler: str) -> None:
    # A (4 tasks) -> fastest node 1: 20/2 = 10 s, [0, 10). B (2) -> node 1 full -> node 0:
    # 10 s, [0, 10). H (t=1, 4 tasks): at 10 both nodes are free; fastest -> reserved on
    # node 1 [10, 20) (20/2 = 10 s). Node 0 keeps 4 cores beyond H's needs.
    # J (t=2, 2 tasks, 100 s at 1 GHz): fits now on node 0 (2 free) and, running past 10, uses
    # only cores H does not need -> starts at 2 on node 0: [2, 102).
    result = run([(SLOW, 1), (FAST, 1)], NODE_OPTION_JOBS, scheduler)
    assert timeline(result) == {
        "A": (0.0, 10.0, ((1, 4),)),
        "B": (0.0, 10.0, ((0, 2),)),
        "H": (10.0, 20.0, ((1, 4),)),
        "J": (2.0, 102.0, ((0, 2),)),
    }
    assert result.scheduler == scheduler


def test_easy_with_first_nodes_on_the_same_jobs() -> None:
    # Plain EASY (first node): A -> node 0 (slow): 20 s, [0, 20). B -> node 1 (fast): 10/2 = 5 s,
    # [0, 5). H (t=1): reserved on node 1 at 5 (node 0 busy until 20); no extra cores there.
    # J (t=2): fits node 1 now but would run past 5 (2 + 100/2 = 52) on H's cores -> waits.
    # t=5: H -> node 1 [5, 15). t=15: J -> node 1 (node 0 busy): 50 s, [15, 65).
    result = run([(SLOW, 1), (FAST, 1)], NODE_OPTION_JOBS, "easy")
    assert timeline(result) == {
        "A": (0.0, 20.0, ((0, 4),)),
        "B": (0.0, 5.0, ((1, 2),)),
        "H": (5.0, 15.0, ((1, 4),)),
        "J": (15.0, 65.0, ((1, 2),)),
    }


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
def test_job_running_past_its_estimate_pushes_reservations(scheduler: str) -> None:
    # One slow node, 4 cores.
    # A: 2 cores, estimate 50 s but runs 80 s: [0, 80) -- never killed.
    # H (t=1): 4 cores, 10 s: reserved at A's estimated end 50.
    # J (t=2): 2 cores, 40 s: 2 + 40 = 42 <= 50 -> backfilled [2, 42).
    # K (t=45): 2 cores, 20 s: 45 + 20 = 65 > 50 -> waits.
    # L (t=60): 2 cores, 10 s: A is past its estimate, expected to end now (60) -> H's
    #   reservation is pushed to 60; 60 + 10 = 70 > 60 -> L waits too.
    # t=80: A ends -> H [80, 90). t=90: K [90, 110) and L [90, 100) (2 + 2 cores).
    jobs = [job("A", 0, 2, 80, req=50), job("H", 1, 4, 10), job("J", 2, 2, 40),
            job("K", 45, 2, 20), job("L", 60, 2, 10)]
    result = run(SOLO, jobs, scheduler)
    assert {k: v[:2] for k, v in timeline(result).items()} == {
        "A": (0.0, 80.0),
        "H": (80.0, 90.0),
        "J": (2.0, 42.0),
        "K": (90.0, 110.0),
        "L": (90.0, 100.0),
    }
    assert state_of(result, "A") == JobState.FINISHED
    # waits: A 0, H 79, J 0, K 45, L 30 -> 154 / 5
    assert summarize(result)["mean_wait"] == pytest.approx(30.8)


def test_easy_head_starts_when_it_fits_even_if_others_wait() -> None:
    # One slow node. x [0, 10) 4 cores. At t=10 the head h1 (3 cores, 10 s) starts; h2
    # (3 cores) cannot; s (1 core, 5 s): 10 + 5 = 15 <= shadow 20 (h1's end) -> backfilled
    # [10, 15). t=20: h2 [20, 30).
    jobs = [job("x", 0, 4, 10), job("h1", 1, 3, 10), job("h2", 2, 3, 10), job("s", 3, 1, 5)]
    result = run(SOLO, jobs, "easy")
    assert {k: v[:2] for k, v in timeline(result).items()} == \
        {"x": (0.0, 10.0), "h1": (10.0, 20.0), "h2": (20.0, 30.0), "s": (10.0, 15.0)}
    # FCFS keeps s behind h2: s starts with h2 at 20 (3 + 1 cores) and ends 25.
    fcfs = run(SOLO, jobs, "fcfs")
    assert timeline(fcfs)["s"][:2] == (20.0, 25.0)


def test_conservative_compression_never_delays_a_reservation() -> None:
    # One slow node, 2 cores.
    # A: 1 core, estimate 100 s, really 10 s: [0, 10). B: 1 core, 40 s: [0, 40).
    # i (t=1): 2 cores, 50 s: both cores free at A's estimated end 100 -> reserved [100, 150).
    # j (t=2): 1 core, 50 s: B's core is free over [40, 100) -> reserved [40, 90).
    # t=10: A ends early (90 s before its estimate). Compression may only move reservations
    # earlier: j keeps (at worst) [40, 90), and i (needing both cores) can at best move to 90.
    # Hence j starts no later than 40 and i no later than its original 100.
    jobs = [job("A", 0, 1, 10, req=100), job("B", 0, 1, 40), job("i", 1, 2, 50),
            job("j", 2, 1, 50)]
    result = run([(NodeType("duo", 2, 1.0), 1)], jobs, "conservative")
    tl = timeline(result)
    assert tl["i"][0] <= 100.0
    assert tl["j"][0] <= 40.0


def test_job_with_memory_runs_on_a_node_with_unlimited_memory() -> None:
    # SLOW has memory_mb = inf. A 1-task job asking 100 MB runs like any other: [0, 10).
    result = run(SOLO, [job("m", 0, 1, 10, mem=100)], "fcfs")
    assert state_of(result, "m") == JobState.FINISHED
    assert timeline(result)["m"] == (0.0, 10.0, ((0, 1),))


# ---- k-node jobs whose tasks do not divide evenly -------------------------------------------

DUO = NodeType("duo", 2, 1.0)  # 2 cores, 1 GHz


def _uneven_head_jobs(a_seconds: float) -> list[Job]:
    # Two 2-core nodes. A: 2 cores -> node 0, estimate 10 s (really a_seconds). B: 1 core ->
    # node 1, 10 s. H (t=1, head): 3 tasks on exactly 2 nodes -> 2 + 1 tasks; at 10 both nodes
    # are free -> shadow 10, H reserved as (node 0: 2, node 1: 1): node 1 keeps 1 extra core.
    # J (t=2): 1 core, 100 s, fits node 1 now and uses only that extra core -> backfilled [2, 102).
    # At 10 node 0 has 2 free and node 1 has 1 free: exactly H's reserved allocation.
    return [job("A", 0, 2, a_seconds, req=10), job("B", 0, 1, 10),
            job("H", 1, 3, 10, nodes=2), job("J", 2, 1, 100)]


def test_conservative_uneven_k_node_head_starts_on_its_reservation() -> None:
    # Exact estimates, no re-plan: H starts on its reserved (2, 1) split at 10: [10, 20).
    result = run([(DUO, 2)], _uneven_head_jobs(10), "conservative")
    assert timeline(result)["J"] == (2.0, 102.0, ((1, 1),))
    assert timeline(result)["H"] == (10.0, 20.0, ((0, 2), (1, 1)))


def test_easy_uneven_k_node_head_is_not_delayed() -> None:
    result = run([(DUO, 2)], _uneven_head_jobs(10), "easy")
    assert timeline(result)["J"] == (2.0, 102.0, ((1, 1),))
    # the head starts at its shadow time 10 on (2, 1): [10, 20)
    assert timeline(result)["H"][:2] == (10.0, 20.0)


def test_conservative_replan_keeps_uneven_k_node_head_reservation() -> None:
    # A really runs 5 s (estimate 10): re-planning at 5 may only move H earlier than 10.
    result = run([(DUO, 2)], _uneven_head_jobs(5), "conservative")
    assert timeline(result)["H"][0] <= 10.0
