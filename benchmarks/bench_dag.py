"""Task-graph heuristics on the Kasahara STG sets (180 random graphs of 50 and of 100 tasks, on
M identical processors, no communication) against the published optima.

For each set, processor count and heuristic, over the graphs whose optimum is known: the mean
and worst gap above it (%) and how many it schedules optimally; over the graphs whose optimum
is published as a range (a lower bound and the best schedule known), how many reach the
range's upper end; how many fall below the optimum or the range (always 0, or a bug); the CPU
time per graph. The optima are read from ``Case{size}_{M}_OPT.csv`` beside the graphs; for a
processor count without that file (only M = 2 is in the shared data) the reference is
``dag_exact.lower_bound`` instead (critical path or work over M): the gap to it is an upper
bound of the gap to the optimum, and a makespan equal to it is proved optimal.

    python benchmarks/bench_dag.py [--heuristics heft,cpop,peft] [--sets 50,100]
                                   [--processors 2,4,8,16] [--markdown]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "stg"
sys.path.insert(0, str(ROOT / "src"))

from benchtools import print_table  # noqa: E402
from hetsched.mapping.dag_exact import lower_bound  # noqa: E402
from hetsched.mapping.dag_io import read_dag, read_stg_optima  # noqa: E402
from hetsched.mapping.graph_registry import run_graph_heuristic  # noqa: E402


def references(size: str, processors: int) -> tuple[str, dict[str, tuple[float, float]]]:
    """What the makespans are held to on ``processors``: the published optima (``low ==
    high``) or ranges where the shared data has them, else each graph's lower bound."""
    published = DATA / f"Case{size}_{processors}_OPT.csv"
    if published.is_file():
        return "optimum", read_stg_optima(published)
    bounds = {}
    for path in sorted((DATA / size).glob("*.stg")):
        bound = lower_bound(read_dag(path, processors))
        bounds[f"{size}/{path.name}"] = (bound, bound)
    return "lower bound", bounds


def gaps(size: str, processors: int, heuristics: list[str]) -> list[tuple[str, ...]]:
    """One row per heuristic. Where the reference is one value (``low == high``): the gap to
    it; where only a range is published, whether the makespan reaches its upper end (the best
    schedule known)."""
    reference, optima = references(size, processors)
    known = {name: low for name, (low, high) in optima.items() if low == high}
    found: dict[str, list[float]] = {h: [] for h in heuristics}
    best_known = {h: 0 for h in heuristics}
    below = {h: 0 for h in heuristics}
    seconds = {h: 0.0 for h in heuristics}
    for name, (low, high) in optima.items():
        graph = read_dag(DATA / name, processors)
        for heuristic in heuristics:
            began = time.process_time()
            makespan = run_graph_heuristic(heuristic, graph).makespan
            seconds[heuristic] += time.process_time() - began
            below[heuristic] += makespan < low - 1e-9
            if name in known:
                found[heuristic].append(100.0 * (makespan / low - 1.0))
            else:
                best_known[heuristic] += makespan <= high + 1e-9
    ranged = len(optima) - len(known)
    return [(f"STG {size}", f"{processors}", h, reference, f"{len(known)}",
             f"{sum(found[h]) / len(known):.2f}",
             f"{max(found[h]):.2f}", f"{sum(g <= 1e-9 for g in found[h])}",
             f"{best_known[h]} of {ranged}", f"{below[h]}",
             f"{1000 * seconds[h] / len(optima):.1f}") for h in heuristics]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristics", default="heft,cpop,peft")
    parser.add_argument("--sets", default="50,100")
    parser.add_argument("--processors", default="2", help="processor counts, e.g. 2,4,8,16")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    heuristics = [h.strip() for h in args.heuristics.split(",") if h.strip()]
    header = ("set", "M", "heuristic", "reference", "graphs", "mean gap %", "worst gap %",
              "at reference", "range: best known reached", "below reference", "ms per graph")
    rows = [header]
    for size in args.sets.split(","):
        for processors in args.processors.split(","):
            rows += gaps(size.strip(), int(processors), heuristics)
    if args.markdown:
        for row in rows[:1] + [tuple("---" for _ in header)] + rows[1:]:
            print("| " + " | ".join(row) + " |")
        return
    print_table(rows, left=2)


if __name__ == "__main__":
    main()
