"""The trace-driven studies: `hetsched study node-centric` (Stafford & Bosque 2024) and
`hetsched study realistic` (the batch-mapping thesis' realistic study)."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import InputError
from hetsched.experiments import node_centric, realistic
from hetsched.experiments.batch_mapping import CLOCK_BANDS
from hetsched.experiments.trace_studies import DATA, plan
from hetsched.experiments.traces import TraceSettings, derive_trace
from hetsched.platform.load import load_platform
from hetsched.schedulers.registry import entries
from hetsched.sweep.results import load_jobs
from hetsched.sweep.splits import Part
from hetsched.workload.model import Job, Workload
from support import assert_mentions, assert_one_line_error, error_of, shared

CONTRACT = ["week", "scheduler", "makespan", "mean_wait", "het_slowdown", "energy", "edp"]
#: node type -> (hdeeprm processor, processors per node)
CATALOGUE = {"opteron6274x4": ("Opteron 6274", 4), "e78891v2x8": ("Xeon E7-8891 v2", 8),
             "e78880v2x8": ("Xeon E7-8880 v2", 8), "e54650v2x16": ("Xeon E5-4650 v2", 16)}


def kit() -> Path:
    return shared("traces/kit_fh2_2016_first25k.swf")


# ---- the platform -------------------------------------------------------------------------

def test_node_centric_platform_has_4_groups_of_4_nodes_that_all_fit_a_64_core_job() -> None:
    platform = load_platform(DATA / "node_centric_16.yaml")
    assert len(platform.nodes) == 16 and platform.has_power_model
    types = [node.type for node in platform.nodes]
    groups = {t.name: sum(u.name == t.name for u in types) for t in types}
    assert groups == dict.fromkeys(CATALOGUE, 4)
    assert min(t.cores for t in types) >= node_centric.STUDY.settings.max_procs
    distinct = [len({getattr(t, attr) for t in types}) for attr in ("cores", "clock_ghz")]
    assert distinct == [4, 4]
    assert len(set(platform.arrays.full_power_w.tolist())) == 4
    # the fastest cores are not on the nodes of lowest power: the two policies differ
    assert platform.arrays.speed.argmax() != platform.arrays.full_power_w.argmin()


def test_node_centric_platform_matches_the_hdeeprm_catalogue() -> None:
    processors = json.loads(shared("platforms/hdeeprm_processor_types.json").read_text())
    platform = load_platform(DATA / "node_centric_16.yaml")
    for node_type in {node.type.name: node.type for node in platform.nodes}.values():
        cpu_name, count = CATALOGUE[node_type.name]
        cpu = processors[cpu_name]
        assert node_type.clock_ghz == cpu["clock_rate"]
        assert node_type.cores == cpu["cores"] * count
        assert node_type.ops_per_cycle == cpu["dpflops_per_cycle"]
        assert len(node_type.processors) == count
        for proc in node_type.processors:
            full = proc.static_w + proc.dynamic_w_per_core * proc.cores
            assert full == pytest.approx(cpu["power"])
            assert proc.idle_w == pytest.approx(0.3 * cpu["power"])


def test_realistic_platforms_have_32_single_core_nodes_in_twice_the_thesis_bands() -> None:
    for level, bands in CLOCK_BANDS.items():
        nodes = load_platform(DATA / f"realistic_{level}_32.yaml").nodes
        assert len(nodes) == 32 and all(node.type.cores == 1 for node in nodes)
        first = 0
        for count, low, high in bands:
            clocks = [node.type.clock_ghz for node in nodes[first:first + 2 * count]]
            assert all(low - 1e-3 <= c <= high + 1e-3 for c in clocks), (level, clocks)
            first += 2 * count


# ---- the derived trace --------------------------------------------------------------------

SWF = ("; MaxProcs: 200\n"
       "1 0 -1 100 100 -1 -1 100 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
       "2 150001 -1 50 8 -1 -1 8 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n")


def test_derived_trace_caps_processors_and_rounds_submits_down(tmp_path) -> None:
    source = tmp_path / "t.swf"
    source.write_text(SWF)
    derive_trace(source, tmp_path / "d.swf", TraceSettings(max_procs=64, submit_step=1e5))
    lines = (tmp_path / "d.swf").read_text().splitlines()
    assert lines[0] == "; MaxProcs: 200" and lines[1].startswith("; Derived by hetsched")
    rows = [line.split() for line in lines[2:]]
    assert [(r[1], r[4], r[7]) for r in rows] == [("0", "64", "64"), ("100000", "8", "8")]
    assert [r[3] for r in rows] == ["100", "50"]  # run times untouched


def test_derived_trace_header_matches_the_platforms_cores(tmp_path) -> None:
    source = tmp_path / "t.swf"
    source.write_text(SWF)
    one = derive_trace(source, tmp_path / "one.swf", TraceSettings(64), cores=[1024, 1024])
    lines = one.read_text().splitlines()
    assert lines[0] == "; MaxProcs: 1024"
    assert lines[1].endswith("processors capped at 64; MaxProcs 200 set to the platform's "
                             "1024 cores")
    two = derive_trace(source, tmp_path / "two.swf", TraceSettings(64), cores=[1696, 1024])
    lines = two.read_text().splitlines()
    assert not any(line.startswith("; MaxProcs") for line in lines)
    assert lines[0].endswith("MaxProcs 200 removed (the platforms have 1024, 1696 cores)")


@pytest.mark.parametrize("study", [*node_centric.STUDIES.values(), realistic.LEGACY],
                         ids=[*node_centric.STUDIES, "realistic-legacy"])
def test_a_studys_derived_trace_warns_of_no_machine_size_on_its_platforms(tmp_path,
                                                                         study) -> None:
    from hetsched.experiments.trace_studies import prepare
    from hetsched.run.checks import input_warnings
    from hetsched.workload.load import load_workload

    spec = yaml.safe_load(prepare(study, tmp_path, kit()).read_text())
    for entry in spec["platforms"]:
        platform = load_platform(entry["file"])
        trace = load_workload(tmp_path / study.trace, platform)
        assert not [w for w in input_warnings(platform, trace) if "MaxProcs" in w]


def test_derived_trace_names_file_line_and_field_of_a_bad_number(tmp_path) -> None:
    source = tmp_path / "bad.swf"
    source.write_text(SWF.replace(" 8 -1 -1 8 ", " 8 -1 -1 x8 "))
    message = error_of(derive_trace, source, tmp_path / "d.swf", TraceSettings(64))
    assert_mentions(message, "bad.swf", "line 3", "requested_processors", "x8")


# ---- the sweeps ---------------------------------------------------------------------------

def test_node_centric_spec_expands_to_every_week_under_the_five_schedulers(
        tmp_path) -> None:
    planned = plan(node_centric.STUDY, tmp_path, kit())
    parts = sorted({run.part for run in planned.runs})
    assert parts == list(range(41))
    assert [s.label for s in planned.sweep.schedulers] == [
        "high_gflops", "low_power", "min_min", "max_min", "duplex"]
    assert len(planned.runs) == 41 * 5 == len(planned.pending)
    assert {run.options.swf_placement for run in planned.runs} == {"single"}
    assert {run.seed for run in planned.runs} == {0}
    names = {entry.name for entry in entries()}
    assert {s.label for s in planned.sweep.schedulers} <= names


def test_realistic_spec_expands_to_2_platforms_5_parts_9_schedulers(tmp_path) -> None:
    planned = plan(realistic.LEGACY, tmp_path, kit())
    assert {(run.platform.label, run.part) for run in planned.runs} == {
        (level, part) for level in ("low", "high") for part in range(5)}
    assert len(planned.runs) == 2 * 5 * 9


def test_node_centric_end_to_end_two_weeks(tmp_path) -> None:
    out = tmp_path / "nc"
    args = ["study", "node-centric", "--out", str(out), "--weeks", "2", "-j", "1",
            "--trace", str(kit())]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "MaxProcs" not in result.stderr  # the derived trace's header is the platform's
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == CONTRACT
    assert sorted((r["week"], r["scheduler"]) for r in rows) == sorted(
        (str(w), s) for w in (0, 1) for s in node_centric.CANDIDATES + node_centric.BASELINES)
    assert all(float(r["edp"]) == pytest.approx(float(r["energy"]) * float(r["makespan"]))
               for r in rows)
    comparison = pd.read_csv(out / node_centric.COMPARISON)
    assert len(comparison) == 10 and "high_gflops" in result.stdout
    # both medians in one unit, the metric's (days and days, not 730,080 s beside 8.45 d)
    assert re.search(r"high_gflops +│ +makespan +│ +[\d.]+ d +│ +[\d.]+ d +│", result.stdout)
    assert re.search(r"energy +│ +[\d.]+ GJ +│ +[\d.]+ GJ +│", result.stdout)
    wins = pd.read_csv(out / node_centric.WINS, index_col="scheduler")
    assert list(wins.columns) == CONTRACT[2:]
    for metric in wins.columns:  # each week has at least one winner, ties count for each
        assert 2 <= wins[metric].sum() <= 2 * 5
    figures = out / node_centric.FIGURES
    week_dir = next(out.glob("week-*")).name
    assert {p.name for p in figures.iterdir()} == {"boxplots.png", f"{week_dir}.png"}
    assert all(p.stat().st_size > 10_000 for p in figures.iterdir())
    week_dirs = list(out.glob("week-*"))
    assert len(week_dirs) == 1
    for scheduler in node_centric.CANDIDATES + node_centric.BASELINES:
        run_dir = week_dirs[0] / scheduler
        assert {"jobs.csv", "summary.json", "timeseries.csv"} <= {
            p.name for p in run_dir.iterdir()}
        summary = json.loads((run_dir / "summary.json").read_text())
        week = week_dirs[0].name.removeprefix("week-")
        stored = next(r for r in rows if r["week"] == week and r["scheduler"] == scheduler)
        assert summary["metrics"]["makespan"] == pytest.approx(float(stored["makespan"]))
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "10 runs, 10 already in" in again.stderr
    fewer = CliRunner().invoke(app, [*args[:5], "1", *args[6:]])  # --weeks 1: a smaller grid
    assert fewer.exit_code == 0 and "5 runs, 5 already in" in fewer.stderr
    with (out / "results.csv").open() as f:
        assert {r["week"] for r in csv.DictReader(f)} == {"0"}  # the store still holds week 1


def test_study_with_a_missing_trace_is_a_one_line_error(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "node-centric", "--out", str(tmp_path / "o"),
                                      "--trace", str(tmp_path / "nope.swf")])
    assert_one_line_error(result, "nope.swf")


def test_node_centric_refuses_zero_weeks_before_writing_anything(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "node-centric", "--out", str(tmp_path / "o"),
                                      "--weeks", "0"])
    assert_one_line_error(result, "--weeks", "got 0")
    assert not (tmp_path / "o").exists()


# ---- the comparison with the paper and the representative week --------------------------

def test_compare_with_paper_uses_the_pooled_median_of_the_baselines() -> None:
    rows = []
    for week, (a, b, cand) in enumerate([(10.0, 20.0, 9.0), (30.0, 40.0, 12.0),
                                         (50.0, 60.0, 30.0)]):
        rows += [{"week": week, "scheduler": "a", "makespan": a},
                 {"week": week, "scheduler": "b", "makespan": b},
                 {"week": week, "scheduler": "cand", "makespan": cand}]
    table = node_centric.compare_with_paper(pd.DataFrame(rows), {"cand": {"makespan": -20.0}},
                                            baselines=("a", "b"))
    row = table.iloc[0]
    # pooled baseline values 10, 20, 30, 40, 50, 60: median 35; the candidate's median is 12
    assert row["baseline_median"] == 35.0 and row["median"] == 12.0
    assert row["change_pct"] == pytest.approx(100 * (12 / 35 - 1))
    assert row["vs_a_pct"] == pytest.approx(100 * (12 / 30 - 1))
    assert row["vs_b_pct"] == pytest.approx(100 * (12 / 40 - 1))
    assert row["paper_pct"] == -20.0 and bool(row["same_direction"])
    flipped = node_centric.compare_with_paper(pd.DataFrame(rows), {"cand": {"makespan": 5.0}},
                                              baselines=("a", "b"))
    assert not bool(flipped.iloc[0]["same_direction"])


def test_representative_week_is_the_week_of_median_work() -> None:
    def part(index: int, ops: float, tasks: int) -> Part:
        job = Job(id=f"j{index}", submit=0.0, ntasks=tasks, req_ops=ops, req_time=1.0)
        return Part(index, 0.0, Workload(f"w{index}", (job,)))

    parts = [part(0, 100.0, 1), part(3, 10.0, 4), part(5, 1.0, 2), part(7, 1000.0, 1)]
    # work: 100, 40, 2, 1000 -> sorted 2, 40, 100, 1000; the lower median is week 3's 40
    assert node_centric.representative_week(parts).index == 3
    assert node_centric.representative_week(parts[:3]).index == 3
    assert math.isclose(node_centric._work(parts[1]), 40.0)


def test_realistic_end_to_end_on_a_small_trace(tmp_path) -> None:
    lines = [f"{i + 1} {i * 40000} -1 {300 + 50 * i} {1 + 10 * i} -1 -1 {1 + 10 * i} "
             f"{600 + 100 * i} -1 1 -1 -1 -1 -1 -1 -1 -1" for i in range(12)]
    trace = tmp_path / "small.swf"
    trace.write_text("\n".join(lines) + "\n")
    out = tmp_path / "re"
    result = CliRunner().invoke(app, ["study", "realistic", "--out", str(out), "-j", "1",
                                      "--trace", str(trace), "--variant", "legacy"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(out / "results.csv")
    assert list(frame.columns) == realistic.LEGACY.columns
    assert len(frame) == 2 * 9 and set(frame["platform"]) == {"low", "high"}
    assert set(frame["part"]) == {0}  # 12 jobs: one part of at most 500
    derived = (out / "kit_serial_1e5.swf").read_text().splitlines()[1:]
    submits = sorted({int(line.split()[1]) for line in derived})
    assert submits == [0, 100000, 200000, 300000, 400000]  # 0 … 440,000 s rounded down
    assert {line.split()[4] for line in derived} == {"1"}
    assert "low heterogeneity" in result.stdout and "astar" in result.stdout
    # each column in one unit, with its unit: 4.63 days of makespan, not 400,150.0
    assert re.search(r"astar +│ +4\.63 d │ +0\.00 s │ +1\.00 │", result.stdout)


# ---- the thesis' realistic study: its platforms, IRMaSim's KIT jobs -----------------------

#: Tables 4 and 5 of the thesis: (nodes, cores, GHz) per row.
TABLES = {"realistic_platform0.yaml": [(13, 32, 4.6), (11, 20, 10.2), (4, 8, 6.4), (4, 8, 15.2)],
          "realistic_platform1.yaml": [(4, 32, 2.6), (4, 20, 5.2), (4, 8, 3.4), (4, 8, 7.2)]}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_realistic_platforms_are_the_thesis_tables(name: str) -> None:
    platform = load_platform(DATA / name)
    rows = []
    for node in platform.nodes:
        shape = (node.type.cores, node.type.clock_ghz)
        if rows and rows[-1][1:] == shape:
            rows[-1] = (rows[-1][0] + 1, *shape)
        else:
            rows.append((1, *shape))
    assert rows == TABLES[name] and not platform.has_power_model


def irmasim_jobs(tmp_path: Path, tasks: list[int], step: float = 40000.0) -> Path:
    """An IRMaSim workload JSON: job i submitted at i * step, ``tasks[i]`` tasks,
    300 + 50 i s on IRMaSim's 2.5 GHz reference, requested 600 + 100 i s."""
    jobs = [{"id": f"j{i}", "subtime": i * step, "ntasks": n, "nodes": 1,
             "req_ops": (300 + 50 * i) * 2.5e9, "ipc": 1, "req_time": 600 + 100 * i}
            for i, n in enumerate(tasks)]
    path = tmp_path / "kit.json"
    path.write_text(json.dumps({"jobs": jobs}))
    return path


