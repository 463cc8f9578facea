"""Platform loaders: native JSON/YAML, IRMaSim JSON (+ platform library), format detection."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from hetsched.examples import default_platform_path
from hetsched.platform.irmasim import load_irmasim_platform
from hetsched.platform.load import load_platform
from hetsched.platform.model import Reservation
from hetsched.platform.native import load_native_platform
from support import assert_mentions, error_of, shared, write

INF = float("inf")


# ---------------------------------------------------------------- IRMaSim, real files

def test_lublin_20_nodes() -> None:
    platform = load_platform(shared("platforms/irmasim_lublin_20node.json"))
    assert len(platform.nodes) == 20
    assert platform.total_cores == 496
    assert platform.name == "irmasim_lublin_20node"
    node = platform.nodes[0]
    assert node.name == "node_4_2-0" and node.cluster == "cluster0"
    t = node.type
    assert (t.cores, t.clock_ghz, t.ops_per_cycle) == (4, 2.0, 1.0)
    assert t.speed == 2e9
    # static_power is the processor's (IRMaSim's Core takes static_power / cores each)
    assert t.idle_w == pytest.approx(0.05 * 6.14211)
    assert t.static_w == pytest.approx(6.14211)
    assert t.dynamic_w_per_core == pytest.approx(5.59316)
    assert t.memory_mb == 32 * 1024
    assert t.mem_bw_gbs == INF
    speeds = sorted({n.type.speed for n in platform.nodes})
    assert speeds == [2e9, 2.5e9, 3e9, 3.5e9]
    assert platform.slowest_speed == 2e9
    assert platform.max_node_cores == 64
    big = platform.nodes[-1].type
    assert (big.name, big.cores, big.clock_ghz) == ("node_64_35", 64, 3.5)
    assert big.full_power_w == pytest.approx(6.14211 + 64 * 5.59316)


def test_kit_80_nodes() -> None:
    platform = load_platform(shared("platforms/irmasim_kit_80node.json"))
    assert len(platform.nodes) == 80
    assert platform.total_cores == 1984
    assert {n.type.speed for n in platform.nodes} == {2.5e9, 3e9}
    assert all(n.type.memory_mb == INF for n in platform.nodes)  # no memory section
    names = [n.name for n in platform.nodes]
    assert names[:9] == [f"node_4_2.5-{k}" for k in range(8)] + ["node_4_3-0"]
    assert len(set(names)) == 80


def test_dual_core() -> None:
    platform = load_irmasim_platform(shared("platforms/irmasim_dual_core.json"))
    (node,) = platform.nodes
    assert node.name == "n1134-0"
    assert node.type.cores == 2
    assert node.type.speed == pytest.approx(1e6)
    assert node.type.idle_w == pytest.approx(0.005 * 50)
    assert node.type.static_w == 50
    assert node.type.dynamic_w_per_core == 100
    assert platform.contention == "irmasim"
    assert node.type.memory_mb == 100 * 1024


# ---------------------------------------------------------------- IRMaSim, synthetic

def irmasim_doc(node: dict | None = None, processor: dict | None = None,
                nodes: list | None = None) -> dict:
    doc: dict = {"platform": {"p": {"id": "p", "model_name": "modelV1", "clusters": [
        {"id": "c0", "nodes": nodes or [{"type": "n", "number": 2}]}]}}}
    doc["node"] = node if node is not None else {
        "n": {"processors": [{"type": "cpu", "number": 2}], "memory": {"capacity": 8}}}
    doc["processor"] = processor if processor is not None else {
        "cpu": {"cores": 4, "clock_rate": 2.0, "dpflops_per_cycle": 2, "static_power": 3,
                "dynamic_power": 1.5, "min_power": 0.1, "b": -1, "uarch": "x"}}
    return doc


def test_irmasim_multi_processor_node(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", irmasim_doc()))
    assert [n.name for n in platform.nodes] == ["n-0", "n-1"]
    t = platform.nodes[0].type
    assert t.cores == 8 and t.speed == 4e9
    # two processors of 4 cores, each its own power: idle 0.1 * 3 W, static 3 W
    assert [p.cores for p in t.processors] == [4, 4]
    assert [(p.idle_w, p.static_w, p.dynamic_w_per_core) for p in t.processors] == \
        [(pytest.approx(0.3), 3, 1.5)] * 2
    assert t.idle_w == pytest.approx(2 * 0.1 * 3)
    assert t.static_w == pytest.approx(6)
    assert t.dynamic_w_per_core == 1.5
    assert t.processors[0].param("b", 0.0) == -1 and t.processors[0].param("c", 7.0) == 7.0
    assert t.memory_mb == 8 * 1024


def test_irmasim_mixed_clock_rejected(tmp_path: Path) -> None:
    doc = irmasim_doc(
        node={"n": {"processors": [{"type": "a"}, {"type": "b"}]}},
        processor={"a": {"cores": 2, "clock_rate": 1.0, "dpflops_per_cycle": 1},
                   "b": {"cores": 2, "clock_rate": 1.1, "dpflops_per_cycle": 1}})
    message = error_of(load_platform, write(tmp_path / "mixed.json", doc))
    assert_mentions(message, "mixed.json", "node type 'n'", "field 'processors'",
                    "not supported")


def test_irmasim_models_other_than_v1_are_an_error_not_misread(tmp_path: Path) -> None:
    # IRMaSim's modelV1_1 and modelV2 nodes have no processors and other power rules
    for model in ("modelV2", "modelV1_1"):
        doc = irmasim_doc()
        doc["platform"]["p"]["model_name"] = model
        message = error_of(load_platform, write(tmp_path / "p.json", doc))
        assert_mentions(message, "p.json", "platform 'p'", "field 'model_name'",
                        f"'{model}' is not read", "modelV1")
    doc = irmasim_doc()
    del doc["platform"]["p"]["model_name"]  # (absent: read as modelV1, as before)
    assert load_platform(write(tmp_path / "plain.json", doc)).nodes[0].type.cores == 8


def test_irmasim_unknown_node_type(tmp_path: Path) -> None:
    doc = irmasim_doc(nodes=[{"type": "n", "number": 1}, {"type": "ghost", "number": 1}])
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "p.json", "platform 'p'", "clusters[0].nodes[1].type",
                    "unknown node type 'ghost'")


def test_irmasim_unknown_processor_type(tmp_path: Path) -> None:
    doc = irmasim_doc(node={"n": {"processors": [{"type": "nope"}]}})
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "p.json", "node type 'n'", "processors[0].type",
                    "unknown processor type 'nope'")


@pytest.mark.parametrize("field, value, problem", [
    ("cores", 0, "greater than 0"),
    ("clock_rate", -2.0, "greater than or equal to 0.001"),
    ("static_power", -1, "greater than or equal to 0"),
    ("cores", "4", "valid integer"),
])
def test_irmasim_bad_processor(tmp_path: Path, field: str, value: object, problem: str) -> None:
    doc = irmasim_doc()
    doc["processor"]["cpu"][field] = value
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "p.json", "processor 'cpu'", f"field '{field}'", problem)


def test_irmasim_missing_processor_field(tmp_path: Path) -> None:
    doc = irmasim_doc()
    del doc["processor"]["cpu"]["clock_rate"]
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "processor 'cpu'", "field 'clock_rate'", "missing")


def test_irmasim_bad_node_number(tmp_path: Path) -> None:
    doc = irmasim_doc(nodes=[{"type": "n", "number": 0}])
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "platform 'p'", "field 'clusters[0].nodes[0].number'")


def test_irmasim_several_platforms_need_a_name(tmp_path: Path) -> None:
    doc = irmasim_doc()
    doc["platform"]["q"] = doc["platform"]["p"]
    path = write(tmp_path / "two.json", doc)
    assert_mentions(error_of(load_platform, path), "two.json", "field 'platform'",
                    "exactly one platform")
    assert len(load_irmasim_platform(path, platform_name="q").nodes) == 2
    assert_mentions(error_of(lambda: load_irmasim_platform(path, platform_name="zz")),
                    "no platform 'zz'")


def test_irmasim_sibling_library(tmp_path: Path) -> None:
    doc = irmasim_doc()
    write(tmp_path / "node_types.json", {"_doc": {"0": "x"}, **doc.pop("node")})
    write(tmp_path / "processor_types.json", doc.pop("processor"))
    platform = load_platform(write(tmp_path / "platform.json", doc))
    assert platform.total_cores == 16


def test_irmasim_library_dict_and_override(tmp_path: Path) -> None:
    doc = irmasim_doc()
    library = {"node": doc.pop("node"), "processor": dict(doc["processor"])}
    doc["processor"]["cpu"] = {**doc["processor"]["cpu"], "cores": 6}  # the file's wins
    platform = load_irmasim_platform(write(tmp_path / "p.json", doc), library=library)
    assert platform.nodes[0].type.cores == 12


def test_irmasim_missing_library_names_type(tmp_path: Path) -> None:
    doc = irmasim_doc()
    del doc["node"], doc["processor"]
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "p.json", "unknown node type 'n'", "platform library")


def test_hdeeprm_catalogue_as_library(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(shared("platforms/hdeeprm_node_types.json"), lib / "node_types.json")
    shutil.copy(shared("platforms/hdeeprm_processor_types.json"),
                lib / "processor_types.json")
    doc = {"platform": {"p": {"clusters": [{"id": "c", "nodes": [
        {"type": "Zewura Node", "number": 2}]}]}}}
    platform = load_irmasim_platform(write(tmp_path / "p.json", doc), library=lib)
    t = platform.nodes[0].type
    assert platform.nodes[1].name == "Zewura Node-1"
    assert (t.cores, t.clock_ghz, t.ops_per_cycle) == (80, 2.26, 4)
    assert t.mem_bw_gbs == pytest.approx(8 * 51.2)
    assert t.memory_mb == 512 * 1024
    doc["platform"]["p"]["clusters"][0]["nodes"][0]["type"] = "Basic"  # 1.0 + 1.1 GHz parts
    message = error_of(lambda: load_irmasim_platform(write(tmp_path / "p.json", doc),
                                                     library=lib))
    assert_mentions(message, "node_types.json", "node type 'Basic'", "not supported")


# ---------------------------------------------------------------- native format

NATIVE_YAML = """\
name: small
node_types:
  - name: fast
    cores: 8
    clock_ghz: 3.0
    memory_gb: 64
    mem_bw_gbs: 40
    power: {idle: 20, static: 50, dynamic_per_core: 10}
    hourly_price: 0.5
    boot_time: 30
  - name: slow
    cores: 4
    clock_ghz: 2.0
    ops_per_cycle: 2
