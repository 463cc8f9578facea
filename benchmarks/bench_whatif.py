"""What-if placement's cost: SLF, LET and MOM on a 100-job DAG of STREAM-like jobs (4–28
threads, 3.6–10.5 GB/s per thread, about 1–10 minutes alone) on 2–5 DESiDE servers (56 logical
cores on two sockets, 80 GB/s), under ``deside``; and the same 100 jobs released at once
(dense load). CPU seconds per run (best of ``--repeat``), and the what-ifs it made. Then the
same under ``deside_stochastic`` (each job's ``cpu_util_sd`` uniform on 0.05–0.15; seed 0).

The issue's target: every LET/MOM run of the 100-job DAG on 5 servers within 1 s of CPU, the
dense case too (DESiDE took 190 s, Chahal et al. Table 1), under ``deside``; the stochastic
variant is measured and reported. fcfs (no what-if) is the yardstick.

    python benchmarks/bench_whatif.py [--repeat 3] [--servers 2,3,4,5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchtools import best_cpu, print_table  # noqa: E402
from hetsched.platform.model import NodeType, Platform, Processor  # noqa: E402
from hetsched.schedulers import create  # noqa: E402
from hetsched.sim.engine import simulate  # noqa: E402
from hetsched.sim.view import ClusterView  # noqa: E402
from hetsched.workload.model import Job, Workload  # noqa: E402

CLOCK_GHZ = 2.0


def servers(count: int) -> Platform:
    socket = Processor(28, mem_bw_gbs=40.0)
    kind = NodeType.of_processors("deside", CLOCK_GHZ, (socket, socket), oversubscription=16)
    return Platform.from_counts(f"deside-{count}", [(kind, count)])


def dag(jobs: int, seed: int, dense: bool) -> Workload:
    """A layered random DAG (about 10 jobs a layer, each with one to three parents in the layer
    before), or, ``dense``, the same jobs without parents. Each job's ``cpu_util_sd`` comes
    from a generator of its own (seed + 1), so the jobs are those of earlier versions."""
    rng = np.random.default_rng(seed)
    deviation = np.random.default_rng(seed + 1).uniform(0.05, 0.15, jobs).tolist()
    made: list[Job] = []
    for i in range(jobs):
        layer = i // 10
        first, previous = layer * 10, max(0, (layer - 1) * 10)
        parents = () if dense or layer == 0 else tuple(
            f"j{p}" for p in rng.choice(np.arange(previous, first), size=int(rng.integers(1, 4)),
                                        replace=False))
        seconds = float(rng.uniform(60, 600))
        made.append(Job(f"j{i}", 0.0, int(rng.integers(4, 29)), seconds * CLOCK_GHZ * 1e9,
                        seconds, mem_bw_gbs=float(rng.uniform(3.6, 10.5)),
                        cpu_util=float(rng.uniform(0.7, 1.0)), parents=parents,
                        cpu_util_sd=deviation[i]))
    return Workload("dense" if dense else "dag", made)


def counted(fn):
    """``fn()`` and how many what-ifs it asked for."""
    calls = [0]
    original = ClusterView.project

    def project(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    ClusterView.project = project
    try:
        return fn(), calls[0]
    finally:
        ClusterView.project = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--servers", default="2,3,4,5")
    args = parser.parse_args()
    rows = [("model", "workload", "servers", "scheduler", "makespan s", "what-ifs",
             "CPU s (best)")]
    for model in ("deside", "deside_stochastic"):
        for dense in (False, True):
            work = dag(100, 1, dense)
            for count in (int(s) for s in args.servers.split(",")):
                platform = servers(count)
                for name in ("fcfs", "slf", "let", "mom"):
                    def run(n: str = name, p: Platform = platform, w: Workload = work,
                            c: str = model):
                        return simulate(p, w, create(n), contention=c)
                    (result, whatifs) = counted(run)
                    seconds, _ = best_cpu(run, args.repeat)
                    rows.append((model, work.name, str(count), name,
                                 f"{result.end.max():,.0f}", f"{whatifs:,}", f"{seconds:.3f}"))
    print_table(rows, left=4)


if __name__ == "__main__":
    main()
