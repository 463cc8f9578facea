"""The DAG generators (``dag_layered``, ``stream``) and ``hetsched generate dag``: seeded,
acyclic, layered as documented, the STREAM catalogue's ranges, and a run that respects every
dependency."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.examples import default_platform_path
from hetsched.platform.load import load_platform
from hetsched.workload.generators import check_params, dag_generators, draw, generate
from hetsched.workload.generators.layered import layer_widths
from hetsched.workload.generators.stream import CATALOGUE
from hetsched.workload.load import load_workload
from support import assert_one_line_error

runner = CliRunner()
PLATFORM_PATH = default_platform_path()
PLATFORM = load_platform(PLATFORM_PATH)


def parents_of(name: str, seed: int = 0, **params: object) -> list[tuple[str, ...]]:
    drawn = draw(name, check_params(name, params, Path("t")), seed)
    return list(drawn.extra["parents"])


def generate_dag(out: Path, *args: str):
    return runner.invoke(app, ["generate", "dag", "-p", str(PLATFORM_PATH), "--out", str(out),
                               *args])


def test_the_dag_generators_are_registered_as_such() -> None:
    assert dag_generators() == ("dag_layered", "stream", "wfcommons")


def test_layers_split_evenly_the_first_ones_taking_the_rest() -> None:
    assert layer_widths(10, 4).tolist() == [3, 3, 2, 2]
    assert layer_widths(50, 6).tolist() == [9, 9, 8, 8, 8, 8]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_edges_join_consecutive_layers_and_every_later_job_has_a_parent(seed: int,
                                                                         density: float) -> None:
    parents = parents_of("dag_layered", seed, jobs=23, depth=5, density=density)
    widths = layer_widths(23, 5)
    layer = np.repeat(np.arange(5), widths)        # job i (id i + 1) is in layer[i]
    for i, ps in enumerate(parents):
        assert (len(ps) == 0) == (layer[i] == 0)
        assert all(layer[int(p) - 1] == layer[i] - 1 for p in ps)
        assert len(set(ps)) == len(ps)
        if density == 1.0 and layer[i] > 0:
            assert len(ps) == widths[layer[i] - 1]   # every job of the layer before
        if density == 0.0 and layer[i] > 0:
            assert len(ps) == 1                      # only the one drawn for an orphan


def test_the_same_seed_draws_the_same_dag_and_another_seed_another() -> None:
    assert parents_of("dag_layered", 4, jobs=40, depth=6) == \
        parents_of("dag_layered", 4, jobs=40, depth=6)
    assert parents_of("dag_layered", 4, jobs=40, depth=6) != \
        parents_of("dag_layered", 5, jobs=40, depth=6)


def test_layered_run_times_and_threads_lie_in_their_ranges() -> None:
    params = check_params("dag_layered", {"jobs": 200, "runtime": [10, 20], "threads": [2, 3]},
                          Path("t"))
    workload = generate("dag_layered", params, 1, PLATFORM)
    assert {job.ntasks for job in workload.jobs} == {2, 3}
    assert all(10 <= job.req_time <= 20 and job.submit == 0 for job in workload.jobs)
    assert all(job.walltime is None for job in workload.jobs)


def test_the_stream_catalogue_holds_the_papers_ranges() -> None:
    threads, run, bandwidth, util = CATALOGUE.T
    assert len(CATALOGUE) == 36 and len({tuple(row) for row in CATALOGUE}) == 36
    assert (threads.min(), threads.max()) == (4, 28)
    assert (bandwidth.min(), bandwidth.max()) == (3.6, 10.5)
    assert (run.min(), run.max()) == (60, 600)            # 1 to 10 minutes alone
    assert np.isclose(util.min(), 0.9) and util.max() == 1.0
    # more threads, less bandwidth per thread
    order = np.argsort(threads, kind="stable")
    assert (np.diff(bandwidth[order]) <= 0).all()


def test_stream_jobs_are_catalogue_types_with_their_bandwidth_and_utilisation() -> None:
    workload = generate("stream", check_params("stream", {"jobs": 100}, Path("t")), 2, PLATFORM)
    rows = {tuple(row) for row in CATALOGUE.tolist()}
    slowest = PLATFORM.slowest_speed
    for job in workload.jobs:
        assert (job.ntasks, job.req_ops / slowest, job.mem_bw_gbs, job.cpu_util) in rows
        assert tuple(CATALOGUE[int(job.profile.removeprefix("stream"))]) == \
            (job.ntasks, job.req_ops / slowest, job.mem_bw_gbs, job.cpu_util)
    assert sum(1 for job in workload.jobs if job.parents) == 100 - 17   # 17 in layer 1


def test_generate_dag_writes_the_same_file_for_the_same_seed(tmp_path: Path) -> None:
    args = ("-g", "stream", "--jobs", "30", "--depth", "5", "--density", "0.4")
    first = generate_dag(tmp_path / "a.json", *args, "--seed", "3")
    assert first.exit_code == 0, first.output
    assert first.output.startswith("30 jobs with ")
    generate_dag(tmp_path / "b.json", *args, "--seed", "3")
    generate_dag(tmp_path / "c.json", *args, "--seed", "4")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.json").read_bytes() != (tmp_path / "c.json").read_bytes()


@pytest.mark.parametrize("generator, fmt", [("dag_layered", "yaml"), ("stream", "json")])
def test_a_generated_dag_reads_back_acyclic_and_runs_respecting_every_dependency(
        generator: str, fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"dag.{fmt}"
    result = generate_dag(out, "-g", generator, "--jobs", "40", "--seed", "1", "-f", fmt)
    assert result.exit_code == 0, result.output
    workload = load_workload(out, PLATFORM)     # the native reader refuses cycles
    edges = [(p, job.id) for job in workload.jobs for p in job.parents]
    assert len(workload) == 40 and len(edges) >= 40 - 10    # depth 4 (6 for stream)
    run = runner.invoke(app, ["run", "-w", str(out), "-p", str(PLATFORM_PATH), "-s", "fcfs",
                              "--out", str(tmp_path / "run")])
    assert run.exit_code == 0, run.output
    with (tmp_path / "run" / "jobs.csv").open() as f:
        rows = {row["job_id"]: row for row in csv.DictReader(f)}
    assert all(row["final_state"] == "COMPLETED_SUCCESSFULLY" for row in rows.values())
    for parent, child in edges:
        assert float(rows[child]["starting_time"]) >= float(rows[parent]["finish_time"])


@pytest.mark.parametrize("args, message", [
    (("-g", "poisson"), "--generator poisson draws no DAG: give one of dag_layered, stream, "
                        "wfcommons (or use `hetsched generate workload`)"),
    (("-g", "stream", "-f", "swf"), "--format swf: a DAG is written as json or yaml"),
    (("-g", "dag_layered", "--jobs", "3", "--depth", "4"),
     "depth (4) must be at most jobs (3): every layer holds a job"),
    (("-g", "dag_layered", "--jobs", "3", "--density", "1.5"),
     "field 'density': input should be less than or equal to 1 (got 1.5)"),
    (("-g", "dag_layered", "--jobs", "1000000", "--depth", "2", "--density", "1"),
     "about 250,001,000,000 edges expected, more than 10,000,000"),
])
def test_generate_dag_refuses_bad_options_in_one_line(args: tuple[str, ...], message: str,
                                                      tmp_path: Path) -> None:
    assert_one_line_error(generate_dag(tmp_path / "x.json", *args), message)
    assert not (tmp_path / "x.json").exists()


def test_generate_workload_draws_the_same_dag_but_swf_cannot_hold_it(tmp_path: Path) -> None:
    same = runner.invoke(app, ["generate", "workload", "-g", "dag_layered", "--jobs", "12",
                               "-f", "json", "-p", str(PLATFORM_PATH), "--out",
                               str(tmp_path / "w.json")])
    assert same.exit_code == 0, same.output
    generate_dag(tmp_path / "d.json", "-g", "dag_layered", "--jobs", "12")
    assert (tmp_path / "w.json").read_bytes() == (tmp_path / "d.json").read_bytes()
    swf = runner.invoke(app, ["generate", "workload", "-g", "dag_layered", "--jobs", "12",
                              "--out", str(tmp_path / "w.swf")])
    assert_one_line_error(swf, "generator dag_layered draws profile, parents, which SWF cannot "
                               "hold: use --format json")
