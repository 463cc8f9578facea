"""ds-sim on the engine: wall time and jobs/s per configuration and algorithm.

Runs every ds-sim configuration of the shared data (or those given) with each algorithm on its
job list, as ``hetsched dssim-table`` does, and prints one row per run plus a total per
algorithm. Reading the XML files is included in the time, as a user of the table sees it.

    python benchmarks/bench_dssim.py [--configs config16-short-high,config40-long-med]
                                     [--algos ff,bf,lwt]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "dssim"
sys.path.insert(0, str(ROOT / "src"))

from hetsched.dssim.algorithms import ALGORITHMS  # noqa: E402
from hetsched.experiments.dssim_table import run_cell  # noqa: E402


def _names(text: str, default: list[str]) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()] if text else default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="", help="comma-separated names (default: all)")
    parser.add_argument("--algos", default="", help="comma-separated (default: all 14)")
    args = parser.parse_args()
    configs = _names(args.configs, sorted(p.stem for p in (DATA / "configs").glob("*.xml")))
    algos = _names(args.algos, list(ALGORITHMS))
    if not configs:
        parser.error(f"no ds-sim configurations in {DATA / 'configs'}")
    totals = {algo: [0.0, 0] for algo in algos}
    print(f"{'configuration':<24} {'algo':<5} {'jobs':>6} {'seconds':>8} {'jobs/s':>8}")
    for config in configs:
        for algo in algos:
            began = time.perf_counter()
            cell = run_cell(DATA / "configs" / f"{config}.xml", DATA / "jobs", algo)
            seconds = time.perf_counter() - began
            totals[algo][0] += seconds
            totals[algo][1] += cell.jobs
            print(f"{config:<24} {algo:<5} {cell.jobs:>6} {seconds:>8.3f} "
                  f"{cell.jobs / seconds:>8,.0f}")
    print(f"\n{'all configurations':<24} {'algo':<5} {'jobs':>6} {'seconds':>8} {'jobs/s':>8}")
    for algo, (seconds, jobs) in totals.items():
        print(f"{'':<24} {algo:<5} {jobs:>6} {seconds:>8.3f} {jobs / seconds:>8,.0f}")


if __name__ == "__main__":
    main()
