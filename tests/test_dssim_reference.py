"""ds-sim on the engine reproduces the published results with each reference algorithm on the
config12 job lists exactly (every configuration against the real server:
test_dssim_real_server.py)."""

from __future__ import annotations

import json

import pytest

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.experiments.dssim_table import run_cell
from support import shared

CONFIGS = ("config12-long-med", "config12-med-alt", "config12-med-med", "config12-short-med")
ALGOS = ("atl", "bf", "bfq", "fafc", "fc", "ff", "ffq", "lrr", "wf", "wfq")
CASES = [(config, algo) for config in CONFIGS for algo in ALGOS]


def _reference() -> dict:
    return json.loads(shared("dssim/reference_results_config12.json").read_text())


@pytest.mark.parametrize("config,algo", CASES)
def test_reproduces_reference(config: str, algo: str) -> None:
    expected = _reference()[config][algo]
    jobs = shared(f"dssim/jobs/{config}-jobs.xml").parent
    cell = run_cell(shared(f"dssim/configs/{config}.xml"), jobs, algo)
    got = {"tt": cell.tt, "util": cell.util, "cost": cell.cost, "end": cell.end, "jobs": cell.jobs}
    assert got == {k: expected[k] for k in got}


def test_reference_covers_ten_algorithms_on_four_configs() -> None:
    reference = _reference()
    assert {(config, algo) for config, algos in reference.items() for algo in algos} == set(CASES)
    assert len(CASES) == 40 and {a for _, a in CASES} <= set(ALGORITHMS)
