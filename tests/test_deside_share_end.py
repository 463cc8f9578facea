"""A share of a job that ends before the job does re-rates its node under a node-wide contention
model (``deside``), at that instant; per-processor models (``none``, ``irmasim``) keep their
laziness, as IRMaSim, and their results."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from hetsched.models.contention.irmasim import IrmasimModel
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.schedulers import create
from hetsched.sim.engine import Simulation, simulate
from hetsched.sim.events import SHARE_END
from hetsched.sim.protocol import Start, WakeUp
from hetsched.sim.result import SimResult
from hetsched.testing.invariants import check_result
from hetsched.workload.model import Job, Workload

#: Two sockets of 2 cores at 1 GHz and 10 GB/s each, 2 threads per core allowed.
SOCKETS = NodeType.of_processors("two_sockets", 1.0, (Processor(2, mem_bw_gbs=10.0),
                                                      Processor(2, mem_bw_gbs=10.0)),
                                 oversubscription=2)


def job(id: str, ntasks: int, seconds: float, **others: object) -> Job:
    return Job(id=id, submit=0.0, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               **others)  # type: ignore[arg-type]


def two_socket_node(contention: str = "deside") -> Platform:
    nodes = Platform.from_counts("p", [(SOCKETS, 1)]).nodes
    return Platform("p", nodes, contention=contention,
                    contention_params=(("remote_fraction", 0.0),) if contention == "deside"
                    else ())


#: ``other`` starts first and takes socket 0's 2 cores; ``wide`` gets socket 1's 2 cores and
#: one thread more on socket 0 (the least loaded processor, the first of a tie).
OTHER_AND_WIDE = Workload("w", (job("other", 2, 10, mem_bw_gbs=10.0),
                                job("wide", 3, 10, mem_bw_gbs=5.0)))


def test_a_share_ending_early_speeds_up_the_node_at_that_instant() -> None:
    """U = 1, rho = 0 (d = 1 + sigma), BWmax = 20 GB/s, factor = 1 / (d / ps).

    0 to 10 s: socket 0 runs 3 threads on 2 cores (ps0 = 2/3), socket 1 wide's 2 (ps1 = 1).
    B = 2/3 * 2 + 2/3 * 1 + 1 * 2 = 4 busy threads.
    other: sigma = 10 * 4 / 20 - 1 = 1, d = 2: factor 1 / (2 / (2/3)) = 1/3.
    wide on socket 0: sigma = max(0, 5 * 4 / 20 - 1) = 0: factor 2/3; on socket 1: 1.
    At 10 s wide's socket-1 share has done its 10 s of work; socket 0's has done 20/3 (10/3
    left), other 10/3 (20/3 left).
    10 s to 15 s, socket 1's share no longer counts: B = 2/3 * 2 + 2/3 * 1 = 2.
    other: sigma = max(0, 10 * 2 / 20 - 1) = 0, factor 2/3; wide (socket 0): 2/3.
    wide's last share ends at 10 + (10/3) / (2/3) = 15; other has 20/3 - 5 * 2/3 = 10/3 left.
    15 s on, other alone: 2 threads on 2 cores, B = 2, sigma = 0, factor 1: it ends at
    15 + 10/3 = 55/3.
    (Before the share end re-rated the node, other ran at 1/3 until 15 s, 5 left: 20 s.)
    """
    result = simulate(two_socket_node(), OTHER_AND_WIDE, create("fcfs"))
    assert result.allocation[1] == ((0, 3),)
    assert result.end.tolist() == pytest.approx([55 / 3, 15.0], rel=1e-12)
    check_result(result)


@pytest.mark.parametrize("per_event", [False, True])
def test_share_ends_rerate_the_same_whoever_steps(per_event: bool) -> None:
    # the mixed runs below, with share ends on every node: calling the scheduler per event
    # re-rates at the same instants as per instant
    assert mixed_runs_fingerprint("deside", per_event=per_event) \
        == mixed_runs_fingerprint("deside")


def test_the_share_end_is_no_event_for_the_scheduler() -> None:
    sim = Simulation(two_socket_node(), OTHER_AND_WIDE)
    other, wide = OTHER_AND_WIDE.jobs
    instants = []
    while (step := sim.advance()) is not None:
        instants.append(step.now)
        sim.apply([Start.on(other, 0), Start.on(wide, 0)] if step.now == 0 else None)
    assert instants == pytest.approx([0.0, 15.0, 55 / 3], rel=1e-12)  # not 10 s: a share end
    assert sim.finish().end.tolist() == pytest.approx([55 / 3, 15.0], rel=1e-12)


def test_a_fork_taken_before_the_share_end_ends_the_same() -> None:
    sim = Simulation(two_socket_node(), OTHER_AND_WIDE)
    other, wide = OTHER_AND_WIDE.jobs
    step = sim.advance()
    assert step is not None and step.now == 0.0
    sim.apply([Start.on(other, 0), Start.on(wide, 0), WakeUp(5.0)])
    step = sim.advance()
    assert step is not None and step.now == 5.0
    assert any(kind == SHARE_END and time == 10.0 for time, kind, *_ in sim.events.heap)
    fork = sim.fork()
    ends = []
    for run in (fork, sim):
        while run.advance() is not None:
            run.apply(None)
        ends.append(run.finish().end.tolist())
    assert ends[0] == ends[1] == pytest.approx([55 / 3, 15.0], rel=1e-12)


class NodeWideIrmasim(IrmasimModel):
    """IRMaSim's formulas re-rated node-wide: what share ends would change for irmasim."""

    per_processor = False


