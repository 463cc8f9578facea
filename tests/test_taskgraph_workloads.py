"""Task graphs as runs: the textbook DAGs as a workload (one job per task, its unrelated costs as
an ETC row) and as a platform (one one-core node type per processor), Kasahara's STG files as a
workload; the simulator's HEFT, CPOP and PEFT reproduce the mapping core's schedules on them."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.mapping.dag import cpop, heft, peft
from hetsched.mapping.dag_io import read_stg, read_textbook
from hetsched.mapping.graph import TaskGraph
from hetsched.platform.load import load_platform
from hetsched.run.checks import input_warnings
from hetsched.schedulers import create, entries
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.testing import check_scheduler
from hetsched.workload.load import load_workload
from support import assert_mentions, assert_one_line_error, error_of, shared, write

runner = CliRunner()
GRAPHS = ("topcuoglu2002", "arabnejad2014_peft")
PLANS = {"heft": heft, "cpop": cpop, "peft": peft}


def without_communication(graph: TaskGraph) -> TaskGraph:
    return TaskGraph(graph.cost, tuple((p, c, 0.0) for p, c, _ in graph.edges), graph.names,
                     graph.name)


@pytest.mark.parametrize("name", sorted(PLANS))
@pytest.mark.parametrize("graph", GRAPHS)
def test_the_simulators_plan_is_the_mapping_cores_schedule_job_by_job(graph: str,
                                                                       name: str) -> None:
    """The textbook graph read as both platform and workload: every job runs on the processor,
    from the start to the finish, that the mapping core's heuristic gives its task once the
    communication costs are 0 (the engine moves no data), so the makespans are equal too."""
    path = shared(f"dag/{graph}.json")
    platform = load_platform(path)
    result = simulate(platform, load_workload(path, platform), create(name))
    plan = PLANS[name](without_communication(read_textbook(path)))
    assert (result.state == JobState.FINISHED).all()
    assert [a[0][0] for a in result.allocation] == plan.processor.tolist()
    assert result.start.tolist() == plan.start.tolist()
    assert result.end.tolist() == plan.finish.tolist()
    assert result.end.max() == plan.makespan


def random_graph(rng: np.random.Generator, tasks: int, processors: int) -> dict:
    """A random textbook-format graph: integer costs 1-20, each later task a child of each
    earlier one with probability 0.25."""
    costs = {str(i): rng.integers(1, 21, processors).tolist() for i in range(1, tasks + 1)}
    edges = [[i, j, 0] for j in range(2, tasks + 1) for i in range(1, j) if rng.random() < 0.25]
    return {"name": "random", "processors": processors, "tasks": costs, "edges": edges}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_on_random_graphs_the_simulators_plan_is_the_mapping_cores(tmp_path: Path,
                                                                  name: str) -> None:
    """Each node runs its planned jobs in the plan's order, so a job released early never
    takes a node ahead of one planned there before it (on the first graph below, task 3 once
    started at 0 on P2, before task 4, planned first there: makespan 22, not the plan's 23)."""
    graphs = [{"name": "found", "processors": 2, "edges": [[1, 4, 0]],
               "tasks": {"1": [1, 9], "2": [11, 5], "3": [12, 4], "4": [20, 18]}}]
    rng = np.random.default_rng(7)
    graphs += [random_graph(rng, int(rng.integers(3, 12)), int(rng.integers(2, 4)))
               for _ in range(40)]
    for number, graph in enumerate(graphs):
        path = write(tmp_path / f"g{number}.json", json.dumps(graph))
        platform = load_platform(path)
        result = simulate(platform, load_workload(path, platform), create(name))
        plan = PLANS[name](read_textbook(path))
        assert [a[0][0] for a in result.allocation] == plan.processor.tolist(), graph
        assert result.start.tolist() == plan.start.tolist(), graph
        assert result.end.max() == plan.makespan


def test_the_textbook_graph_reads_as_jobs_with_their_costs_as_etc_rows() -> None:
    path = shared("dag/topcuoglu2002.json")
    platform = load_platform(path)
    workload = load_workload(path, platform)
    first, second = workload.jobs[:2]
    assert (first.id, first.submit, first.ntasks, first.parents) == ("1", 0.0, 1, ())
    assert first.etc == (("P1", 14.0), ("P2", 16.0), ("P3", 9.0))
    assert first.req_time == 16.0 and first.req_ops == 16.0 * platform.slowest_speed
    assert second.parents == ("1",) and workload.jobs[-1].parents == ("7", "8", "9")
    # the engine moves no data: the communication costs are kept, and said to be left out
    assert workload.metadata["edge_data"]["2"] == {"1": 18.0}
    assert len(workload.metadata["edge_data"]) == 9  # children of the 15 edges
    assert workload.notes == ("15 dependencies carry communication costs (241 in all): read, "
                              "not simulated (hetsched models no data transfer)",)


def test_the_textbook_graph_reads_as_one_one_core_node_type_per_processor() -> None:
    """P1..P3 sum 127, 130 and 143 over the ten tasks: P3 is the slowest node (1 GHz), the
    others as much faster as their costs sum lower."""
    platform = load_platform(shared("dag/topcuoglu2002.json"))
    assert [(n.name, n.type.name, n.type.cores) for n in platform.nodes] == [
        ("P1", "P1", 1), ("P2", "P2", 1), ("P3", "P3", 1)]
    assert platform.arrays.speed.tolist() == [143 / 127 * 1e9, 143 / 130 * 1e9, 1e9]
    assert platform.name == "topcuoglu2002" and not platform.has_power_model


@pytest.mark.parametrize("scheduler", ["heft", "fcfs"])
def test_an_stg_graph_runs_end_to_end_each_job_after_its_parents(tmp_path: Path,
                                                                  scheduler: str) -> None:
    """rand0000 (50 tasks and the two dummies of time 0) on the bundled platform, through the
    command line: every job finishes, none before its parents, each its time on the slowest
    core or less."""
    path = shared("stg/50/rand0000.stg")
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "-w", str(path), "-s", scheduler, "--out", str(out),
                                 "-q"])
    assert result.exit_code == 0, result.output
    with (out / "jobs.csv").open() as f:
        rows = {row["job_id"]: row for row in csv.DictReader(f)}
    graph = read_stg(path, 1)
    assert sorted(rows, key=int) == list(graph.names)
    assert all(row["final_state"] == "COMPLETED_SUCCESSFULLY" for row in rows.values())
    for task, parents in enumerate(graph.parents):
        start = float(rows[graph.names[task]]["starting_time"])
        assert all(start >= float(rows[graph.names[p]]["finish_time"]) for p, _ in parents)
        assert float(rows[graph.names[task]]["execution_time"]) <= graph.cost[task, 0]
    assert float(rows["0"]["execution_time"]) == 0.0  # the dummy entry


