"""Issue 28's targets in one run, each beside the same figure for another version ("today"):

- conservative backfilling on the KIT trace and the KIT-like platform (1,173 nodes):
  simulation CPU seconds at 25,326 jobs (target <= 10 s), 50,652 and 114,355 (the 25k prefix
  repeated, each copy shifted by the prefix's span, cut to that many jobs: the full trace's
  length), and the time per job, which should stay flat (linear growth);
- EASY and fcfs on Lublin-model workloads (``hetsched generate workload --model lublin
  --seed 1``) of 100,000 and 1,000,000 jobs on IRMaSim's 20-node platform, whole process
  (``hetsched run``, default outputs): wall seconds (target <= 30 s at a million), peak RSS
  (<= 1 GB) and process / simulation (<= 1.5 from 100,000 jobs up);
- the speed floor on lublin_256 as one 256-core machine: fcfs and easy against the minimal
  heap loops of ``reference_loop.py`` (targets <= 8x and <= 5x).

    python benchmarks/bench_scale.py [--before SRC] [--kit-jobs 25326,50652,114355]
                                     [--lublin-jobs 100000,1000000] [--limit 1800]

``--before SRC``: the ``src`` directory of another checkout (``git worktree add /tmp/old
<commit>``) measured the same way, case by case in turn with this one; every case runs in a
process of its own importing hetsched from the version measured. A conservative case still
running after ``--limit`` seconds is given up and printed as such. The Lublin traces are
generated once into ``--traces`` (default: the system's temporary directory).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
KIT_PLATFORM = ROOT / "benchmarks" / "platforms" / "kit_like.yaml"
KIT_TRACE = DATA / "traces" / "kit_fh2_2016_first25k.swf"
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchtools import best_cpu, print_table  # noqa: E402

def kit_workload(jobs: int):
    """The KIT trace's first ``jobs`` jobs, the 25k prefix repeated (each copy shifted by the
    prefix's span, its ids suffixed) as far as needed."""
    from hetsched.platform.load import load_platform
    from hetsched.workload.load import load_workload
    from hetsched.workload.model import Workload

    prefix = load_workload(KIT_TRACE, load_platform(KIT_PLATFORM)).jobs
    span = prefix[-1].submit - prefix[0].submit + 1.0
    picked = [job if k == 0 else replace(job, id=f"{job.id}.{k}", submit=job.submit + k * span)
              for k in range(-(-jobs // len(prefix))) for job in prefix][:jobs]
    return Workload(f"kit{jobs}", tuple(picked))


def conservative_seconds(jobs: int) -> dict[str, float]:
    """Simulation CPU seconds of conservative backfilling on ``jobs`` KIT jobs."""
    from hetsched.platform.load import load_platform
    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate

    platform, workload = load_platform(KIT_PLATFORM), kit_workload(jobs)
    seconds, _ = best_cpu(lambda: simulate(platform, workload, create("conservative")), 1)
    return {"seconds": seconds}


def floor_ratios() -> dict[str, float]:
    """fcfs and easy on lublin_256 as one 256-core machine, over the minimal heap loops."""
    from bench_floor import lublin, platforms, reference_jobs
    from reference_loop import easy, fcfs

    from hetsched.schedulers import create
    from hetsched.sim.engine import simulate

    _, platform = next(platforms())
    work = lublin(platform)
    ref = reference_jobs(work, platform.slowest_speed)
    out = {}
    for name, loop in (("fcfs", fcfs), ("easy", easy)):
        floor = best_cpu(lambda f=loop: f(ref, platform.total_cores), 3)[0]
        took = best_cpu(lambda n=name: simulate(platform, work, create(n)), 3)[0]
        out[name] = took / floor
    return out


def whole_process(trace: str, scheduler: str) -> dict[str, float]:
    from bench_io import whole_process as measure

    return measure(Path(trace), scheduler)


WORKERS = {"conservative": lambda a: conservative_seconds(int(a[0])),
           "floor": lambda a: floor_ratios(),
           "process": lambda a: whole_process(a[0], a[1])}


def in_process(src: Path, kind: str, args: list[str], limit: int | None = None) -> dict | None:
    """A worker's figures, measured in a process of its own importing hetsched from ``src``
    (``None``: still running after ``limit`` seconds)."""
    command = [sys.executable, __file__, "--worker", kind, *args]
    environ = {**os.environ, "PYTHONPATH": str(src)}
    try:
        done = subprocess.run(command, env=environ, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        sys.exit(f"bench_scale: {kind} {' '.join(args)} on {src} failed: {last[0]}")
    return json.loads(done.stdout)


def lublin_trace(folder: Path, jobs: int) -> Path:
    """The Lublin-model trace of ``jobs`` jobs (seed 1), generated once."""
    path = folder / f"lublin_{jobs}_seed1.swf"
    if not path.exists():
        subprocess.run([sys.executable, "-m", "hetsched.cli.main", "generate", "workload",
                        "--model", "lublin", "--jobs", str(jobs), "--seed", "1", "--out",
                        str(path)], check=True, env={**os.environ,
                                                     "PYTHONPATH": str(ROOT / "src")})
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="the src directory of a version to compare")
    parser.add_argument("--kit-jobs", default="25326,50652,114355")
    parser.add_argument("--lublin-jobs", default="100000,1000000")
    parser.add_argument("--schedulers", default="easy,fcfs")
    parser.add_argument("--limit", type=int, default=1800,
                        help="give up a conservative case after this many seconds")
    parser.add_argument("--traces", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(WORKERS[args.worker[0]](args.worker[1:])))
        return
    versions = {"now": ROOT / "src"} | ({"before": args.before} if args.before else {})
    rows = [("case", "figure", "target", *versions, *(["now / before"] if args.before else []))]

    def row(case: str, figure: str, target: str, values: dict, fmt: str) -> None:
        cells = [f"> {args.limit} s" if v is None else format(v, fmt) for v in values.values()]
        ratio = [] if not args.before else [
            "—" if None in values.values() else f"{values['now'] / values['before']:.2f}"]
        rows.append((case, figure, target, *cells, *ratio))

    for jobs in (int(n) for n in args.kit_jobs.split(",") if n):
        figures = {v: in_process(src, "conservative", [str(jobs)], args.limit)
                   for v, src in versions.items()}
        seconds = {v: None if f is None else f["seconds"] for v, f in figures.items()}
        row(f"conservative, KIT {jobs:,}", "simulation CPU s",
            "<= 10" if jobs == 25_326 else "linear", seconds, ".2f")
        row("", "ms per job", "flat", {v: None if s is None else 1e3 * s / jobs
                                       for v, s in seconds.items()}, ".2f")
    for jobs in (int(n) for n in args.lublin_jobs.split(",") if n):
        trace = lublin_trace(args.traces, jobs)
        for scheduler in args.schedulers.split(","):
            figures = {v: in_process(src, "process", [str(trace), scheduler])
                       for v, src in versions.items()}
            case = f"{scheduler}, Lublin {jobs:,}, whole process"
            million = jobs >= 1_000_000
            row(case, "wall s", "<= 30" if million else "", {
                v: f["process"] for v, f in figures.items()}, ".1f")
            row("", "process / simulation", "<= 1.5", {
                v: f["process"] / f["simulation"] for v, f in figures.items()}, ".2f")
            row("", "peak RSS MB", "<= 1024" if million else "", {
                v: f["rss_mb"] for v, f in figures.items()}, ".0f")
    figures = {v: in_process(src, "floor", []) for v, src in versions.items()}
    for name, target in (("fcfs", "<= 8"), ("easy", "<= 5")):
        row(f"{name}, lublin_256 on one 256-core machine", "x minimal heap loop", target,
            {v: f[name] for v, f in figures.items()}, ".1f")
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds unless said")
    print_table(rows, left=3)


if __name__ == "__main__":
    main()
