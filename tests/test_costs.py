"""The cost model: a price per second beside the hourly price, what each job paid, and the
jobs' co-allocation requests (budget, minimum speed, criterion)."""

from __future__ import annotations

import csv
import json
import math
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

import hetsched
from hetsched.platform.load import load_platform
from hetsched.platform.writers.native import write_json
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, Workload
from hetsched.workload.writers import losses, writer
from hetsched.workload.writers import write as write_workload
from support import assert_mentions, assert_one_line_error, error_of, shared, write


def _platform_doc(**prices: float) -> dict:
    return {"name": "p", "node_types": [{"name": "a", "cores": 4, "clock_ghz": 1.0, **prices}]}


def test_a_price_per_second_gives_the_hourly_price(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(price=0.25)))
    node_type = platform.node_types[0]
    assert node_type.hourly_price == 900.0
    assert node_type.price == 0.25
    assert platform.nodes[0].price == 0.25
    assert platform.arrays.price.tolist() == [0.25]


def test_an_hourly_price_gives_the_price_per_second(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(hourly_price=1800)))
    assert platform.node_types[0].price == 0.5


def test_prices_given_both_ways_must_agree(tmp_path: Path) -> None:
    agreeing = load_platform(write(tmp_path / "ok.json",
                                   _platform_doc(price=0.5, hourly_price=1800)))
    assert agreeing.node_types[0].hourly_price == 1800
    message = error_of(load_platform, write(tmp_path / "bad.json",
                                            _platform_doc(price=0.5, hourly_price=1000)))
    assert_mentions(message, "bad.json", "node type 'a'", "price", "1800", "1000")


def test_a_negative_price_is_an_input_error(tmp_path: Path) -> None:
    message = error_of(load_platform, write(tmp_path / "p.json", _platform_doc(price=-1)))
    assert_mentions(message, "p.json", "price")


def test_a_platform_priced_per_second_is_written_and_read_back(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(price=0.1)))
    again = load_platform(write_json(platform, tmp_path / "again.json"))
    assert again.node_types[0].price == pytest.approx(0.1, rel=1e-15)


# ---- what each job paid ----------------------------------------------------------------------
def _priced_platform(tmp_path: Path) -> Path:
    """Two 4-core nodes of one speed: 'cheap' (0.5 per second) first, 'dear' (1 per second,
    given per hour) second."""
    return write(tmp_path / "priced.json", {"name": "priced", "node_types": [
        {"name": "cheap", "cores": 4, "clock_ghz": 1.0, "price": 0.5},
        {"name": "dear", "cores": 4, "clock_ghz": 1.0, "hourly_price": 3600}]})


def _jobs(tmp_path: Path) -> Path:
    """'whole' takes all of the first node; 'half' finds it full and takes half of the
    second; 'huge' fits on no node (rejected)."""
    return write(tmp_path / "jobs.json", {"name": "w", "jobs": [
        {"id": "whole", "submit": 0, "ntasks": 4, "run_time": 100},
        {"id": "half", "submit": 0, "ntasks": 2, "run_time": 40},
        {"id": "huge", "submit": 0, "ntasks": 8, "run_time": 10}]})


def test_each_job_pays_its_run_time_times_price_times_its_share_of_each_node(
        tmp_path: Path) -> None:
    run = hetsched.simulate(_priced_platform(tmp_path), _jobs(tmp_path), "fcfs")
    out = tmp_path / "out"
    run.write(out)
    rows = {row["job_id"]: row for row in csv.DictReader((out / "jobs.csv").open())}
    assert rows["whole"]["node"] == "cheap-0" and rows["half"]["node"] == "dear-0"
    # whole: 100 s x 0.5/s x 4/4 cores = 50; half: 40 s x 1/s x 2/4 cores = 20
    assert float(rows["whole"]["cost"]) == 50.0
    assert float(rows["half"]["cost"]) == 20.0
    assert rows["huge"]["final_state"] == "REJECTED" and float(rows["huge"]["cost"]) == 0.0
    metrics = json.loads((out / "summary.json").read_text())
    # total: 50 + 20 (+ 0); mean over the two finished jobs; the nodes' rental: 1.5/s x 100 s
    assert metrics["metrics"]["total_cost"] == 70.0
    assert metrics["metrics"]["mean_cost"] == 35.0
    assert metrics["metrics"]["rental_cost"] == 150.0
    assert metrics["units"]["total_cost"] == metrics["units"]["mean_cost"] == "currency"


