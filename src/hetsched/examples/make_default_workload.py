"""Regenerate ``default_workload.json`` (native format) deterministically.

    python -m hetsched.examples.make_default_workload [output.json]

200 independent jobs: 1–16 tasks (small jobs more likely), run times log-uniform between
10 s and 2 h on the slowest node, user estimates 1–3 × the run time, exponential
inter-arrival times (mean 90 s), all tasks of a job on one node.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

SEED = 20240601
N_JOBS = 200
MEAN_INTERARRIVAL_S = 90.0


def make_jobs(rng: np.random.Generator, n: int = N_JOBS) -> list[dict[str, object]]:
    submit = np.cumsum(rng.exponential(MEAN_INTERARRIVAL_S, n))
    submit -= submit[0]
    ntasks = np.floor(2.0 ** rng.uniform(0.0, np.log2(17.0), n)).astype(int)  # 1..16
    run_time = np.exp(rng.uniform(np.log(10.0), np.log(7200.0), n))
    req_time = np.ceil(run_time * rng.uniform(1.0, 3.0, n))
    return [{"id": f"j{i}", "submit": round(float(s), 1), "ntasks": int(k),
             "run_time": round(float(r), 1), "req_time": float(e), "nodes": 1}
            for i, (s, k, r, e) in enumerate(zip(submit, ntasks, run_time, req_time))]


def render(jobs: list[dict[str, object]]) -> str:
    """One job per line, so the file diffs and reads well."""
    lines = ",\n".join("    " + json.dumps(job) for job in jobs)
    return ('{\n  "name": "default",\n  "jobs": [\n' + lines + "\n  ]\n}\n")


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else Path(__file__).with_name("default_workload.json")
    out.write_text(render(make_jobs(np.random.default_rng(SEED))), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
