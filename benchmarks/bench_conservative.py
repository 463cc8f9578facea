"""Conservative backfilling at scale: simulation time (CPU seconds, best of ``--repeat``) of
prefixes of the KIT trace on the KIT-like platform (1,173 nodes), and of the 25k prefix
repeated and shifted (``--repeat-trace``: copies one after the other, each shifted by the
prefix's span), so that growth with the job count shows (per job, and the ratio per doubling).

    python benchmarks/bench_conservative.py [--jobs 3000,25326] [--repeat-trace 2] [--repeat 1]

The full 25,326 jobs take 1.5 minutes today (issue 28's target: 10 s); ``--jobs 3000`` is a quick
look.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchtools import best_cpu, print_table  # noqa: E402

PLATFORM = ROOT / "benchmarks" / "platforms" / "kit_like.yaml"
TRACE = DATA / "traces" / "kit_fh2_2016_first25k.swf"


def workloads(sizes: list[int], copies: int) -> list[tuple[str, object]]:
    """The prefixes, then the whole prefix repeated ``copies`` times (if more than one)."""
    from hetsched.platform.load import load_platform
    from hetsched.workload.load import load_workload
    from hetsched.workload.model import Workload

    platform = load_platform(PLATFORM)
    full = load_workload(TRACE, platform)
    out: list[tuple[str, object]] = [(f"KIT first {n:,}", Workload(f"kit{n}", full.jobs[:n]))
                                     for n in sizes]
    if copies > 1:
        span = full.jobs[-1].submit - full.jobs[0].submit + 1.0
        jobs = [replace(job, id=f"{job.id}.{k}", submit=job.submit + k * span)
                for k in range(copies) for job in full.jobs]
        out.append((f"KIT 25k x{copies}", Workload(f"kit25k_x{copies}", tuple(jobs))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="3000,25326", help="prefix sizes, comma-separated")
    parser.add_argument("--repeat-trace", type=int, default=1,
                        help="also the 25k prefix this many times, one copy after the other")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case (best CPU)")
    args = parser.parse_args()
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate

    platform = load_platform(PLATFORM)
    rows = [("case", "jobs", "CPU s", "ms/job")]
    for name, workload in workloads([int(n) for n in args.jobs.split(",")], args.repeat_trace):
        seconds, _ = best_cpu(lambda: simulate(platform, workload, create("conservative")),
                              args.repeat)
        count = len(workload.jobs)  # type: ignore[attr-defined]
        rows.append((name, f"{count:,}", f"{seconds:.2f}", f"{1000 * seconds / count:.2f}"))
        print(f"{name}: {seconds:.2f} s", file=sys.stderr, flush=True)
    print_table(rows)


if __name__ == "__main__":
    main()