clusters:
  - name: c0
    nodes: [{type: fast, count: 2}, {type: slow, count: 1}]
  - name: c1
    nodes: [{type: fast, count: 1}]
"""


def native_doc() -> dict:
    return {"name": "n", "node_types": [
        {"name": "fast", "cores": 8, "clock_ghz": 3.0},
        {"name": "slow", "cores": 4, "clock_ghz": 1.5}],
        "clusters": [{"name": "c0", "nodes": [{"type": "fast", "count": 1},
                                              {"type": "slow", "count": 2}]}]}


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_native_platform(tmp_path: Path, suffix: str) -> None:
    import yaml
    text = NATIVE_YAML if suffix != ".json" else json.dumps(yaml.safe_load(NATIVE_YAML))
    platform = load_platform(write(tmp_path / f"small{suffix}", text))
    assert platform.name == "small"
    assert [(n.name, n.cluster) for n in platform.nodes] == [
        ("fast-0", "c0"), ("fast-1", "c0"), ("slow-0", "c0"), ("fast-2", "c1")]
    fast, slow = platform.nodes[0].type, platform.nodes[2].type
    assert fast.memory_mb == 64 * 1024 and fast.mem_bw_gbs == 40
    assert (fast.idle_w, fast.static_w, fast.dynamic_w_per_core) == (20, 50, 10)
    assert (fast.hourly_price, fast.boot_time) == (0.5, 30)
    assert slow.speed == 4e9 and slow.memory_mb == INF and slow.mem_bw_gbs == INF
    assert (slow.idle_w, slow.static_w, slow.dynamic_w_per_core) == (0, 0, 0)
    assert platform.total_cores == 28


def test_native_without_clusters_uses_counts(tmp_path: Path) -> None:
    doc = native_doc()
    del doc["clusters"], doc["name"]
    doc["node_types"][1]["count"] = 3
    platform = load_native_platform(write(tmp_path / "plain.json", doc))
    assert platform.name == "plain"
    assert [n.name for n in platform.nodes] == ["fast-0", "slow-0", "slow-1", "slow-2"]
    assert {n.cluster for n in platform.nodes} == {"cluster0"}


def test_bundled_default_platform() -> None:
    platform = load_platform(default_platform_path())
    assert len(platform.nodes) == 8
    assert platform.total_cores == 2 * 16 + 4 * 8 + 2 * 4
    assert sorted({n.type.clock_ghz for n in platform.nodes}) == [1.8, 2.4, 3.5]


@pytest.mark.parametrize("mutate, record, field, problem", [
    (lambda d: d["node_types"][0].update(cores=0), "node type 'fast'", "cores",
     "greater than 0"),
    (lambda d: d["node_types"][1].update(clock_ghz=-1.0), "node type 'slow'", "clock_ghz",
     "greater than or equal to 0.001"),
    (lambda d: d["node_types"][0].update(colour="red"), "node type 'fast'", "colour",
     "unknown field"),
    (lambda d: d["node_types"][0].update(power={"idle": -1}), "node type 'fast'", "power.idle",
     "greater than or equal to 0"),
    (lambda d: d["node_types"][0].update(memory_gb=0), "node type 'fast'", "memory_gb",
     "greater than 0"),
    (lambda d: d["node_types"][0].update(disk_gb=-1), "node type 'fast'", "disk_gb",
     "greater than 0"),
    (lambda d: d["node_types"][0].update(disk_gb=1e13), "node type 'fast'", "disk_gb",
     "less than or equal to"),
    (lambda d: d["node_types"][0].update(on_demand="yes"), "node type 'fast'", "on_demand",
     "valid boolean"),
    (lambda d: d["node_types"][0].update(cores=8.5), "node type 'fast'", "cores",
     "valid integer"),
    (lambda d: d["node_types"][0].pop("clock_ghz"), "node type 'fast'", "clock_ghz",
     "missing"),
    (lambda d: d["node_types"][1].pop("name"), "node_types[1]", "name", "missing"),
    (lambda d: d["node_types"][1].update(name="fast"), "node type 'fast'", "name",
     "duplicate node type name"),
    (lambda d: d["clusters"][0]["nodes"].append({"type": "huge", "count": 1}), "cluster 'c0'",
     "nodes[2].type", "unknown node type 'huge'"),
    (lambda d: d["clusters"][0]["nodes"][0].update(count=0), "cluster 'c0'", "nodes[0].count",
     "greater than or equal to 1"),
    (lambda d: d["node_types"][0].update(count=2), "node type 'fast'", "count",
     "only allowed when 'clusters' is absent"),
    (lambda d: d.update(extra=1), None, "extra", "unknown field"),
    (lambda d: d.update(node_types=[]), None, "node_types", "at least 1"),
])
def test_native_bad_input(tmp_path: Path, mutate, record: str | None, field: str,
                          problem: str) -> None:
    doc = native_doc()
    mutate(doc)
    message = error_of(load_platform, write(tmp_path / "bad.json", doc))
    parts = ["bad.json", f"field '{field}'", problem] + ([record] if record else [])
    assert_mentions(message, *parts)


def test_native_disk_and_on_demand_nodes(tmp_path: Path) -> None:
    doc = {"node_types": [
        {"name": "vm", "cores": 2, "clock_ghz": 1.0, "disk_gb": 1.5, "boot_time": 60,
         "on_demand": True, "hourly_price": 0.2},
        {"name": "idle", "cores": 2, "clock_ghz": 1.0, "boot_time": 30}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    vm, idle = platform.node_types
    assert (vm.disk_mb, vm.on_demand, vm.boot_time) == (1536, True, 60)
    assert (idle.disk_mb, idle.on_demand) == (float("inf"), False)
    # a boot time only on-demand nodes use is said to have no effect
    assert platform.notes == ("node type 'idle': boot_time is used only by on-demand nodes "
                              "(on_demand: true); it has no effect here",)


# ---------------------------------------------------------------- file-level errors

def test_missing_file(tmp_path: Path) -> None:
    message = error_of(load_platform, tmp_path / "nowhere.json")
    assert_mentions(message, "nowhere.json", "no such file")


def test_malformed_json_has_line(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.json", '{\n  "node_types": [\n    {"name": "a",,}\n  ]\n}')
    assert_mentions(error_of(load_platform, path), "broken.json", "line 3", "malformed JSON")


def test_malformed_yaml_has_line(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.yaml", "node_types:\n  - name: a\n   cores: [\n")
    assert_mentions(error_of(load_platform, path), "broken.yaml", "line ", "malformed YAML")


def test_unrecognised_and_unsupported(tmp_path: Path) -> None:
    assert_mentions(error_of(load_platform, write(tmp_path / "x.json", {"a": 1})),
                    "x.json", "unrecognised platform format")
    assert_mentions(error_of(load_platform, write(tmp_path / "x.json", [1, 2])),
                    "x.json", "unrecognised platform format")
    assert_mentions(error_of(load_platform, write(tmp_path / "x.txt", "hi")),
                    "x.txt", "unsupported platform file suffix")
    assert_mentions(error_of(load_native_platform, write(tmp_path / "y.json", [1])),
                    "y.json", "expected an object")


# ---------------------------------------------------------------- power model (energy known?)

def test_native_power_model_is_the_power_key(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "small.yaml", NATIVE_YAML))
    fast, slow = platform.nodes[0].type, platform.nodes[2].type
    assert fast.has_power and not slow.has_power  # slow has no 'power' key
    assert not platform.has_power_model  # one node type without power: no energy
    doc = native_doc()  # no power figures at all
    assert not load_platform(write(tmp_path / "none.json", doc)).has_power_model
    for t in doc["node_types"]:
        t["power"] = {}  # given, all zero: an explicit 0 W model
    assert load_platform(write(tmp_path / "explicit.json", doc)).has_power_model


def test_irmasim_power_model_needs_static_or_dynamic_power(tmp_path: Path) -> None:
    assert load_platform(write(tmp_path / "p.json", irmasim_doc())).has_power_model
    doc = irmasim_doc(processor={"cpu": {"cores": 4, "clock_rate": 2.0, "dpflops_per_cycle": 2,
                                         "power": 95, "min_power": 0.1}})  # TDP only
    platform = load_platform(write(tmp_path / "tdp.json", doc))
    assert not platform.nodes[0].type.has_power and not platform.has_power_model
    doc["processor"]["cpu"]["dynamic_power"] = 0  # given: a power model, even at 0 W
    assert load_platform(write(tmp_path / "dyn.json", doc)).has_power_model
    assert load_platform(shared("platforms/irmasim_lublin_20node.json")).has_power_model


def test_python_node_type_has_power_when_a_figure_is_given() -> None:
    from hetsched.platform.model import NodeType
    assert not NodeType("n", 4, 1.0).has_power
    assert NodeType("n", 4, 1.0, dynamic_w_per_core=2).has_power
    assert NodeType("n", 4, 1.0, has_power=True).has_power  # an explicit 0 W model
    assert not NodeType("n", 4, 1.0, idle_w=5, has_power=False).has_power


# ---------------------------------------------------------------- native: processors, contention

NUMA = {"name": "numa", "contention": "deside", "contention_params": {"latency_ratio": 1.6},
        "node_types": [{"name": "two", "cores": 8, "clock_ghz": 2.0, "oversubscription": 2,
                        "processors": [
                            {"cores": 4, "power": {"idle": 5, "static": 30,
                                                   "dynamic_per_core": 8}, "mem_bw_gbs": 40,
                             "contention": {"c": 1000}},
                            {"cores": 4, "power": {"idle": 5, "static": 30,
                                                   "dynamic_per_core": 8}, "mem_bw_gbs": 40}]}]}


def test_native_processors_and_contention(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "numa.json", NUMA))
    assert (platform.contention, platform.contention_params) == ("deside",
                                                                 (("latency_ratio", 1.6),))
    t = platform.nodes[0].type
    assert [p.cores for p in t.processors] == [4, 4]
    assert (t.idle_w, t.static_w, t.full_power_w, t.slots) == (10, 60, 60 + 64, 16)
    assert t.processors[0].param("c", 0.0) == 1000 and t.has_power


@pytest.mark.parametrize(("change", "words"), [
    ({"cores": 6}, ["node type 'two'", "field 'processors'", "8 cores, not 6"]),
    ({"power": {"static": 1}}, ["field 'power'", "each processor"]),
    ({"oversubscription": 0}, ["oversubscription"]),
])
def test_native_processor_errors(tmp_path: Path, change: dict, words: list[str]) -> None:
    doc = {**NUMA, "node_types": [{**NUMA["node_types"][0], **change}]}
    message = error_of(load_platform, write(tmp_path / "bad.json", doc))
    assert_mentions(message, "bad.json", *words)


def test_native_unknown_contention_model(tmp_path: Path) -> None:
    message = error_of(load_platform, write(tmp_path / "bad.json", {**NUMA, "contention": "x"}))
    assert_mentions(message, "bad.json", "contention")


def test_native_downtime(tmp_path: Path) -> None:
    doc = {"node_types": [{"name": "n", "cores": 4, "clock_ghz": 1.0, "count": 2}],
           "downtime": [{"node": "n-1", "start": 0, "end": 15},
                        {"node": "n-0", "start": 100, "cores": 2}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    # each downtime is the equivalent reservation: the cores it leaves unavailable
    assert platform.reservations == (Reservation(1, 0, 15, 4), Reservation(0, 100, math.inf, 2))
    assert platform.availability == ()
    bad = {**doc, "downtime": [{"node": "n-7", "start": 0}]}
    assert_mentions(error_of(load_platform, write(tmp_path / "b.json", bad)), "b.json",
                    "downtime[0]", "field 'node'", "unknown node 'n-7'")
    bad = {**doc, "downtime": [{"node": "n-0", "start": 5, "end": 5}]}
    assert_mentions(error_of(load_platform, write(tmp_path / "c.json", bad)), "c.json",
                    "downtime[0]", "field 'end'")


@pytest.mark.parametrize(("change", "words"), [
    ({"contention_params": {"latency_ratio": 1.6, "latency": 2}},
     ["field 'contention_params'", "no parameter 'latency'", "did you mean latency_ratio"]),
    ({"contention": "irmasim", "contention_params": {"b": 1}},
     ["field 'contention_params'", "'irmasim' has no parameter 'b'", "it has none"]),
    ({"contention_params": {"latency_ratio": 0.5}}, ["latency_ratio", ">= 1"]),
])
def test_native_contention_params_checked_at_load(tmp_path: Path, change: dict,
                                                  words: list[str]) -> None:
    message = error_of(load_platform, write(tmp_path / "p.json", {**NUMA, **change}))
    assert_mentions(message, "p.json", *words)


def test_native_processor_keys_checked(tmp_path: Path) -> None:
    procs = NUMA["node_types"][0]["processors"]
    typo = [{**procs[0], "contention": {"ddd": 1}}, procs[1]]
    doc = {**NUMA, "node_types": [{**NUMA["node_types"][0], "processors": typo}]}
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "node type 'two'", "processors[0].contention",
                    "unknown contention parameter 'ddd'", "did you mean")
    half = [procs[0], {k: v for k, v in procs[1].items() if k != "power"}]
    doc = {**NUMA, "node_types": [{**NUMA["node_types"][0], "processors": half}]}
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "processors[1].power", "every processor or of none")


def test_native_node_bandwidth_from_processors(tmp_path: Path) -> None:
    assert load_platform(write(tmp_path / "p.json", NUMA)).nodes[0].type.mem_bw_gbs == 80


def test_overlapping_downtimes_leave_the_fewer_cores(tmp_path: Path) -> None:
    # [100, 300) leaves 8 of 16 cores, [200, 400) leaves 4: 8 held on [100, 200), 12 on
    # [200, 400) (4 left), and the node whole again at 400, not at 300
    doc = {"node_types": [{"name": "n", "cores": 16, "clock_ghz": 1.0}],
           "downtime": [{"node": "n-0", "start": 100, "end": 300, "cores": 8},
                        {"node": "n-0", "start": 200, "end": 400, "cores": 4}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    assert platform.reservations == (Reservation(0, 100, 200, 8), Reservation(0, 200, 400, 12))


def test_native_reservations(tmp_path: Path) -> None:
    doc = {"node_types": [{"name": "n", "cores": 4, "clock_ghz": 1.0, "count": 2}],
           "downtime": [{"node": "n-0", "start": 0, "end": 10, "cores": 3}],
           "reservations": [{"node": "n-0", "start": 5, "end": 20, "cores": 3},
                            {"node": "n-1", "start": 7.5, "end": 9}]}
    platform = load_platform(write(tmp_path / "p.json", doc))
    # the downtime holds 1 core, the reservations add theirs; cores default to the whole node
    assert platform.reservations == (Reservation(0, 0, 10, 1), Reservation(0, 5, 20, 3),
                                     Reservation(1, 7.5, 9, 4))


@pytest.mark.parametrize(("entry", "words"), [
    ({"node": "n-0", "start": 5, "end": 5}, ["reservations[1]", "field 'end'", "not after"]),
    ({"node": "n-9", "start": 5, "end": 6}, ["reservations[1]", "field 'node'",
                                             "unknown node 'n-9'", "did you mean"]),
    ({"node": "n-0", "start": -1, "end": 6}, ["reservations[1]", "start"]),
    ({"node": "n-0", "start": 0, "end": 1e300}, ["reservations[1]", "end"]),
    ({"node": "n-0", "start": 9, "end": 12, "cores": 2}, ["reservations[1]", "field 'cores'",
                                                          "more cores of node 'n-0' than its 4"]),
    ({"node": "n-0", "start": 0, "end": 1, "cores": 5}, ["reservations[1]", "cores"]),
])
def test_bad_reservations_are_one_line(tmp_path: Path, entry: dict, words: list[str]) -> None:
    # reservations[0] holds 3 of n-0's 4 cores over [0, 10)
    doc = {"node_types": [{"name": "n", "cores": 4, "clock_ghz": 1.0, "count": 2}],
           "reservations": [{"node": "n-0", "start": 0, "end": 10, "cores": 3}, entry]}
    message = error_of(load_platform, write(tmp_path / "p.json", doc))
    assert_mentions(message, "p.json", *words)
    assert len(message.splitlines()) == 1