def test_an_stg_graph_on_identical_processors_is_plain_work() -> None:
    """On the textbook platform, STG jobs have no row: their time is on the slowest core
    (P3), less on the faster ones."""
    platform = load_platform(shared("dag/topcuoglu2002.json"))
    workload = load_workload(shared("stg/50/rand0000.stg"), platform)
    job = workload.jobs[1]
    assert job.etc == () and job.req_time == read_stg(shared("stg/50/rand0000.stg"), 1).cost[1, 0]
    assert job.req_ops == job.req_time * 1e9


def test_hetsched_run_takes_the_textbook_graph_as_platform_and_workload(tmp_path: Path) -> None:
    """``hetsched run -p g.json -w g.json -s heft``: HEFT's 48 (80 with the communication the
    engine does not model), and the warning that it is left out."""
    path = str(shared("dag/topcuoglu2002.json"))
    result = runner.invoke(app, ["run", "-p", path, "-w", path, "-s", "heft", "--out",
                                 str(tmp_path / "run"), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert "15 dependencies carry communication costs (241 in all)" in result.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["metrics"]["makespan"] == 48.0


def test_a_graph_on_a_platform_its_rows_do_not_name_is_rejected_with_the_reason() -> None:
    """The bundled platform's node types are not P1..P3: every job has no run time there, so
    the first is rejected at submission (the never-fit rule), the others with it, and the
    input warnings say so."""
    from hetsched.examples import default_platform_path

    platform = load_platform(default_platform_path())
    workload = load_workload(shared("dag/topcuoglu2002.json"), platform)
    result = simulate(platform, workload, create("heft"))
    assert (result.state == JobState.REJECTED).all()
    reason = result.reason[0]
    assert_mentions(reason, "etc row has no run time on node type(s)", "'medium'",
                    "it names 'P1', 'P2', 'P3'")
    assert result.reason[1].startswith("parent '1' was rejected: its etc row")
    assert any("10 of 10 jobs have an ETC row without run times on node types of the platform"
               in line for line in input_warnings(platform, workload))


def test_a_zero_cost_is_one_line_naming_the_task_and_the_cost(tmp_path: Path) -> None:
    path = write(tmp_path / "g.json", {"tasks": {"a": [3, 0], "b": [1, 2]},
                                        "edges": [["a", "b", 1]]})
    platform = load_platform(shared("dag/topcuoglu2002.json"))
    assert_mentions(error_of(load_workload, path, platform), "g.json", "task 'a'",
                    "field 'cost[1]'", "a cost of 0")
    assert_mentions(error_of(load_platform, path), "task 'a'", "field 'cost[1]'")
    result = runner.invoke(app, ["run", "-p", str(path), "-w", str(path)])
    assert_one_line_error(result, "task 'a'", "cost[1]")


def test_a_textbook_graph_converts_to_native_and_runs_the_same(tmp_path: Path) -> None:
    """The native format keeps the rows: converted (its costs are seconds: on the slowest core
    of --platform), the graph runs job by job as read."""
    path = shared("dag/topcuoglu2002.json")
    out = tmp_path / "g.json"
    result = runner.invoke(app, ["convert", str(path), str(out), "--platform", str(path)])
    assert result.exit_code == 0, result.output
    platform = load_platform(path)
    direct = simulate(platform, load_workload(path, platform), create("heft"))
    converted = load_workload(out, platform)
    assert [job.etc for job in converted.jobs] == [job.etc for job in
                                                   load_workload(path, platform).jobs]
    again = simulate(platform, converted, create("heft"))
    assert again.start.tolist() == direct.start.tolist()
    assert again.end.tolist() == direct.end.tolist()


def test_every_scheduler_family_runs_the_textbook_graph_in_dependency_order() -> None:
    path = shared("dag/arabnejad2014_peft.json")
    platform = load_platform(path)
    workload = load_workload(path, platform)
    index = {job.id: job.index for job in workload.jobs}
    for name in ("fcfs", "easy", "conservative", "slf", "let", "mom", "heft_replan",
                 "min_min"):
        result = simulate(platform, workload, create(name))
        assert (result.state == JobState.FINISHED).all(), name
        for job in workload.jobs:
            node = result.allocation[job.index][0][0]
            assert result.end[job.index] - result.start[job.index] == \
                job.etc_time(platform.nodes[node].type.name), name
            assert all(result.start[job.index] >= result.end[index[p]] for p in job.parents)
        assert np.isfinite(result.end).all()


#: Every scheduler of the families that run any workload (ds-sim's need a ds-sim job list), but
#: for the grid and the batch mappers a few: the others differ by a selection or a heuristic.
CONTRACT = [*(entry.name for entry in entries()
              if entry.family in ("queue", "irmasim", "whatif", "plan", "backfill")),
            "first-first", "first-random", "olb", "min_min", "sufferage"]


@pytest.mark.parametrize("name", CONTRACT)
def test_schedulers_keep_the_contract_on_the_textbook_graph(name: str) -> None:
    """Jobs with ETC rows on the graph's own processors: the contract battery (same seed, pickle,
    second run, fork) holds."""
    path = shared("dag/arabnejad2014_peft.json")
    platform = load_platform(path)
    assert check_scheduler(name, platform, load_workload(path, platform)).name == "given"


def test_a_processor_far_cheaper_than_the_others_keeps_a_clock_within_the_limits(
        tmp_path: Path) -> None:
    """Clocks only order the processors: one whose costs sum 1e6 times lower is as fast as
    the limit allows, not 1e6 GHz."""
    path = write(tmp_path / "g.json", {"name": "g", "processors": 2, "edges": [],
                                       "tasks": {"1": [1e6, 1.0], "2": [1e6, 1.0]}})
    platform = load_platform(path)
    assert [n.type.clock_ghz for n in platform.nodes] == [1.0, 1000.0]
    result = simulate(platform, load_workload(path, platform), create("heft"))
    assert result.end.tolist() == [1.0, 2.0]  # the rows' times, whatever the clocks
