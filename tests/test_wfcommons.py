"""The ``wfcommons`` generator (``hetsched generate dag -g wfcommons``): every recipe WfCommons
ships draws a DAG that reads back acyclic and runs under ``heft`` and ``mom`` respecting every
dependency; a seed gives the same file in any process, another seed another workflow; the
caller's random generators are left alone; and bad parameters, or no wfcommons package, are one
line with exit code 2. The tests that draw need the optional package and skip without it."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from graphlib import TopologicalSorter
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path
from hetsched.platform.load import load_platform
from hetsched.workload.generators import check_params, draw
from hetsched.workload.load import load_workload
from support import assert_one_line_error

runner = CliRunner()
PLATFORM_PATH = default_platform_path()
PLATFORM = load_platform(PLATFORM_PATH)
INSTALLED = find_spec("wfcommons") is not None
needs_wfcommons = pytest.mark.skipif(
    not INSTALLED, reason="needs the wfcommons package: pip install 'hetsched[workflows]'")


def _recipes() -> list[str]:
    from hetsched.workload.generators.recipes import recipes

    return list(recipes()) if INSTALLED else []


#: Every recipe the installed wfcommons lists (one skipped case without it).
RECIPES = _recipes() or [pytest.param("none", marks=needs_wfcommons)]
#: WfCommons 1.6's rnaseq recipe: its real graphs have no edge between two tasks and no
#: repeated part (they are replicated whole), and its run times barely vary, so every seed
#: draws the same independent tasks.
FLAT = {"rnaseq"}


def generate_dag(out: Path, *args: str):
    return runner.invoke(app, ["generate", "dag", "-g", "wfcommons", "-p", str(PLATFORM_PATH),
                               "--out", str(out), *args])


def jobs_of(path: Path) -> list[tuple]:
    return [(j.id, j.parents, j.ntasks, j.req_ops, j.profile)
            for j in load_workload(path, PLATFORM).jobs]


def test_the_wfcommons_generator_draws_dags() -> None:
    from hetsched.workload.generators import dag_generators

    assert "wfcommons" in dag_generators()


@needs_wfcommons
def test_the_recipes_are_the_ones_wfcommons_lists() -> None:
    from hetsched.workload.generators.recipes import recipes

    names = list(recipes())
    assert {"montage", "epigenomics", "seismology", "blast", "genome"} <= set(names)
    assert names == sorted(names)


@pytest.mark.parametrize("recipe", RECIPES)
def test_each_recipe_draws_an_acyclic_dag_that_runs_respecting_every_dependency(
        recipe: str, tmp_path: Path) -> None:
    from hetsched.workload.generators.recipes import minimum_jobs

    asked = minimum_jobs(recipe) + 30         # room for a replicated part or more
    out = tmp_path / "dag.json"
    result = generate_dag(out, "--param", f"recipe={recipe}", "--jobs", str(asked),
                          "--seed", "1")
    assert result.exit_code == 0, result.output
    workload = load_workload(out, PLATFORM)
    edges = [(parent, job.id) for job in workload.jobs for parent in job.parents]
    assert minimum_jobs(recipe) <= len(workload) <= asked
    assert bool(edges) == (recipe not in FLAT)
    assert result.output.startswith(f"{len(workload)} jobs with {len(edges)} dependencies")
    order = list(TopologicalSorter({j.id: j.parents for j in workload.jobs}).static_order())
    assert sorted(order) == sorted(j.id for j in workload.jobs)     # no cycle
    for scheduler in ("heft", "mom"):
        run = runner.invoke(app, ["run", "-w", str(out), "-p", str(PLATFORM_PATH), "-s",
                                  scheduler, "--out", str(tmp_path / scheduler)])
        assert run.exit_code == 0, run.output
        with (tmp_path / scheduler / "jobs.csv").open() as f:
            rows = {row["job_id"]: row for row in csv.DictReader(f)}
        assert len(rows) == len(workload)
        assert {row["final_state"] for row in rows.values()} == {"COMPLETED_SUCCESSFULLY"}
        for parent, child in edges:
            assert float(rows[child]["starting_time"]) >= float(rows[parent]["finish_time"])


@needs_wfcommons
def test_the_wfformat_instance_reads_as_the_same_jobs_as_the_native_file(
        tmp_path: Path) -> None:
    args = ("--param", "recipe=epigenomics", "--jobs", "80", "--seed", "2")
    assert generate_dag(tmp_path / "native.json", *args).exit_code == 0
    raw = generate_dag(tmp_path / "raw.json", *args, "-f", "wfformat")
    assert raw.exit_code == 0, raw.output
    assert raw.output.endswith("(wfformat)\n")
    document = json.loads((tmp_path / "raw.json").read_text())
    assert document["schemaVersion"] == "1.6" and "createdAt" not in document
    assert jobs_of(tmp_path / "raw.json") == jobs_of(tmp_path / "native.json")
    assert load_workload(tmp_path / "raw.json", PLATFORM).metadata["edge_bytes"]


@needs_wfcommons
@pytest.mark.parametrize("fmt", ["json", "wfformat"])
def test_the_same_seed_writes_the_same_file_and_another_seed_another_workflow(
        fmt: str, tmp_path: Path) -> None:
    args = ("--param", "recipe=montage", "--jobs", "150", "-f", fmt)
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        assert generate_dag(tmp_path / f"{name}.json", *args, "--seed", seed).exit_code == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert jobs_of(tmp_path / "a.json") != jobs_of(tmp_path / "c.json")


@needs_wfcommons
@pytest.mark.parametrize("recipe", RECIPES)
def test_a_seed_draws_the_same_workflow_whatever_the_callers_random_state(
        recipe: str) -> None:
    from hetsched.workload.generators.recipes import minimum_jobs

    params = check_params("wfcommons", {"recipe": recipe, "jobs": minimum_jobs(recipe) + 60},
                          Path("--param"))
    random.seed(1)
    np.random.seed(1)
    first = draw("wfcommons", params, 7).document
    python_state, numpy_state = random.getstate(), np.random.get_state()
    random.seed(2)
    np.random.seed(2)
    assert draw("wfcommons", params, 7).document == first
    random.setstate(python_state)
    np.random.set_state(numpy_state)
    draw("wfcommons", params, 8)
    assert random.getstate() == python_state                  # the caller's states, untouched
    assert np.random.get_state()[1].tolist() == numpy_state[1].tolist()
    assert (draw("wfcommons", params, 8).document != first) == (recipe not in FLAT)


@needs_wfcommons
def test_a_seed_draws_the_same_file_in_processes_with_other_string_hashes(
        tmp_path: Path) -> None:
    """rnaseq's recipe replicates a set of nodes, whose order follows the process's string
    hashing: the draw must not."""
    files = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"rnaseq-{hash_seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed,
               "PYTHONPATH": os.pathsep.join(sys.path)}
        subprocess.run([sys.executable, "-m", "hetsched.cli.main", "generate", "dag", "-g",
                        "wfcommons", "--param", "recipe=rnaseq", "--jobs", "300", "--seed", "5",
                        "-f", "wfformat", "-p", str(PLATFORM_PATH), "-o", str(out), "-q"],
                       check=True, env=env)
        files.append(out.read_bytes())
    assert files[0] == files[1]


@needs_wfcommons
@pytest.mark.parametrize("args, message", [
    (("--param", "recipe=montag", "--jobs", "100"),
     "--param, field 'recipe': unknown recipe 'montag'; did you mean montage?"),
    (("--param", "recipe=montage", "--jobs", "10"),
     "--param, field 'jobs': recipe montage makes workflows of at least 58 tasks (got 10)"),
    (("--jobs", "100"), "--param, field 'recipe': required field is missing"),
    (("--param", "recipe=montage", "--jobs", "100", "--depth", "3"),
     "--param, field 'depth': unknown field"),
    (("--param", "recipe=montage", "--jobs", "100", "--seed", "1.5"),
     "Invalid value for '--seed'"),
    (("--param", "recipe=montage", "--jobs", "100", "--seed", "-1"), "seed"),
    (("--param", "recipe=montage", "--jobs", "100", "-f", "swf"),
     "--format swf: a DAG is written as json or yaml"),
])
def test_bad_parameters_are_one_line_naming_the_parameter(args: tuple[str, ...], message: str,
                                                          tmp_path: Path) -> None:
    assert_one_line_error(generate_dag(tmp_path / "x.json", *args), message)
    assert not (tmp_path / "x.json").exists()


@needs_wfcommons
def test_a_refusal_by_wfcommons_itself_is_one_line(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hetsched.workload.generators.recipes.minimum_jobs", lambda name: 1)
    result = generate_dag(tmp_path / "x.json", "--param", "recipe=montage", "--jobs", "10")
    assert_one_line_error(result, "recipe montage with jobs 10: WfCommons says: Cannot create "
                                  "synthetic graph with 12 nodes")
    assert not (tmp_path / "x.json").exists()


def test_only_a_workflow_generator_writes_wfformat(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "dag", "-g", "dag_layered", "--jobs", "10", "-f",
                                 "wfformat", "-p", str(PLATFORM_PATH), "-o",
                                 str(tmp_path / "x.json")])
    assert_one_line_error(result, "--format wfformat: generator dag_layered draws no WfFormat "
                                  "workflow (wfcommons does)")
    assert not (tmp_path / "x.json").exists()


@needs_wfcommons
def test_generate_workload_writes_the_same_instance_given_a_platform(tmp_path: Path) -> None:
    args = ["-g", "wfcommons", "--param", "recipe=blast", "--jobs", "50", "-f", "wfformat"]
    alone = runner.invoke(app, ["generate", "workload", *args, "-o", str(tmp_path / "w.json")])
    assert_one_line_error(alone, "--format wfformat needs --platform: the workflow is read as "
                                 "jobs on it")
    given = runner.invoke(app, ["generate", "workload", *args, "-p", str(PLATFORM_PATH), "-o",
                                str(tmp_path / "w.json")])
    assert given.exit_code == 0, given.output
    assert generate_dag(tmp_path / "d.json", *args[2:]).exit_code == 0
    assert (tmp_path / "w.json").read_bytes() == (tmp_path / "d.json").read_bytes()


@needs_wfcommons
def test_swf_cannot_hold_a_workflow(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "workload", "-g", "wfcommons", "--param",
                                 "recipe=blast", "--jobs", "50", "-o", str(tmp_path / "x.swf")])
    assert_one_line_error(result, "generator wfcommons draws a workflow, which SWF cannot "
                                  "hold: use --format json")


def test_without_the_wfcommons_package_the_generator_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wfcommons", None)      # import wfcommons fails
    message = "generator wfcommons needs the wfcommons package"
    for command in (["generate", "dag", "-p", str(PLATFORM_PATH)], ["generate", "workload"]):
        result = runner.invoke(app, [*command, "-g", "wfcommons", "--param", "recipe=montage",
                                     "--jobs", "100", "-o", str(tmp_path / "x.json")])
        assert_one_line_error(result, message, "pip install 'hetsched[workflows]'")
    with pytest.raises(ConfigError, match=message):
        check_params("wfcommons", {"recipe": "montage", "jobs": 100}, Path("t"))
    assert not (tmp_path / "x.json").exists()
