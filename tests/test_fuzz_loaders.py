"""Fuzzing the input loaders: mutated real files and hypothesis-generated inputs.

Property: a loader either succeeds, and then a short fcfs simulation (or a mapping heuristic,
for ETC matrices) runs to the end, or it raises :class:`InputError` whose message is one line
naming the file. Through the CLI: exit code 0, or 2 with one ``error:`` line. Any other
exception is a failure. Everything is seeded: a failure names the sample and the seed, and
``mutate(sample, seed)`` rebuilds the input.
"""

from __future__ import annotations

import gzip
import json
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.errors import InputError
from hetsched.examples import wfformat_example_path
from hetsched.mapping.dag import heft
from hetsched.mapping.dag_io import read_dag
from hetsched.mapping.graph import check_schedule
from hetsched.mapping.io import read_etc
from hetsched.mapping.registry import run_heuristic
from hetsched.platform.load import load_platform
from hetsched.platform.model import Platform
from hetsched.schedulers.registry import create
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload
from support import assert_one_line_error, shared

runner = CliRunner()

# ---- the samples: small real files -----------------------------------------------------------
NATIVE_PLATFORM = """\
name: fuzz
node_types:
  - {name: fast, cores: 8, clock_ghz: 3.0, memory_gb: 64, mem_bw_gbs: 40,
     power: {idle: 20, static: 50, dynamic_per_core: 10}, hourly_price: 0.5}
  - {name: slow, cores: 4, clock_ghz: 2.0, ops_per_cycle: 2, boot_time: 5, on_demand: true,
     disk_gb: 100}
clusters:
  - {name: c0, nodes: [{type: fast, count: 2}, {type: slow, count: 3}]}
"""
NATIVE_WORKLOAD = json.dumps({"name": "fuzz", "jobs": [
    {"id": "a", "submit": 0, "ntasks": 4, "run_time": 60, "mem_mb": 100, "disk_mb": 500,
     "cpu_util": 0.5, "queue": 2, "partition": 1, "walltime": 90},
    {"id": "b", "submit": 5, "ntasks": 2, "req_ops": 3e11, "req_time": 600, "ipc": 2,
     "nodes": "spread", "mem_bw_gbs": 1},
    {"id": 3, "submit": 7.5, "ntasks": 8, "run_time": 30, "nodes": 2, "profile": "x",
     "fixed_duration": True, "parents": ["a"]}]},
    indent=1)
BATSIM_WORKLOAD = json.dumps({"nb_res": 8, "jobs": [
    {"id": 1, "subtime": 0, "res": 3, "walltime": 100, "profile": "d60"},
    {"id": 2, "subtime": 4, "res": 1, "walltime": -1, "profile": "d10"}],
    "profiles": {"d60": {"type": "delay", "delay": 60}, "d10": {"type": "delay", "delay": 10}}},
    indent=1)


def _head(path: Path, keep: Callable[[list[str]], list[str]]) -> bytes:
    return ("\n".join(keep(path.read_text().splitlines())) + "\n").encode()


def _first_jobs(lines: list[str], count: int = 8) -> list[str]:
    jobs = [line for line in lines if "<job " in line][:count]
    return ['<?xml version="1.0" encoding="UTF-8"?>', "<jobs>", *jobs, "</jobs>"]


def _small_braun(lines: list[str]) -> list[str]:
    """The first 6 tasks of a 512 × 16 Braun instance, with a matching header."""
    return ["6 16 0", *lines[1:1 + 6 * 16]]


@dataclass(frozen=True)
class Sample:
    """A sample file: its name (suffix included) and how to read its bytes."""

    name: str
    content: Callable[[], bytes]


