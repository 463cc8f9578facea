"""Static mapping heuristics on the 12 Braun et al. instances (512 tasks × 16 machines).

For every instance and heuristic: the makespan, its gap above the LP-relaxation bound (%) and
the wall time. Time-bounded heuristics (astar, ga, sa, gsa, tabu, ils, milp, best) get
``--time-limit`` seconds; the others ignore it.

    python benchmarks/bench_mapping.py [--heuristics min_min,sufferage,best] [--time-limit 60]
                                       [--instances u_c_hihi,u_i_lolo] [--seed 0] [--markdown]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "braun"
sys.path.insert(0, str(ROOT / "src"))

from hetsched.mapping import lp_bound, read_etc, run_heuristic  # noqa: E402
from hetsched.mapping.registry import HEURISTICS  # noqa: E402

DEFAULT = "olb,met,mct,min_min,max_min,duplex,sufferage,kpb,swa,astar,ga,sa,gsa,tabu,ils,best"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics", default=DEFAULT,
                        help=f"comma-separated (default: {DEFAULT}; 'all' for every one)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per time-bounded heuristic (default 60)")
    parser.add_argument("--instances", default="",
                        help="comma-separated instance names (default: all 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true",
                        help="also print the summary as a Markdown table")
    args = parser.parse_args()
    names = list(HEURISTICS) if args.heuristics == "all" else \
        [h.strip() for h in args.heuristics.split(",") if h.strip()]
    unknown = [h for h in names if h not in HEURISTICS]
    if unknown:
        parser.error(f"unknown heuristics: {', '.join(unknown)}")
    paths = sorted(DATA.glob("u_*.0"))
    if args.instances:
        wanted = {i.strip().removesuffix(".0") for i in args.instances.split(",")}
        paths = [p for p in paths if p.stem in wanted]
    if not paths:
        parser.error(f"no instances found in {DATA}")

    results: dict[str, dict[str, tuple[float, float, float]]] = {}
    bounds: dict[str, float] = {}
    print(f"{'instance':<10} {'heuristic':<10} {'makespan':>15} {'gap LP %':>9} {'seconds':>8}")
    for path in paths:
        etc = read_etc(path)
        bound = lp_bound(etc)
        bounds[path.stem] = bound
        results[path.stem] = {}
        for name in names:
            began = time.perf_counter()
            result = run_heuristic(name, etc, rng=np.random.default_rng(args.seed),
                                   time_limit=args.time_limit)
            wall = time.perf_counter() - began
            gap = 100.0 * (result.makespan / bound - 1.0)
            results[path.stem][name] = (result.makespan, gap, wall)
            print(f"{path.stem:<10} {name:<10} {result.makespan:>15,.2f} {gap:>9.3f} "
                  f"{wall:>8.2f}", flush=True)

    print()
    print("gap above the LP bound (%), per instance and heuristic")
    width = max(9, *(len(n) + 1 for n in names))
    print(f"{'instance':<10} {'LP bound':>14}" + "".join(f"{n:>{width}}" for n in names))
    for inst, row in results.items():
        print(f"{inst:<10} {bounds[inst]:>14,.2f}"
              + "".join(f"{row[n][1]:>{width}.3f}" for n in names))
    gaps = {n: [results[i][n][1] for i in results] for n in names}
    secs = {n: [results[i][n][2] for i in results] for n in names}
    print(f"{'mean gap':<25}" + "".join(f"{np.mean(gaps[n]):>{width}.3f}" for n in names))
    print(f"{'max gap':<25}" + "".join(f"{np.max(gaps[n]):>{width}.3f}" for n in names))
    print(f"{'mean s':<25}" + "".join(f"{np.mean(secs[n]):>{width}.2f}" for n in names))
    if args.markdown:
        print()
        print("| instance | LP bound | " + " | ".join(names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for inst, row in results.items():
            cells = " | ".join(f"{row[n][0]:,.0f} ({row[n][1]:.2f} %)" for n in names)
            print(f"| {inst} | {bounds[inst]:,.0f} | {cells} |")
        print("| mean gap / s | | " + " | ".join(
            f"{np.mean(gaps[n]):.2f} % / {np.mean(secs[n]):.2f} s" for n in names) + " |")


if __name__ == "__main__":
    main()