def test_derived_irmasim_workload_rounds_subtimes_down_and_keeps_the_rest(tmp_path) -> None:
    source = irmasim_jobs(tmp_path, [3, 40, 1], step=70000.0)
    dest = derive_trace(source, tmp_path / "d.json", realistic.STUDY.settings)
    jobs = json.loads(dest.read_text())["jobs"]
    original = json.loads(source.read_text())["jobs"]
    assert [job["subtime"] for job in jobs] == [0, 0, 100000]  # 0, 70,000, 140,000
    assert [{**job, "subtime": 0} for job in jobs] == [{**job, "subtime": 0}
                                                         for job in original]


def test_the_thesis_study_refuses_an_swf_trace_in_one_line(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "realistic", "--out", str(tmp_path / "o"),
                                      "--trace", str(kit())])
    assert_one_line_error(result, "kit_fh2_2016_first25k.swf", "reads a .json workload",
                          "--variant legacy reads .swf files")
    assert not (tmp_path / "o").exists()
    message = error_of(derive_trace, kit(), tmp_path / "d.json", realistic.STUDY.settings)
    assert_mentions(message, "kit_fh2_2016_first25k.swf", "IRMaSim workload JSON")


def test_an_unknown_variant_is_a_one_line_error(tmp_path) -> None:
    result = CliRunner().invoke(app, ["study", "realistic", "--out", str(tmp_path / "o"),
                                      "--variant", "legacyy"])
    assert_one_line_error(result, "--variant is thesis or legacy", "did you mean legacy?")


