"""Explicit bad inputs (issue 9): each fails with ONE line naming the file, the record and the
field, never a traceback, never silent loss; the headline ones through the CLI (exit code 2)."""

from __future__ import annotations

import gzip
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import ConfigError
from hetsched import limits
from hetsched.limits import MAX_NODES
from hetsched.mapping.io import read_etc
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.schedulers.registry import create
from hetsched.workload.load import load_workload
from hetsched.workload.model import Job, Workload
from support import (assert_mentions, assert_one_line_error, config_xml, error_of, job, server,
                     write)

runner = CliRunner()

NATIVE_PLATFORM = {"node_types": [
    {"name": "fast", "cores": 8, "clock_ghz": 3.0, "memory_gb": 64, "count": 2,
     "power": {"idle": 20, "static": 50, "dynamic_per_core": 10}},
    {"name": "slow", "cores": 4, "clock_ghz": 2.0}]}
NATIVE_WORKLOAD = {"jobs": [{"id": "a", "submit": 0, "ntasks": 4, "run_time": 60},
                            {"id": "b", "submit": 5, "ntasks": 2, "req_ops": 3e11,
                             "req_time": 600}]}
IRMASIM_PLATFORM = {
    "platform": {"p": {"clusters": [{"id": "c0", "nodes": [{"type": "n", "number": 2}]}]}},
    "node": {"n": {"processors": [{"type": "cpu", "number": 1}], "memory": {"capacity": 32}}},
    "processor": {"cpu": {"cores": 4, "clock_rate": 2.0, "dpflops_per_cycle": 1,
                          "static_power": 6.1, "dynamic_power": 5.6, "min_power": 0.05}}}
IRMASIM_WORKLOAD = {"jobs": [{"id": "j1", "subtime": 0, "ntasks": 2, "profile": "p"},
                             {"id": "j2", "subtime": 3, "ntasks": 1, "profile": "p"}],
                    "profiles": {"p": {"req_ops": 1e9, "ipc": 1, "req_time": 10, "mem": 50,
                                       "mem_vol": 1e6}}}
BATSIM_WORKLOAD = {"nb_res": 4,
                   "jobs": [{"id": 1, "subtime": 0, "res": 2, "walltime": 100, "profile": "d"},
                            {"id": 2, "subtime": 1, "res": 1, "profile": "d"}],
                   "profiles": {"d": {"type": "delay", "delay": 60}}}
SWF_LINES = ["; Version: 2", "; MaxNodes: 8",
             "1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1",
             "2 10 -1 50 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1"]
#: The index of each SWF field used below.
SWF_COL = {"job_number": 0, "submit_time": 1, "run_time": 3, "allocated_processors": 4,
           "requested_time": 8, "requested_memory": 9}
DSSIM_CONFIG = config_xml(server("small", 2, limit=2), server("large", 8, limit=1))


def mutated(doc: dict, change: Callable[[dict], object]) -> dict:
    copy = json.loads(json.dumps(doc))
    change(copy)
    return copy


def swf(field: str, value: str, line: int = 2) -> str:
    lines = list(SWF_LINES)
    parts = lines[line].split()
    parts[SWF_COL[field]] = value
    lines[line] = " ".join(parts)
    return "\n".join(lines) + "\n"


def ds_job(**attributes: str) -> str:
    base = {"id": "0", "submitTime": "5", "estRunTime": "100", "actRunTime": "100",
            "cores": "1", "memory": "100", "disk": "100"}
    base.update(attributes)
    return "<job " + " ".join(f'{k}="{v}"' for k, v in base.items()) + " />"


def ds_server(**attributes: str) -> str:
    base = {"type": "s", "limit": "1", "bootupTime": "60", "hourlyRate": "0.2", "cores": "2",
            "memory": "4000", "disk": "16000"}
    base.update(attributes)
    return config_xml("<server " + " ".join(f'{k}="{v}"' for k, v in base.items()) + " />")


