"""WfCommons WfFormat workflows (schema 1.4, 1.5 and 1.6): the bundled example, the mapping of a
task to a job, the edge data, a run that respects every dependency, and bad input."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.examples import default_platform_path, wfformat_example_path
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.workload.load import load_workload
from hetsched.workload.swf import SwfOptions
from support import error_of, write

runner = CliRunner()
SLOW = NodeType("slow", cores=8, clock_ghz=1.0)     # 1e9 ops/s
FAST = NodeType("fast", cores=8, clock_ghz=2.0)     # 2e9 ops/s
PLATFORM = Platform.from_counts("t", [(SLOW, 1), (FAST, 1)])


def test_the_example_reads_as_ten_jobs_with_their_parents_and_run_times() -> None:
    workload = load_workload(wfformat_example_path(), PLATFORM)
    assert workload.name == "montage-demo" and len(workload) == 10
    add = workload.by_id["mAdd_ID0000009"]
    assert add.parents == ("mImgtbl_ID0000008", "mBackground_ID0000006", "mBackground_ID0000007")
    assert add.ntasks == 4 and add.profile == "mAdd" and add.submit == 0
    # 20 s on the reference core, the slowest (1e9 ops/s): 2e10 ops, 10 s on the fast core
    assert add.req_ops == 20 * 1e9 and add.req_time == 20
    assert workload.by_id["mDiffFit_ID0000003"].ntasks == 1   # no coreCount: 1
    roots = [job.id for job in workload.jobs if not job.parents]
    assert roots == ["mProjectPP_ID0000001", "mProjectPP_ID0000002"]


def test_a_reference_speed_scales_the_work_and_the_estimate() -> None:
    workload = load_workload(wfformat_example_path(), PLATFORM, SwfOptions(reference_speed=2e9))
    add = workload.by_id["mAdd_ID0000009"]
    # 20 s on a 2e9 ops/s core: 4e10 ops, 40 s on the slowest core
    assert add.req_ops == 4e10 and add.req_time == 40


def test_files_become_edge_data_kept_and_noted() -> None:
    workload = load_workload(wfformat_example_path(), PLATFORM)
    edges = workload.metadata["edge_bytes"]
    # mAdd reads images.tbl (mImgtbl's) and corr_1/corr_2.fits (the mBackgrounds')
    assert edges["mAdd_ID0000009"] == {"mImgtbl_ID0000008": 2280,
                                       "mBackground_ID0000006": 8440320,
                                       "mBackground_ID0000007": 8440320}
    assert edges["mBackground_ID0000006"] == {"mProjectPP_ID0000001": 8440320,
                                              "mBgModel_ID0000005": 198}
    assert "mProjectPP_ID0000001" not in edges   # roots read no task's files
    assert workload.notes == ("14 dependencies carry files (83,726,838 bytes in all): read, "
                              "not simulated (hetsched models no data transfer)",)


def minimal_15() -> dict:
    """Three tasks a -> b, a -> c (b lists a as parent; a lists c as child)."""
    return {"name": "w", "schemaVersion": "1.5", "workflow": {
        "specification": {
            "tasks": [{"name": "A", "id": "a", "parents": [], "children": ["c"],
                       "outputFiles": ["f"]},
                      {"name": "B", "id": "b", "parents": ["a"], "children": [],
                       "inputFiles": ["f"]},
                      {"name": "C", "id": "c", "parents": [], "children": []}],
            "files": [{"id": "f", "sizeInBytes": 100}]},
        "execution": {"makespanInSeconds": 3, "executedAt": "x",
                      "tasks": [{"id": "a", "runtimeInSeconds": 1, "coreCount": 1.5},
                                {"id": "b", "runtimeInSeconds": 2},
                                {"id": "c", "runtimeInSeconds": 0}]}}}


def minimal_16() -> dict:
    """The same workflow in schema 1.6, as WfCommons 1.6 writes it: 1.5's layout, and
    metrics."""
    doc = minimal_15()
    doc["schemaVersion"] = "1.6"
    doc["workflow"]["specification"]["metrics"] = {"numberOfTasks": 3, "numberOfLevels": 2}
    return doc


def minimal_14() -> dict:
    """The same workflow in schema 1.4: tasks named by name, files per task."""
    return {"name": "w", "schemaVersion": "1.4", "workflow": {
        "makespanInSeconds": 3, "executedAt": "x",
        "tasks": [{"name": "a", "type": "compute", "parents": [], "runtimeInSeconds": 1,
                   "cores": 1.5, "files": [{"name": "f", "sizeInBytes": 100,
                                             "link": "output"}]},
                  {"name": "b", "type": "compute", "parents": ["a"], "runtimeInSeconds": 2,
                   "category": "B", "files": [{"name": "f", "sizeInBytes": 100,
                                                "link": "input"}]},
                  {"name": "c", "type": "compute", "parents": ["a"], "runtimeInSeconds": 0}]}}


@pytest.mark.parametrize("make", [minimal_15, minimal_14, minimal_16])
def test_every_schema_version_gives_the_same_jobs(make, tmp_path: Path) -> None:
    workload = load_workload(write(tmp_path / "w.json", make()), PLATFORM)
    assert [(j.id, j.parents, j.ntasks, j.req_ops) for j in workload.jobs] == [
        ("a", (), 2, 1e9), ("b", ("a",), 1, 2e9), ("c", ("a",), 1, 0.0)]  # 1.5 cores: 2
    assert workload.by_id["b"].profile == "B"
    assert workload.metadata["edge_bytes"] == {"b": {"a": 100}}


def read_jobs(path: Path) -> dict[str, dict[str, str]]:
    with path.open() as f:
        return {row["job_id"]: row for row in csv.DictReader(f)}


def run_respecting_dependencies(workflow: Path, scheduler: str, out: Path) -> dict:
    """Run ``workflow`` on the bundled platform; check that every job finished and started
    no earlier than each parent's end; the rows of ``jobs.csv`` by job id."""
    platform = default_platform_path()
    result = runner.invoke(app, ["run", "-w", str(workflow), "-p", str(platform),
                                 "-s", scheduler, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = read_jobs(out / "jobs.csv")
    workload = load_workload(workflow, load_platform(platform))
    assert len(rows) == len(workload) and {r["final_state"] for r in rows.values()} == {
        "COMPLETED_SUCCESSFULLY"}
    edges = [(parent, job.id) for job in workload.jobs for parent in job.parents]
    for parent, child in edges:
        assert float(rows[child]["starting_time"]) >= float(rows[parent]["finish_time"])
    return {"rows": rows, "edges": len(edges)}


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "slf", "let", "mom", "heft"])
def test_a_workflow_runs_end_to_end_and_every_child_starts_after_its_parents(
        scheduler: str, tmp_path: Path) -> None:
    run = run_respecting_dependencies(wfformat_example_path(), scheduler, tmp_path / "run")
    assert run["edges"] == 14
    rows = run["rows"]
    # the chain mProjectPP -> mDiffFit -> ... holds the mosaic back: mViewer starts last
    assert max(rows, key=lambda i: float(rows[i]["starting_time"])) == "mViewer_ID0000010"


