"""Conservative backfilling at scale: simulation time (CPU seconds, best of ``--repeat``) of the
KIT trace's first N jobs on the KIT-like platform (1,173 nodes), beyond 25,326 the prefix
repeated and shifted (``bench_scale.kit_workload``: each copy shifted by the prefix's span), so
that growth with the job count shows (per job).

    python benchmarks/bench_conservative.py [--jobs 3000,25326,50652] [--repeat 1]

The full 25,326 jobs take about 42 s today (83 s before the wide searches' skips and tests of
docs/model.md, 50 s before the replayed-search changes; issue 28's target: 10 s);
``--jobs 3000`` is a quick look. ``bench_scale.py`` prints the same cases beside another
version's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale import KIT_PLATFORM, kit_workload  # noqa: E402
from benchtools import best_cpu, print_table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="3000,25326", help="job counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case (best CPU)")
    args = parser.parse_args()
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate

    platform = load_platform(KIT_PLATFORM)
    rows = [("jobs", "CPU s", "ms/job")]
    for count in (int(n) for n in args.jobs.split(",")):
        workload = kit_workload(count)
        seconds, _ = best_cpu(lambda: simulate(platform, workload, create("conservative")),
                              args.repeat)
        rows.append((f"{count:,}", f"{seconds:.2f}", f"{1000 * seconds / count:.2f}"))
        print(f"{count:,} jobs: {seconds:.2f} s", file=sys.stderr, flush=True)
    print_table(rows)


if __name__ == "__main__":
    main()
