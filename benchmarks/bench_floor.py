"""hetsched against the speed floor: its in-process simulation time (CPU seconds, best of
``--repeat``) as a ratio to the minimal loops of ``reference_loop.py`` on lublin_256 (requested
time = 2 x run time), as one 256-core machine (saturated) and on the 20-node IRMaSim platform
(the reference then runs on that platform's 496 cores as identical processors); conservative
backfilling on 10k, 20k, 40k and 80k jobs (lublin_256 repeated, shifted in time) against the
reference EASY; high_gflops against fcfs. Both references are event loops (ends, arrivals,
one scheduling pass per instant); the FCFS schedule computed without events
(``fcfs_closed_form``, about 4x quicker still) is printed as a further row.

    python benchmarks/bench_floor.py [--repeat 3] [--sizes 10000,20000] [--limit 120]

A conservative case still running after ``--limit`` seconds is given up and printed as such.
On the saturated machine each copy of lublin_256 starts behind a longer queue (the machine
finishes fewer jobs than arrive), so the reference EASY itself grows faster than the number of
jobs there, and conservative backfilling, whose compressions follow the queue, does too; on
the 20 nodes the queue stays short and both grow linearly.

On one 256-core machine the reference and hetsched produce the same start times for fcfs and
easy (``tests/test_reference_loop.py``).
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from benchtools import best_cpu, print_table
from reference_loop import easy, fcfs, fcfs_closed_form

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def limited(fn, seconds: int) -> float | None:
    """CPU time of ``fn()``, or ``None`` if it had not returned after ``seconds`` (wall)."""
    def stop(*_: object) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return best_cpu(fn, 1)[0]
    except TimeoutError:
        return None
    finally:
        signal.alarm(0)


def lublin(platform, copies: int = 1):
    """lublin_256 with requested time 2 x run time, ``copies`` times one after the other."""
    from hetsched.workload.load import load_workload
    from hetsched.workload.model import Workload
    from hetsched.workload.swf import SwfOptions

    work = load_workload(DATA / "traces" / "lublin_256.swf", platform,
                         SwfOptions(estimate_factor=2.0))
    if copies == 1:
        return work
    from dataclasses import replace

    span = work.jobs[-1].submit - work.jobs[0].submit + 1.0
    jobs = tuple(replace(j, id=f"{j.id}.{k}", submit=j.submit + k * span, index=-1)
                 for k in range(copies) for j in work.jobs)
    return Workload(f"lublin_256x{copies}", jobs, work.source)


def reference_jobs(work, speed: float) -> list[tuple[float, int, float, float]]:
    return [(j.submit, j.ntasks, j.req_ops / (j.ipc * speed), j.req_time) for j in work.jobs]


def platforms():
    from hetsched.platform.load import load_platform
    from hetsched.platform.model import NodeType, Platform

    yield "one 256-core machine", Platform.from_counts("m256", [(NodeType("m", 256, 1.0), 1)])
    yield "20-node IRMaSim", load_platform(DATA / "platforms" / "irmasim_lublin_20node.json")


def main() -> None:
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10000,20000,40000,80000",
                        help="job counts for conservative (multiples of 10,000)")
    parser.add_argument("--limit", type=int, default=120,
                        help="give up a conservative case after this many seconds")
    args = parser.parse_args()
    rows = [("platform", "case", "jobs", "hetsched s", "floor s", "ratio")]
    for label, platform in platforms():
        work = lublin(platform)
        ref = reference_jobs(work, platform.slowest_speed)
        procs = platform.total_cores
        floor = {name: best_cpu(lambda f=f: f(ref, procs), args.repeat)[0]
                 for name, f in (("fcfs", fcfs), ("easy", easy),
                                 ("closed", fcfs_closed_form))}
        took = {}
        for name in ("fcfs", "easy", "high_gflops"):
            took[name] = best_cpu(lambda n=name: simulate(platform, work, create(n)),
                                  args.repeat)[0]
        for name in ("fcfs", "easy"):
            rows.append((label, name, f"{len(work.jobs):,}", f"{took[name]:.3f}",
                         f"{floor[name]:.3f}", f"{took[name] / floor[name]:.1f}x"))
        rows.append((label, "fcfs / closed-form fcfs", f"{len(work.jobs):,}",
                     f"{took['fcfs']:.3f}", f"{floor['closed']:.3f}",
                     f"{took['fcfs'] / floor['closed']:.1f}x"))
        rows.append((label, "high_gflops / fcfs", f"{len(work.jobs):,}",
                     f"{took['high_gflops']:.3f}", f"{took['fcfs']:.3f}",
                     f"{took['high_gflops'] / took['fcfs']:.2f}x"))
        for size in (int(s) for s in args.sizes.split(",")):
            work_n = lublin(platform, size // 10000)
            floor_n = best_cpu(lambda w=work_n: easy(reference_jobs(w, platform.slowest_speed),
                                                     procs), 1)[0]
            seconds = limited(lambda w=work_n: simulate(platform, w, create("conservative")),
                              args.limit)
            rows.append((label, "conservative / floor easy", f"{size:,}",
                         f"> {args.limit}" if seconds is None else f"{seconds:.3f}",
                         f"{floor_n:.3f}", "—" if seconds is None else
                         f"{seconds / floor_n:.1f}x"))
    print_table(rows, left=2)


if __name__ == "__main__":
    main()