REAL = Path(__file__).parent / "data" / "wfinstances"


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "mom"])
@pytest.mark.parametrize("instance, tasks, edges", [("bacass-dirt02-001", 11, 14),
                                                    ("srasearch-chameleon-10a-004", 22, 30)])
def test_real_wfinstances_run_and_respect_every_dependency(instance: str, tasks: int,
                                                           edges: int, scheduler: str,
                                                           tmp_path: Path) -> None:
    run = run_respecting_dependencies(REAL / f"{instance}.json", scheduler, tmp_path / "run")
    assert (len(run["rows"]), run["edges"]) == (tasks, edges)


def mutated(make, path: tuple, value: object) -> dict:
    """``make()`` with the value at ``path`` (keys and indices) replaced; ``...``: removed."""
    doc = copy.deepcopy(make())
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


SPEC = ("workflow", "specification")
EXEC = ("workflow", "execution")
T14 = ("workflow", "tasks")
BAD = {
    "version missing": (minimal_15, ("schemaVersion",), ...,
                        "w.json, field 'schemaVersion': schema version missing: hetsched reads "
                        "WfFormat 1.4, 1.5 and 1.6 (WfFormat's wfcommons-migrate-instance.py "
                        "updates older ones)"),
    "version 1.3": (minimal_15, ("schemaVersion",), "1.3",
                    "w.json, field 'schemaVersion': schema version '1.3': hetsched reads "
                    "WfFormat 1.4, 1.5 and 1.6 (WfFormat's wfcommons-migrate-instance.py updates "
                    "older ones)"),
    "specification a list": (minimal_15, SPEC, [],
                             "w.json: expected an object (key: value mapping) at "
                             "'workflow.specification', got a list"),
    "no tasks": (minimal_15, SPEC + ("tasks",), [],
                 "w.json, field 'tasks': list should have at least 1 item after validation, "
                 "not 0"),
    "task id missing": (minimal_15, SPEC + ("tasks", 1, "id"), ...,
                        "w.json, tasks[1], field 'id': required field is missing"),
    "task id a number": (minimal_15, SPEC + ("tasks", 1, "id"), 7,
                         "w.json, task '7', field 'id': input should be a valid string "
                         "(got 7)"),
    "parents not a list": (minimal_15, SPEC + ("tasks", 1, "parents"), "a",
                           "w.json, task 'b', field 'parents': expected a list, got a string"),
    "unknown parent": (minimal_15, SPEC + ("tasks", 1, "parents"), ["a", "zz"],
                       "w.json, task 'b', field 'parents[1]': unknown parent task 'zz'"),
    "unknown parent after a repeated one": (minimal_15, SPEC + ("tasks", 1, "parents"),
                                            ["a", "a", "zz"],
                                            "w.json, task 'b', field 'parents[2]': unknown "
                                            "parent task 'zz'"),
    "parents a number": (minimal_15, SPEC + ("tasks", 1, "parents"), 5,
                         "w.json, task 'b', field 'parents': expected a list, got a number"),
    "unknown child": (minimal_15, SPEC + ("tasks", 0, "children"), ["zz"],
                      "w.json, task 'a', field 'children[0]': unknown child task 'zz'"),
    "duplicate task id": (minimal_15, SPEC + ("tasks", 2, "id"), "b",
                          "w.json, task 'b', field 'id': duplicate task id"),
    "a cycle": (minimal_15, SPEC + ("tasks", 0, "parents"), ["b"],
                "w.json, task 'a', field 'parents': has a cycle: a -> b -> a"),
    "unknown file": (minimal_15, SPEC + ("tasks", 1, "inputFiles"), ["g"],
                     "w.json, task 'b', field 'inputFiles[0]': unknown file 'g' (not in "
                     "workflow.specification.files)"),
    "negative file size": (minimal_15, SPEC + ("files", 0, "sizeInBytes"), -1,
                           "w.json, field 'files[0].sizeInBytes': input should be greater "
                           "than or equal to 0 (got -1)"),
    "execution missing": (minimal_15, EXEC, ...,
                          "w.json, field 'workflow.execution': required field is missing (it "
                          "holds the tasks' run times)"),
    "no run time record": (minimal_15, EXEC + ("tasks", 2, "id"), "b",
                           "w.json, execution of task 'b', field 'id': duplicate execution of "
                           "task id"),
    "a task without run time": (minimal_15, EXEC + ("tasks",),
                                [{"id": "a", "runtimeInSeconds": 1},
                                 {"id": "b", "runtimeInSeconds": 2}],
                                "w.json, task 'c', field 'runtimeInSeconds': no run time: "
                                "workflow.execution.tasks has no task 'c'"),
    "run time of an unknown task": (minimal_15, EXEC + ("tasks", 2, "id"), "d",
                                    "w.json, task 'c', field 'runtimeInSeconds': no run time: "
                                    "workflow.execution.tasks has no task 'c'"),
    "negative run time": (minimal_15, EXEC + ("tasks", 1, "runtimeInSeconds"), -2,
                          "w.json, execution of task 'b', field 'runtimeInSeconds': input "
                          "should be greater than or equal to 0 (got -2)"),
    "run time too long": (minimal_15, EXEC + ("tasks", 1, "runtimeInSeconds"), 1e11,
                          "w.json, execution of task 'b', field 'runtimeInSeconds': input "
                          "should be less than or equal to 10000000000 (got 100000000000.0)"),
    "run time a string": (minimal_15, EXEC + ("tasks", 1, "runtimeInSeconds"), "2",
                          "w.json, execution of task 'b', field 'runtimeInSeconds': input "
                          "should be a valid number (got '2')"),
    "zero cores": (minimal_15, EXEC + ("tasks", 0, "coreCount"), 0,
                   "w.json, execution of task 'a', field 'coreCount': input should be greater "
                   "than or equal to 1 (got 0)"),
    "1.4: task name missing": (minimal_14, T14 + (1, "name"), ...,
                               "w.json, tasks[1], field 'name': required field is missing"),
    "1.4: run time missing": (minimal_14, T14 + (1, "runtimeInSeconds"), ...,
                              "w.json, task 'b', field 'runtimeInSeconds': required field is "
                              "missing"),
    "1.4: bad file link": (minimal_14, T14 + (1, "files", 0, "link"), "both",
                           "w.json, task 'b', field 'files[0].link': input should be 'input' "
                           "or 'output' (got 'both')"),
    "1.4: duplicate task name": (minimal_14, T14 + (2, "name"), "b",
                                 "w.json, task 'b', field 'name': duplicate task name"),
    "1.4: unknown parent": (minimal_14, T14 + (2, "parents"), ["x"],
                            "w.json, task 'c', field 'parents[0]': unknown parent task 'x'"),
    "1.4: a cycle through three": (minimal_14, T14 + (0, "parents"), ["c"],
                                   "w.json, task 'a', field 'parents': has a cycle: "
                                   "a -> c -> a"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_workflows_give_one_line_naming_file_task_and_field(case: str,
                                                                 tmp_path: Path) -> None:
    make, path, value, message = BAD[case]
    file = write(tmp_path / "w.json", mutated(make, path, value))
    assert error_of(load_workload, file, PLATFORM) == str(file.parent / message)


def test_the_cli_reports_a_bad_workflow_in_one_line_with_exit_2(tmp_path: Path) -> None:
    file = write(tmp_path / "w.json", mutated(minimal_15, SPEC + ("tasks", 0, "parents"), ["b"]))
    result = runner.invoke(app, ["run", "-w", str(file), "-s", "fcfs",
                                 "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: {file}, task 'a', field 'parents': has a cycle: "
                                     "a -> b -> a")


def test_too_many_tasks_are_refused_before_any_job_is_built(tmp_path: Path,
                                                            monkeypatch) -> None:
    monkeypatch.setattr("hetsched.workload.wfformat.MAX_GRAPH_TASKS", 2)
    file = write(tmp_path / "w.json", minimal_15())
    assert error_of(load_workload, file, PLATFORM) == (
        f"{file}, field 'workflow.specification.tasks': 3 tasks: more than hetsched reads (2)")


def test_a_native_workload_with_a_cycle_names_it_whole(tmp_path: Path) -> None:
    jobs = [{"id": i, "submit": 0, "ntasks": 1, "run_time": 1, "parents": [p]}
            for i, p in (("x", "z"), ("y", "x"), ("z", "y"))]
    file = write(tmp_path / "n.json", json.dumps({"jobs": jobs}))
    assert error_of(load_workload, file, PLATFORM) == (
        f"{file}, job 'x', field 'parents': has a cycle: x -> y -> z -> x")