# ---- platforms: (file name, content, record, field, problem) -------------------------------
PLATFORM_CASES = {
    "native count 2e9": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][0].update(count=2 * 10**9)),
        "node type 'fast'", "count", "less than or equal to 1000000"),
    "native counts over the platform limit": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: [t.update(count=MAX_NODES // 2 + 1)
                                                      for t in d["node_types"]]),
        "node type 'slow'", "count", f"more than the limit of {MAX_NODES}"),
    "native cluster count 2e9": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: (d["node_types"][0].pop("count"), d.update(
            clusters=[{"name": "c0", "nodes": [{"type": "fast", "count": 2 * 10**9}]}]))),
        "cluster 'c0'", "nodes[0].count", "less than or equal to 1000000"),
    "native cores 1e26": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][1].update(cores=10**26)),
        "node type 'slow'", "cores", "a 27-digit integer"),
    "native power 1e308": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][0]["power"].update(
            static=1e308)), "node type 'fast'", "power.static", "less than or equal to"),
    "native clock 1e400 (JSON reads inf)": (
        "p.json", json.dumps(NATIVE_PLATFORM).replace('"clock_ghz": 2.0', '"clock_ghz": 1e400'),
        "node type 'slow'", "clock_ghz", "finite number"),
    "native clock 1e-300": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][1].update(clock_ghz=1e-300)),
        "node type 'slow'", "clock_ghz", "greater than or equal to 0.001"),
    "native typo of a required key": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][1].update(
            clock_gzh=d["node_types"][1].pop("clock_ghz"))),
        "node type 'slow'", "clock_gzh", "did you mean 'clock_ghz'?"),
    "native typo of an optional key": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][1].update(
            ops_per_cycel=2)), "node type 'slow'", "ops_per_cycel",
        "did you mean 'ops_per_cycle'?"),
    "native every node type unusable (0 cores)": (
        "p.json", mutated(NATIVE_PLATFORM, lambda d: [t.update(cores=0)
                                                      for t in d["node_types"]]),
        "node type 'fast'", "cores", "greater than 0"),
    "YAML repeated key": (
        "p.yaml", "node_types:\n  - {name: a, cores: 2, clock_ghz: 1, cores: 4}\n",
        "line 2, column 39", None, "key 'cores' appears twice"),
    "JSON repeated key": (
        "p.json", '{"node_types": [{"name": "a", "cores": 2, "clock_ghz": 1, "cores": 4}]}',
        None, None, "key 'cores' appears twice"),
    "IRMaSim number 2e9": (
        "p.json", mutated(IRMASIM_PLATFORM, lambda d: d["platform"]["p"]["clusters"][0]["nodes"][
            0].update(number=2 * 10**9)),
        "platform 'p'", "clusters[0].nodes[0].number", "less than or equal to 1000000"),
    "IRMaSim processors over the per-node core limit": (
        "p.json", mutated(IRMASIM_PLATFORM, lambda d: (d["processor"]["cpu"].update(
            cores=1_000_000), d["node"]["n"]["processors"][0].update(number=2))),
        "node type 'n'", "processors", "more than the limit of 1000000 per node"),
    "IRMaSim static power 1e308": (
        "p.json", mutated(IRMASIM_PLATFORM, lambda d: d["processor"]["cpu"].update(
            static_power=1e308)), "processor 'cpu'", "static_power", "less than or equal to"),
    "ds-sim limit 2e9": (
        "c.xml", ds_server(limit="2000000000"), "server 1 ('s')", "limit",
        "must be an integer from 1 to 1000000"),
    "ds-sim hourlyRate inf": (
        "c.xml", ds_server(hourlyRate="inf"), "server 1 ('s')", "hourlyRate", "got 'inf'"),
    "ds-sim hourlyRate nan": (
        "c.xml", ds_server(hourlyRate="nan"), "server 1 ('s')", "hourlyRate", "got 'nan'"),
    "ds-sim cores with a blank": (
        "c.xml", ds_server(cores=" 2"), "server 1 ('s')", "cores", "not an integer: ' 2'"),
    "ds-sim cores 1e3": (
        "c.xml", ds_server(cores="1e3"), "server 1 ('s')", "cores",
        "must be an integer from 1 to 1000000, got '1e3'"),
    "ds-sim cores superscript two": (
        "c.xml", ds_server(cores="²"), "server 1 ('s')", "cores", "not an integer: '²'"),
    "ds-sim cores -0": (
        "c.xml", ds_server(cores="-0"), "server 1 ('s')", "cores", "from 1 to"),
    "ds-sim memory with an underscore": (
        "c.xml", ds_server(memory="4_000"), "server 1 ('s')", "memory", "not an integer"),
    "ds-sim memory beyond a C long": (
        "c.xml", ds_server(memory="9" * 30), "server 1 ('s')", "memory", "from 0 to 2147483647"),
    "ds-sim randomSeed superscript": (
        "c.xml", ds_server().replace("<config>", '<config randomSeed="²">'), "<config>",
        "randomSeed", "not an integer"),
    "XML unknown encoding": (
        "c.xml", '<?xml version="1.0" encoding="bogus"?>' + ds_server(), "line 1", "encoding",
        "unknown encoding: bogus"),
}


@pytest.mark.parametrize("name", PLATFORM_CASES)
def test_bad_platform(tmp_path: Path, name: str) -> None:
    file, content, record, field, problem = PLATFORM_CASES[name]
    path = write(tmp_path / file, content)
    message = error_of(load_platform, path)
    assert_mentions(message, file, problem)
    if record:
        assert_mentions(message, f"{file}, {record}")
    if field:
        assert_mentions(message, f"field '{field}'")


