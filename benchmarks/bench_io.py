"""Whole-process ``hetsched run`` at scale: input and output against the simulation.

    hetsched generate workload --model lublin --jobs 100000 --seed 1 --out /tmp/l100k.swf
    hetsched generate workload --model lublin --jobs 1000000 --seed 1 --out /tmp/l1m.swf
    python benchmarks/bench_io.py /tmp/l100k.swf /tmp/l1m.swf [--scheduler easy]
    python benchmarks/bench_io.py /tmp/l1m.swf --table-format parquet   # needs pyarrow

Per trace, on the 20-node Lublin platform (``irmasim_lublin_20node.json``), two child processes:

- ``hetsched run`` with its default outputs (jobs.csv, jobs.swf, summary.json,
  timeseries.csv) into a temporary directory: the process's wall time and CPU time (user +
  system), the simulation's (``wall_seconds`` in summary.json: the engine's run alone), the
  ratio of the wall times, and the
  process's peak RSS (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``);
- the same run in stages, each timed in CPU seconds: read (platform and workload), simulate,
  write (the four files; jobs.csv, jobs.swf, summary.json and timeseries.csv one by one).

``--table-format parquet`` writes the two tables as jobs.parquet and timeseries.parquet (the
run option of that name), timed in their CSV twins' columns.

Measures whichever hetsched is importable: run it with ``PYTHONPATH`` set to another checkout's
``src`` for the "before" figures. The issue's targets: process ≤ 1.5 × simulation from 100,000
jobs up; 1,000,000 jobs in ≤ 30 s and ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = ROOT.parent / "shared" / "data" / "platforms" / "irmasim_lublin_20node.json"
STAGES = ("read", "simulate", "jobs.csv", "jobs.swf", "summary.json", "timeseries.csv")


def whole_process(trace: Path, scheduler: str, table_format: str = "csv") -> dict[str, float]:
    """Wall and CPU seconds, simulation seconds (wall) and peak RSS (MB) of one
    ``hetsched run`` process."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "hetsched.cli.main", "run", "-p", str(PLATFORM),
                   "-w", str(trace), "-s", scheduler, "--out", out, "--quiet"]
        if table_format != "csv":  # (versions before the option: the default)
            command += ["--table-format", table_format]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(command, check=True, env=os.environ)
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        summary = json.loads((Path(out) / "summary.json").read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"process": wall, "cpu": cpu, "simulation": summary["wall_seconds"],
            "rss_mb": after.ru_maxrss / 1024}


def stages(trace: Path, scheduler: str, table_format: str = "csv") -> dict[str, float]:
    """CPU seconds of each stage of the run, measured in a child process."""
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); " \
           f"import bench_io; bench_io.stage_child({str(trace)!r}, {scheduler!r}, " \
           f"{table_format!r})"
    done = subprocess.run([sys.executable, "-c", code], check=True, env=os.environ,
                          capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def stage_child(trace: str, scheduler: str, table_format: str = "csv") -> None:
    """The run of :func:`stages`, stage by stage (printed as one JSON line)."""
    from hetsched.output import (write_jobs_csv, write_jobs_swf, write_summary_json,
                                 write_timeseries_csv)
    from hetsched.run.execute import run_simulation
    from hetsched.run.inputs import load_inputs

    times = {}
    began = time.process_time()
    platform, workload = load_inputs(PLATFORM, Path(trace))
    times["read"] = time.process_time() - began
    began = time.process_time()
    result = run_simulation(platform, workload, scheduler, 0)
    times["simulate"] = time.process_time() - began
    jobs, series = write_jobs_csv, write_timeseries_csv
    if table_format == "parquet":  # (imported only then: versions before it lack them)
        from hetsched.output import write_jobs_parquet as jobs, \
            write_timeseries_parquet as series
    with tempfile.TemporaryDirectory() as out:
        for name, write in (("jobs.csv", jobs), ("jobs.swf", write_jobs_swf),
                            ("summary.json", write_summary_json), ("timeseries.csv", series)):
            began = time.process_time()
            write(result, Path(out) / name)
            times[name] = time.process_time() - began
    print(json.dumps(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", type=Path, nargs="+", help="SWF traces (e.g. Lublin draws)")
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--table-format", default="csv", choices=("csv", "parquet"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from benchtools import print_table

    whole = [("trace", "process s", "process CPU s", "simulation s", "ratio", "CPU ratio",
              "peak RSS MB")]
    staged = [("trace", *(f"{s} s" for s in STAGES))]
    for trace in args.traces:
        w = whole_process(trace, args.scheduler, args.table_format)
        s = stages(trace, args.scheduler, args.table_format)
        whole.append((trace.name, f"{w['process']:.2f}", f"{w['cpu']:.2f}",
                      f"{w['simulation']:.2f}", f"{w['process'] / w['simulation']:.2f}",
                      f"{w['cpu'] / s['simulate']:.2f}", f"{w['rss_mb']:.0f}"))
        staged.append((trace.name, *(f"{s[name]:.2f}" for name in STAGES)))
    print(f"hetsched run -s {args.scheduler} --table-format {args.table_format} on "
          f"{PLATFORM.name}, whole process "
          "(wall s; ratio: process / simulation; CPU ratio: the process's CPU time / the "
          "simulate stage's, which a loaded machine inflates less):")
    print_table(whole)
    print("\nstages (CPU s, one process per trace):")
    print_table(staged)


if __name__ == "__main__":
    main()