def test_a_job_running_at_the_horizon_pays_until_the_run_ends(tmp_path: Path) -> None:
    run = hetsched.simulate(_priced_platform(tmp_path), _jobs(tmp_path), "fcfs", horizon=30)
    jobs = run.jobs.set_index("job_id")
    # cut at t = 30: whole held cheap-0 for 30 s (15), half half of dear-0 for 30 s (15)
    assert jobs.loc["whole", "cost"] == 15.0 and jobs.loc["half", "cost"] == 15.0
    assert run.summary["total_cost"] == 30.0
    assert math.isnan(run.summary["mean_cost"])  # no job finished


def test_without_prices_costs_are_absent(tmp_path: Path) -> None:
    run = hetsched.simulate(write(tmp_path / "p.json", _platform_doc()), _jobs(tmp_path),
                            "fcfs")
    assert run.jobs["cost"].isna().all()
    assert math.isnan(run.summary["total_cost"]) and math.isnan(run.summary["mean_cost"])
    out = tmp_path / "out"
    run.write(out)
    rows = list(csv.DictReader((out / "jobs.csv").open()))
    assert [row["cost"] for row in rows] == ["", "", ""]


def test_jobs_pay_no_more_than_the_nodes_rent_on_a_real_run() -> None:
    platform = load_platform(shared("platforms/irmasim_lublin_20node.json"))
    priced = replace(platform, nodes=tuple(
        replace(node, type=replace(node.type, hourly_price=360.0 * (1 + node.index % 3)))
        for node in platform.nodes))
    workload = load_workload(shared("traces/lublin_256.swf"), priced)
    run = hetsched.simulate(priced, workload, "easy", timeseries=False)
    costs = run.jobs["cost"]
    assert (costs >= 0).all() and (costs[run.jobs["success"] == 1] > 0).all()
    assert 0 < run.summary["total_cost"] <= run.summary["rental_cost"]


