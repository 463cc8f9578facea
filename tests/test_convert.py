"""hetsched convert: round trips that are exact, and refusals listing the losses."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.convert import convert
from hetsched.metrics.summary import rental_cost
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform, Processor
from hetsched.platform.writers.native import write_yaml
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload
from hetsched.workload.model import SPREAD, Job, Workload
from hetsched.workload.writers.native import write_native
from support import assert_one_line_error, shared

# slowest core 2 GHz: run times of whole seconds are whole numbers of operations
FAST = NodeType("fast", 8, 4.0, memory_mb=65536, idle_w=10, static_w=20, dynamic_w_per_core=4)
SLOW = NodeType("slow", 4, 2.0, idle_w=5, static_w=8, dynamic_w_per_core=2)
PLATFORM = Platform.from_counts("pf", [(FAST, 2), (SLOW, 3)])


def _jobs(**extra) -> tuple[Job, ...]:
    return tuple(Job(id=str(i + 1), submit=10.0 * i, ntasks=2 + i, req_ops=(60 + i) * 2e9,
                     req_time=120.0 + i, **extra) for i in range(4))


def _labelled(**extra) -> tuple[Job, ...]:
    """Jobs each with its own label: Batsim's profile names (one per run time)."""
    return tuple(dataclasses.replace(j, profile=f"p{j.id}") for j in _jobs(**extra))


def _delays() -> tuple[Job, ...]:
    """Batsim's delays: fixed durations (whole seconds of work at speed 1), walltimes given."""
    return tuple(dataclasses.replace(j, req_ops=60.0 + i, fixed_duration=True,
                                     walltime=j.req_time)
                 for i, j in enumerate(_labelled(nodes=SPREAD)))


def _work() -> tuple[Job, ...]:
    """Jobs that are work, walltimes given (Batsim's walltime is also the estimate)."""
    return tuple(dataclasses.replace(j, walltime=j.req_time) for j in _labelled(nodes=SPREAD))


def _write(tmp_path: Path, jobs: tuple[Job, ...]) -> tuple[Path, Path]:
    platform_file = write_yaml(PLATFORM, tmp_path / "pf.yaml")
    native = write_native(Workload("w", jobs), tmp_path / "w.json", PLATFORM, {})
    return native, platform_file


def _same_jobs(a: Workload, b: Workload, *ignore: str) -> None:
    skip = {"index", *ignore}
    fields = [f.name for f in dataclasses.fields(Job) if f.name not in skip]
    assert [[getattr(j, f) for f in fields] for j in a.jobs] == \
           [[getattr(j, f) for f in fields] for j in b.jobs]


@pytest.mark.parametrize("fmt,suffix,jobs", [
    ("irmasim", ".json", _jobs(nodes=2, memory_mb=512.0, mem_vol=3e6, ipc=1.5)),
    ("yaml", ".yaml", _jobs(nodes=SPREAD, memory_mb=100.0, disk_mb=12.5, mem_bw_gbs=2.5,
                            cpu_util=0.5, mem_vol=1.0, profile="io")),
    ("dssim", ".xml", _jobs(memory_mb=300.0, disk_mb=700.0, profile="dssim")),
    ("batsim", ".json", _delays()),
    ("batsim5", ".json", _delays()),
    ("batsim-ph", ".json", _work()),
    ("batsim5-ph", ".json", _work()),
])
def test_native_to_format_and_back_is_exact(tmp_path, fmt, suffix, jobs):
    native, platform_file = _write(tmp_path, jobs)
    middle, back = tmp_path / f"m{suffix}", tmp_path / "back.json"
    assert convert(native, middle, fmt, platform_file).losses == []
    convert(middle, back, "json", platform_file)
    _same_jobs(load_workload(native, PLATFORM), load_workload(back, PLATFORM))


def test_swf_to_native_to_swf_is_exact(tmp_path):
    platform_file = write_yaml(PLATFORM, tmp_path / "pf.yaml")
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 -1 100 4 -1 -1 4 300 2048 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 7 -1 50 16 -1 -1 16 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n", encoding="utf-8")
    convert(swf, tmp_path / "n.json", None, platform_file)
    assert convert(tmp_path / "n.json", tmp_path / "back.swf", None, platform_file).losses == []
    rows = [line.split() for line in (tmp_path / "back.swf").read_text().splitlines()
            if not line.startswith(";")]
    assert [r[:5] + r[7:10] for r in rows] == [
        ["1", "0", "-1", "100", "4", "4", "300", "2048"],
        ["2", "7", "-1", "50", "16", "16", "60", "-1"]]


