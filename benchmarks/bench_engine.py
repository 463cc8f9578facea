"""Engine throughput: wall time, peak memory and jobs/s on the real traces.

Each case runs in a fresh Python process (so peak RSS is the case's own). For every case the
first half of the trace is run too: ``x2 time`` = time(all jobs) / time(half the jobs) shows
how run time grows when the job count doubles (~2 is linear).

    python benchmarks/bench_engine.py [--schedulers fcfs,easy,high_gflops] [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CASES = {
    "lublin_256 / irmasim 20-node": (DATA / "platforms" / "irmasim_lublin_20node.json",
                                     DATA / "traces" / "lublin_256.swf"),
    "kit_fh2 25k / kit_like 1173-node": (ROOT / "benchmarks" / "platforms" / "kit_like.yaml",
                                         DATA / "traces" / "kit_fh2_2016_first25k.swf"),
}


def run_one(platform: str, workload: str, scheduler: str, fraction: float) -> dict:
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate
    from hetsched.workload.load import load_workload
    from hetsched.workload.model import Workload

    plat = load_platform(platform)
    work = load_workload(workload, plat)
    if fraction < 1:
        work = Workload(work.name, work.jobs[: int(len(work.jobs) * fraction)], work.source)
    began = time.perf_counter()
    result = simulate(plat, work, create(scheduler))
    wall = time.perf_counter() - began
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"jobs": len(work.jobs), "wall": wall, "peak_mb": peak_mb,
            "finished": int((result.state == 3).sum())}


def measure(platform: Path, workload: Path, scheduler: str, fraction: float) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", str(platform), str(workload),
                          scheduler, str(fraction)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedulers", default="fcfs,easy,high_gflops")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        platform, workload, scheduler, fraction = args.one
        print(json.dumps(run_one(platform, workload, scheduler, float(fraction))))
        return
    header = f"{'case':34} {'scheduler':12} {'jobs':>7} {'wall s':>8} {'peak MB':>8} " \
             f"{'jobs/s':>9} {'x2 time':>8}"
    print(header)
    print("-" * len(header))
    for case, (platform, workload) in CASES.items():
        for scheduler in args.schedulers.split(","):
            full = measure(platform, workload, scheduler, 1.0)
            half = measure(platform, workload, scheduler, 0.5)
            print(f"{case:34} {scheduler:12} {full['jobs']:>7} {full['wall']:>8.2f} "
                  f"{full['peak_mb']:>8.0f} {full['jobs'] / full['wall']:>9.0f} "
                  f"{full['wall'] / half['wall']:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
