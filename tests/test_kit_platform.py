"""The bundled KIT ForHLR II-like platform: the machine the KIT-FH2 trace was made for."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from hetsched import simulate
from hetsched.errors import InputWarning
from hetsched.examples import kit_platform_path
from hetsched.platform.load import load_platform
from support import shared

ROOT = Path(__file__).resolve().parents[1]


def _kit_prefix(tmp_path: Path, jobs: int) -> Path:
    """The trace's header and its first ``jobs`` records."""
    lines = shared("traces/kit_fh2_2016_first25k.swf").read_text().splitlines()
    header = [line for line in lines if line.startswith(";")]
    records = [line for line in lines if line.strip() and not line.startswith(";")]
    prefix = tmp_path / "kit_prefix.swf"
    prefix.write_text("\n".join(header + records[:jobs]) + "\n")
    return prefix


def test_the_kit_platform_is_the_traces_machine_and_the_benchmarks_path_is_the_same_file():
    platform = load_platform(kit_platform_path())
    assert (platform.name, len(platform.nodes), platform.total_cores) == ("kit_like", 1173, 24048)
    bench = ROOT / "benchmarks" / "platforms" / "kit_like.yaml"
    assert bench.resolve() == kit_platform_path().resolve()


def test_the_kit_trace_runs_on_it_with_no_job_rejected_and_no_size_warning(tmp_path):
    trace = _kit_prefix(tmp_path, 1500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = simulate(kit_platform_path(), trace, "easy")
    assert not [w for w in caught if "MaxProcs" in str(w.message)]
    assert run.summary["rejected"] == 0 and run.summary["finished"] == 1500
    # the 80-node IRMaSim platform the docs used to show rejects jobs too large for it
    with pytest.warns(InputWarning, match="MaxProcs 24048"):
        small = simulate(shared("platforms/irmasim_kit_80node.json"), trace, "easy")
    assert small.summary["rejected"] > 0