def _plain(t: NodeType) -> NodeType:
    return dataclasses.replace(t, memory_mb=float("inf"))


def test_platform_round_trips(tmp_path):
    two_socket = NodeType.of_processors("two", 3.0, (
        Processor(4, 1, 10, 2, 50, (("b", -2e-5),)), Processor(4, 1, 10, 2, 50)),
        memory_mb=2048.0)
    cases = ((Platform.from_counts("pf", [(_plain(FAST), 2), (_plain(SLOW), 3)]), "simgrid"),
             (Platform("pf", Platform.from_counts("pf", [(two_socket, 2)]).nodes,
                       contention="irmasim"), "irmasim"))
    for platform, fmt in cases:
        source = write_yaml(platform, tmp_path / "pf.yaml")
        middle = tmp_path / ("m.xml" if fmt == "simgrid" else "m.json")
        assert convert(source, middle, fmt).losses == []
        convert(middle, tmp_path / "back.yaml")
        back, read = load_platform(tmp_path / "back.yaml"), load_platform(source)
        assert [(n.name, n.cluster) for n in back.nodes] == \
               [(n.name, n.cluster) for n in read.nodes]
        for a, b in zip(back.node_types, read.node_types, strict=True):
            assert (a.name, a.cores, a.speed, a.memory_mb, a.idle_w, a.static_w) == \
                   (b.name, b.cores, b.speed, b.memory_mb, b.idle_w, b.static_w)
            assert a.dynamic_w_per_core == pytest.approx(b.dynamic_w_per_core, rel=1e-15)
            assert [p.params for p in a.processors] == [p.params for p in b.processors]


def test_losses_are_refused_then_written_with_lossy(tmp_path):
    jobs = _jobs(parents=()) + (Job("5", 50.0, 1, 2e9, 10.0, parents=("1",)),)
    native, platform_file = _write(tmp_path, jobs)
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(native), str(tmp_path / "b.json"), "--to",
                                  "batsim", "--platform", str(platform_file)])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "1 of 5 jobs have parents: Batsim JSON has no dependencies" in refused.output
    written = runner.invoke(app, ["convert", str(native), str(tmp_path / "b.json"), "--to",
                                  "batsim", "--platform", str(platform_file), "--lossy"])
    assert written.exit_code == 0, written.output
    assert len(load_workload(tmp_path / "b.json", PLATFORM).jobs) == 5


def test_crossing_seconds_and_work_needs_a_platform(tmp_path):
    native, _ = _write(tmp_path, _jobs())
    result = CliRunner().invoke(app, ["convert", str(native), str(tmp_path / "t.swf")])
    assert result.exit_code == 2 and "give --platform" in result.output


@pytest.mark.parametrize("fmt,kind", [("batsim-ph", "parallel_homogeneous"),
                                      ("batsim5-ph", "ParallelTaskHomogeneousProfile")])
def test_parallel_homogeneous_profiles_hold_each_task_s_flops(tmp_path, fmt, kind):
    import json

    jobs = tuple(dataclasses.replace(j, walltime=j.req_time)
                 for j in _labelled(nodes=SPREAD, ipc=2.0))
    native, _ = _write(tmp_path, jobs)
    done = convert(native, tmp_path / "b.json", fmt, lossy=True)  # work to work: no platform
    assert done.losses == ["4 of 4 jobs have ipc other than 1: Batsim JSON has no ipc: "
                           "folded into the work (ipc 1)"]
    doc = json.loads((tmp_path / "b.json").read_text())
    assert doc["profiles"]["p1"] == {"type": kind, "cpu": 60e9, "com": 0.0}
    assert [j["profile"] for j in doc["jobs"]] == ["p1", "p2", "p3", "p4"]


def test_bad_format_and_ambiguous_suffix_are_one_line_errors(tmp_path):
    native, _ = _write(tmp_path, _jobs())
    runner = CliRunner()
    bad = runner.invoke(app, ["convert", str(native), str(tmp_path / "x.json"), "--to", "batsm"])
    assert bad.exit_code == 2
    assert bad.output.startswith("error: unknown workload format 'batsm'; did you mean")
    odd = runner.invoke(app, ["convert", str(native), str(tmp_path / "x.txt")])
    assert odd.exit_code == 2 and "give --to" in odd.output and len(odd.output.splitlines()) == 1


