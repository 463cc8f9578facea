"""The engine core in process: simulation time (CPU seconds, best of ``--repeat``) of lublin_256
under the queue and backfilling policies, IRMaSim's synthetic workloads with its contention
model, and the cost of ``Simulation.fork()`` with 1,000 running jobs (also with jobs still to
come, forgotten or kept: ``keep_future=True``): the best single fork, and the mean over many
forks, each dropped at once, with the garbage collector's work included (enabled, and a final
full collection counted less the cost of one with nothing to free), in workloads of 2,000,
10,000 and 100,000 jobs.

    python benchmarks/bench_core.py [--repeat 3] [--quick]

``--quick`` runs conservative on the first 2,000 lublin jobs only (it is super-linear on a
saturated machine today) and skips the 10,000-job synthetic run and the fork in the middle of
the KIT trace.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchtools import best_cpu, print_table  # noqa: E402


def lublin_rows(repeat: int, quick: bool) -> list[tuple[str, ...]]:
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate
    from hetsched.workload.load import load_workload
    from hetsched.workload.model import Workload

    platform = load_platform(DATA / "platforms" / "irmasim_lublin_20node.json")
    workload = load_workload(DATA / "traces" / "lublin_256.swf", platform)
    rows = []
    for name in ("fcfs", "easy", "conservative", "high_gflops"):
        work = workload
        if name == "conservative" and quick:
            work = Workload(workload.name, workload.jobs[:2000], workload.source)
        seconds, result = best_cpu(lambda: simulate(platform, work, create(name)), repeat)
        rows.append((f"lublin_256 / 20-node, {name}", f"{len(work.jobs):,}", f"{seconds:.3f}",
                     f"{len(work.jobs) / seconds:,.0f}"))
    return rows


def synth_rows(repeat: int, quick: bool) -> list[tuple[str, ...]]:
    from make_irmasim_synth import generate, platform_speeds

    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate
    from hetsched.workload.irmasim import irmasim_workload_from_data
    from hetsched.workload.load import load_workload

    folder = DATA / "irmasim_synth"
    platform = load_platform(folder / "platform.json")
    cases = [("1,000 (IRMaSim's own)", load_workload(folder / "workload_1000.json", platform))]
    if not quick:
        jobs = generate(10000, 1, 0.5, platform_speeds(folder / "platform.json"))
        cases.append(("10,000 (generated, seed 1)",
                      irmasim_workload_from_data({"jobs": jobs}, Path("synth_10k.json"))))
    rows = []
    for label, work in cases:
        for contention in ("irmasim", "none"):
            seconds, _ = best_cpu(lambda: simulate(platform, work, create("irmasim_minimal"),
                                                   contention=contention), repeat)
            rows.append((f"synth {label}, irmasim_minimal, contention {contention}",
                         f"{len(work.jobs):,}", f"{seconds:.3f}",
                         f"{len(work.jobs) / seconds:,.0f}"))
    return rows


def fork_mid_kit() -> tuple[str, ...]:
    """Fork 20,000 instants into fcfs on KIT's first 25k jobs (1,173 nodes): a long history
    (time series, per-job arrays) must not make a fork dearer."""
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import Simulation
    from hetsched.workload.load import load_workload

    platform = load_platform(ROOT / "benchmarks" / "platforms" / "kit_like.yaml")
    workload = load_workload(DATA / "traces" / "kit_fh2_2016_first25k.swf", platform)
    sim = Simulation(platform, workload, create("fcfs"))
    for _ in range(20000):
        step = sim.advance()
        sim.apply(sim.scheduler.decide(step.now, step.events))
    times = []
    for _ in range(300):
        began = time.perf_counter()
        sim.fork()
        times.append(time.perf_counter() - began)
    return ("fork(), KIT 25k after 20,000 instants (1,173 nodes)",
            f"{len(sim.state.running):,}", f"{min(times) * 1e3:.3f} ms",
            f"median {statistics.median(times) * 1e3:.3f} ms")


def running_1000(size: int = 2000):
    """A simulation holding 1,000 running jobs and 1,000 pending ones on 20 nodes of 50 cores,
    in a workload of ``size`` jobs (those beyond the first 2,000 arrive much later)."""
    from hetsched.platform.model import NodeType, Platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import Simulation
    from hetsched.workload.model import Job, Workload

    platform = Platform.from_counts("p", [(NodeType("n", 50, 2.0, static_w=50,
                                                    dynamic_w_per_core=5), 20)])
    jobs = tuple(Job(f"j{i}", 0.0 if i < 2000 else 1e7 + i, 1, 1e12 * (1 + i % 7), 600)
                 for i in range(size))
    sim = Simulation(platform, Workload("w", jobs), create("fcfs"))
    step = sim.advance()
    sim.apply(sim.scheduler.decide(step.now, step.events))
    return sim


def collection_seconds() -> float:
    """The time of a full collection with nothing to free: what the process' size costs it."""
    gc.collect()
    began = time.perf_counter()
    gc.collect()
    return time.perf_counter() - began


