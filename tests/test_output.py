"""jobs.csv, summary.json and timeseries.csv."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import hetsched

from hetsched.examples import default_platform_path, default_workload_path
from hetsched.metrics import summarize
from hetsched.output import COLUMNS, write_jobs_csv, write_run
from hetsched.output.core_ids import core_ranges, runs
from hetsched.output.jobs_csv import format_ranges, job_columns, job_rows
from hetsched.platform.load import load_platform
from hetsched.platform.model import Failure, NodeType, Platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.sim.result import SimResult
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, Workload
from support import shared

BATSIM = ["job_id", "workload_name", "profile", "submission_time",
          "requested_number_of_resources", "requested_time", "success", "final_state",
          "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
          "stretch", "allocated_resources", "consumed_energy", "metadata"]

SMALL = NodeType("small", cores=4, clock_ghz=1.0, idle_w=10, static_w=20, dynamic_w_per_core=5)
BIG = NodeType("big", cores=8, clock_ghz=2.0, idle_w=20, static_w=40, dynamic_w_per_core=5)


def tiny_platform() -> Platform:
    """Nodes small-0 (cores 0-3), small-1 (4-7), big-0 (8-15)."""
    return Platform.from_counts("tiny", [(SMALL, 2), (BIG, 1)])


def job(id: str, submit: float, ntasks: int, seconds: float, nodes: int = 1) -> Job:
    """A job taking ``seconds`` on the slowest (1 GHz) core."""
    return Job(id=id, submit=submit, ntasks=ntasks, req_ops=seconds * 1e9, req_time=seconds,
               nodes=nodes, profile="p")


def tiny_run(**options: object) -> SimResult:
    jobs = (job("a", 0, 4, 100), job("b", 5, 9, 10), job("c", 10, 20, 10),
            job("d", 20, 4, 0), job("e", 30, 1, 1000))
    return simulate(tiny_platform(), Workload("tiny-w", jobs), create("fcfs"), **options)


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def default_run(scheduler: str, seed: int) -> SimResult:
    platform = load_platform(default_platform_path())
    workload = load_workload(default_workload_path(), platform)
    return simulate(platform, workload, create(scheduler), seed=seed)


def test_columns_are_batsims_then_ours(tmp_path: Path) -> None:
    assert list(COLUMNS) == BATSIM + ["node", "node_type", "bounded_slowdown", "het_slowdown",
                                      "cost", "attempts", "first_start", "user", "queue"]
    path = write_jobs_csv(tiny_run(), tmp_path / "jobs.csv")
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)


@pytest.mark.parametrize("ids, text", [([0, 1, 2, 3, 8], "0-3 8"), ([8, 3, 2, 1, 0], "0-3 8"),
                                       ([5], "5"), ([], ""), ([1, 2, 4, 5, 7], "1-2 4-5 7")])
def test_format_ranges_of_single_ids(ids: list[int], text: str) -> None:
    assert format_ranges((i, i + 1) for i in ids) == text


def test_ranges_merge_across_nodes() -> None:
    assert format_ranges([(8, 9), (0, 4)]) == "0-3 8"
    assert format_ranges([(4, 6), (0, 4)]) == "0-5"


def test_core_ids_never_overlap_and_reuse_lowest_ids() -> None:
    # One 4-core node. a: 2 cores [0, 10); b: 2 cores [5, 15); c: 2 cores [10, 20) reuses a's.
    node = NodeType("n", cores=4, clock_ghz=1.0)
    platform = Platform.from_counts("p", [(node, 1)])
    jobs = (Job("a", 0, 2, 10e9, 10), Job("b", 5, 2, 10e9, 10), Job("c", 10, 2, 10e9, 10))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert core_ranges(result) == [[(0, 2)], [(2, 4)], [(0, 2)]]


def test_core_id_bits_read_as_ranges() -> None:
    # a node's free ids are the bits of one integer: runs of set bits are ranges of ids
    assert runs(0b1101) == [(0, 1), (2, 4)]
    assert runs(0b1101, 8) == [(8, 9), (10, 12)]
    assert runs(0) == []
    assert runs((1 << 64) - 1, 4) == [(4, 68)]


def test_rows_semantics(tmp_path: Path) -> None:
    rows = {r["job_id"]: r for r in read_rows(write_jobs_csv(tiny_run(), tmp_path / "j.csv"))}
    a = rows["a"]
    assert (a["success"], a["final_state"], a["allocated_resources"]) == \
        ("1", "COMPLETED_SUCCESSFULLY", "0-3")
    assert (a["node"], a["node_type"], a["workload_name"], a["profile"]) == \
        ("small-0", "small", "tiny-w", "p")
    assert float(a["execution_time"]) == 100.0 and float(a["stretch"]) == 1.0
    b = rows["b"]  # 9 tasks on one node: fits no node -> rejected at submission
    assert (b["success"], b["final_state"]) == ("0", "REJECTED")
    assert "largest node has 8" in b["metadata"]
    for column in ("starting_time", "execution_time", "finish_time", "waiting_time",
                   "turnaround_time", "stretch", "consumed_energy"):
        assert b[column] == "-1", column  # Batsim's and evalys' "no value"
    for column in ("allocated_resources", "node", "bounded_slowdown", "het_slowdown"):
        assert b[column] == "", column
    assert rows["c"]["final_state"] == "REJECTED"
    d = rows["d"]  # zero-length job: stretch undefined -> empty, not NaN
    assert d["final_state"] == "COMPLETED_SUCCESSFULLY" and d["stretch"] == ""
    assert d["bounded_slowdown"] == "1.0"


def test_no_nan_text_and_unfinished_at_horizon(tmp_path: Path) -> None:
    path = write_jobs_csv(tiny_run(horizon=500.0), tmp_path / "j.csv")
    assert "nan" not in path.read_text().lower()
    e = {r["job_id"]: r for r in read_rows(path)}["e"]
    assert (e["success"], e["final_state"]) == ("0", "UNFINISHED")
    assert "horizon" in e["metadata"]
    # e runs from 30 (on small-1) at the horizon: it has a start and a wait, nothing else
    assert (e["starting_time"], e["waiting_time"], e["node"]) == ("30.0", "0.0", "small-1")
    for column in ("execution_time", "finish_time", "turnaround_time", "stretch",
                   "consumed_energy"):
        assert e[column] == "-1", column
    assert e["bounded_slowdown"] == e["het_slowdown"] == ""


def test_jobs_never_started_have_minus_one_everywhere(tmp_path: Path) -> None:
    # horizon 5: a runs from 0; c, d and e are submitted after the horizon, never started
    rows = {r["job_id"]: r for r in read_rows(write_jobs_csv(tiny_run(horizon=5.0),
                                                            tmp_path / "j.csv"))}
    for job_id in "cde":
        assert rows[job_id]["final_state"] == "UNFINISHED"
        for column in ("starting_time", "execution_time", "finish_time", "waiting_time",
                       "turnaround_time", "stretch", "consumed_energy"):
            assert rows[job_id][column] == "-1", (job_id, column)
    assert rows["a"]["starting_time"] == "0.0" and rows["a"]["finish_time"] == "-1"


def test_jobs_csv_byte_identical_for_same_seed(tmp_path: Path) -> None:
    first = write_jobs_csv(default_run("random-random", 7), tmp_path / "1.csv").read_bytes()
    second = write_jobs_csv(default_run("random-random", 7), tmp_path / "2.csv").read_bytes()
    assert first == second
    other = write_jobs_csv(default_run("random-random", 8), tmp_path / "3.csv").read_bytes()
    assert other != first


def test_write_run_files_and_summary(tmp_path: Path) -> None:
    result = default_run("fcfs", 0)
    written = write_run(result, tmp_path / "out", {"horizon": None})
    assert sorted(written) == ["jobs.csv", "jobs.swf", "summary.json", "timeseries.csv"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(summary) == {"hetsched_version", "scheduler", "seed", "inputs", "options",
                            "metrics", "makespan_cut", "units", "nodes", "reservations",
                            "failures", "rejected", "unfinished", "not_submitted",
                            "killed", "failed_kills", "requeued_attempts", "skipped_records",
                            "wall_seconds"}
    assert summary["reservations"] == summary["failures"] == []  # the platform has none
    assert set(summary["units"]) == set(summary["metrics"])  # every metric names its unit
    assert summary["scheduler"] == "fcfs" and summary["seed"] == 0
    assert summary["inputs"]["platform"]["path"] == str(default_platform_path())
    assert len(summary["inputs"]["workload"]["sha256"]) == 64
    assert summary["metrics"]["finished"] == 200
    node = summary["nodes"][0]
    assert set(node) == {"name", "type", "cores", "slots", "energy_j", "busy_seconds",
                         "idle_seconds", "busy_core_seconds"}
    assert [n["cores"] for n in summary["nodes"]] == [8, 8, 8, 8, 4, 4, 16, 16]
    assert [n["slots"] for n in summary["nodes"]] == [n["cores"] for n in summary["nodes"]]
    window = summary["metrics"]["makespan"]
    assert node["idle_seconds"] == pytest.approx(window - node["busy_seconds"])
    series = (tmp_path / "out" / "timeseries.csv").read_text().splitlines()
    assert series[0] == "time,queued,running,busy_cores,power_w" and len(series) > 200


def test_a_horizon_before_the_first_submission_cuts_every_job(tmp_path: Path) -> None:
    late = Workload("late", (job("a", 100, 1, 10), job("b", 200, 1, 10)))
    result = simulate(tiny_platform(), late, create("fcfs"), horizon=50.0)
    metrics = summarize(result)
    assert result.t0 == 100 and result.makespan_cut
    assert (metrics["not_submitted"], metrics["unfinished"], metrics["makespan"]) == (
        metrics["jobs"], 0, 0.0)


def test_summary_nan_is_null_and_lists_unfinished_jobs(tmp_path: Path) -> None:
    write_run(tiny_run(horizon=5.0), tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["mean_wait"] is None  # nothing finished by t=5
    assert summary["inputs"]["platform"] == {"path": None, "sha256": None}
    # a was running; c, d, e are submitted after the horizon: listed apart, never dropped
    assert [u["job_id"] for u in summary["unfinished"]] == ["a"]
    assert [u["job_id"] for u in summary["not_submitted"]] == ["c", "d", "e"]
    assert "not submitted" in summary["not_submitted"][0]["reason"]
    metrics = summary["metrics"]
    assert (metrics["unfinished"], metrics["not_submitted"], summary["makespan_cut"]) \
        == (1, 3, True)
    end_states = ("finished", "rejected", "unfinished", "killed", "failed_kills",
                  "not_submitted")
    assert sum(metrics[key] or 0 for key in end_states) == metrics["jobs"]
    assert [r["job_id"] for r in summary["rejected"]] == ["b"]


# ---- energy is reported only with a power model ------------------------------------------------
def unpowered_run(**options: object) -> SimResult:
    """The tiny workload on the tiny platform's shape with no power figures at all."""
    bare = [(NodeType(t.name, t.cores, t.clock_ghz), n) for t, n in ((SMALL, 2), (BIG, 1))]
    jobs = (job("a", 0, 4, 100), job("b", 5, 9, 10), job("e", 30, 1, 1000))
    return simulate(Platform.from_counts("bare", bare), Workload("w", jobs), create("fcfs"),
                    **options)


