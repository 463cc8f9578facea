"""Workload loaders: SWF (.swf/.swf.gz), IRMaSim JSON, Batsim JSON, native JSON/YAML."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.examples.make_default_workload import SEED, make_jobs, render
from hetsched.documents import parse_yaml
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.workload.batsim import load_batsim_workload
from hetsched.workload.irmasim import load_irmasim_workload
from hetsched.workload.load import load_workload
from hetsched.workload.model import SPREAD
from hetsched.workload.native import load_native_workload
from hetsched.workload.swf import SwfOptions, load_swf
from support import assert_mentions, error_of, shared, write

SLOW = NodeType("slow", cores=4, clock_ghz=1.0)     # 1e9 ops/s
FAST = NodeType("fast", cores=8, clock_ghz=2.0)     # 2e9 ops/s
PLATFORM = Platform.from_counts("t", [(SLOW, 2), (FAST, 1)])


def swf_line(job: int, submit: float = 0, run: float = 10, alloc: int = 1, used_mem: float = -1,
             req_procs: int = -1, req_time: float = -1, req_mem: float = -1) -> str:
    fields = [job, submit, -1, run, alloc, -1, used_mem, req_procs, req_time, req_mem,
              1, -1, -1, -1, -1, -1, -1, -1]
    return " ".join(str(f) for f in fields)


def swf_file(tmp_path: Path, *lines: str, name: str = "t.swf") -> Path:
    header = "; Version: 2\n; MaxNodes: 3\n; Note: first\n; Note: second\n"
    return write(tmp_path / name, header + "\n".join(lines) + "\n")


# ---------------------------------------------------------------- SWF, real traces

def test_lublin_swf() -> None:
    platform = load_platform(shared("platforms/irmasim_lublin_20node.json"))
    workload = load_workload(shared("traces/lublin_256.swf"), platform)
    assert len(workload) == 10_000
    assert workload.skipped == ()
    assert workload.metadata["MaxNodes"] == 64
    assert workload.metadata["Version"] == 2
    assert workload.name == "lublin_256"
    first = workload.jobs[0]
    assert (first.id, first.submit, first.ntasks, first.nodes) == ("1", 5094.0, 16, 1)
    assert first.req_ops == 12072 * 2e9            # run time on the slowest node (2 GHz)
    assert first.req_time == 12072                 # no requested time: run time x 1.0
    assert first.profile == "swf" and first.ipc == 1
    big = workload.by_id["4"]                       # 128 processors > 64 cores per node
    assert big.ntasks == 128 and big.nodes == SPREAD
    submits = [j.submit for j in workload.jobs]
    assert submits == sorted(submits)


def test_kit_swf() -> None:
    platform = load_platform(shared("platforms/irmasim_kit_80node.json"))
    workload = load_swf(shared("traces/kit_fh2_2016_first25k.swf"), platform)
    assert len(workload) == 25_326
    assert workload.metadata["MaxProcs"] == 24048
    assert workload.metadata["UnixStartTime"] == 1464739965
    job = workload.by_id["3"]
    assert (job.ntasks, job.req_time, job.req_ops) == (20, 3600, 45 * 2.5e9)
    assert workload.by_id["1"].nodes == SPREAD     # 100 processors > 64
    single = load_swf(shared("traces/kit_fh2_2016_first25k.swf"), platform,
                      SwfOptions(placement="single"))
    assert {j.nodes for j in single.jobs} == {1}


# ---------------------------------------------------------------- SWF conversion rules

def test_swf_conversion_rules(tmp_path: Path) -> None:
    path = swf_file(tmp_path,
                    swf_line(1, submit=0, run=100, alloc=4, req_time=300, req_mem=2048),
                    swf_line(2, submit=5, run=50, alloc=-1, req_procs=6, used_mem=1024),
                    swf_line(3, submit=7, run=20, alloc=9))
    workload = load_swf(path, PLATFORM)
    one, two, three = workload.jobs
    assert (one.ntasks, one.req_ops, one.req_time, one.mem_mb, one.nodes) == (
        4, 100e9, 300, 2.0, 1)
    assert (two.ntasks, two.req_time, two.mem_mb) == (6, 50, 1.0)   # procs from field 8
    assert (three.ntasks, three.nodes, three.mem_mb) == (9, SPREAD, 0.0)  # 9 > 8 cores
    assert workload.metadata == {"Version": 2, "MaxNodes": 3, "Note": "first\nsecond"}
    assert workload.source == str(path) and workload.name == "t"


def test_swf_options(tmp_path: Path) -> None:
    path = swf_file(tmp_path, swf_line(1, run=100, alloc=2),
                    swf_line(2, run=10, alloc=2, req_time=40))
    options = SwfOptions(placement="spread", reference_speed=2e9, estimate_factor=3.0)
    one, two = load_swf(path, PLATFORM, options).jobs
    assert one.req_ops == 100 * 2e9 and one.nodes == SPREAD
    assert one.req_time == 100 * 3.0 * 2e9 / 1e9     # estimate scaled to the slowest node
    assert two.req_time == 40 * 2.0


def test_swf_bad_options() -> None:
    for kwargs in ({"placement": "everywhere"}, {"reference_speed": 0},
                   {"estimate_factor": -1.0}):
        with pytest.raises(ConfigError):
            SwfOptions(**kwargs)


def test_swf_gz(tmp_path: Path) -> None:
    path = tmp_path / "trace.swf.gz"
    with gzip.open(path, "wt") as f:
        f.write("; MaxProcs: 16\n" + swf_line(1, run=5, alloc=2) + "\n")
    workload = load_workload(path, PLATFORM)
    assert len(workload) == 1 and workload.name == "trace"
    assert workload.metadata == {"MaxProcs": 16}


def test_swf_header_values_are_numbers_only_when_plain_and_finite(tmp_path: Path) -> None:
    """A header value Python's int/float would bend (overflow to inf, nan, ``1_000``, a
    5,000-digit number, other scripts' digits) is kept as written, so a converted trace's
    header says what the original said."""
    path = tmp_path / "h.swf"
    path.write_text("; MaxProcs: 1_024\n; Big: 1e400\n; Odd: nan\n; Arabic: \u0661\u0662\n"
                    f"; Long: {'9' * 5000}\n; MaxNodes: +64\n; Clock: 2.5\n"
                    + swf_line(1, run=5, alloc=2) + "\n")
    assert load_workload(path, PLATFORM).metadata == {
        "MaxProcs": "1_024", "Big": "1e400", "Odd": "nan", "Arabic": "\u0661\u0662",
        "Long": "9" * 5000, "MaxNodes": 64, "Clock": 2.5}


def test_swf_bad_gzip(tmp_path: Path) -> None:
    path = write(tmp_path / "trace.swf.gz", "not gzip")
    assert_mentions(error_of(load_swf, path, PLATFORM), "trace.swf.gz", "cannot read")


def test_swf_unsorted_input_is_sorted(tmp_path: Path) -> None:
    path = swf_file(tmp_path, swf_line(1, submit=30), swf_line(2, submit=10),
                    swf_line(3, submit=20))
    workload = load_swf(path, PLATFORM)
    assert [j.id for j in workload.jobs] == ["2", "3", "1"]
    assert [j.index for j in workload.jobs] == [0, 1, 2]


def test_swf_skipped_records(tmp_path: Path) -> None:
    path = swf_file(tmp_path, swf_line(1), swf_line(2, run=-1), swf_line(3, alloc=-1),
                    swf_line(4))
    workload = load_swf(path, PLATFORM)
    assert [j.id for j in workload.jobs] == ["1", "4"]
    (a, b) = workload.skipped
    assert (a.line, a.job_id) == (6, "2") and "run time" in a.reason
    assert (b.line, b.job_id) == (7, "3") and "processor" in b.reason
    message = error_of(load_swf, path, PLATFORM, SwfOptions(strict=True))
    assert_mentions(message, "t.swf", "line 6", "field 'run_time'", "cannot be simulated")


def test_swf_empty_trace(tmp_path: Path) -> None:
    workload = load_swf(swf_file(tmp_path), PLATFORM)
    assert len(workload) == 0 and workload.metadata["MaxNodes"] == 3


@pytest.mark.parametrize("line, field, problem", [
    ("1 0 -1 10 1", "average_cpu_time", "expected 18 fields, found 5"),
    (swf_line(2) + " 7", None, "expected 18 fields, found 19"),
    (swf_line(2).replace(" 10 ", " ten ", 1), "run_time", "not a number: 'ten'"),
    (swf_line(2, submit=-5), "submit_time", "negative submit time -5"),
    (swf_line(2, alloc=1.5), "allocated_processors", "whole number"),  # type: ignore[arg-type]
    (swf_line(2, run=float("nan")), "run_time", "not a finite number"),
    (swf_line(2, run=-7), "run_time", "negative run time -7"),
    (swf_line(1), "job_number", "duplicate job number 1 (first on line 5)"),
])
def test_swf_bad_line(tmp_path: Path, line: str, field: str | None, problem: str) -> None:
    path = swf_file(tmp_path, swf_line(1), line, name="bad.swf")
    message = error_of(load_swf, path, PLATFORM)
    parts = ["bad.swf", "line 6", problem] + ([f"field '{field}'"] if field else [])
    assert_mentions(message, *parts)


# ---------------------------------------------------------------- IRMaSim workloads

def test_kit_irmasim_json() -> None:
    workload = load_workload(shared("traces/kit_fh2_weeks18-34_irmasim.json"),
                             PLATFORM)
    assert len(workload) == 10_056
    job = workload.by_id["job6670"]
    assert (job.submit, job.ntasks, job.nodes, job.req_ops, job.req_time) == (
        10914725, 3, 1, 632500000000, 86400)


def test_dual_core_irmasim_profiles() -> None:
    workload = load_irmasim_workload(shared("traces/irmasim_dual_core_jobs.json"))
    assert [j.id for j in workload.jobs] == ["job57218", "job57219"]
    for job in workload.jobs:
        assert (job.ntasks, job.req_ops, job.ipc, job.req_time) == (1, 1e6, 1, 10)
        assert (job.mem_mb, job.mem_vol, job.profile) == (50, 1e6, "tester")
    assert workload.jobs[1].submit == 2.5


def irmasim_doc() -> dict:
    return {"jobs": [
        {"id": "a", "subtime": 0, "ntasks": 4, "nodes": 2, "profile": "p"},
        {"id": "b", "subtime": 3, "res": 2, "profile": "p", "req_time": 99},
        {"id": "c", "subtime": 1, "ntasks": 1, "req_ops": 5, "req_time": 1}],
        "profiles": {"p": {"req_ops": 1e9, "ipc": 2, "req_time": 10, "mem": 5, "mem_vol": 7}}}


def test_irmasim_job_overrides_profile(tmp_path: Path) -> None:
    workload = load_workload(write(tmp_path / "w.json", irmasim_doc()), PLATFORM)
    a, c, b = workload.jobs
    assert (a.ntasks, a.nodes, a.ipc, a.req_time, a.mem_mb) == (4, 2, 2, 10, 5)
    assert (b.ntasks, b.req_time, b.profile) == (2, 99, "p")
    assert (c.req_ops, c.ipc, c.profile, c.mem_mb) == (5, 1, "", 0)


def test_irmasim_node_defaults(tmp_path: Path) -> None:
    # IRMaSim's rules (Simulator.generate_workload): 'res' -> one node; no 'nodes' -> one node
    # per ntasks_per_node tasks (default 1); no 'ntasks' -> nodes * ntasks_per_node
    doc = {"jobs": [{"id": "r", "subtime": 0, "res": 3, "req_ops": 1, "req_time": 1},
                    {"id": "t", "subtime": 0, "ntasks": 3, "req_ops": 1, "req_time": 1},
                    {"id": "p", "subtime": 0, "ntasks": 5, "ntasks_per_node": 2, "req_ops": 1,
                     "req_time": 1},
                    {"id": "n", "subtime": 0, "nodes": 2, "ntasks_per_node": 4, "req_ops": 1,
                     "req_time": 1}]}
    workload = load_workload(write(tmp_path / "w.json", doc), PLATFORM)
    assert [(j.id, j.ntasks, j.nodes) for j in workload.jobs] == \
        [("r", 3, 1), ("t", 3, 3), ("p", 5, 3), ("n", 8, 2)]


@pytest.mark.parametrize("mutate, record, field, problem", [
    (lambda d: d["jobs"][0].update(ntasks_per_node=0), "job 'a'", "ntasks_per_node",
     "whole number > 0"),
    (lambda d: d["jobs"][0].update(profile="nope"), "job 'a'", "profile",
     "unknown profile 'nope'"),
    (lambda d: d["jobs"][1].update(id="a"), "job 'a'", "id", "duplicate job id"),
    (lambda d: d["jobs"][0].update(subtime=-1), "job 'a'", "subtime",
     "greater than or equal to 0"),
    (lambda d: d["jobs"][0].update(ntasks=0), "job 'a'", "ntasks", "greater than 0"),
    (lambda d: d["jobs"][0].update(nodes=5), "job 'a'", "nodes", "more nodes (5) than tasks"),
    (lambda d: d["jobs"][0].update(ipc=0), "job 'a'", "ipc", "greater than or equal to 0.001"),
    (lambda d: d["jobs"][2].pop("req_time"), "job 'c'", "req_time", "missing"),
    (lambda d: d["jobs"][2].pop("id"), "jobs[2]", "id", "missing"),
    (lambda d: d["jobs"][1].update(ntasks=3), "job 'b'", "ntasks", "differ"),
    (lambda d: d["profiles"]["p"].update(req_ops=-1), "job 'a'", "req_ops",
     "greater than or equal to 0"),
])
def test_irmasim_bad_input(tmp_path: Path, mutate, record: str, field: str,
                           problem: str) -> None:
    doc = irmasim_doc()
    mutate(doc)
    message = error_of(load_irmasim_workload, write(tmp_path / "bad.json", doc))
    assert_mentions(message, "bad.json", record, f"field '{field}'", problem)


# ---------------------------------------------------------------- Batsim workloads

def batsim_doc() -> dict:
    return {"nb_res": 4, "jobs": [
        {"id": 1, "subtime": 0, "res": 3, "walltime": 100, "profile": "d"},
        {"id": 2, "subtime": 4, "res": 1, "walltime": -1, "profile": "d"}],
        "profiles": {"d": {"type": "delay", "delay": 60}}}


def test_batsim_delay_profiles(tmp_path: Path) -> None:
    workload = load_workload(write(tmp_path / "b.json", batsim_doc()), PLATFORM)
    one, two = workload.jobs
    assert (one.id, one.ntasks, one.nodes, one.req_ops, one.req_time, one.walltime) == (
        "1", 3, SPREAD, 60, 100, 100)
    assert one.fixed_duration and (two.req_time, two.walltime) == (60, None)
    scaled = load_batsim_workload(write(tmp_path / "b.json", batsim_doc()), PLATFORM,
                                  scale_delays=True)
    assert not scaled.jobs[0].fixed_duration and scaled.jobs[0].req_ops == 60e9


@pytest.mark.parametrize("mutate, record, field, problem", [
    (lambda d: d["profiles"]["d"].update(type="smpi"), "profile 'd'", "type",
     "profile type 'smpi' (an SMPI trace) cannot be modelled"),
    (lambda d: d["profiles"]["d"].update(delay=-3), "profile 'd'", "delay", "greater than"),
    (lambda d: d["jobs"][0].update(profile="x"), "job '1'", "profile", "unknown profile 'x'"),
    (lambda d: d["jobs"][1].update(id=1), "job '1'", "id", "duplicate job id"),
    (lambda d: d["jobs"][1].update(walltime=0), "job '2'", "walltime", "> 0 or -1"),
    (lambda d: d["jobs"][1].update(res=0), "job '2'", "res", "greater than 0"),
])
def test_batsim_bad_input(tmp_path: Path, mutate, record: str, field: str,
                          problem: str) -> None:
    doc = batsim_doc()
    mutate(doc)
    message = error_of(load_batsim_workload, write(tmp_path / "bad.json", doc), PLATFORM)
    assert_mentions(message, "bad.json", record, f"field '{field}'", problem)


# ---------------------------------------------------------------- native workloads

NATIVE_YAML = """\
name: demo
jobs:
  - {id: a, submit: 0, ntasks: 4, run_time: 120}
  - {id: b, submit: 5, ntasks: 2, req_ops: 3.0e11, req_time: 600, parents: [a], nodes: spread}
  - {id: 7, submit: 6, ntasks: 2, run_time: 10, ipc: 2, mem_mb: 100, mem_bw_gbs: 1.5,
     profile: io, parents: [a, b], nodes: 2}
