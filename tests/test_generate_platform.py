"""``hetsched generate platform``: platforms from HDeepRM's processor catalogue, by counts and
by the thesis' heterogeneity recipes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.platform.generate import (by_heterogeneity, parse_counts,
                                        read_catalogue)
from hetsched.platform.load import load_platform
from support import assert_one_line_error, shared, write

DATA = Path(__file__).resolve().parents[1] / "src" / "hetsched" / "experiments" / "data"
NODE_CENTRIC = "Mandos Node=4,Zorg Node*8=4,Delta D88x-M8-BI=4,SGI UV-2000=4"
runner = CliRunner()


@pytest.fixture
def catalogue() -> Path:
    return shared("platforms")


def generate(*args: str):
    return runner.invoke(app, ["generate", "platform", *args])


def shape(platform) -> list:
    """Everything of each node but the names."""
    return [(t.cores, t.clock_ghz, t.ops_per_cycle, t.memory_mb, t.mem_bw_gbs, t.processors,
             t.has_power) for t in (n.type for n in platform.nodes)]


def test_builds_the_node_centric_platform_exactly(tmp_path: Path, catalogue: Path) -> None:
    out = tmp_path / "nc.yaml"
    result = generate("--catalogue", str(catalogue), "--nodes", NODE_CENTRIC, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "16 nodes, 1696 cores, 4 node types; full-load power 12780.0 W" in result.output
    generated = load_platform(out)
    reference = load_platform(DATA / "node_centric_16.yaml")
    assert shape(generated) == shape(reference)
    assert [n.type.name for n in generated.nodes[::4]] == [
        "Mandos Node", "Zorg Node*8", "Delta D88x-M8-BI", "SGI UV-2000"]


@pytest.mark.parametrize("level", ["low", "high"])
def test_recipe_gives_the_realistic_studys_clocks(tmp_path: Path, catalogue: Path,
                                                   level: str) -> None:
    # realistic_*_32.yaml: the bands with twice the nodes, default_rng(0), rounded to MHz
    out = tmp_path / "p.json"
    result = generate("--catalogue", str(catalogue), "--heterogeneity", level,
                      "--nodes-total", "32", "--seed", "0", "--out", str(out))
    assert result.exit_code == 0, result.output
    generated = load_platform(out)
    reference = load_platform(DATA / f"realistic_{level}_32.yaml")
    assert [n.type.clock_ghz for n in generated.nodes] == [
        n.type.clock_ghz for n in reference.nodes]
    assert generated.has_power_model and generated.total_cores == 32


def test_recipe_power_from_nearest_processor(tmp_path: Path) -> None:
    write(tmp_path / "node_types.json", {})
    write(tmp_path / "processor_types.json", {
        "slow": {"cores": 4, "clock_rate": 1.0, "dpflops_per_cycle": 2, "power": 40},
        "fast": {"cores": 2, "clock_rate": 2.0, "dpflops_per_cycle": 5, "power": 100}})
    doc = by_heterogeneity(read_catalogue(tmp_path), "low", 16, 3, "x")
    for node_type in doc["node_types"]:
        per_core = 10.0 if node_type["clock_ghz"] < 6 else 50.0  # 40/4 below 6 Gf, 100/2 above
        assert node_type["power"] == {"idle": 0.3 * per_core, "static": 0.5 * per_core,
                                      "dynamic_per_core": 0.5 * per_core}
    clocks = [t["clock_ghz"] for t in doc["node_types"]]
    assert sum(c < 6 for c in clocks) >= 6 and sum(c > 6 for c in clocks) >= 5


def test_seed_decides(tmp_path: Path, catalogue: Path) -> None:
    texts = []
    for seed, name in (("1", "a.json"), ("1", "b.json"), ("2", "c.json")):
        generate("--catalogue", str(catalogue), "--heterogeneity", "low", "--seed", seed,
                 "--name", "p", "--out", str(tmp_path / name))
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1] != texts[2]


def test_counts_syntax() -> None:
    assert parse_counts("Mandos Node=4, Zorg Node*8=2") == [("Mandos Node", None, 4),
                                                           ("Zorg Node", 8, 2)]


@pytest.mark.parametrize("args, fragments", [
    (["--nodes", "Mandos Node"], ["TYPE=COUNT", "'Mandos Node'"]),
    (["--nodes", "Mandos Node=0"], ["TYPE=COUNT"]),
    (["--nodes", "Mandos Node=2e9"], ["TYPE=COUNT"]),
    (["--nodes", "Mandos Node*x=2"], ["TYPE*SOCKETS=COUNT"]),
    (["--nodes", "Mandos Nod=2"], ["unknown node type 'Mandos Nod'", "did you mean Mandos Node"]),
    (["--nodes", "Basic*4=1"], ["several types"]),
    ([], ["exactly one of --nodes and --heterogeneity"]),
    (["--nodes", "Mandos Node=1", "--heterogeneity", "low"], ["exactly one"]),
    (["--heterogeneity", "low", "--nodes-total", "24"], ["multiple of 16", "24"]),
    (["--heterogeneity", "medium"], ["--heterogeneity"]),
])
def test_bad_options(tmp_path: Path, catalogue: Path, args: list[str],
                     fragments: list[str]) -> None:
    result = generate("--catalogue", str(catalogue), *args, "--out", str(tmp_path / "p.yaml"))
    assert_one_line_error(result, *fragments)
    assert not (tmp_path / "p.yaml").exists()


def test_bad_catalogues(tmp_path: Path) -> None:
    out = str(tmp_path / "p.yaml")
    assert_one_line_error(generate("--catalogue", str(tmp_path), "--nodes", "N=1", "--out", out),
                          "no catalogue")
    write(tmp_path / "node_types.json", {"N": {"processors": [{"type": "P", "number": 1}]}})
    write(tmp_path / "processor_types.json", {"P": {"cores": 2, "clock_rate": 2.0,
                                                    "dpflops_per_cycle": 4}})
    assert_one_line_error(generate("--catalogue", str(tmp_path), "--nodes", "N=1", "--out", out),
                          "processor 'P'", "'power'")
    write(tmp_path / "processor_types.json", {"P": {"cores": 2, "clock_rate": "fast",
                                                    "dpflops_per_cycle": 4, "power": 9}})
    assert_one_line_error(generate("--catalogue", str(tmp_path), "--nodes", "N=1", "--out", out),
                          "processor 'P'", "clock_rate")
    assert_one_line_error(generate("--catalogue", str(tmp_path), "--nodes", "N=1",
                                   "--out", str(tmp_path / "p.txt")), ".yaml, .yml or .json")


def test_node_types_file_as_catalogue(tmp_path: Path, catalogue: Path) -> None:
    out = tmp_path / "p.json"
    result = generate("--catalogue", str(catalogue / "hdeeprm_node_types.json"),
                      "--nodes", "Dell R720=3", "--out", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["clusters"][0]["nodes"] == [{"type": "Dell R720", "count": 3}]
    platform = load_platform(out)
    # 2 x Xeon E5-2660 (8 cores, 2.2 GHz, 8 flops/cycle, P 71.25 W)
    assert (platform.total_cores, platform.nodes[0].type.speed) == (48, 17.6e9)
    assert platform.nodes[0].type.full_power_w == pytest.approx(2 * 71.25)
    assert platform.nodes[0].type.idle_w == pytest.approx(2 * 0.3 * 71.25)


def test_without_catalogue_the_shipped_one_is_read_from_any_directory(
        tmp_path: Path, catalogue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)                  # outside the project root
    result = generate("--nodes", NODE_CENTRIC, "--out", "nc.yaml")
    assert result.exit_code == 0, result.output
    assert "16 nodes, 1696 cores, 4 node types; full-load power 12780.0 W" in result.output
    assert shape(load_platform(tmp_path / "nc.yaml")) == shape(
        load_platform(DATA / "node_centric_16.yaml"))


def test_the_shipped_catalogue_is_the_shared_datas(catalogue: Path) -> None:
    from hetsched.examples import hdeeprm_catalogue_path

    shipped = hdeeprm_catalogue_path().parent
    for name in ("hdeeprm_node_types.json", "hdeeprm_processor_types.json"):
        assert (shipped / name).read_bytes() == (catalogue / name).read_bytes()
    licence = (shipped / "HDEEPRM_LICENSE.txt").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Adrián Herrera Arcila" in licence