def test_without_power_model_energy_is_absent_everywhere(tmp_path: Path) -> None:
    result = unpowered_run()
    assert not result.has_energy and result.job_energy_j is None
    write_run(result, tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["energy_j"] is None and summary["metrics"]["edp_js"] is None
    assert summary["metrics"]["finished"] == 2  # the rest is reported as usual
    assert {node["energy_j"] for node in summary["nodes"]} == {None}
    rows = read_rows(tmp_path / "jobs.csv")
    assert [r["consumed_energy"] for r in rows] == ["-1", "-1", "-1"]  # as Batsim, no energy
    assert rows[0]["execution_time"] == "100.0"
    series = list(csv.DictReader((tmp_path / "timeseries.csv").open()))
    assert series and {r["power_w"] for r in series} == {""}
    assert {r["busy_cores"] for r in series} != {""}


def test_with_power_model_energy_is_written(tmp_path: Path) -> None:
    write_run(tiny_run(), tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["energy_j"] > 0 and summary["nodes"][0]["energy_j"] > 0
    a = read_rows(tmp_path / "jobs.csv")[0]
    # 4 cores of small-0 for 100 s: (5 W dynamic + 20 W static / 4 cores) x 4 x 100 s
    assert float(a["consumed_energy"]) == pytest.approx(4000.0)


def test_partly_powered_platform_reports_no_energy() -> None:
    bare_big = NodeType("big", 8, 2.0)  # no power figures
    platform = Platform.from_counts("mixed", [(SMALL, 2), (bare_big, 1)])
    result = simulate(platform, Workload("w", (job("a", 0, 4, 100),)), create("fcfs"))
    assert not platform.has_power_model and not result.has_energy


def test_metrics_doc_gives_every_summary_key_its_unit() -> None:
    from hetsched.metrics import UNITS, summarize
    assert set(UNITS) == set(summarize(tiny_run()))
    text = (Path(__file__).resolve().parents[1] / "docs" / "metrics.md").read_text()
    table = text[text.index("| key | unit | definition |"):]
    table = table[:table.index("\n\n")]
    documented = {}
    for row in table.splitlines()[2:]:
        keys, unit = row.split("|")[1:3]
        documented.update({key: unit.strip() for key in keys.replace("`", "").split(", ")})
    assert {k.strip(): v for k, v in documented.items()} == UNITS


@pytest.mark.parametrize("values", [[3.0], [5.0, 1.0], [4.0, 1.0, 3.0, 2.0], [2.0, 2.0, 9.0],
                                    list(range(101))[::-1], [0.1, 0.7, 0.2, 0.9, 0.3]])
def test_median_is_numpy_median(values: list[float]) -> None:
    from hetsched.metrics.summary import median

    assert median(np.array(values, dtype=float)) == float(np.median(values))


def test_rental_cost_is_absent_without_prices(tmp_path: Path) -> None:
    platform = load_platform(shared("platforms/irmasim_lublin_20node.json"))
    assert all(t.hourly_price == 0 for t in platform.node_types)
    workload = load_workload(shared("traces/lublin_256.swf"), platform)
    result = simulate(platform, Workload("w", workload.jobs[:50]), create("fcfs"))
    write_run(result, tmp_path)
    metrics = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    assert metrics["rental_cost"] is None and metrics["makespan"] > 0
    priced = load_platform(default_platform_path())
    run = simulate(priced, load_workload(default_workload_path(), priced), create("fcfs"))
    assert summarize(run)["rental_cost"] > 0


def test_a_swf_traces_users_reach_jobs_csv_and_come_back_in_jobs_swf(tmp_path: Path) -> None:
    rows = ["1 0 -1 100 2 -1 -1 2 200 -1 1 7 -1 -1 3 -1 -1 -1",
            "2 5 -1 100 2 -1 -1 2 200 -1 1 -1 -1 -1 -1 -1 -1 -1"]
    trace = tmp_path / "u.swf"
    trace.write_text("\n".join(rows) + "\n")
    platform = load_platform(default_platform_path())
    workload = load_workload(trace, platform)
    assert [(j.user, j.queue) for j in workload.jobs] == [(7, 3), (-1, -1)]
    result = simulate(platform, workload, create("fcfs"))
    write_run(result, tmp_path / "out")
    with (tmp_path / "out" / "jobs.csv").open() as f:
        assert [(r["user"], r["queue"]) for r in csv.DictReader(f)] == [("7", "3"), ("-1", "-1")]
    again = load_workload(tmp_path / "out" / "jobs.swf", platform)
    assert [j.user for j in again.jobs] == [7, -1]


def test_the_native_format_keeps_a_jobs_user(tmp_path: Path) -> None:
    from hetsched.workload.writers.native import write_native

    platform = load_platform(default_platform_path())
    spec = tmp_path / "w.yaml"
    spec.write_text("jobs:\n- {id: a, submit: 0, ntasks: 1, run_time: 5, user: 42}\n")
    workload = load_workload(spec, platform)
    assert workload.jobs[0].user == 42
    written = write_native(workload, tmp_path / "again.json", platform, {})
    assert load_workload(written, platform).jobs[0].user == 42


def _cell_by_cell(result: SimResult) -> bytes:
    """jobs.csv as the csv module writes the rows of cells (the path numpy's bytes replace)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(job_rows(result))
    return out.getvalue().encode()


@pytest.mark.parametrize("case", ["tiny", "horizon", "names", "requeue", "default"])
def test_jobs_csv_bytes_are_the_csv_modules_rows(tmp_path: Path, case: str) -> None:
    # numpy's text (text_block) where the cells are ASCII, the cells' text elsewhere: the
    # bytes of the csv module's rows either way (ids with a comma, a quote, non-ASCII)
    if case == "names":
        jobs = (job("a,1", 0, 4, 100), job('b"2', 5, 9, 10), job("é", 10, 20, 10))
        result = simulate(tiny_platform(), Workload("w", jobs), create("fcfs"))
    elif case == "requeue":
        node = NodeType("n", cores=4, clock_ghz=1.0)
        platform = replace(Platform.from_counts("p", [(node, 2)]),
                           failures=(Failure(0, 30.0, 60.0),))
        jobs = tuple(job(f"j{i}", 10.0 * i, 2 + i % 3, 50.0) for i in range(8))
        result = simulate(platform, Workload("w", jobs), create("easy"), on_failure="requeue")
        assert result.requeued
    elif case == "default":
        result = default_run("easy", 0)
    else:
        result = tiny_run(**({"horizon": 12.0} if case == "horizon" else {}))
    written = write_jobs_csv(result, tmp_path / "jobs.csv").read_bytes()
    assert written == _cell_by_cell(result)


def test_the_typed_job_columns_are_the_callers_to_change() -> None:
    """Some columns are read from the workload's own (read-only, or one value broadcast);
    ``job_columns`` gives copies that can be written without touching the run."""
    result = hetsched.simulate(None, None, "fcfs").result
    columns = job_columns(result)
    for name, values in columns.items():
        assert not isinstance(values, np.ndarray) or values.flags.writeable, name
    tasks = columns["requested_number_of_resources"]
    tasks[0] = -5
    assert job_columns(result)["requested_number_of_resources"][0] != -5
