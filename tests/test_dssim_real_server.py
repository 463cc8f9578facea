"""The emulated ds-sim server against the real one: on every configuration of the shared data
with every ds-sim algorithm, the emulation gives the figures the real ds-server printed
(turnaround, utilisation, cost, end time, job count) and runs every job on the same server at
the same times (a digest of all placements). The real server's figures are in
tests/data/dssim_real_server.json, made by benchmarks/dssim_real_server.py (docs/dssim.md).

The global-queue variants (ffq, bfq, wfq), whose CHKQ rules are the subtlest, run by default;
the other 187 cells are marked slow (about 45 s together)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.experiments.dssim_table import placement_digest, placements, simulate_cell
from support import shared

REAL = Path(__file__).resolve().parent / "data" / "dssim_real_server.json"
QUEUED = {"ffq", "bfq", "wfq"}


@cache
def _real() -> dict[str, dict[str, dict]]:
    return json.loads(REAL.read_text())["cells"]


CASES = [pytest.param(config, algo, marks=() if algo in QUEUED else pytest.mark.slow)
         for config, algos in _real().items() for algo in algos]


@pytest.mark.parametrize("config,algo", CASES)
def test_matches_real_server(config: str, algo: str) -> None:
    real = _real()[config][algo]
    jobs = shared(f"dssim/jobs/{config}-jobs.xml").parent
    cell, result = simulate_cell(shared(f"dssim/configs/{config}.xml"), jobs, algo)
    got = {"tt": cell.tt, "util": cell.util, "cost": cell.cost, "end": cell.end,
           "jobs": cell.jobs}
    assert got == {key: real[key] for key in got}
    assert placement_digest(placements(result)) == real["jobs_sha256"], (
        "same figures, but some job ran on another server or at other times than on the real "
        "server: benchmarks/dssim_real_server.py --compare --jobs-dir shows the first one")


def test_covers_every_configuration_and_algorithm() -> None:
    configs = {p.stem for p in shared("dssim/configs").glob("*.xml")}
    assert set(_real()) == configs
    assert all(list(algos) == list(ALGORITHMS) for algos in _real().values())
