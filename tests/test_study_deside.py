"""``hetsched study deside``: the DESiDE experiment's runs, summary and figure."""

from __future__ import annotations

import csv
from pathlib import Path

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
