"""The node-centric study's sensitivity sweep (`hetsched study node-centric --sensitivity`):
its shipped grid, its parametric platforms, and a tiny version of it run end to end."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import InputError
from hetsched.experiments import node_centric
from hetsched.experiments import node_centric_sensitivity as sensitivity
from hetsched.experiments.node_centric_platforms import Setting, platform_document
from hetsched.experiments.trace_studies import DATA
from hetsched.platform.load import load_platform
from hetsched.sweep.results import load_results
from hetsched.sweep.runner import run_plan
from hetsched.workload.load import load_workload
from support import assert_mentions, assert_one_line_error, shared

def small_trace(tmp_path: Path, jobs: int = 40) -> Path:
    """The KIT trace's header and its first ``jobs`` jobs (about a day and a half)."""
    lines = shared("traces/kit_fh2_2016_first25k.swf").read_text().splitlines()
    header = [line for line in lines if line.startswith(";")]
    data = [line for line in lines if line.strip() and not line.startswith(";")][:jobs]
    path = tmp_path / "small.swf"
    path.write_text("\n".join(header + data) + "\n")
    return path


def tiny_grid(tmp_path: Path) -> Path:
    """The shipped grid's schedulers, one week, two settings differing in batching only."""
    path = tmp_path / "grid.yaml"
    path.write_text("weeks: 1\nschedulers: [high_gflops, low_power, min_min, max_min, duplex]\n"
                    "blocks:\n  - {name: tiny, clock_spread: [3.5], power_exponent: [1.0],\n"
                    "     idle_fraction: [0.05], cores: [64], batching: [instant, daily]}\n")
    return path


def test_the_shipped_grid_loads_and_spans_the_issues_ranges() -> None:
    grid = sensitivity.load_grid()
    assert grid.schedulers == node_centric.CANDIDATES + node_centric.BASELINES
    assert 1 <= grid.weeks <= 41
    spreads = {s.clock_spread for s in grid.settings}
    assert min(spreads) == pytest.approx(1.45) and max(spreads) == 3.5  # legacy .. real max
    assert {s.batching for s in grid.settings} == set(node_centric.BATCHINGS)
    assert len({s.cores for s in grid.settings}) >= 2
    assert len({(s.power_exponent, s.idle_fraction) for s in grid.settings}) >= 4
    assert len(set(grid.settings)) == len(grid.settings)


def test_a_setting_gives_four_groups_of_four_with_the_three_state_power_model() -> None:
    setting = Setting(clock_spread=3.5, power_exponent=1.0, idle_fraction=0.05, cores=64,
                      batching="daily")
    assert setting.clocks() == [1.0, 1.5183, 2.3052, 3.5]
    document = platform_document(setting)
    types = document["node_types"]
    assert [t["clock_ghz"] for t in types] == setting.clocks()
    fastest, slowest = types[-1]["power"], types[0]["power"]
    assert fastest["static"] / slowest["static"] == pytest.approx(3.5)  # ∝ clock ** 1
    assert fastest["dynamic_per_core"] / slowest["dynamic_per_core"] == pytest.approx(3.5)
    assert all(t["power"]["idle"] == pytest.approx(0.05 * t["power"]["static"]) for t in types)
    # IRMaSim's per-core figures at 2.5 GHz: 6.14211 W static, 5.59316 W dynamic
    squared = platform_document(Setting(2.0, 2.0, 0.5, 128, "instant"))["node_types"][-1]
    assert squared["power"]["static"] == pytest.approx(6.14211 * (3.5 / 2.5) ** 2 * 128)
    assert squared["power"]["dynamic_per_core"] == pytest.approx(5.59316 * 1.4 ** 2)


def test_the_daily_batching_rounds_every_submit_time_to_1e5_s(tmp_path) -> None:
    paths = sensitivity.prepare(tmp_path / "out", small_trace(tmp_path), None,
                                tiny_grid(tmp_path))
    assert [p.name for p in paths] == ["sensitivity-instant.yaml", "sensitivity-daily.yaml"]
    platform = load_platform(tmp_path / "out" / "platforms" / "c3.5-p1-i0.05-n64.yaml")
    submits = {name: sorted({job.submit for job in load_workload(
        tmp_path / "out" / node_centric.trace_name(name), platform).jobs})
        for name in ("instant", "daily")}
    assert len(submits["instant"]) > len(submits["daily"]) >= 1
    assert all(math.fmod(t, 1e5) == 0 for t in submits["daily"])


