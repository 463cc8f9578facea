"""The cost of an action mask over the first K pending jobs and every node: one
``ClusterView.fit_matrix`` call against the scalar loop (``view.fits`` for every pair) and the
loop of ``view.fit_mask`` per job, in microseconds per mask (best of ``--repeat`` rounds of
the median over 20 calls), on a state with at least 64 jobs pending.

    python benchmarks/bench_fit_matrix.py [--repeat 5]

Platforms: IRMaSim's 20 nodes under lublin_256, and KIT ForHLR II's 1,173 nodes
(``examples/kit_fh2_platform.yaml``) under KIT's first 25,000 jobs; each run stepped under
fcfs until 64 jobs wait.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchtools import print_table  # noqa: E402

CASES = {
    "lublin_256 / 20 nodes": (DATA / "platforms" / "irmasim_lublin_20node.json",
                              DATA / "traces" / "lublin_256.swf"),
    "kit_fh2 25k / 1,173 nodes": (ROOT / "src" / "hetsched" / "examples" / "kit_fh2_platform.yaml",
                                  DATA / "traces" / "kit_fh2_2016_first25k.swf"),
}
SIZES = (16, 64)


def waiting(platform_path: Path, workload_path: Path, count: int = 64):
    """The view of a fcfs run stepped until ``count`` jobs wait."""
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import Simulation
    from hetsched.workload.load import load_workload

    platform = load_platform(platform_path)
    sim = Simulation(platform, load_workload(workload_path, platform), create("fcfs"))
    while len(sim.view.pending) < count:
        step = sim.advance()
        if step is None:
            raise SystemExit(f"{workload_path.name}: never {count} jobs pending")
        sim.apply(sim.scheduler.decide(step.now, step.events))
    return sim, sim.view


def microseconds(call: Callable[[], object], repeat: int, calls: int = 20) -> float:
    """The best over ``repeat`` rounds of the median of ``calls`` timed calls, in µs."""
    best = float("inf")
    for _ in range(repeat):
        times = []
        for _ in range(calls):
            began = time.perf_counter()
            call()
            times.append(time.perf_counter() - began)
        best = min(best, statistics.median(times))
    return best * 1e6


def rows(case: str, repeat: int) -> list[tuple[str, ...]]:
    sim, view = waiting(*CASES[case])
    nodes = range(len(view.platform.nodes))
    out = []
    for k in SIZES:
        jobs = list(view.pending.values())[:k]
        batched = microseconds(lambda: view.fit_matrix(jobs), repeat)
        pairs = microseconds(lambda: [[view.fits(job, n) for n in nodes] for job in jobs],
                             repeat, calls=3)
        masks = microseconds(lambda: [view.fit_mask(job) for job in jobs], repeat)
        out.append((case, f"{k} x {len(nodes):,}", f"{batched:,.1f}", f"{pairs:,.0f}",
                    f"{pairs / batched:,.0f}x", f"{masks:,.1f}", f"{masks / batched:,.1f}x"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    table = [("case", "jobs x nodes", "fit_matrix µs", "fits per pair µs", "ratio",
              "fit_mask per job µs", "ratio")]
    for case in CASES:
        table += rows(case, args.repeat)
    print_table(table)


if __name__ == "__main__":
    main()
