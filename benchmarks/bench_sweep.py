"""Sweep throughput and overhead on weekly KIT runs: the KIT-FH2 trace split into weeks, on
the KIT-like platform, under several schedulers and seeds, once per executor (a local pool of
one and of two processes, a local Dask cluster of two).

    python benchmarks/bench_sweep.py [--weeks 40] [--seeds 2] [--executors j1,j2,dask]

Per executor: runs/s, and how the sweep's wall time compares with the simulations' own
(``wall_seconds`` in the store, summed): ``overhead`` = sweep wall / (Σ sim / workers) − 1,
everything that is not simulating (starting the workers or the Dask cluster, building
schedulers, metrics, hand-off to and from the workers, the store, idle workers at the end);
``steady`` = the same without the start-up (``start s``: until the first result, less that
run's own time); ``in runs`` = (Σ run − Σ sim) / Σ sim, the part spent inside each run
(scheduler, metrics); ``per run`` = the overhead per run in ms. Planning (reading the trace,
expanding the grid, keys) happens once before the executor starts and is shown apart.

On a machine whose CPUs other programs also use, ``-j 2`` simulations run slower than
``-j 1`` ones (Σ sim grows): compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
PLATFORM = ROOT / "benchmarks" / "platforms" / "kit_like.yaml"
TRACE = DATA / "traces" / "kit_fh2_2016_first25k.swf"
#: Conservative backfilling is left out: a few of its weeks take 10-17 s each and would make
#: the measure one of load balance at the end rather than of the sweep's own costs.
SCHEDULERS = ("fcfs", "easy", "high_gflops", "low_power", "random-random",
              "shortest-high_gflops")
#: Executors by name: (workers, Dask address or None).
EXECUTORS = {"j1": (1, None), "j2": (2, None), "dask": (2, "local")}


def spec_text(weeks: int, seeds: int) -> str:
    return (f"platforms: [{PLATFORM}]\n"
            f"workloads: [{{file: {TRACE}, name: kit, split: week, max_parts: {weeks}}}]\n"
            f"schedulers: [{', '.join(SCHEDULERS)}]\n"
            f"seeds: {{count: {seeds}}}\n")


def measure(spec: Path, store: Path, workers: int, dask: str | None) -> dict[str, float]:
    from hetsched.sweep.runner import plan_sweep, run_plan

    began = time.perf_counter()
    plan = plan_sweep(spec, store)
    planned = time.perf_counter() - began
    first: list[float] = []

    def progress(done: int, total: int, failed: int) -> None:
        if not first:
            first.append(time.perf_counter())

    began = time.perf_counter()
    tally = run_plan(plan, workers, dask, progress)
    with sqlite3.connect(store) as conn:
        runs, sim, run = conn.execute("SELECT count(*), sum(wall_seconds), sum(run_seconds) "
                                      "FROM runs WHERE status = 'ok'").fetchone()
        first_run = conn.execute("SELECT run_seconds FROM runs ORDER BY rowid").fetchone()[0]
    assert runs == len(plan.runs) == tally.ok, (runs, len(plan.runs), tally)
    startup = first[0] - began - first_run  # until the first result, less its own run
    busy = tally.seconds * tally.workers
    return {"runs": runs, "plan": planned, "start": startup, "sweep": tally.seconds,
            "rate": runs / tally.seconds, "sim": sim, "overhead": busy / sim - 1,
            "steady": (tally.seconds - startup) * tally.workers / sim - 1,
            "in_runs": (run - sim) / sim, "per_run_ms": 1000 * (busy - sim) / runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--executors", default=",".join(EXECUTORS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"{args.weeks} KIT weeks × {len(SCHEDULERS)} schedulers × {args.seeds} seeds "
          f"({', '.join(SCHEDULERS)}) on {PLATFORM.name}")
    header = (f"{'executor':<16} {'runs':>5} {'plan s':>7} {'start s':>7} {'sweep s':>8} "
              f"{'runs/s':>7} {'Σ sim s':>8} {'overhead':>9} {'steady':>7} {'in runs':>8} "
              f"{'per run':>9}")
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "kit_weeks.yaml"
        spec.write_text(spec_text(args.weeks, args.seeds))
        for name in args.executors.split(","):
            workers, dask = EXECUTORS[name]
            label = f"{'dask local' if dask else 'pool'} -j {workers}"
            m = measure(spec, Path(tmp) / f"{name}.sqlite", workers, dask)
            print(f"{label:<16} {m['runs']:>5} {m['plan']:>7.2f} {m['start']:>7.2f} "
                  f"{m['sweep']:>8.2f} {m['rate']:>7.1f} {m['sim']:>8.2f} "
                  f"{m['overhead']:>8.1%} {m['steady']:>7.1%} {m['in_runs']:>8.1%} "
                  f"{m['per_run_ms']:>6.1f} ms")


if __name__ == "__main__":
    main()