def test_a_tiny_sensitivity_sweep_runs_and_compares_each_setting_with_the_paper(
        tmp_path) -> None:
    out, grid = tmp_path / "out", tiny_grid(tmp_path)
    plans = sensitivity.plan(out, small_trace(tmp_path), None, grid)
    assert [len(p.runs) for p in plans] == [5, 5]  # one week, five schedulers, per batching
    for planned in plans:
        assert run_plan(planned, 1).ok == 5
    table = sensitivity.changes(out, plans, grid)
    assert len(table) == 2 * 10 and set(table["batching"]) == {"instant", "daily"}
    assert pd.read_csv(out / sensitivity.CHANGES).shape == table.shape
    # the daily batches change what the baselines do, so the comparison moves
    by = table.set_index(["batching", "scheduler", "metric"])["change_pct"]
    assert by["daily"].ne(by["instant"]).any()
    factor = table["change_pct"] / table["paper_pct"]
    assert table["within_factor_2"].equals((factor >= 0.5) & (factor <= 2))
    ranked = sensitivity.summary(table, out)
    assert list(ranked["of"]) == [10, 10]
    assert ranked["same_direction"].is_monotonic_decreasing


def test_sensitivity_and_platform_together_are_a_one_line_error(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "node-centric", "--out", str(tmp_path / "o"),
                                      "--sensitivity", "--platform", "legacy"])
    assert_one_line_error(result, "--sensitivity")
    assert not (tmp_path / "o").exists()


def test_an_unknown_platform_setting_is_a_one_line_error(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "node-centric", "--out", str(tmp_path / "o"),
                                      "--platform", "legasy"])
    assert_one_line_error(result, "legasy", "faithful", "legacy")


@pytest.mark.parametrize("spread, batching, mentions", [
    (5, "instant", ("grid.yaml", "clock_spread")),
    (2, "hourly", ("batching", "hourly", "instant", "daily"))])
def test_a_bad_grid_is_a_one_line_error(tmp_path, spread: int, batching: str,
                                        mentions: tuple[str, ...]) -> None:
    path = tmp_path / "grid.yaml"
    path.write_text(f"weeks: 1\nschedulers: [fcfs]\nblocks:\n  - {{name: x, clock_spread: "
                    f"[{spread}], power_exponent: [1], idle_fraction: [0], cores: [64], "
                    f"batching: [{batching}]}}\n")
    with pytest.raises(InputError) as caught:
        sensitivity.load_grid(path)
    assert_mentions(str(caught.value), *mentions)
    assert "\n" not in str(caught.value)


# ---- the study's settings -----------------------------------------------------------------

def faithful_phrase() -> str:
    """How docs/experiments.md states the default setting."""
    f = node_centric.FAITHFUL
    return (f"clock spread {f.clock_spread:g}, power per core ∝ clock^{f.power_exponent:g}, "
            f"idle {f.idle_fraction:g} × static, {f.cores} cores per node, {f.batching} batches")


def test_the_default_setting_is_the_faithful_one_the_docs_describe(tmp_path) -> None:
    assert node_centric.DEFAULT == "faithful"
    assert node_centric.STUDY is node_centric.STUDIES["faithful"]
    shipped = load_platform(DATA / "node_centric_faithful_16.yaml")
    generated = tmp_path / "p.yaml"
    generated.write_text(yaml.safe_dump(platform_document(node_centric.FAITHFUL)))
    built = load_platform(generated)
    def shape(platform) -> list:
        return [(t.cores, t.clock_ghz, t.ops_per_cycle, t.idle_w, t.static_w,
                 t.dynamic_w_per_core) for t in (n.type for n in platform.nodes)]

    assert shape(shipped) == shape(built) and len(shipped.nodes) == 16
    settings = node_centric.BATCHINGS[node_centric.FAITHFUL.batching]
    assert node_centric.STUDY.settings == settings
    assert node_centric.STUDY.trace == node_centric.trace_name(node_centric.FAITHFUL.batching)
    docs = (Path(__file__).parents[1] / "docs" / "experiments.md").read_text()
    assert f"**faithful** (the default): {faithful_phrase()}" in docs


# 40 jobs on 1,696 cores: no baseline waits, so the comparison's wait changes are 0 / 0
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_the_legacy_setting_keeps_the_first_platform(tmp_path) -> None:
    legacy = node_centric.study_named("legacy")
    assert (legacy.spec, legacy.trace) == ("node_centric.yaml", "kit_capped64.swf")
    assert legacy.settings.submit_step is None
    result = CliRunner().invoke(app, ["study", "node-centric", "--out", str(tmp_path / "o"),
                                      "--platform", "legacy", "--weeks", "1", "-j", "1",
                                      "--trace", str(small_trace(tmp_path))])
    assert result.exit_code == 0, result.output
    runs = load_results(tmp_path / "o" / "results.sqlite")
    assert set(runs["platform"]) == {"node_centric_16"} and len(runs) == 5
