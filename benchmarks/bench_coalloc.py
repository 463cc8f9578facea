"""Co-allocation window search (hetsched.coalloc) on the environments of Toporkov & Yemelyanov's
experiment (100 nodes, n = 7, V = 800, C = 644, L = 1200): how fast, and what pruning saves.

1. Every algorithm on every trial, pruned (the default): CPU ms per search (mean, and the
   99th percentile and the worst), candidate starts evaluated and knapsacks (solves, cells)
   per search; the total CPU of all algorithms on all trials (target: <= 60 s), and of one
   FirstFit search (target: <= 1 ms).
2. The same on the first ``--sample`` trials without pruning (the paper's plain scan: a
   knapsack over the whole candidate list at every start of every group; MultipleBest's
   FirstFit from the top after each cut), the values checked equal.
3. What rounding the costs up to cells loses (``--loss-trials``): MaxQ's window against the
   best window on the real costs (each candidate list whose LP bound on the real costs can
   beat it solved by HiGHS), per knapsack resolution.

    python benchmarks/bench_coalloc.py [--trials 3000] [--sample 10] [--loss-trials 200]
                                       [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from benchtools import print_table  # noqa: E402
from hetsched.coalloc.alternatives import alternatives  # noqa: E402
from hetsched.coalloc.candidates import group, levels  # noqa: E402
from hetsched.coalloc.environment import PaperEnvironment  # noqa: E402
from hetsched.coalloc.exact import milp_subset  # noqa: E402
from hetsched.coalloc.knapsack import CELLS, upper_bound  # noqa: E402
from hetsched.coalloc.model import Slots  # noqa: E402
from hetsched.coalloc.search import SearchStats, search  # noqa: E402
from hetsched.experiments.coalloc import ALGORITHMS  # noqa: E402

ENVIRONMENT = PaperEnvironment()


def environments(trials: int, seed: int) -> list[Slots]:
    return [ENVIRONMENT.draw(np.random.default_rng([seed, i])) for i in range(trials)]


def run(algorithm: str, table: Slots, prune: bool, stats: SearchStats,
        cells: int = CELLS) -> tuple[float, object]:
    """CPU seconds of one search, and what it found (a window's value, or MultipleBest's
    alternatives as (nodes, start) pairs)."""
    began = time.process_time()
    if algorithm == "multiple_best":
        found: object = [(w.nodes, w.start) for w in
                         alternatives(table, ENVIRONMENT.request("first_fit"), prune=prune,
                                      stats=stats)]
    else:
        window = search(table, ENVIRONMENT.request(algorithm), prune=prune, stats=stats,
                        cells=cells)
        found = None if window is None else window.value
    return time.process_time() - began, found


def speed(tables: list[Slots], prune: bool) -> tuple[list[tuple[str, ...]], dict, float]:
    """Rows of the speed table, what each search found, and the total CPU seconds."""
    rows = [("algorithm", "ms/search", "p99 ms", "max ms", "starts", "solves", "cells")]
    found, total = {}, 0.0
    for algorithm in ALGORITHMS:
        stats = SearchStats()
        seconds = []
        for i, table in enumerate(tables):
            took, found[algorithm, i] = run(algorithm, table, prune, stats)
            seconds.append(took)
        total += sum(seconds)
        per = len(tables)
        rows.append((algorithm, f"{1000 * np.mean(seconds):.3f}",
                     f"{1000 * np.percentile(seconds, 99):.3f}", f"{1000 * max(seconds):.3f}",
                     f"{stats.starts / per:,.0f}", f"{stats.solves / per:,.1f}",
                     f"{stats.cells / per:,.0f}"))
    return rows, found, total


def same(one: object, other: object) -> bool:
    """Whether two searches found the same: equal values (to rounding), or equal lists."""
    if isinstance(one, float) and isinstance(other, float):
        return bool(np.isclose(one, other, rtol=1e-9, atol=1e-9))
    return one == other


def real_optimum(table: Slots, value: float) -> float:
    """The best Q within the budget on the real costs, given the scaled search's ``value``:
    every maximal candidate list whose LP bound on the real costs beats it, solved exactly."""
    request = ENVIRONMENT.request("max_q")
    q = table.attributes["q"]
    best = value
    for level in levels(table, request):
        runtime = request.volume / level
        found = group(table, level, runtime)
        for row in np.flatnonzero(found.exact & found.maximal() & (found.counts >= 7)):
            inside = found.slots[found.member[row]]
            costs = runtime * table.price[inside]
            if upper_bound(q[inside], costs, 7, request.budget)[0] <= best + 1e-9:
                continue
            exact = milp_subset(q[inside], costs, 7, request.budget)
            if exact is not None and exact[0] > best:
                best = exact[0]
    return best


def losses(tables: list[Slots]) -> list[tuple[str, ...]]:
    rows = [("cells", "MaxQ ms/search", "trials lost", "mean loss of Q", "worst loss of Q")]
    for cells in (250, 1000, 4000):
        lost, seconds = [], 0.0
        for table in tables:
            took, value = run("max_q", table, True, SearchStats(), cells)
            seconds += took
            lost.append(real_optimum(table, float(value)) - float(value))  # type: ignore[arg-type]
        gaps = np.array(lost)
        rows.append((f"{cells:,}", f"{1000 * seconds / len(tables):.2f}",
                     f"{int((gaps > 1e-9).sum())} of {len(tables)}", f"{gaps.mean():.4f}",
                     f"{gaps.max():.3f}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3000)
    parser.add_argument("--sample", type=int, default=10,
                        help="trials searched without pruning too (default 10)")
    parser.add_argument("--loss-trials", type=int, default=200,
                        help="trials whose MaxQ is checked on the real costs (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tables = environments(args.trials, args.seed)
    print(f"{args.trials:,} environments, {np.mean([len(t) for t in tables]):.0f} slots each "
          f"on average")
    print("\n1. pruned (the default): per search")
    rows, pruned, total = speed(tables, prune=True)
    print_table(rows)
    first = float(rows[1][1])
    print(f"all algorithms on all {args.trials:,} trials: {total:.1f} s CPU (target <= 60 s);"
          f" one FirstFit search: {first:.3f} ms on average, {rows[1][3]} ms at worst "
          f"(target <= 1 ms)")
    print(f"\n2. without pruning, the first {args.sample} trials: per search")
    rows, plain, _ = speed(tables[:args.sample], prune=False)
    print_table(rows)
    differ = sum(not same(value, pruned[key]) for key, value in plain.items())
    print(f"searches whose value differs from the pruned search's: {differ}")
    print(f"\n3. MaxQ with the costs rounded up to cells, against the real costs "
          f"({args.loss_trials} trials)")
    print_table(losses(tables[:args.loss_trials]))


if __name__ == "__main__":
    main()
