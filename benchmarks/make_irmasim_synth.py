"""Generate an IRMaSim-style synthetic workload like the shared 1,000-job irmasim_synth one.

    python benchmarks/make_irmasim_synth.py --jobs 10000 --seed 1 --out /tmp/synth_10k.json

The distributions were read off ../shared/data/irmasim_synth/workload_1000.json (its
statistics are printed next to the generated ones, so the resemblance can be checked); they are
hetsched's ``irmasim`` workload generator (``hetsched generate workload --model irmasim``),
which this script calls and rounds as the shared file is:

- arrivals: Poisson (exponential interarrival times, CV ~ 1), submit times in ms, the first
  one after one interarrival time; the rate is set so that the offered load is ``--load``
  (default 0.5): sum(ntasks * req_ops) / (submission span * the platform's ops/s over all cores);
- ntasks: 1, 2, 4, 8, 16, 32 with probabilities 0.38, 0.20, 0.18, 0.12, 0.07, 0.05;
  ``nodes`` 1, ``ipc`` 1;
- run time on the platform's slowest core (8e9 ops/s: 2 GHz x 4 flops/cycle): log-uniform on
  [10 s, 3 h]; ``req_ops = round(runtime * 8e9)``;
- ``req_time = runtime * U(1, 3)``, rounded up to 0.1 s;
- ``mem``: uniform integer in [100, 4000] (MB per task);
- memory bandwidth log-uniform on [50, 8000] (mem_vol units per second);
  ``mem_vol = bandwidth * runtime``, to 0.1.

The output uses the same keys as the shared file:
``{"jobs": [{"id", "subtime", "ntasks", "nodes", "req_ops", "ipc", "req_time", "mem",
"mem_vol"}, ...]}``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from hetsched.workload.generators.irmasim import NTASKS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "irmasim_synth"

def platform_speeds(path: Path) -> np.ndarray:
    """Ops/s of every core of an IRMaSim platform file (one platform, types in the file)."""
    doc = json.loads(path.read_text())
    (platform,) = doc["platform"].values()
    speeds = []
    for cluster in platform["clusters"]:
        for group in cluster["nodes"]:
            node = doc["node"][group["type"]]
            for _ in range(group.get("number", 1)):
                for proc_group in node["processors"]:
                    proc = doc["processor"][proc_group["type"]]
                    cores = proc["cores"] * proc_group.get("number", 1)
                    speeds += [proc["clock_rate"] * 1e9 * proc["dpflops_per_cycle"]] * cores
    return np.array(speeds)


def generate(jobs: int, seed: int, load: float, speeds: np.ndarray) -> list[dict]:
    """The ``irmasim`` generator's jobs for a platform of core ``speeds``, rounded as the
    shared file is (submit times to ms, whole operations, requested times up to 0.1 s)."""
    from hetsched.workload.generators import check_params, draw
    from hetsched.workload.swf import COL

    reference = float(speeds.min())
    params = check_params("irmasim", {"jobs": jobs, "load": load, "reference_speed": reference,
                                      "capacity": float(speeds.sum())}, Path("--load"))
    drawn = draw("irmasim", params, seed)
    t = drawn.table
    submit = np.round(t[:, COL["submit_time"]], 3)
    req_ops = np.round(t[:, COL["run_time"]] * reference)
    scale = req_ops / reference / t[:, COL["run_time"]]  # the rounded run time's ratio
    req_time = np.ceil(t[:, COL["requested_time"]] * scale * 10) / 10
    mem_vol = np.round(drawn.extra["mem_vol"] * scale, 1)
    mem = t[:, COL["requested_memory"]] / 1024
    ntasks = t[:, COL["allocated_processors"]]
    return [{"id": f"j{i}", "subtime": float(submit[i]), "ntasks": int(ntasks[i]), "nodes": 1,
             "req_ops": int(req_ops[i]), "ipc": 1.0, "req_time": float(req_time[i]),
             "mem": int(mem[i]), "mem_vol": float(mem_vol[i])} for i in range(jobs)]


def statistics(jobs: list[dict], speeds: np.ndarray) -> dict[str, float]:
    reference = float(speeds.min())
    submit = np.array([j["subtime"] for j in jobs])
    ntasks = np.array([j["ntasks"] for j in jobs])
    ops = np.array([j["req_ops"] for j in jobs], dtype=float) / np.array([j["ipc"] for j in jobs])
    runtime = ops / reference
    ratio = np.array([j["req_time"] for j in jobs]) / runtime
    mem = np.array([j["mem"] for j in jobs], dtype=float)
    bandwidth = np.array([j["mem_vol"] for j in jobs]) / runtime
    gaps = np.diff(submit)
    stats = {"jobs": len(jobs), "interarrival mean (s)": gaps.mean(),
             "interarrival CV": gaps.std() / gaps.mean()}
    for n in NTASKS:
        stats[f"ntasks = {n} (%)"] = 100 * np.mean(ntasks == n)
    stats |= {
        "runtime min (s)": runtime.min(), "runtime median (s)": np.median(runtime),
        "runtime mean (s)": runtime.mean(), "runtime max (s)": runtime.max(),
        "ln runtime mean": np.log(runtime).mean(), "ln runtime std": np.log(runtime).std(),
        "req_time/runtime min": ratio.min(), "req_time/runtime mean": ratio.mean(),
        "req_time/runtime max": ratio.max(),
        "mem min (MB)": mem.min(), "mem mean (MB)": mem.mean(), "mem max (MB)": mem.max(),
        "bandwidth min": bandwidth.min(), "bandwidth median": np.median(bandwidth),
        "bandwidth max": bandwidth.max(), "ln bandwidth mean": np.log(bandwidth).mean(),
        "ln bandwidth std": np.log(bandwidth).std(),
        "offered load": float(ntasks @ ops) / ((submit[-1] - submit[0]) * speeds.sum()),
    }
    return stats


def table(columns: dict[str, dict[str, float]]) -> str:
    names = list(columns)
    rows = list(next(iter(columns.values())))
    width = max(map(len, rows))
    lines = [f"{'statistic':<{width}}  " + "  ".join(f"{n:>14}" for n in names)]
    for row in rows:
        cells = []
        for name in names:
            value = columns[name].get(row, math.nan)
            cells.append(f"{value:>14,.0f}" if row == "jobs" else f"{value:>14,.3f}")
        lines.append(f"{row:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--load", type=float, default=0.5, help="offered load (default 0.5)")
    parser.add_argument("--out", type=Path, required=True, help="output JSON file")
    parser.add_argument("--platform", type=Path, default=DATA / "platform.json",
                        help="IRMaSim platform the load is computed for (default: the shared "
                             "irmasim_synth platform)")
    parser.add_argument("--reference", type=Path, default=DATA / "workload_1000.json",
                        help="workload whose statistics are printed alongside (default: the "
                             "shared 1,000-job file; skipped if absent)")
    args = parser.parse_args()
    if args.jobs < 2 or args.seed < 0 or not args.load > 0:
        parser.error("--jobs must be at least 2, --seed >= 0 and --load > 0")
    speeds = platform_speeds(args.platform)
    jobs = generate(args.jobs, args.seed, args.load, speeds)
    args.out.write_text(json.dumps({"jobs": jobs}))
    columns = {}
    if args.reference.is_file():
        columns[args.reference.name] = statistics(
            json.loads(args.reference.read_text())["jobs"], speeds)
    columns[args.out.name] = statistics(jobs, speeds)
    print(f"wrote {args.out} ({args.jobs} jobs, seed {args.seed}); runtimes on the slowest "
          f"core ({speeds.min():.3g} ops/s), bandwidth = mem_vol / runtime")
    print(table(columns))


if __name__ == "__main__":
    main()
