"""The ``irmasim`` generator: the irmasim_synth distributions, memory traffic beyond SWF."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import InputError
from hetsched.examples import default_platform_path
from hetsched.platform.load import load_platform
from hetsched.workload.generators import check_params, draw, generate
from hetsched.workload.generators.irmasim import NTASKS, NTASKS_P
from hetsched.workload.load import load_workload
from hetsched.workload.swf import COL

N = 50_000
runner = CliRunner()


def _params(**changes: object):
    return check_params("irmasim", {"jobs": N, **changes}, Path("test"))


def test_statistics_match_the_parameters() -> None:
    drawn = draw("irmasim", _params(), 0)
    t = drawn.table
    ntasks, run = t[:, COL["allocated_processors"]], t[:, COL["run_time"]]
    shares = np.array([(ntasks == n).mean() for n in NTASKS])
    assert np.abs(shares - NTASKS_P).max() < 4 * 0.5 / np.sqrt(N)
    assert abs(np.log(run).mean() - np.log(10 * 10_800) / 2) < 4 * 2.0 / np.sqrt(N)
    assert run.min() >= 10 and run.max() <= 10_800
    factor = t[:, COL["requested_time"]] / run
    assert 1 <= factor.min() and factor.max() <= 3 and abs(factor.mean() - 2) < 0.02
    mem = t[:, COL["requested_memory"]] / 1024
    assert mem.min() == 100 and mem.max() == 4000 and (mem == np.round(mem)).all()
    bandwidth = drawn.extra["mem_vol"] / run
    assert abs(np.log(bandwidth).mean() - np.log(50 * 8000) / 2) < 0.03
    # the offered load on the default capacity (the irmasim_synth platform)
    span = t[-1, COL["submit_time"]]
    load = (ntasks * run * 8e9).sum() / (span * 6.7072e12)
    assert abs(load - 0.5) < 0.05


def test_jobs_carry_memory_and_memory_traffic() -> None:
    platform = load_platform(default_platform_path())
    params = _params(jobs=300)
    jobs = generate("irmasim", params, 4, platform).jobs
    drawn = draw("irmasim", params, 4)
    assert [j.mem_vol for j in jobs] == drawn.extra["mem_vol"].tolist()
    mem = drawn.table[:, COL["requested_memory"]] / 1024
    ntasks = drawn.table[:, COL["requested_processors"]]
    assert np.allclose([j.memory_mb for j in jobs], mem * ntasks)


def test_cli_writes_json_not_swf(tmp_path: Path) -> None:
    base = ["generate", "workload", "--model", "irmasim", "--jobs", "200", "--seed", "2"]
    refused = runner.invoke(app, [*base, "--out", str(tmp_path / "x.swf")])
    assert refused.exit_code == 2 and "draws mem_vol, which SWF cannot hold" in refused.output
    out = tmp_path / "x.json"
    done = runner.invoke(app, [*base, "--format", "json", "-p", str(default_platform_path()),
                               "--out", str(out)])
    assert done.exit_code == 0, done.output
    back = load_workload(out, load_platform(default_platform_path())).jobs
    assert len(back) == 200 and all(j.mem_vol > 0 for j in back)


def test_a_span_beyond_the_time_limit_is_refused() -> None:
    with pytest.raises(InputError, match="expected span"):
        _params(jobs=10_000_000, load=1e-6)