def test_irmasim_keeps_its_per_processor_laziness() -> None:
    """IRMaSim re-rates only the processors where a task starts or ends. Here socket 0 runs
    other's 2 threads and one of wide's, socket 1 wide's other 2 and third's 1 (3 threads on
    2 cores). Wide's socket-1 share ends before its socket-0 share: third, on socket 1, keeps
    its contended speedup until wide's end (lazy), and ends at 37.67 s, as at 26a332c (before
    share ends were events). The same formulas re-rated node-wide get the share end's re-rate
    and end third at 37.23 s."""
    platform = two_socket_node("irmasim")
    workload = Workload("w", (job("other", 2, 10, mem_vol=2e5), job("wide", 3, 10, mem_vol=2e5),
                              job("third", 1, 30, mem_vol=2e5)))
    sim = Simulation(platform, workload, create("fcfs"))
    kinds = set()
    while (step := sim.advance()) is not None:
        sim.apply(sim.scheduler.decide(step.now, step.events))
        kinds.update(kind for _, kind, *_ in sim.events.heap)
    assert SHARE_END not in kinds
    result = sim.finish()
    assert result.end.tolist() == [21.831857420691854, 21.831857420691854, 37.67054404432708]
    check_result(result)
    eager = simulate(platform, workload, create("fcfs"), contention=NodeWideIrmasim())
    assert eager.end.tolist()[:2] == result.end.tolist()[:2]
    assert eager.end[2] == pytest.approx(37.23265646512687, rel=1e-12)


def mixed_runs_fingerprint(contention: str, per_event: bool = False) -> str:
    """A digest of the starts, ends and energies of fcfs and easy over 120 seeded jobs (some
    spread over nodes, with bandwidth demand and memory traffic) on oversubscribed two-socket
    nodes of two speeds under ``contention``."""
    rng = np.random.default_rng(23)
    fast = NodeType.of_processors("fast", 2.0, (Processor(4, 5, 10, 2, mem_bw_gbs=20.0),
                                                Processor(4, 5, 10, 2, mem_bw_gbs=20.0)),
                                  oversubscription=2)
    slow = NodeType.of_processors("slow", 1.0, (Processor(2, 3, 6, 1, mem_bw_gbs=8.0),
                                                Processor(2, 3, 6, 1, mem_bw_gbs=8.0)),
                                  oversubscription=2)
    platform = Platform("mixed", Platform.from_counts("mixed", [(fast, 2), (slow, 2)]).nodes,
                        contention=contention)
    jobs = tuple(Job(id=f"j{i}", submit=float(i * rng.integers(1, 6)), ntasks=int(n),
                     req_ops=float(rng.uniform(5, 60)) * 1e9, req_time=60.0,
                     nodes=int(rng.choice([1, 2])) if n > 1 else 1,
                     mem_bw_gbs=float(rng.choice([0.0, 2.0, 6.0])),
                     mem_vol=float(rng.choice([0.0, 1e5, 4e5])),
                     cpu_util=float(rng.choice([0.5, 1.0])))
                 for i, n in enumerate(rng.integers(1, 9, size=120)))
    digest = hashlib.sha256()
    for scheduler in ("fcfs", "easy"):
        result: SimResult = simulate(platform, Workload("w", jobs), create(scheduler),
                                     per_event=per_event)
        check_result(result)
        for values in (result.start, result.end, result.node_energy_j):
            digest.update(np.asarray(values, dtype=np.float64).tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(("contention", "before"), [("none", "348091fed74fb26d"),
                                                    ("irmasim", "20fc498bf31f7417")])
def test_per_processor_models_give_the_results_they_gave_before(contention: str,
                                                                before: str) -> None:
    # ``before``: the digest at 26a332c, before share ends were events
    assert mixed_runs_fingerprint(contention) == before


def test_deside_results_change_on_the_same_runs() -> None:
    # the same runs under deside: shares end early there and the nodes are re-rated
    assert mixed_runs_fingerprint("deside") != "06a3b0e5dfac802d"  # the digest at 26a332c