def test_ds_sim_minus_zero_is_zero_and_plus_sign_is_fine(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "c.xml", ds_server(
        cores="+2", memory="-0", hourlyRate="-0")))
    only = platform.nodes[0].type
    assert (only.cores, only.memory_mb, str(only.hourly_price)) == (2, 0, "0.0")


def test_typo_in_a_format_that_ignores_unknown_keys(tmp_path: Path) -> None:
    doc = mutated(IRMASIM_WORKLOAD, lambda d: d["jobs"][1].update(
        subtme=d["jobs"][1].pop("subtime")))
    message = error_of(load_workload, write(tmp_path / "w.json", doc), PLATFORM)
    assert_mentions(message, "w.json, job 'j2', field 'subtime'", "required field is missing",
                    "the input has 'subtme': did you mean 'subtime'?")


# ---- workloads ---------------------------------------------------------------------------
PLATFORM = Platform.from_counts("p", [(NodeType("n", 8, 2.0, memory_mb=64000.0), 4)])

WORKLOAD_CASES = {
    "native run_time 1e308": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][0].update(run_time=1e308)),
        "job 'a'", "run_time", "less than or equal to 10000000000"),
    "native req_ops 1e308": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][1].update(req_ops=1e308)),
        "job 'b'", "req_ops", "less than or equal to 1e+30"),
    "native ipc 1e-300 (infinite run time)": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][1].update(ipc=1e-300)),
        "job 'b'", "ipc", "greater than or equal to 0.001"),
    "native run_time 5e-324 (subnormal: an infinite het_slowdown; found by fuzzing)": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][0].update(run_time=5e-324)),
        "job 'a'", "run_time", "must be 0 or at least 1e-09, got 5e-324"),
    "native req_ops 5e-324 (subnormal)": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][1].update(req_ops=5e-324)),
        "job 'b'", "req_ops", "must be 0 or at least 1e-09"),
    "native ntasks 10**30": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][0].update(ntasks=10**30)),
        "job 'a'", "ntasks", "a 31-digit integer"),
    "native submit 1e308": (
        "w.yaml", "jobs:\n  - {id: a, submit: 1e308, ntasks: 1, run_time: 5}\n",
        "job 'a'", "submit", "less than or equal to"),
    "native YAML 1e400 is infinite": (
        "w.yaml", "jobs:\n  - {id: a, submit: 0, ntasks: 1, run_time: 1e400}\n",
        "job 'a'", "run_time", "finite number"),
    "native missing key, an unknown one given": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][0].update(
            subtme=d["jobs"][0].pop("submit"))),
        "job 'a'", "submit", "required field is missing (unknown here: 'subtme')"),
    "native duplicate id": (
        "w.json", mutated(NATIVE_WORKLOAD, lambda d: d["jobs"][1].update(id="a")),
        "job 'a'", "id", "duplicate job id"),
    "IRMaSim ntasks 2e9": (
        "w.json", mutated(IRMASIM_WORKLOAD, lambda d: d["jobs"][0].update(ntasks=2 * 10**9)),
        "job 'j1'", "ntasks", "less than or equal to 100000000"),
    "IRMaSim req_ops 1e308 in a profile": (
        "w.json", mutated(IRMASIM_WORKLOAD, lambda d: d["profiles"]["p"].update(req_ops=1e308)),
        "job 'j1'", "req_ops", "less than or equal to 1e+30"),
    "IRMaSim duplicate id": (
        "w.json", mutated(IRMASIM_WORKLOAD, lambda d: d["jobs"][1].update(id="j1")),
        "job 'j1'", "id", "duplicate job id"),
    "Batsim res 1e21": (
        "w.json", mutated(BATSIM_WORKLOAD, lambda d: d["jobs"][0].update(res=10**21)),
        "job '1'", "res", "a 22-digit integer"),
    "Batsim walltime 1e308": (
        "w.json", mutated(BATSIM_WORKLOAD, lambda d: d["jobs"][0].update(walltime=1e308)),
        "job '1'", "walltime", "less than or equal to"),
    "Batsim delay 1e308 (infinite work)": (
        "w.json", mutated(BATSIM_WORKLOAD, lambda d: d["profiles"]["d"].update(delay=1e308)),
        "profile 'd'", "delay", "less than or equal to"),
    "Batsim duplicate id": (
        "w.json", mutated(BATSIM_WORKLOAD, lambda d: d["jobs"][1].update(id=1)),
        "job '1'", "id", "duplicate job id"),
    "SWF run_time 1e308": (
        "w.swf", swf("run_time", "1e308"), "line 3", "run_time", "1e+308 is out of range"),
    "SWF run_time 1e400": (
        "w.swf", swf("run_time", "1e400"), "line 3", "run_time", "not a finite number: inf"),
    "SWF run_time 5e-324 (subnormal)": (
        "w.swf", swf("run_time", "5e-324"), "line 3", "run_time",
        "must be 0 or at least 1e-09 in magnitude, got 4.94066e-324"),
    "SWF run_time nan": (
        "w.swf", swf("run_time", "nan"), "line 3", "run_time", "not a finite number: nan"),
    "SWF submit_time 1e308": (
        "w.swf", swf("submit_time", "1e308"), "line 3", "submit_time", "out of range"),
    "SWF requested_time 1e308": (
        "w.swf", swf("requested_time", "1e308"), "line 3", "requested_time", "out of range"),
    "SWF job_number 1e21": (
        "w.swf", swf("job_number", "1e21"), "line 3", "job_number", "1e+21 is out of range"),
    "SWF processors 1e26": (
        "w.swf", swf("allocated_processors", "1e26"), "line 3", "allocated_processors",
        "out of range"),
    "SWF requested memory 1e308": (
        "w.swf", swf("requested_memory", "1e308"), "line 3", "requested_memory", "out of range"),
    "SWF superscript digit": (
        "w.swf", swf("run_time", "²"), "line 3", "run_time", "not a number: '²'"),
    "SWF underscore in a number": (
        "w.swf", swf("run_time", "1_0"), "line 3", "run_time", "not a number: '1_0'"),
    "SWF empty field (17 fields)": (
        "w.swf", swf("run_time", ""), "line 3", "think_time", "expected 18 fields, found 17"),
    "SWF duplicate job number": (
        "w.swf", swf("job_number", "2", line=2), "line 4", "job_number",
        "duplicate job number 2"),
    "SWF binary garbage": (
        "w.swf", "\n".join(SWF_LINES) + "\n", "line 5", None, "not UTF-8 text"),
    "ds-sim job list duplicate id": (
        "j.xml", f"<jobs>{ds_job(id='4')}{ds_job(id='4', submitTime='9')}</jobs>", "job 4", "id",
        "duplicate job id 4 (job elements #1 and #2"),
    "ds-sim actRunTime 1e23": (
        "j.xml", f"<jobs>{ds_job(actRunTime='1' + '0' * 23)}</jobs>", "job 0", "actRunTime",
        "must be an integer from 0 to 2147483647"),
    "ds-sim estRunTime above a C int": (
        "j.xml", f"<jobs>{ds_job(estRunTime=str(2**31))}</jobs>", "job 0", "estRunTime",
        "from 0 to 2147483647, got '2147483648'"),
    "ds-sim id not an integer": (
        "j.xml", f"<jobs>{ds_job(id='x1')}</jobs>", "job #1", "id", "not an integer: 'x1'"),
}