def mean_with_gc(fork, count: int = 1000, rounds: int = 3) -> tuple[list[float], float]:
    """Per round, the mean seconds of a fork over ``count`` forks, each dropped at once, with
    the garbage collector enabled and a final full collection counted, less what a full
    collection with nothing to free costs (the process' size, not the forks); and that
    cost."""
    means, empty = [], []
    for _ in range(rounds):
        empty.append(collection_seconds())
        began = time.perf_counter()
        for _ in range(count):
            fork()
        gc.collect()
        means.append((time.perf_counter() - began - empty[-1]) / count)
    return means, min(empty)


def fork_gc_rows() -> list[tuple[str, ...]]:
    """The mean cost of a fork with the collector's work, at three workload sizes."""
    rows = []
    for size in (2000, 10000, 100000):
        sim = running_1000(size)
        means, empty = mean_with_gc(sim.fork)
        rows.append((f"fork(), 1,000 running, {size:,} jobs in the workload, with gc",
                     f"{len(sim.state.running):,}", f"{statistics.mean(means) * 1e3:.3f} ms",
                     f"(a full collection {empty * 1e3:.0f} ms)"))
    return rows


def fork_every_instant() -> tuple[str, ...]:
    """lublin_256 under fcfs with a fork made and dropped at every instant: the forks and what
    the original pays after each (it copies what it shared with the fork before changing it)."""
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import Simulation
    from hetsched.workload.load import load_workload

    platform = load_platform(DATA / "platforms" / "irmasim_lublin_20node.json")
    workload = load_workload(DATA / "traces" / "lublin_256.swf", platform)

    def run() -> int:
        sim = Simulation(platform, workload, create("fcfs"))
        instants = 0
        while (step := sim.advance()) is not None:
            sim.fork()
            sim.apply(sim.scheduler.decide(step.now, step.events))
            instants += 1
        sim.finish()
        return instants

    seconds, instants = best_cpu(run, 3)
    return (f"lublin_256 / 20-node, fcfs, a fork at each of {instants:,} instants",
            f"{len(workload.jobs):,}", f"{seconds:.3f} s", f"{seconds / instants * 1e3:.3f} ms")


def fork_rows() -> list[tuple[str, ...]]:
    """Fork a state holding 1,000 running jobs (and 1,000 pending) on 20 nodes of 50 cores, and
    the same state with 98,000 jobs still to come, forgetting them or keeping them."""
    from hetsched.schedulers import create

    sim, ahead = running_1000(), running_1000(100000)
    rows = []
    for label, fork in (("fork(), 1,000 running + 1,000 pending", lambda: sim.fork()),
                        ("fork(fcfs), 1,000 running + 1,000 pending",
                         lambda: sim.fork(create("fcfs"))),
                        ("fork(), the same and 98,000 jobs to come", lambda: ahead.fork()),
                        ("fork(keep_future=True), the same and 98,000 jobs to come",
                         lambda: ahead.fork(keep_future=True))):
        times = []
        for _ in range(300):
            began = time.perf_counter()
            fork()
            times.append(time.perf_counter() - began)
        rows.append((label, f"{len(sim.state.running):,}", f"{min(times) * 1e3:.3f} ms",
                     f"median {statistics.median(times) * 1e3:.3f} ms"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--lublin-only", action="store_true",
                        help="only the lublin_256 rows (they also run on older versions)")
    parser.add_argument("--forks-only", action="store_true", help="only the fork rows")
    args = parser.parse_args()
    if args.forks_only:
        return print_table([("", "running", "fork (best)", "")] + fork_rows()
                           + [("", "running", "fork (mean)", "")] + fork_gc_rows())
    rows = [("case", "jobs", "CPU s (best)", "jobs/s")]
    rows += lublin_rows(args.repeat, args.quick)
    if args.lublin_only:
        return print_table(rows)
    rows += synth_rows(args.repeat, args.quick)
    rows += [("", "running", "fork (best)", "")] + fork_rows()
    rows += [("", "running", "fork (mean)", "")] + fork_gc_rows()
    if not args.quick:
        rows.append(fork_mid_kit())
        rows += [("", "jobs", "CPU s (best)", "per instant"), fork_every_instant()]
    print_table(rows)


if __name__ == "__main__":
    main()