def test_realistic_spec_is_5_windows_of_500_every_250_on_the_two_tables(tmp_path) -> None:
    planned = plan(realistic.STUDY, tmp_path, shared("traces/kit_fh2_weeks18-34_irmasim.json"))
    assert {(run.platform.label, run.part) for run in planned.runs} == {
        (label, part) for label in ("platform0", "platform1") for part in range(5)}
    assert len(planned.runs) == 2 * 5 * 9
    assert {run.workload.split for run in planned.runs} == {"500 jobs every 250"}


def test_realistic_end_to_end_counts_the_jobs_that_fit_no_node(tmp_path) -> None:
    # 12 jobs, one of 40 tasks: more than any node's 32 cores, rejected on both platforms
    trace = irmasim_jobs(tmp_path, [1, 8, 20, 32, 40, 2, 16, 4, 24, 1, 12, 6])
    out = tmp_path / "re"
    result = CliRunner().invoke(app, ["study", "realistic", "--out", str(out), "-j", "1",
                                      "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    assert not list(out.glob("*-wal")) + list(out.glob("*-shm"))   # the store is one file
    frame = pd.read_csv(out / "results.csv")
    assert list(frame.columns) == [*realistic.LEGACY.columns, "rejected"]
    assert len(frame) == 2 * 9 and set(frame["platform"]) == {"platform0", "platform1"}
    assert set(frame["part"]) == {0} and set(frame["rejected"]) == {1}
    jobs = load_jobs(out / "results.sqlite")
    rejected = jobs[jobs["final_state"] == "REJECTED"]
    assert set(rejected["job_id"]) == {"j4"} and len(rejected) == 2 * 9
    assert set(rejected["metadata"]) == {"needs 40 cores on one node; the largest node has 32"}
    assert set(jobs[jobs["job_id"] != "j4"]["final_state"]) == {"COMPLETED_SUCCESSFULLY"}
    # every task of a job on one node: a 32-task job holds a whole 32-core node
    wide = jobs[jobs["job_id"] == "j3"]
    assert set(wide["node_type"]) <= {"c32_4.6ghz", "c32_2.6ghz"}


def test_the_default_trace_is_found_from_another_directory(tmp_path, monkeypatch) -> None:
    # `hetsched study ...` run outside the project root: the default ../shared/data path is
    # looked up under $HETSCHED_SHARED_DATA (then beside the checkout)
    from hetsched.experiments.trace_studies import KIT_TRACE

    data = kit().parents[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HETSCHED_SHARED_DATA", str(data))
    assert not KIT_TRACE.exists()
    out = derive_trace(KIT_TRACE, tmp_path / "kit.swf", TraceSettings(max_procs=1))
    assert out.read_text().count("\n") > 25_000
    monkeypatch.setenv("HETSCHED_SHARED_DATA", str(tmp_path / "none"))
    monkeypatch.setattr("hetsched.experiments.traces.__file__", str(tmp_path / "a/b/c/d.py"))
    with pytest.raises(InputError, match="kit_fh2_2016_first25k.swf"):  # named as given
        derive_trace(KIT_TRACE, tmp_path / "again.swf", TraceSettings(max_procs=1))