def test_native_platform_keeps_downtime_and_contention(tmp_path):
    source = tmp_path / "p.yaml"
    source.write_text(
        "name: p\ncontention: deside\ncontention_params: {remote_fraction: 0.5}\n"
        "node_types:\n  - {name: a, cores: 4, clock_ghz: 2.0, count: 2, memory_gb: 1.5}\n"
        "downtime:\n  - {node: a-1, start: 10, end: 20, cores: 1}\n"
        "  - {node: a-0, start: 5}\n"
        "reservations:\n  - {node: a-1, start: 15, end: 30, cores: 1}\n", encoding="utf-8")
    assert convert(source, tmp_path / "p.json").losses == []
    back, read = load_platform(tmp_path / "p.json"), load_platform(source)
    assert (back.availability, back.contention, back.contention_params, back.node_types) == \
           (read.availability, read.contention, read.contention_params, read.node_types)
    assert back.reservations == read.reservations and len(read.reservations) == 3


def test_dssim_servers_to_native_run_the_same(tmp_path):
    """A ds-sim configuration's servers (on-demand nodes with disk, boot time and price) as a
    native platform: nothing lost, and a ds-sim algorithm schedules its job list the same."""
    config = shared("dssim/configs/config12-long-med.xml")
    jobs = shared("dssim/jobs/config12-long-med-jobs.xml")
    done = convert(config, tmp_path / "servers.yaml", kind="platform")
    assert (done.kind, done.losses) == ("platform", [])
    read, native = load_platform(config), load_platform(tmp_path / "servers.yaml")
    assert native.node_types == read.node_types
    assert all(t.on_demand and t.disk_mb < float("inf") for t in native.node_types)
    runs = [simulate(p, load_workload(jobs, p), create("bf")) for p in (read, native)]
    assert runs[0].start.tolist() == runs[1].start.tolist()
    assert runs[0].end.tolist() == runs[1].end.tolist()
    assert runs[0].allocation == runs[1].allocation
    assert rental_cost(runs[0]) == rental_cost(runs[1]) > 0


def test_convert_kind_is_checked(tmp_path):
    config = shared("dssim/configs/config12-long-med.xml")
    result = CliRunner().invoke(app, ["convert", str(config), str(tmp_path / "p.yaml"),
                                      "--kind", "servers"])
    assert result.exit_code == 2
    assert result.output == "error: unknown kind 'servers': expected workload or platform\n"


def test_dssim_job_list_to_native_and_back_keeps_every_field(tmp_path):
    import xml.etree.ElementTree as ET

    source = shared("dssim/jobs/config12-med-med-jobs.xml")
    # 3 jobs' memory is no float per task times their tasks: off by one rounding in native,
    # rounded back to the same integer in ds-sim
    assert convert(source, tmp_path / "n.json", lossy=True).losses == [
        "3 of 1257 jobs need memory that no memory per task times their tasks gives: the "
        "native format holds memory per task: off by a rounding"]
    assert convert(tmp_path / "n.json", tmp_path / "back.xml", lossy=True).losses == [
        "3 of 1257 jobs have memory sizes in MB that are not whole numbers: a ds-sim job list "
        "holds integers: rounded"]
    keys = ("id", "submitTime", "estRunTime", "actRunTime", "cores", "memory", "disk")
    read = [[e.get(k) for k in keys] for e in ET.parse(source).getroot().iter("job")]
    assert read == [[e.get(k) for k in keys]
                    for e in ET.parse(tmp_path / "back.xml").getroot().iter("job")]


def test_irmasim_workload_to_native_and_back_is_exact(tmp_path):
    source = shared("traces/irmasim_dual_core_jobs.json")
    convert(source, tmp_path / "n.yaml")
    assert convert(tmp_path / "n.yaml", tmp_path / "back.json", "irmasim").losses == []
    _same_jobs(load_workload(source, PLATFORM), load_workload(tmp_path / "back.json", PLATFORM))


def test_batsim_platform_to_native_and_back_keeps_all_but_host_names(tmp_path):
    source = Path(__file__).parent / "data" / "batsim_platforms" / "cluster_energy_128.xml"
    assert convert(source, tmp_path / "p.yaml", lossy=True).losses == [
        "128 of 128 nodes have names other than <type>-<k>: the native format names them so"]
    assert convert(tmp_path / "p.yaml", tmp_path / "back.xml").losses == []
    read, native = load_platform(source), load_platform(tmp_path / "p.yaml")
    back = load_platform(tmp_path / "back.xml")
    assert "<cluster id=\"cluster_compute\"" in (tmp_path / "back.xml").read_text()
    assert [(n.name, n.cluster) for n in back.nodes] == \
           [(n.name, n.cluster) for n in native.nodes]
    assert len(back.nodes) == len(read.nodes) == 128
    for a, b in zip(back.node_types, read.node_types, strict=True):
        assert (a.name, a.cores, a.speed, a.idle_w, a.static_w) == \
               (b.name, b.cores, b.speed, b.idle_w, b.static_w)
        assert a.full_power_w == pytest.approx(b.full_power_w, rel=1e-15)