SAMPLES = {
    "swf": Sample("lublin.swf", lambda: _head(shared("traces/lublin_256.swf"),
                                              lambda lines: lines[:50])),
    "irmasim_platform": Sample("lublin20.json", lambda: shared(
        "platforms/irmasim_lublin_20node.json").read_bytes()),
    "native_platform": Sample("native.yaml", lambda: NATIVE_PLATFORM.encode()),
    "native_workload": Sample("native.json", lambda: NATIVE_WORKLOAD.encode()),
    "irmasim_workload": Sample("dual.json", lambda: shared(
        "traces/irmasim_dual_core_jobs.json").read_bytes()),
    "batsim_workload": Sample("batsim.json", lambda: BATSIM_WORKLOAD.encode()),
    "dssim_config": Sample("config.xml", lambda: shared(
        "dssim/configs/config12-long-med.xml").read_bytes()),
    "dssim_jobs": Sample("jobs.xml", lambda: _head(
        shared("dssim/jobs/config12-long-med-jobs.xml"), _first_jobs)),
    "batsim_v5_profiles": Sample("batsim5.json", lambda: (
        Path(__file__).parent / "data" / "batsim_workloads" / "test_various_profile_types_v5.json"
    ).read_bytes()),
    "batsim_sequences": Sample("batsim_seq.json", lambda: (
        Path(__file__).parent / "data" / "batsim_workloads" / "test_sequence_delay_v4.json"
    ).read_bytes()),
    "simgrid_platform": Sample("energy.xml", lambda: (
        Path(__file__).parent / "data" / "batsim_platforms" / "energy_platform.xml").read_bytes()),
    "simgrid_cluster": Sample("cluster.xml", lambda: (
        Path(__file__).parent / "data" / "batsim_platforms" / "cluster_energy_128.xml"
    ).read_bytes()),
    "etc": Sample("u_c_hihi.txt", lambda: _head(shared("braun/u_c_hihi.0"),
                                                _small_braun)),
    "dag_json": Sample("topcuoglu.json", lambda: shared("dag/topcuoglu2002.json").read_bytes()),
    "stg": Sample("rand0000.stg", lambda: shared("stg/50/rand0000.stg").read_bytes()),
    "wfformat": Sample("montage.json", lambda: wfformat_example_path().read_bytes()),
}

# ---- mutations ---------------------------------------------------------------------------
EXTREMES = [b"1e308", b"-1", b"1e21", b"nan", b"inf", str(2**63).encode(), "²".encode(), b"",
            b"-0", b"1e400", b"1" + b"0" * 30, b"-1e308", b"0", b"+7", b" 3", b"1_0", b"0.5",
            b"2147483648", b"1e-300", b"NaN", b"Infinity", b"9" * 5000]
NUMBER = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
WORD = re.compile(rb"[A-Za-z_]{3,}")
BOM = "\ufeff".encode()


def _pick(rng: np.random.Generator, items: list) -> object:
    return items[int(rng.integers(len(items)))]


def flip_byte(rng: np.random.Generator, data: bytes) -> bytes:
    if not data:
        return b"\xff"
    at = int(rng.integers(len(data)))
    return data[:at] + bytes([data[at] ^ (1 << int(rng.integers(8)))]) + data[at + 1:]


def delete_line(rng: np.random.Generator, data: bytes) -> bytes:
    lines = data.split(b"\n")
    del lines[int(rng.integers(len(lines)))]
    return b"\n".join(lines)


def duplicate_line(rng: np.random.Generator, data: bytes) -> bytes:
    lines = data.split(b"\n")
    at = int(rng.integers(len(lines)))
    return b"\n".join(lines[:at + 1] + lines[at:])


def extreme_number(rng: np.random.Generator, data: bytes) -> bytes:
    numbers = list(NUMBER.finditer(data))
    if not numbers:
        return data
    match = _pick(rng, numbers)
    return data[:match.start()] + _pick(rng, EXTREMES) + data[match.end():]


def truncate(rng: np.random.Generator, data: bytes) -> bytes:
    return data[:int(rng.integers(len(data) + 1))]


def insert_bom(rng: np.random.Generator, data: bytes) -> bytes:
    if rng.random() < 0.7:
        return BOM + data
    at = data.find(b"\n", int(rng.integers(len(data) + 1))) + 1
    return data[:at] + BOM + data[at:]


def typo_key(rng: np.random.Generator, data: bytes) -> bytes:
    """A word (key, attribute, element name) with one letter dropped, doubled or swapped."""
    words = list(WORD.finditer(data))
    if not words:
        return data
    match = _pick(rng, words)
    word = bytearray(match.group())
    at = int(rng.integers(len(word) - 1))
    kind = int(rng.integers(3))
    if kind == 0:
        del word[at]
    elif kind == 1:
        word.insert(at, word[at])
    else:
        word[at], word[at + 1] = word[at + 1], word[at]
    return data[:match.start()] + bytes(word) + data[match.end():]


