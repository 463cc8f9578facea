"""benchmarks/make_irmasim_synth.py: an IRMaSim workload like the shared 1,000-job one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.workload.load import load_workload
from support import shared

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "make_irmasim_synth.py"


def generate(out: Path, jobs: int, seed: int) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), "--jobs", str(jobs), "--seed", str(seed),
                           "--out", str(out)], capture_output=True, text=True, check=True)
    return done.stdout


def test_generated_workload_loads_runs_and_is_seeded(tmp_path: Path) -> None:
    folder = shared("irmasim_synth")
    printed = generate(tmp_path / "a.json", 400, 7)
    assert "workload_1000.json" in printed and "offered load" in printed
    generate(tmp_path / "b.json", 400, 7)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    reference = json.loads((folder / "workload_1000.json").read_text())["jobs"][0]
    jobs = json.loads((tmp_path / "a.json").read_text())["jobs"]
    assert len(jobs) == 400 and all(list(j) == list(reference) for j in jobs)
    platform = load_platform(folder / "platform.json")
    workload = load_workload(tmp_path / "a.json", platform)
    result = simulate(platform, workload, create("irmasim_minimal"))
    assert int((result.state == JobState.FINISHED).sum()) == 400
