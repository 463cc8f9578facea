"""ds-sim on the engine reproduces the published results with each reference algorithm on the
config12 job lists exactly (every configuration against the real server:
test_dssim_real_server.py)."""

from __future__ import annotations

import json

import pytest

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.experiments.dssim_table import run_cell
from support import SHARED_DATA

DSSIM = SHARED_DATA / "dssim"
REFERENCE = DSSIM / "reference_results_config12.json"
needs_data = pytest.mark.skipif(not REFERENCE.is_file(), reason="shared ds-sim data not available")


def _reference() -> dict:
    return json.loads(REFERENCE.read_text()) if REFERENCE.is_file() else {}


CASES = [(config, algo) for config, algos in _reference().items() for algo in algos]


@needs_data
@pytest.mark.parametrize("config,algo", CASES)
def test_reproduces_reference(config: str, algo: str) -> None:
    cell = run_cell(DSSIM / "configs" / f"{config}.xml", DSSIM / "jobs", algo)
    expected = _reference()[config][algo]
    got = {"tt": cell.tt, "util": cell.util, "cost": cell.cost, "end": cell.end, "jobs": cell.jobs}
    assert got == {k: expected[k] for k in got}


@needs_data
def test_reference_covers_ten_algorithms_on_four_configs() -> None:
    assert len(CASES) == 40 and {a for _, a in CASES} <= set(ALGORITHMS)