def random_key(rng: np.random.Generator, data: bytes) -> bytes:
    """An extra key (JSON/YAML) or attribute (XML) next to an existing one."""
    key = _pick(rng, [b"zz", b"count", b"cores", b"id", b"jobs", b"submit", b"limit"])
    value = _pick(rng, EXTREMES) or b"1"
    if data.lstrip(BOM).lstrip().startswith(b"<"):
        spots, new = [m.end() for m in re.finditer(rb"<[a-z]+", data)], b' %s="%s"' % (key, value)
    elif data.lstrip(BOM).lstrip().startswith((b"{", b"[")):
        spots, new = [m.end() for m in re.finditer(rb"\{", data)], b'"%s": %s, ' % (key, value)
    else:
        spots, new = [m.end() for m in re.finditer(rb"\{", data)], b"%s: %s, " % (key, value)
    if not spots:
        return data
    at = _pick(rng, spots)
    return data[:at] + new + data[at:]


MUTATIONS = (flip_byte, delete_line, duplicate_line, extreme_number, extreme_number,
             extreme_number, truncate, insert_bom, typo_key, random_key)


def mutate(sample: str, seed: int) -> tuple[bytes, list[str]]:
    """The sample's bytes after one to three seeded mutations, and their names."""
    rng = np.random.default_rng([seed, sum(sample.encode())])
    data, names = SAMPLES[sample].content(), []
    for _ in range(int(rng.integers(1, 4))):
        mutation = _pick(rng, list(MUTATIONS))
        data = mutation(rng, data)
        names.append(mutation.__name__)
    return data, names