def test_skipped_records_are_a_loss(tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 -1 100 4 -1 -1 4 300 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 7 -1 -1 16 -1 -1 16 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["convert", str(swf), str(tmp_path / "back.swf")])
    assert result.exit_code == 2
    assert "1 records of the input are not jobs (first, line 2: " in result.output


def test_work_written_as_batsim_delays_is_a_listed_loss(tmp_path):
    """Delays are fixed durations in Batsim: a job that is work changes meaning."""
    native, platform_file = _write(tmp_path, _work())
    refused = CliRunner().invoke(app, ["convert", str(native), str(tmp_path / "d.json"),
                                       "--to", "batsim", "--platform", str(platform_file)])
    assert refused.exit_code == 2 and "4 of 4 jobs are work, not fixed durations" in \
        refused.output
    done = convert(native, tmp_path / "d.json", "batsim", platform_file, lossy=True)
    back = load_workload(tmp_path / "d.json", PLATFORM)
    assert all(j.fixed_duration for j in back.jobs)
    assert [j.req_ops for j in back.jobs] == [j.req_ops / PLATFORM.slowest_speed
                                              for j in _work()]
    assert len(done.losses) == 1


def test_swf_to_swf_keeps_the_trace_header(tmp_path):
    """The log's own header (machine, origin) survives; the counts are written anew; without a
    platform nothing is said about one."""
    swf = tmp_path / "t.swf"
    swf.write_text("; Version: 2\n; MaxProcs: 128\n; UnixStartTime: 1000\n; MaxJobs: 9\n"
                   "1 0 -1 100 4 -1 -1 4 300 -1 1 -1 -1 -1 -1 -1 -1 -1\n", encoding="utf-8")
    convert(swf, tmp_path / "back.swf", None, None)
    header = [line for line in (tmp_path / "back.swf").read_text().splitlines()
              if line.startswith(";")]
    assert "; MaxProcs: 128" in header and "; UnixStartTime: 1000" in header
    assert "; MaxJobs: 1" in header and "; MaxJobs: 9" not in header
    assert not any(line.startswith("; Note") for line in header)


def test_fixed_durations_become_work_in_formats_without_them(tmp_path):
    """A Batsim delay written as SWF or IRMaSim is the work that takes as long on the slowest
    core (a listed loss), not its seconds taken as operations."""
    batsim = tmp_path / "d.json"
    batsim.write_text('{"jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 50, '
                      '"profile": "d"}], "profiles": {"d": {"type": "delay", "delay": 30}}}')
    refused = CliRunner().invoke(app, ["convert", str(batsim), str(tmp_path / "d.swf")])
    assert refused.exit_code == 2 and "1 of 1 jobs are fixed durations" in refused.output
    convert(batsim, tmp_path / "d.swf", None, None, lossy=True)
    row = next(line.split() for line in (tmp_path / "d.swf").read_text().splitlines()
               if not line.startswith(";"))
    assert row[3] == "30"
    platform_file = write_yaml(PLATFORM, tmp_path / "pf.yaml")
    convert(batsim, tmp_path / "i.json", "irmasim", platform_file, lossy=True)
    job, = load_workload(tmp_path / "i.json", PLATFORM).jobs
    assert not job.fixed_duration and job.req_ops == 30 * PLATFORM.slowest_speed


@pytest.mark.parametrize("fmt,suffix", [("batsim", ".json"), ("dssim", ".xml")])
def test_the_input_is_read_once(tmp_path, monkeypatch, fmt, suffix):
    """Telling a workload from a platform, its format and its jobs come from one reading."""
    import hetsched.documents as documents
    import hetsched.xmldoc as xmldoc

    native, platform_file = _write(tmp_path, _delays() if fmt == "batsim" else
                                   _jobs(memory_mb=300.0, profile="dssim"))
    source = tmp_path / f"in{suffix}"
    convert(native, source, fmt, platform_file)
    read: list[Path] = []
    for module, name in ((documents, "read_structured"), (xmldoc, "read_xml")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda path, real=real: read.append(path) or real(path))
    convert(source, tmp_path / "back.json", "json", platform_file)
    assert read.count(source) == 1


