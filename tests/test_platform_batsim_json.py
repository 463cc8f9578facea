"""Batsim's heterogeneous platform JSON, in Batsim's form and in HDeepRM's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hetsched.platform.load import load_platform
from hetsched.schedulers.registry import create
from hetsched.sim.engine import simulate
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of, shared, write

HETEROGENEOUS = Path(__file__).parent / "data" / "batsim_heterogeneous"


def test_batsims_altamira() -> None:
    platform = load_platform(HETEROGENEOUS / "altamira.json")
    counts = {t.name: sum(n.type is t for n in platform.nodes) for t in platform.node_types}
    assert counts == {"System x iDataPlex dx360 M4": 158, "System x iDataPlex dx360 M3": 5,
                      "POWER 730 Express": 10}
    m4, m3, power7 = platform.node_types
    # 2 x Xeon E5-2670: 8 cores of 20.4 Gf (pstate 0), each core 5 W idle, 14.375 W busy
    assert (m4.cores, len(m4.processors), m4.speed, m4.memory_mb) == (16, 2, 20.4e9, 64 * 1024)
    assert (m4.idle_w, m4.full_power_w) == (16 * 5.0, 16 * 14.375)
    assert m4.processors[0].dynamic_w_per_core == 14.375 - 5.0
    assert (m3.cores, m3.speed) == (2 * 512, 1.3e9)  # two Tesla M2090
    assert (power7.cores, power7.speed, power7.full_power_w) == (16, 24e9, 16 * 22.5)
    assert platform.has_power_model and platform.contention == "none"


def test_batsims_example_node_mixes_speeds() -> None:
    # "Example Node": 2 CPUs at 10 Gf per core and a GPU at 1 Gf: one speed per node type only
    message = error_of(load_platform, HETEROGENEOUS / "example.json")
    assert_mentions(message, "node_types.json", "node type 'Example Node'", "'processors'",
                    "different speeds")


def test_missing_library_file(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", {"clusters": [{"nodes": [{"type": "X", "number": "1"}],
                                                     "cluster_network": "n"}]})
    assert_mentions(error_of(load_platform, path), "node_types.json", "no such file")


@pytest.mark.parametrize("change, parts", [
    (lambda p, n, c: p["clusters"][0]["nodes"][0].update(number="-2"),
     ["clusters[0].nodes[0].number"]),
    (lambda p, n, c: p["clusters"][0]["nodes"][0].update(type="Nope"),
     ["'Nope'", "clusters[0].nodes[0].type"]),
    (lambda p, n, c: c["CPU"]["Xeon Sandy Bridge E5-2670"]["core_attributes"].update(
        speed="fast"), ["processor 'Xeon Sandy Bridge E5-2670'", "'speed'"]),
    (lambda p, n, c: c["CPU"]["Xeon Sandy Bridge E5-2670"]["core_properties"][1].update(
        value="5.0:nan"), ["'wattage_per_state'"]),
    (lambda p, n, c: n["System x iDataPlex dx360 M4"]["processors"][0].update(model="Z80"),
     ["'Z80'", "node type 'System x iDataPlex dx360 M4'"]),
])
def test_bad_batsim_json(tmp_path: Path, change, parts: list[str]) -> None:
    docs = [json.loads((HETEROGENEOUS / f).read_text())
            for f in ("altamira.json", "node_types.json", "processor_types.json")]
    change(*docs)
    for name, doc in zip(("altamira.json", "node_types.json", "processor_types.json"), docs):
        write(tmp_path / name, doc)
    assert_mentions(error_of(load_platform, tmp_path / "altamira.json"), *parts)


# ---------------------------------------------------------------- HDeepRM's form

@pytest.fixture
def hdeeprm_dir(tmp_path: Path) -> Path:
    for kind in ("node", "processor"):
        shutil.copy(shared(f"platforms/hdeeprm_{kind}_types.json"),
                    tmp_path / f"{kind}_types.json")
    return tmp_path


def test_hdeeprm_form(hdeeprm_dir: Path) -> None:
    # the first groups of HDeepRM's gaia.json example (its "local_links" are ignored)
    path = write(hdeeprm_dir / "gaia.json", {
        "clusters": [{"id": "gaia_cluster", "nodes": [
            {"type": "Dell R720", "number": 5}, {"type": "Mandos Node", "number": 2}],
            "local_links": {"type": "InfiniBand QDR", "latency": "0us"}}],
        "global_links": {"type": "InfiniBand QDR", "latency": "0us"}})
    platform = load_platform(path)
    assert [n.name for n in platform.nodes][:2] == ["Dell R720-0", "Dell R720-1"]
    assert len(platform.nodes) == 7 and platform.contention == "none"
    mandos = platform.nodes[-1].type
    # 4 x Opteron 6274 (16 cores, 2.2 GHz, 8 flops/cycle, power P = 86.25 W)
    assert (mandos.cores, mandos.speed, mandos.memory_mb) == (64, 17.6e9, 256 * 1024)
    proc = mandos.processors[0]
    assert proc.idle_w == pytest.approx(0.05 * 86.25)
    assert proc.static_w == pytest.approx(0.15 * 86.25)
    assert proc.full_power_w == pytest.approx(86.25)  # every core busy: P
    assert platform.has_power_model


def test_hdeeprm_energy_by_hand(hdeeprm_dir: Path) -> None:
    """One Mandos node: a 16-task job fills its first processor for 10 s; the other three
    processors stay idle."""
    path = write(hdeeprm_dir / "p.json", {"clusters": [{"nodes": [{"type": "Mandos Node",
                                                                    "number": 1}]}]})
    platform = load_platform(path)
    ops = 10 * 17.6e9
    result = simulate(platform, Workload("w", (Job("j", 0.0, 16, ops, 10.0),)), create("fcfs"))
    assert list(result.end) == [pytest.approx(10.0)]
    expected = (86.25 + 3 * 0.05 * 86.25) * 10
    assert result.node_energy_j[0] == pytest.approx(expected)


def test_hdeeprm_without_power_has_no_energy(tmp_path: Path) -> None:
    write(tmp_path / "processor_types.json", {"P": {"cores": 4, "clock_rate": 2.0,
                                                    "dpflops_per_cycle": 4}})
    write(tmp_path / "node_types.json", {"N": {"processors": [{"type": "P", "number": 1}]}})
    path = write(tmp_path / "p.json", {"clusters": [{"nodes": [{"type": "N", "number": 3}]}]})
    platform = load_platform(path)
    assert platform.total_cores == 12 and not platform.has_power_model