def test_a_results_store_made_before_costs_gets_their_columns(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from hetsched.cli.main import app
    from hetsched.sweep import load_jobs, load_results
    from hetsched.sweep.store import open_store

    _priced_platform(tmp_path)
    _jobs(tmp_path)
    spec = write(tmp_path / "sweep.yaml", "platforms: [priced.json]\nworkloads: [jobs.json]\n"
                                          "schedulers: [fcfs]\njob_records: true\n")
    store = tmp_path / "results.sqlite"
    open_store(store).close()
    with sqlite3.connect(store) as conn:  # as a store made before the costs
        for table, column in (("jobs", "cost"), ("runs", "total_cost"), ("runs", "mean_cost")):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    result = CliRunner().invoke(app, ["sweep", str(spec), "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert load_results(store)["total_cost"].tolist() == [70.0]
    assert load_jobs(store).set_index("job_id")["cost"].to_dict() == {
        "whole": 50.0, "half": 20.0, "huge": 0.0}


# ---- the jobs' co-allocation requests ------------------------------------------------------
def _request_workload(tmp_path: Path, name: str = "w.json", **request: object) -> Path:
    return write(tmp_path / name, {"name": "w", "jobs": [
        {"id": "plain", "submit": 0, "ntasks": 1, "run_time": 10},
        {"id": "d", "submit": 0, "ntasks": 2, "run_time": 10, **request}]})


def _one_node(tmp_path: Path):
    return load_platform(write(tmp_path / "p.json", _platform_doc()))


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_a_co_allocation_request_is_read_and_written_back(tmp_path: Path, fmt: str) -> None:
    platform = _one_node(tmp_path)
    workload = load_workload(_request_workload(tmp_path, budget=644, min_performance=2e9,
                                               criterion="min_cost"), platform)
    plain, asking = workload.by_id["plain"], workload.by_id["d"]
    assert (plain.budget, plain.min_performance, plain.criterion) == (None, 0.0, None)
    assert (asking.budget, asking.min_performance, asking.criterion) == (644, 2e9, "min_cost")
    out = tmp_path / f"again.{fmt}"
    write_workload(writer(fmt), workload, out, platform, {})
    again = load_workload(out, platform)
    assert again.jobs == workload.jobs
    assert "budget" not in out.read_text().split("plain")[1].split("}")[0]  # defaults left out
    assert losses(writer(fmt), workload, platform) == []


def test_an_additive_criterion_is_a_request_too(tmp_path: Path) -> None:
    workload = load_workload(_request_workload(tmp_path, criterion="max:q"), _one_node(tmp_path))
    assert workload.by_id["d"].criterion == "max:q"


@pytest.mark.parametrize("fmt", ["swf", "batsim", "irmasim", "dssim"])
def test_other_formats_list_the_requests_as_a_loss(tmp_path: Path, fmt: str) -> None:
    platform = _one_node(tmp_path)
    workload = load_workload(_request_workload(tmp_path, budget=5), platform)
    assert ("1 of 2 jobs have a co-allocation request (budget, min_performance, criterion): "
            f"the {fmt} format has none: dropped") in losses(writer(fmt), workload, platform)


@pytest.mark.parametrize("request_, field, words", [
    ({"budget": -1}, "budget", ["greater than or equal to 0"]),
    ({"budget": "inf"}, "budget", []),
    ({"min_performance": -2}, "min_performance", ["greater than or equal to 0"]),
    ({"min_performance": 1e300}, "min_performance", ["less than or equal to"]),
    ({"criterion": "min_cots"}, "criterion", ["unknown co-allocation criterion 'min_cots'",
                                              "did you mean min_cost?"]),
    ({"criterion": "best:q"}, "criterion", ["max:NAME or min:NAME"]),
])
def test_a_bad_request_is_a_one_line_error_naming_file_job_and_field(
        tmp_path: Path, request_: dict, field: str, words: list[str]) -> None:
    path = _request_workload(tmp_path, "bad.json", **request_)
    message = error_of(load_workload, path, _one_node(tmp_path))
    assert_mentions(message, "bad.json", "job 'd'", f"field '{field}'", *words)


def test_a_non_finite_budget_in_yaml_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.yaml", "jobs:\n  - {id: d, submit: 0, ntasks: 1, "
                                        "run_time: 1, budget: .nan}\n")
    assert_mentions(error_of(load_workload, path, _one_node(tmp_path)), "bad.yaml", "job 'd'",
                    "budget")


def test_the_cli_refuses_a_bad_request_with_exit_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from hetsched.cli.main import app

    write(tmp_path / "p.json", _platform_doc())
    path = _request_workload(tmp_path, "bad.json", criterion="min_cots")
    result = CliRunner().invoke(app, ["run", "--platform", str(tmp_path / "p.json"),
                                      "--workload", str(path), "--out", str(tmp_path / "o")])
    assert_one_line_error(result, "bad.json", "job 'd'", "criterion", "did you mean min_cost?")


@pytest.mark.parametrize("request_, words", [
    ({"budget": -1.0}, "budget must be finite and >= 0"),
    ({"min_performance": math.inf}, "min_performance must be finite and >= 0"),
    ({"criterion": "min_cots"}, "did you mean min_cost?"),
])
def test_a_workload_built_in_python_checks_the_requests(request_: dict, words: str) -> None:
    job = Job(id="d", submit=0.0, ntasks=1, req_ops=1.0, req_time=1.0, **request_)
    with pytest.raises(ValueError, match=f"job 'd': .*{re.escape(words)}"):
        Workload("w", (job,))


def test_ds_sims_hourly_rates_give_prices_per_second() -> None:
    platform = load_platform(shared("dssim/configs/config12-med-med.xml"))
    # small, medium, large: hourlyRate 0.2, 0.4, 0.8
    assert {t.name: t.price for t in platform.node_types} == pytest.approx(
        {"small": 0.2 / 3600, "medium": 0.4 / 3600, "large": 0.8 / 3600})