def _binary_swf(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"3 0 \xff\xfe\n")


@pytest.mark.parametrize("name", WORKLOAD_CASES)
def test_bad_workload(tmp_path: Path, name: str) -> None:
    file, content, record, field, problem = WORKLOAD_CASES[name]
    path = write(tmp_path / file, content)
    if "binary" in name:
        _binary_swf(path)
    platform = (load_platform(write(tmp_path / "c.xml", DSSIM_CONFIG)) if file.endswith(".xml")
                else PLATFORM)
    message = error_of(load_workload, path, platform)
    assert_mentions(message, f"{file}, {record}", problem)
    if field:
        assert_mentions(message, f"field '{field}'")


@pytest.mark.parametrize("value, read", [("010", 10), ("+12", 12), ("1:30", "'1:30'"),
                                         ("0x10", "'0x10'"), ("0b11", "'0b11'"),
                                         ("1_000", "'1_000'")])
def test_yaml_numbers_are_plain_decimals(tmp_path: Path, value: str, read: object) -> None:
    """YAML 1.1's readings that silently change a number (PyYAML's: 010 is octal 8, 1:30 is
    90, 0x10 is 16, 1_000 is 1000) are not made: 010 is 10, the others stay text, which the
    schema refuses naming the field."""
    path = write(tmp_path / "p.yaml", f"node_types:\n  - name: n\n    cores: {value}\n"
                                      "    clock_ghz: 1\n")
    if isinstance(read, int):
        assert load_platform(path).node_types[0].cores == read
    else:
        assert_mentions(error_of(load_platform, path), "p.yaml", "field 'cores'",
                        f"valid integer (got {read})")