@pytest.mark.parametrize("change, attribute", [
    ({"req_time": 3e9}, "its estRunTime would be 3,000,000,000"),
    ({"submit": 5e9}, "its submitTime would be 5,000,000,000"),
    ({"memory_mb": 1e10}, "its memory would be 10,000,000,000"),
])
def test_dssim_refuses_values_beyond_its_ints(tmp_path, change, attribute):
    """Even with --lossy: a value ds-sim (and the job list reader) cannot hold is an error
    naming the job, and no file is written."""
    jobs = _jobs(memory_mb=300.0, profile="dssim")
    native, platform_file = _write(tmp_path, (jobs[0], dataclasses.replace(jobs[1], **change)))
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(app, ["convert", str(native), str(out), "--to", "dssim",
                                      "-p", str(platform_file), "--lossy"])
    assert_one_line_error(result, "w.json, job 2", attribute, "beyond ds-sim's ints")
    assert not out.exists()


def test_swf_refuses_a_run_time_its_reader_refuses(tmp_path):
    """A job of 1e28 operations runs 5e18 s on the slowest core, beyond SWF's 1e10 s: an
    error naming the job (the file written could not be read back)."""
    jobs = _jobs()
    native, platform_file = _write(tmp_path, (jobs[0], dataclasses.replace(jobs[1], req_ops=1e28)))
    out = tmp_path / "out.swf"
    result = CliRunner().invoke(app, ["convert", str(native), str(out), "-p", str(platform_file),
                                      "--lossy"])
    assert_one_line_error(result, "w.json, job 2", "its run_time would be 5e+18, beyond 1e+10")
    assert not out.exists()


@pytest.mark.parametrize("fmt, change, problem", [
    ("batsim", {"req_ops": 1e28}, "its delay would be 5e+18, beyond 1e+10"),
    ("batsim5-ph", {"req_ops": 1e30, "ipc": 0.01}, "its cpu would be 1e+32, beyond 1e+30"),
])
def test_batsim_refuses_a_profile_its_reader_refuses(tmp_path, fmt, change, problem):
    jobs = _jobs()
    native, platform_file = _write(tmp_path, (jobs[0], dataclasses.replace(jobs[1], **change)))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["convert", str(native), str(out), "--to", fmt,
                                      "-p", str(platform_file), "--lossy"])
    assert_one_line_error(result, "w.json, job 2", problem)
    assert not out.exists()


SWF_TRACE = """; MaxProcs: 64
; MaxNodes: 4
1 0 5 100 16 -1 -1 16 200 -1 1 3 1 -1 2 -1 -1 -1
2 30 0 7 64 -1 -1 64 60 -1 1 4 1 -1 1 -1 -1 -1
3 45 2 1234 1 -1 -1 1 -1 -1 1 3 1 -1 1 -1 -1 -1
"""


def test_swf_to_batsim_is_delays_without_lossy_and_reads_back_the_same(tmp_path):
    """Batsim's routine conversion: run times become delays, requested times walltimes,
    processors res, the header's MaxProcs nb_res; no --lossy, no warnings unless asked."""
    import json

    from hetsched.convert import nominal_platform
    from hetsched.models.speed import run_time

    swf, out = tmp_path / "t.swf", tmp_path / "t.json"
    swf.write_text(SWF_TRACE)
    result = CliRunner().invoke(app, ["convert", str(swf), str(out), "--to", "batsim"])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    assert json.loads(out.read_text())["nb_res"] == 64
    platform = nominal_platform()
    speed = platform.slowest_speed
    before, after = load_workload(swf, platform).jobs, load_workload(out, platform).jobs
    assert [(j.id, j.submit, j.ntasks, run_time(j, speed)) for j in after] == [
        (j.id, j.submit, j.ntasks, run_time(j, speed)) for j in before]
    assert [run_time(j, speed) for j in after] == [100.0, 7.0, 1234.0]
    # requested times are the walltimes; job 3 gave none: its estimate (its run time) is
    assert [j.walltime for j in before] == [200.0, 60.0, None]
    assert [j.walltime for j in after] == [200.0, 60.0, 1234.0]
    shown = CliRunner().invoke(app, ["convert", str(swf), str(out), "--to", "batsim",
                                     "--show-losses"])
    assert shown.exit_code == 0 and "warning: 3 of 3 jobs" in shown.output


def test_swf_to_batsim_without_maxprocs_takes_the_platform_or_the_largest_job(tmp_path):
    import json

    swf, out = tmp_path / "t.swf", tmp_path / "t.json"
    swf.write_text(SWF_TRACE.replace("; MaxProcs: 64\n", ""))
    convert(swf, out, "batsim")
    assert json.loads(out.read_text())["nb_res"] == 64  # job 2's 64 processors
    platform_file = tmp_path / "p.yaml"
    write_yaml(PLATFORM, platform_file)
    convert(swf, out, "batsim5", platform_file)
    assert json.loads(out.read_text())["nb_res"] == PLATFORM.total_cores
