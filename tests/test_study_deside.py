"""``hetsched study deside``: the DESiDE experiment's runs, summary and figure."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.experiments import deside

runner = CliRunner()


def test_the_study_writes_the_issue_s_columns_and_compares_with_the_paper(
        tmp_path: Path) -> None:
    result = runner.invoke(app, ["study", "deside", "--out", str(tmp_path), "--servers", "2",
                                 "--seeds", "2"])
    assert result.exit_code == 0, result.output
    with (tmp_path / "runs.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {"dag", "servers", "seed", "scheduler", "makespan", "seconds"} <= set(rows[0])
    assert len(rows) == 2 * 1 * 2 * len(deside.SCHEDULERS)
    with (tmp_path / "summary.csv").open() as handle:
        summary = {(r["dag"], r["scheduler"]): r for r in csv.DictReader(handle)}
    assert summary[("DAG-1", "mom")]["paper_vs_slf_percent"] == "5"
    assert summary[("DAG-2", "let")]["paper_vs_slf_percent"] == "3"
    assert (tmp_path / "makespan.png").stat().st_size > 0
    assert "DAG-1" in result.stdout and "(+5 %)" in result.stdout


def test_the_dags_are_the_stream_catalogue_s_and_the_seed_changes_nothing() -> None:
    """Under the rate-based model the runs are deterministic: the seeds agree."""
    on = deside.platform(2)
    work = deside.dag("DAG-1", on)
    assert len(work.jobs) == 50 and sum(len(j.parents) for j in work.jobs) > 49
    assert {j.ntasks for j in work.jobs} <= set(range(4, 29))
    done = list(deside.runs((2,), (0, 1), ("slf", "mom")))
    by_seed = {(r.dag, r.scheduler): [] for r in done}
    for r in done:
        by_seed[(r.dag, r.scheduler)].append(r.makespan)
    assert all(len(set(values)) == 1 for values in by_seed.values())


def test_bad_server_counts_and_seeds_are_one_line(tmp_path: Path) -> None:
    for args, message in ((["--servers", "2,a"], "--servers takes whole numbers"),
                          (["--servers", "0"], "--servers takes whole numbers"),
                          (["--seeds", "0"], "--seeds must be at least 1")):
        result = runner.invoke(app, ["study", "deside", "--out", str(tmp_path), *args])
        assert result.exit_code == 2
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_under_the_stochastic_model_the_seeds_differ_and_the_summary_gives_the_spread(
        tmp_path: Path) -> None:
    result = runner.invoke(app, ["study", "deside", "--out", str(tmp_path), "--servers", "2",
                                 "--seeds", "3", "--contention", "deside_stochastic"])
    assert result.exit_code == 0, result.output
    with (tmp_path / "runs.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {"dag", "servers", "seed", "scheduler", "makespan", "seconds"} <= set(rows[0])
    assert {row["contention"] for row in rows} == {"deside_stochastic"}
    makespans = {}
    for row in rows:
        makespans.setdefault((row["dag"], row["scheduler"]), []).append(float(row["makespan"]))
    assert all(len(set(values)) == 3 for values in makespans.values())  # every run differs
    with (tmp_path / "summary.csv").open() as handle:
        summary = {(r["dag"], r["scheduler"]): r for r in csv.DictReader(handle)}
    for key, values in makespans.items():
        row = summary[key]
        assert float(row["makespan"]) == pytest.approx(statistics.fmean(values), rel=1e-12)
        assert (float(row["makespan_min"]), float(row["makespan_max"])) == (min(values),
                                                                            max(values))
        assert float(row["makespan_sd"]) == pytest.approx(statistics.stdev(values), rel=1e-9)
    assert "under deside_stochastic" in result.stdout and "spread over the seeds" in result.stdout


def test_the_rate_based_summary_has_no_spread() -> None:
    done = list(deside.runs((2,), (0, 1), ("slf",)))
    assert {r.contention for r in done} == {"deside"}
    for row in deside.improvements(done):
        assert row["makespan_min"] == row["makespan_max"] and row["makespan_sd"] == 0.0


def test_an_unknown_contention_model_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["study", "deside", "--out", str(tmp_path), "--contention",
                                 "irmasim"])
    assert result.exit_code == 2
    assert "--contention must be deside or deside_stochastic, got 'irmasim'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