# ---- the property ---------------------------------------------------------------------------
def outcome(call: Callable[[], object], path: Path) -> object | None:
    """``call()``'s result, or ``None`` after an InputError that is one line naming ``path``.
    Any other exception propagates (the test fails)."""
    try:
        return call()
    except InputError as err:
        message = str(err)
        assert "\n" not in message and path.name in message, message
        return None


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The unmutated platforms the workload samples are loaded for."""
    folder = tmp_path_factory.mktemp("base")
    paths = {}
    for key in ("irmasim_platform", "dssim_config"):
        paths[key] = folder / SAMPLES[key].name
        paths[key].write_bytes(SAMPLES[key].content())
    return {"platform": load_platform(paths["irmasim_platform"]),
            "dssim_platform": load_platform(paths["dssim_config"])}


def run_workload(platform: Platform, path: Path, schedulers: tuple[str, ...] = ("fcfs",)) -> None:
    """Load the workload at ``path``; if it loads, simulate it with each scheduler: every
    time and energy of the result is finite (NaN: a job that never started or ended)."""
    workload = outcome(lambda: load_workload(path, platform), path)
    if workload is None:
        return
    for name in schedulers:  # a clean refusal (e.g. jobs with parents) is fine too
        result = outcome(lambda: simulate(platform, workload, create(name)), path)
        if result is None:
            continue
        energies = (result.job_energy_j, result.node_energy_j) if result.has_energy else ()
        for values in (result.start, result.end, *energies):
            assert not np.isinf(values).any(), name
        assert np.isfinite(result.t_end), name


def check_platform(path: Path, workload: Path | None, schedulers: tuple[str, ...]) -> None:
    """Load the platform at ``path``; if it loads, its speeds and powers are finite and the
    ``workload`` runs on it."""
    platform = outcome(lambda: load_platform(path), path)
    if platform is not None:
        arrays = platform.arrays
        for values in (arrays.speed, arrays.idle_w, arrays.full_power_w):
            assert np.isfinite(values).all() and (values >= 0).all()
        if workload is not None:
            run_workload(platform, workload, schedulers)


def check(sample: str, path: Path, base: dict[str, object], tmp: Path) -> None:
    """Load the (mutated) file at ``path`` as ``sample`` is read, then simulate."""
    if sample == "etc":
        etc = outcome(lambda: read_etc(path), path)
        if etc is not None:
            run_heuristic("min_min", etc)
    elif sample in ("dag_json", "stg"):
        graph = outcome(lambda: read_dag(path, processors=2 if sample == "stg" else None), path)
        if graph is not None:
            schedule = heft(graph)
            assert not check_schedule(graph, schedule) and np.isfinite(schedule.makespan)
    elif sample in ("irmasim_platform", "native_platform", "simgrid_platform",
                    "simgrid_cluster"):
        workload = tmp / "w.json"
        workload.write_bytes(SAMPLES["native_workload"].content())
        check_platform(path, workload, ("fcfs",))
    elif sample == "dssim_config":
        jobs = tmp / "jobs.xml"
        jobs.write_bytes(SAMPLES["dssim_jobs"].content())
        check_platform(path, jobs, ("fcfs", "ff"))
    elif sample == "dssim_jobs":
        run_workload(base["dssim_platform"], path, ("fcfs", "ff"))
    else:
        run_workload(base["platform"], path)


def fuzz(sample: str, seeds: range, base: dict[str, object], tmp: Path) -> None:
    for seed in seeds:
        data, names = mutate(sample, seed)
        path = tmp / SAMPLES[sample].name
        if sample == "swf" and seed % 4 == 0:  # some gzipped, some of them damaged
            path = tmp / "lublin.swf.gz"
            data = gzip.compress(data, mtime=0)
            data = flip_byte(np.random.default_rng(seed), data) if seed % 8 == 0 else data
        path.write_bytes(data)
        try:
            check(sample, path, base, tmp)
        except Exception as err:  # name the input that broke the property
            raise AssertionError(f"{sample}, seed {seed}, mutations {names}: "
                                 f"{type(err).__name__}: {err}\n{traceback.format_exc()}") from err


@pytest.mark.parametrize("sample", SAMPLES)
def test_mutated_files_load_or_fail_cleanly(sample: str, base: dict[str, object],
                                            tmp_path: Path) -> None:
    fuzz(sample, range(100), base, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES)
def test_many_mutated_files_load_or_fail_cleanly(sample: str, base: dict[str, object],
                                                 tmp_path: Path) -> None:
    fuzz(sample, range(100, 1100), base, tmp_path)


@pytest.mark.parametrize("sample", SAMPLES)
def test_mutations_really_change_the_files(sample: str) -> None:
    """The fuzzer is not vacuous: most mutants differ from their sample, and some break it."""
    original = SAMPLES[sample].content()
    assert sum(mutate(sample, seed)[0] != original for seed in range(20)) >= 15, sample


# ---- through the CLI: exit code 0, or 2 and one error line ------------------------------------
@pytest.mark.parametrize("sample, seed", [(s, seed) for s in ("swf", "native_platform",
                                                               "dssim_jobs", "batsim_workload")
                                          for seed in (1, 2, 3)])
def test_cli_on_mutated_files(sample: str, seed: int, tmp_path: Path) -> None:
    data, _ = mutate(sample, seed)
    path = tmp_path / SAMPLES[sample].name
    path.write_bytes(data)
    if sample == "native_platform":
        arguments = ["-p", str(path)]
    elif sample == "dssim_jobs":
        config = tmp_path / "config.xml"
        config.write_bytes(SAMPLES["dssim_config"].content())
        arguments = ["-p", str(config), "-w", str(path), "-s", "ff"]
    else:
        arguments = ["-w", str(path)]
    result = runner.invoke(app, ["run", *arguments, "--out", str(tmp_path / "o"), "--quiet"])
    if result.exit_code != 0:
        assert_one_line_error(result, path.name)


# ---- hypothesis-generated inputs -------------------------------------------------------------
FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
SUFFIXES = (".json", ".yaml", ".xml", ".swf", ".swf.gz", ".txt", ".csv")


@FUZZ
@given(data=st.binary(max_size=600), suffix=st.sampled_from(SUFFIXES))
def test_arbitrary_bytes(data: bytes, suffix: str, base: dict[str, object],
                         tmp_path: Path) -> None:
    path = tmp_path / f"f{suffix}"
    path.write_bytes(gzip.compress(data, mtime=0) if suffix == ".swf.gz" and data[:1] == b"z"
                     else data)
    if suffix in (".txt", ".csv"):
        outcome(lambda: read_etc(path), path)
    else:
        outcome(lambda: load_platform(path), path)
        run_workload(base["platform"], path)


#: Values that break naive loaders: extremes, wrong types, nesting.
NASTY = st.one_of(
    st.sampled_from([0, -1, 1, 2, -0.0, 1e308, -1e308, 1e-300, 2**31, 2**63, 10**30, 10**400,
                     1.5, "", "1", "²", "spread", "\ud800", None, True, [], {}]),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10),
    st.text(max_size=5), st.lists(st.integers(0, 3), max_size=2))
JOB_KEYS = ("id", "submit", "subtime", "ntasks", "res", "run_time", "req_ops", "req_time",
            "walltime", "ipc", "nodes", "mem_mb", "mem", "disk_mb", "mem_vol", "mem_bw_gbs",
            "profile", "parents", "subtme")
NODE_KEYS = ("name", "cores", "clock_ghz", "ops_per_cycle", "memory_gb", "mem_bw_gbs",
             "hourly_price", "boot_time", "count", "power", "clock_gzh")


def _document(keys: tuple[str, ...], fixed: dict[str, object]) -> st.SearchStrategy:
    """Dicts holding ``fixed`` with some values replaced or removed, and some nasty keys."""
    return st.builds(lambda extra, dropped: {**{k: v for k, v in fixed.items()
                                                if k not in dropped}, **extra},
                     st.dictionaries(st.sampled_from(keys), NASTY, max_size=3),
                     st.sets(st.sampled_from(list(fixed)), max_size=2))


def _dump(document: object, suffix: str) -> str:
    return (json.dumps(document, allow_nan=True) if suffix == ".json"
            else yaml.safe_dump(document, allow_unicode=True))


@FUZZ
@given(jobs=st.lists(_document(JOB_KEYS, {"id": "a", "submit": 0, "ntasks": 1, "run_time": 5}),
                     max_size=4),
       profiles=st.none() | st.dictionaries(st.sampled_from(["a", "p"]), st.one_of(
           NASTY, _document(("type", "delay", "req_ops", "req_time"),
                            {"type": "delay", "delay": 5}))),
       suffix=st.sampled_from([".json", ".yaml"]))
def test_generated_workload_documents(jobs: list, profiles: object, suffix: str,
                                      base: dict[str, object], tmp_path: Path) -> None:
    document = {"jobs": jobs} if profiles is None else {"jobs": jobs, "profiles": profiles}
    path = tmp_path / f"w{suffix}"
    path.write_text(_dump(document, suffix))
    run_workload(base["platform"], path)


@FUZZ
@given(types=st.lists(_document(NODE_KEYS, {"name": "n", "cores": 2, "clock_ghz": 1.0}),
                      min_size=1, max_size=3),
       suffix=st.sampled_from([".json", ".yaml"]))
def test_generated_platform_documents(types: list, suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"p{suffix}"
    path.write_text(_dump({"node_types": types}, suffix))
    workload = tmp_path / "w.json"
    workload.write_bytes(SAMPLES["native_workload"].content())
    check_platform(path, workload, ("fcfs",))


TOKENS = st.one_of(st.sampled_from(["-1", "0", "1", "1e308", "nan", "inf", "1e21", "²", "-0",
                                    "1.5", "9" * 40, "1_0"]), st.integers(-5, 100).map(str))


@FUZZ
@given(rows=st.lists(st.lists(TOKENS, min_size=16, max_size=19), max_size=5))
def test_generated_swf_lines(rows: list[list[str]], base: dict[str, object],
                             tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    run_workload(base["platform"], path)


ATTRIBUTE = st.one_of(TOKENS, st.text(max_size=4))


@FUZZ
@given(server=st.dictionaries(st.sampled_from(["type", "limit", "bootupTime", "hourlyRate",
                                               "cores", "memory", "disk"]), ATTRIBUTE),
       job=st.dictionaries(st.sampled_from(["id", "submitTime", "estRunTime", "actRunTime",
                                            "cores", "memory", "disk"]), ATTRIBUTE))
def test_generated_ds_sim_attributes(server: dict, job: dict, tmp_path: Path) -> None:
    defaults = {"type": "s", "limit": "2", "bootupTime": "1", "hourlyRate": "0.1", "cores": "4",
                "memory": "4000", "disk": "4000"}
    attributes = " ".join(f"{k}={quoteattr(v)}" for k, v in {**defaults, **server}.items())
    config = tmp_path / "c.xml"
    config.write_text(f"<config><servers><server {attributes}/></servers></config>")
    job_defaults = {"id": "0", "submitTime": "0", "estRunTime": "5", "cores": "1",
                    "memory": "10", "disk": "10"}
    job_attributes = " ".join(f"{k}={quoteattr(v)}" for k, v in {**job_defaults, **job}.items())
    jobs = tmp_path / "j.xml"
    jobs.write_text(f"<jobs><job {job_attributes}/></jobs>")
    check_platform(config, jobs, ("fcfs", "ff"))