"""


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_native_workload(tmp_path: Path, suffix: str) -> None:
    text = NATIVE_YAML if suffix == ".yaml" else json.dumps(parse_yaml(NATIVE_YAML, Path("x")))
    workload = load_workload(write(tmp_path / f"w{suffix}", text), PLATFORM)
    a, b, seven = workload.jobs
    assert workload.name == "demo"
    assert (a.req_ops, a.req_time, a.nodes) == (120e9, 120, 1)   # seconds on the slowest
    assert (b.req_ops, b.req_time, b.nodes, b.parents) == (3e11, 600, SPREAD, ("a",))
    assert seven.id == "7" and seven.parents == ("a", "b")
    assert seven.req_ops / (seven.ipc * PLATFORM.slowest_speed) == 10  # runs 10 s on slowest
    assert (seven.mem_mb, seven.mem_bw_gbs, seven.profile, seven.nodes) == (100, 1.5, "io", 2)


def native_doc() -> dict:
    return {"jobs": [{"id": "a", "submit": 0, "ntasks": 2, "run_time": 5},
                     {"id": "b", "submit": 1, "ntasks": 2, "req_ops": 1e9, "parents": ["a"]}]}


@pytest.mark.parametrize("mutate, record, field, problem", [
    (lambda d: d["jobs"][1].update(parents=["zz"]), "job 'b'", "parents[0]",
     "unknown parent job 'zz'"),
    (lambda d: d["jobs"][0].update(parents=["b"]), "job '", "parents", "cycle"),
    (lambda d: d["jobs"][1].update(id="a"), "job 'a'", "id", "duplicate job id"),
    (lambda d: d["jobs"][0].update(req_ops=5), "job 'a'", "req_ops", "exactly one of"),
    (lambda d: d["jobs"][1].pop("req_ops"), "job 'b'", "req_ops", "exactly one of"),
    (lambda d: d["jobs"][0].update(submit=-1), "job 'a'", "submit", "greater than or equal"),
    (lambda d: d["jobs"][0].update(wall=3), "job 'a'", "wall", "unknown field"),
    (lambda d: d["jobs"][0].update(nodes=3), "job 'a'", "nodes", "more nodes (3)"),
    (lambda d: d["jobs"][0].update(nodes="many"), "job 'a'", "nodes", "valid integer"),
    (lambda d: d["jobs"][0].update(ntasks=1.5), "job 'a'", "ntasks", "valid integer"),
    (lambda d: d["jobs"][1].pop("id"), "jobs[1]", "id", "missing"),
])
def test_native_bad_input(tmp_path: Path, mutate, record: str, field: str,
                          problem: str) -> None:
    doc = native_doc()
    mutate(doc)
    message = error_of(load_native_workload, write(tmp_path / "bad.json", doc), PLATFORM)
    assert_mentions(message, "bad.json", record, f"field '{field}'", problem)


def test_bundled_default_workload() -> None:
    platform = load_platform(default_platform_path())
    workload = load_workload(default_workload_path(), platform)
    assert len(workload) == 200
    assert {j.nodes for j in workload.jobs} == {1}
    assert min(j.ntasks for j in workload.jobs) >= 1
    assert max(j.ntasks for j in workload.jobs) <= 16
    runs = [j.req_ops / platform.slowest_speed for j in workload.jobs]
    assert 10 <= min(runs) and max(runs) <= 7200
    assert all(j.req_time >= r for j, r in zip(workload.jobs, runs))


def test_bundled_workload_is_reproducible() -> None:
    import numpy as np
    text = render(make_jobs(np.random.default_rng(SEED)))
    assert text == default_workload_path().read_text()


# ---------------------------------------------------------------- dispatch and file errors

def test_missing_file(tmp_path: Path) -> None:
    for name in ("gone.json", "gone.swf"):
        assert_mentions(error_of(load_workload, tmp_path / name, PLATFORM), name,
                        "no such file")


def test_malformed_json_has_line(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.json", '{"jobs": [\n  {"id": "a"\n  "submit": 0}\n]}')
    assert_mentions(error_of(load_workload, path, PLATFORM), "broken.json", "line 3",
                    "column", "malformed JSON")


def test_json_nan_rejected(tmp_path: Path) -> None:
    path = write(tmp_path / "nan.json", '{"jobs": [{"id": "a", "submit": NaN}]}')
    assert_mentions(error_of(load_workload, path, PLATFORM), "nan.json", "NaN")


def test_unrecognised_workload(tmp_path: Path) -> None:
    assert_mentions(error_of(load_workload, write(tmp_path / "x.json", {"a": 1}), PLATFORM),
                    "x.json", "unrecognised workload format")
    assert_mentions(error_of(load_workload, write(tmp_path / "x.csv", "a,b"), PLATFORM),
                    "x.csv", "unsupported workload file suffix")


def test_swf_queue_partition_walltime_and_header(tmp_path: Path) -> None:
    lines = [swf_line(1, req_time=30), swf_line(2)]
    lines[0] = " ".join(lines[0].split()[:14] + ["3", "2", "-1", "-1"])
    workload = load_swf(swf_file(tmp_path, *lines), PLATFORM)
    one, two = workload.jobs
    assert (one.queue, one.partition, one.walltime) == (3, 2, 30)
    assert (two.queue, two.partition, two.walltime) == (-1, -1, None)
    assert workload.metadata["Note"] == "first\nsecond" and workload.metadata["MaxNodes"] == 3
    bad = swf_line(1).split()
    bad[14] = "1.5"
    message = error_of(load_swf, swf_file(tmp_path, " ".join(bad), name="bad.swf"), PLATFORM)
    assert_mentions(message, "bad.swf", "line 5", "field 'queue'", "whole number")


def test_an_swf_trace_out_of_order_gives_jobs_in_submission_order_ties_as_in_the_file(
        tmp_path: Path) -> None:
    """The reader gives each job its place in submission order (ties in file order) as it
    makes it, so the workload keeps the very Job objects."""
    rest = "-1 10 1 -1 -1 1 20 -1 1 -1 -1 -1 -1 -1 -1 -1"
    trace = write(tmp_path / "u.swf", "".join(f"{i} {s} {rest}\n" for i, s in
                                              ((3, 50), (1, 5), (2, 50), (4, 0))))
    workload = load_swf(trace, load_platform(default_platform_path()))
    assert [(j.id, j.index) for j in workload.jobs] == [("4", 0), ("1", 1), ("3", 2), ("2", 3)]


def test_a_workload_holds_its_jobs_by_id_only_once_asked() -> None:
    """A million-job run without parents never reads ``by_id``: its dict (30 MB) is made on
    first use, and the ids are still checked unique when the workload is made."""
    import tracemalloc

    from hetsched.workload.model import Job, Workload

    jobs = [Job(str(i), float(i), 1, 1.0, 1.0, index=i) for i in range(50_000)]
    tracemalloc.start()
    workload = Workload("w", tuple(jobs))
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert held < 16 * len(jobs)  # the jobs' tuple (8 bytes a job), no dict
    assert workload.by_id["7"] is workload.jobs[7]
    with pytest.raises(ValueError, match="duplicate job id '3'"):
        Workload("w", (*jobs, Job("3", 1.0, 1, 1.0, 1.0)))


@pytest.mark.parametrize("trace", ["lublin_256.swf", "kit_fh2_2016_first25k.swf"])
def test_an_swf_workload_is_checked_once_and_is_what_the_checking_constructor_makes(
        trace: str, monkeypatch) -> None:
    """The reader checks its table, then makes jobs in order at their places: the Workload
    takes them without sorting and checking a million jobs again, and is equal to (and holds
    the very jobs of) the workload its constructor makes after its own checks."""
    from hetsched.workload import model

    platform = load_platform(shared("platforms/irmasim_kit_80node.json"))
    checks = []
    check = model._check_jobs
    monkeypatch.setattr(model, "_check_jobs", lambda jobs: checks.append(len(jobs)))
    loaded = load_swf(shared(f"traces/{trace}"), platform)
    assert checks == []
    monkeypatch.setattr(model, "_check_jobs", check)
    made = model.Workload(loaded.name, loaded.jobs, loaded.source, loaded.skipped,
                          loaded.metadata)
    assert made == loaded and made.metadata == loaded.metadata and made.notes == loaded.notes
    assert all(a is b for a, b in zip(made.jobs, loaded.jobs))


def test_a_generators_table_is_still_checked_by_the_workload(monkeypatch) -> None:
    """A table built in memory (a generator's) did not pass the trace reader's checks: the
    workload checks its jobs."""
    import numpy as np

    from hetsched.workload import model
    from hetsched.workload.swf import FIELDS, SwfOptions, table_workload

    table = np.full((2, len(FIELDS)), -1.0)
    table[:, [0, 1, 3, 4]] = [[1, 0, 10, 1], [2, 5, 10, 1]]
    checks = []
    monkeypatch.setattr(model, "_check_jobs", lambda jobs: checks.append(len(jobs)))
    workload = table_workload("g", "<generated>", PLATFORM, SwfOptions(), table, {})
    assert checks == [2] and [j.id for j in workload.jobs] == ["1", "2"]