def test_yaml_booleans_are_only_true_and_false(tmp_path: Path) -> None:
    """YAML 1.1's yes/no/on/off are text (a node type named ``no`` keeps its name, where
    PyYAML would read ``False``); true and false stay booleans."""
    path = write(tmp_path / "p.yaml", "node_types:\n  - name: no\n    cores: 2\n"
                                      "    clock_ghz: 1\n  - name: on\n    cores: 2\n"
                                      "    clock_ghz: 1\n    on_demand: true\n")
    platform = load_platform(path)
    assert [t.name for t in platform.node_types] == ["no", "on"]
    assert [t.on_demand for t in platform.node_types] == [False, True]


@pytest.mark.parametrize("name", ["w.swf", "w.swf.gz", "w.json", "w.yaml"])
def test_byte_order_mark_is_dropped(tmp_path: Path, name: str) -> None:
    text = "\n".join(SWF_LINES) if ".swf" in name else json.dumps(NATIVE_WORKLOAD)
    data = ("\ufeff" + text).encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    workload = load_workload(path, PLATFORM)
    assert [j.id for j in workload.jobs] == (["1", "2"] if ".swf" in name else ["a", "b"])


def test_the_shortest_run_time_accepted_keeps_every_output_finite(tmp_path: Path) -> None:
    """Two 16-core jobs fill the two fast nodes; a third waits behind them for a run time of
    a nanosecond (the smallest :data:`~hetsched.limits.MIN_NONZERO`): its slowdowns are huge
    but finite, in every file, with no numpy warning."""
    jobs = [{"id": name, "submit": 0, "ntasks": 16, "run_time": run}
            for name, run in (("b", 10), ("c", 10), ("a", limits.MIN_NONZERO))]
    path = write(tmp_path / "w.json", json.dumps({"jobs": jobs}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = runner.invoke(app, ["run", "-w", str(path), "--out", str(tmp_path / "o"),
                                     "-q"])
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "o" / "jobs.csv").read_text().splitlines()
    het = float(rows[3].split(",")[rows[0].split(",").index("het_slowdown")])
    assert 1e9 < het < 1e308  # waited 5 s for a nanosecond's work
    for name in ("jobs.csv", "jobs.swf", "summary.json", "timeseries.csv"):
        assert not re.search(r"\b(inf|nan|Infinity|NaN)\b", (tmp_path / "o" / name).read_text())


def test_negative_zero_becomes_zero(tmp_path: Path) -> None:
    swf_path = write(tmp_path / "w.swf", swf("submit_time", "-0"))
    json_path = write(tmp_path / "w.json", mutated(NATIVE_WORKLOAD,
                                                   lambda d: d["jobs"][0].update(submit=-0.0)))
    for path in (swf_path, json_path):
        first = load_workload(path, PLATFORM).jobs[0]
        assert str(first.submit) == "0.0"


# ---- files that are not what they claim ------------------------------------------------------
FILE_CASES = {
    "empty JSON": ("p.json", "", "line 1, column 1", "malformed JSON"),
    "JSON top level is a list": ("p.json", "[1, 2]", None, "unrecognised platform format"),
    "JSON top level is a number": ("p.json", "3", None, "unrecognised platform format"),
    "JSON top level is a string": ("p.json", '"x"', None, "unrecognised platform format"),
    "JSON nested too deeply": ("p.json", "[" * 100_000 + "]" * 100_000, None,
                               "nested too deeply"),
    "YAML nested too deeply": ("p.yaml", "[" * 100_000, None, "nested too deeply"),
    "YAML impossible date": ("p.yaml", "node_types: 2024-13-01\n", None, "malformed YAML"),
    "JSON integer of 5000 digits": ("p.json", '{"node_types": ' + "9" * 5000 + "}",
                                    "line 1, column 16, field 'node_types'", "malformed JSON"),
    "JSON NaN literal": ("p.json", '{"node_types": [{"name": "NaN", "cores": 1,\n'
                                   '  "clock_ghz": NaN}]}', "line 2, column 16, field 'clock_ghz'",
                         "'NaN' is not a valid JSON number"),
    "JSON Infinity in a list": ("p.json", '{"node_types": [\n\n  -Infinity]}', "line 3, column 3",
                                "'-Infinity' is not a valid JSON number"),
    "empty XML": ("p.xml", "", "line 1", "malformed XML"),
    "empty YAML": ("p.yaml", "# nothing\n", None, "no YAML document"),
    "JSON null": ("p.json", "null", None, "unrecognised platform format"),
    "JSON lone surrogate in a name": (
        "p.json", '{"node_types": [{"name": "\\ud800", "cores": 1, "clock_ghz": 1}]}', None,
        "a string holds \\ud800, a lone surrogate"),
    "YAML lone surrogate in a name": (
        "p.yaml", 'node_types: [{name: "\\udfff", cores: 1, clock_ghz: 1}]', None,
        "a string holds \\udfff, a lone surrogate"),
    "YAML alias bomb (a billion strings)": (
        "p.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))
        + "node_types: [{name: n, cores: 1, clock_ghz: 1, extra: *i}]\n", None,
        "unknown field"),
    "binary garbage": ("p.json", bytes(range(256)), "line 2", "not UTF-8 text (byte 128)"),
}


@pytest.mark.parametrize("name", FILE_CASES)
def test_bad_file(tmp_path: Path, name: str) -> None:
    file, content, record, problem = FILE_CASES[name]
    path = tmp_path / file
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    message = error_of(load_platform, path)
    assert_mentions(message, file, problem)
    if record:
        assert_mentions(message, f"{file}, {record}")


def test_lone_surrogate_in_a_job_id_never_reaches_the_outputs(tmp_path: Path) -> None:
    path = write(tmp_path / "w.json", json.dumps(NATIVE_WORKLOAD).replace('"a"', '"\\ud800"'))
    assert_mentions(error_of(load_workload, path, PLATFORM), "w.json", "lone surrogate")


def test_config_naming_itself_as_its_job_list(tmp_path: Path) -> None:
    path = write(tmp_path / "c.xml", DSSIM_CONFIG.replace("</servers>",
                                                          '</servers><jobs file="c.xml"/>'))
    platform = load_platform(path)
    assert_mentions(error_of(load_workload, path, platform), "c.xml",
                    "not a ds-sim job list: the root element is <config>")


def test_gzip_truncated_or_not_gzip(tmp_path: Path) -> None:
    whole = gzip.compress(("\n".join(SWF_LINES) + "\n").encode() * 50)
    truncated = tmp_path / "t.swf.gz"
    truncated.write_bytes(whole[: len(whole) // 2])
    assert_mentions(error_of(load_workload, truncated, PLATFORM), "t.swf.gz", "cannot read",
                    "end-of-stream")
    plain = write(tmp_path / "p.swf.gz", "\n".join(SWF_LINES))
    assert_mentions(error_of(load_workload, plain, PLATFORM), "p.swf.gz", "Not a gzipped file")


@pytest.mark.parametrize("suffix", [".json", ".xml", ".swf", ".swf.gz", ".yaml"])
def test_a_device_is_refused_before_it_is_read(tmp_path: Path, suffix: str) -> None:
    """/dev/zero under an input's name would be read without end (all the memory)."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    link = tmp_path / f"z{suffix}"
    link.symlink_to("/dev/zero")
    for load in (load_platform, lambda path: load_workload(path, PLATFORM)):
        assert_mentions(error_of(load, link), f"z{suffix}", "not a regular file")


def test_files_beyond_the_size_limit_are_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A file (or a .swf.gz once decompressed: a gzip bomb) above limits.MAX_FILE_BYTES,
    here lowered to 1000 bytes."""
    monkeypatch.setattr("hetsched.files.MAX_FILE_BYTES", 1000)
    text = "\n".join(SWF_LINES * 40) + "\n"
    big = write(tmp_path / "big.swf", text)
    assert_mentions(error_of(load_workload, big, PLATFORM), "big.swf", "the file holds more "
                    "than 1,000 bytes")
    bomb = tmp_path / "bomb.swf.gz"
    bomb.write_bytes(gzip.compress(text.encode()))
    assert bomb.stat().st_size < 1000
    assert_mentions(error_of(load_workload, bomb, PLATFORM), "bomb.swf.gz",
                    "decompressed, it holds more than 1,000 bytes")


@pytest.mark.parametrize("suffix", [".json", ".xml", ".swf"])
def test_directory_given_as_a_file(tmp_path: Path, suffix: str) -> None:
    folder = tmp_path / f"d{suffix}"
    folder.mkdir()
    assert_mentions(error_of(load_workload, folder, PLATFORM), f"d{suffix}", "is a directory")


@pytest.mark.parametrize("suffix", [".json", ".xml", ".swf"])
def test_permission_denied(tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / f"w{suffix}", "x")

    def refuse(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr("xml.etree.ElementTree.parse", refuse)
    assert_mentions(error_of(load_workload, path, PLATFORM), f"w{suffix}", "cannot read",
                    "Permission denied")


# ---- ETC matrices ------------------------------------------------------------------------
ETC_CASES = {
    "header 1e8 x 1e8 (fails before allocating)": (
        "e.txt", "100000000 100000000 0\n1\n2\n", "line 3", None,
        "2 values, the header announces 100000000 × 100000000"),
    "header in float notation": ("e.txt", "1e8 1e8\n1\n", "line 1", "tasks",
                                 "not a whole number: '1e8'"),
    "header with a superscript": ("e.txt", "² 1\n1\n", "line 1", "tasks", "not a whole number"),
    "more values than the header": ("e.txt", "1 2\n1\n2\n3\n", "line 4", None,
                                    "more values than the header's 1 × 2 = 2"),
    "value 1e400": ("e.txt", "1 2\n1\n1e400\n", "line 3", "etc[0,1]", "not a finite number"),
    "value nan": ("e.csv", "1,nan\n", "line 1", "etc[0,1]", "not a finite number"),
    "value 1e308 (sums overflow)": ("e.txt", "2 1\n1e308\n1e308\n", "line 2", "etc[0,0]",
                                    "too large (at most 1e+15)"),
    "value with an underscore": ("e.csv", "1,2_0\n", "line 1", "etc[0,1]", "not a number"),
    "negative value": ("e.csv", "1,-2\n", "line 1", "etc[0,1]", "negative ETC value"),
}


@pytest.mark.parametrize("name", ETC_CASES)
def test_bad_etc(tmp_path: Path, name: str) -> None:
    file, content, record, field, problem = ETC_CASES[name]
    message = error_of(read_etc, write(tmp_path / file, content))
    assert_mentions(message, f"{file}, {record}", problem)
    if field:
        assert_mentions(message, f"field '{field}'")


@pytest.mark.parametrize("file, content", [("e.txt", "\ufeff2 1 0\n1.5\n2.5\n"),
                                           ("e.csv", "\ufeff1.5\n2.5\n")])
def test_etc_byte_order_mark_is_dropped(tmp_path: Path, file: str, content: str) -> None:
    assert read_etc(write(tmp_path / file, content)).tolist() == [[1.5], [2.5]]


# ---- ds-sim job lists on any platform ------------------------------------------------------
def test_ds_sim_job_list_runs_with_fcfs_on_a_platform_without_disk(tmp_path: Path) -> None:
    jobs = write(tmp_path / "j.xml", f"<jobs>{job(0, 0, 2, 50)}{job(1, 10, 4, 20)}</jobs>")
    platform = load_platform(write(tmp_path / "p.json", NATIVE_PLATFORM))  # disk: unlimited
    workload = load_workload(jobs, platform)
    result = simulate(platform, workload, create("fcfs"))
    assert [j.id for j in workload.jobs] == ["0", "1"]
    for index, actual in enumerate([50, 20]):  # ds-sim work: actual run time x 1e9 ops/s
        ((node, _),) = result.allocation[index]
        speed = platform.nodes[node].type.speed
        assert result.end[index] - result.start[index] == pytest.approx(actual * 1e9 / speed)


def test_ds_sim_algorithm_on_a_platform_without_disk_is_a_config_error(tmp_path: Path) -> None:
    jobs = write(tmp_path / "j.xml", f"<jobs>{job(0, 0, 2, 50)}</jobs>")
    platform = load_platform(write(tmp_path / "p.json", NATIVE_PLATFORM))
    with pytest.raises(ConfigError) as info:
        simulate(platform, load_workload(jobs, platform), create("ff"))
    assert_mentions(str(info.value), "ds-sim platform", "p.json", "node type 'fast'",
                    "no disk size")


def test_ds_sim_job_no_node_can_hold_on_any_platform(tmp_path: Path) -> None:
    jobs = write(tmp_path / "j.xml", f"<jobs>{job(0, 0, 16, 50)}</jobs>")
    platform = load_platform(write(tmp_path / "p.json", NATIVE_PLATFORM))
    assert_mentions(error_of(load_workload, jobs, platform), "j.xml, job 0", "16 cores",
                    "no server type can run it")


def test_values_at_the_limits_are_accepted_and_stay_finite(tmp_path: Path) -> None:
    """The slowest, most power-hungry nodes running the largest job: every result is finite."""
    node = {"name": "n", "cores": limits.MAX_CORES_PER_NODE, "clock_ghz": limits.MIN_CLOCK_GHZ,
            "ops_per_cycle": limits.MIN_OPS_PER_CYCLE, "memory_gb": limits.MAX_MEMORY_MB / 1024,
            "count": 2, "power": {"idle": limits.MAX_POWER_W, "static": limits.MAX_POWER_W,
                                  "dynamic_per_core": limits.MAX_POWER_W}}
    jobs = [{"id": "big", "submit": limits.MAX_TIME, "ntasks": limits.MAX_CORES_PER_NODE,
             "req_ops": limits.MAX_OPS, "ipc": limits.MIN_IPC, "req_time": limits.MAX_TIME},
            {"id": "long", "submit": 0, "ntasks": 1, "run_time": limits.MAX_TIME,
             "ipc": limits.MAX_IPC}]
    platform = load_platform(write(tmp_path / "p.json", {"node_types": [node]}))
    workload = load_workload(write(tmp_path / "w.json", {"jobs": jobs}), platform)
    result = simulate(platform, workload, create("fcfs"))
    assert (result.state == JobState.FINISHED).all()
    for values in (result.start, result.end, result.job_energy_j, result.node_energy_j):
        assert np.isfinite(values).all()
    assert result.end.max() == pytest.approx(limits.MAX_TIME + limits.MAX_OPS / (
        limits.MIN_IPC * limits.MIN_CLOCK_GHZ * 1e9 * limits.MIN_OPS_PER_CYCLE))


# ---- the Workload model itself ---------------------------------------------------------------
def test_workload_refuses_duplicate_ids_and_non_finite_numbers() -> None:
    one = Job("x", 0.0, 1, 1e9, 10.0)
    with pytest.raises(ValueError, match="duplicate job id 'x'"):
        Workload("w", (one, Job("x", 1.0, 1, 1e9, 10.0)))
    with pytest.raises(ValueError, match="req_ops is not finite"):
        Workload("w", (Job("y", 0.0, 1, float("inf"), 10.0),))


# ---- through the command line: exit code 2 and one `error:` line -----------------------------
def test_cli_ds_sim_job_list_on_an_irmasim_platform_runs(tmp_path: Path) -> None:
    platform = write(tmp_path / "p.json", IRMASIM_PLATFORM)
    jobs = write(tmp_path / "j.xml", f"<jobs>{job(0, 0, 2, 50)}{job(1, 10, 4, 20)}</jobs>")
    result = runner.invoke(app, ["run", "-p", str(platform), "-w", str(jobs), "-s", "fcfs",
                                 "--out", str(tmp_path / "o"), "--quiet"])
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "o" / "jobs.csv").read_text().splitlines()
    assert len(rows) == 3


CLI_CASES = {
    "ds-sim duplicate job ids": (
        lambda d: ["-p", write(d / "c.xml", DSSIM_CONFIG),
                   "-w", write(d / "j.xml", f"<jobs>{job(1, 0, 1, 5)}{job(1, 2, 1, 5)}</jobs>")],
        ("j.xml, job 1, field 'id'", "duplicate job id 1")),
    "ds-sim algorithm on an IRMaSim platform": (
        lambda d: ["-p", write(d / "p.json", IRMASIM_PLATFORM),
                   "-w", write(d / "j.xml", f"<jobs>{job(0, 0, 1, 5)}</jobs>"), "-s", "ff"],
        ("ds-sim platform", "node type 'n'", "no disk size")),
    "native count 2e9": (
        lambda d: ["-p", write(d / "p.json", PLATFORM_CASES["native count 2e9"][1])],
        ("p.json, node type 'fast', field 'count'",)),
    "typo in a platform key": (
        lambda d: ["-p", write(d / "p.json", PLATFORM_CASES["native typo of a required key"][1])],
        ("field 'clock_gzh'", "did you mean 'clock_ghz'?")),
    "SWF run time 1e308": (
        lambda d: ["-w", write(d / "w.swf", swf("run_time", "1e308"))],
        ("w.swf, line 3, field 'run_time'", "out of range")),
    "ds-sim hourlyRate inf": (
        lambda d: ["-p", write(d / "c.xml", ds_server(hourlyRate="inf"))],
        ("c.xml, server 1 ('s'), field 'hourlyRate'",)),
    "XML unknown encoding": (
        lambda d: ["-p", write(d / "c.xml", PLATFORM_CASES["XML unknown encoding"][1])],
        ("c.xml, line 1, field 'encoding'", "unknown encoding")),
    "Batsim res 1e21": (
        lambda d: ["-w", write(d / "w.json", WORKLOAD_CASES["Batsim res 1e21"][1])],
        ("w.json, job '1', field 'res'",)),
}


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_bad_input_is_one_error_line(tmp_path: Path, name: str) -> None:
    arguments, fragments = CLI_CASES[name]
    result = runner.invoke(app, ["run", *map(str, arguments(tmp_path)),
                                 "--out", str(tmp_path / "o")])
    assert_one_line_error(result, *fragments)


def test_cli_map_etc_header_larger_than_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "e.txt", "100000000 100000000 0\n1\n2\n")
    result = runner.invoke(app, ["map", str(path)])
    assert_one_line_error(result, "e.txt, line 3", "the header announces")


def test_input_error_is_one_line_even_for_odd_values(tmp_path: Path) -> None:
    """A newline inside a name or value never splits the message."""
    path = write(tmp_path / "p.json", mutated(NATIVE_PLATFORM, lambda d: d["node_types"][0]
                                              .update(name="a\nb", cores="x\ny")))
    assert_mentions(error_of(load_platform, path), "p.json, node type 'a b', field 'cores'")
