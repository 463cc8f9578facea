"""SimGrid/Batsim platform XML: Batsim's example platforms, units, radical ranges, roles,
the energy plugin's wattage tables and bad inputs."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hetsched.platform.load import load_platform
from hetsched.platform.simgrid import SPEED_UNITS, parse_radical, parse_speed
from hetsched.schedulers.registry import create
from hetsched.run.checks import input_warnings
from hetsched.sim.engine import simulate
from hetsched.workload.model import Job, Workload
from support import assert_mentions, error_of, shared, write

BATSIM = Path(__file__).parent / "data" / "batsim_platforms"
MIRROR = Path("/work/.mirror/oar-team+batsim/repo")


# ---------------------------------------------------------------- Batsim's own platforms

def test_energy_platform_hosts_and_wattages() -> None:
    platform = load_platform(BATSIM / "energy_platform.xml")
    # master_host is Batsim's master; Mercury, Venus, Earth and Mars compute
    assert [n.name for n in platform.nodes] == ["Mercury", "Venus", "Earth", "Mars"]
    for node in platform.nodes:
        t = node.type
        assert (t.cores, t.speed) == (1, 100e6)  # pstate 0 of "100.0Mf, 50.0Mf, ..."
        # pstate 0 "100.0:200.0": Idle 100 W, Epsilon = Idle, AllCores 200 W
        assert (t.idle_w, t.static_w, t.full_power_w) == (100.0, 100.0, 200.0)
    assert len(platform.node_types) == 1 and platform.has_power_model


def test_cluster_energy_128() -> None:
    platform = load_platform(BATSIM / "cluster_energy_128.xml")
    assert len(platform.nodes) == 128  # host0..host127; master_host0 has the master role
    assert platform.nodes[0].name == "host0" and platform.nodes[-1].name == "host127"
    assert {n.cluster for n in platform.nodes} == {"cluster_compute"}
    t = platform.node_types[0]
    assert (t.cores, t.speed, t.idle_w, t.static_w, t.full_power_w) == (
        1, 100e6, 95.0, 95.0, 190.738)


def test_multicore_hosts_three_value_wattage() -> None:
    platform = load_platform(BATSIM / "small_platform_replay_usage.xml")
    assert [n.name for n in platform.nodes] == ["a", "b", "c", "d"]
    assert platform.total_cores == 400
    fast, slow = platform.node_types
    # "50.0:100:200.0" on 100 cores: idle 50, epsilon 100, +1 W per busy core
    assert (fast.speed, fast.idle_w, fast.static_w, fast.dynamic_w_per_core) == (100, 50, 100, 1)
    assert (slow.speed, slow.idle_w, slow.static_w) == (50, 50, 90)
    assert slow.dynamic_w_per_core == pytest.approx(0.6)


def test_storage_and_master_roles_and_no_power() -> None:
    platform = load_platform(BATSIM / "cluster512_pfs.xml")
    names = [n.name for n in platform.nodes]
    assert len(names) == 512 and names[0] == "a0" and names[-1] == "a511"
    assert "pfs0" not in names and "master_host0" not in names
    assert platform.node_types[0].speed == 1e9
    assert not platform.has_power_model  # no wattage_per_state


def test_master_by_name_prefix() -> None:
    # eight cabinets algol10..25 ... plus a cabinet "master_host0" without a role
    platform = load_platform(BATSIM / "cluster_locality_8x16.xml")
    assert len(platform.nodes) == 128
    assert platform.nodes[0].name == "algol10"
    assert all(n.type.speed == 3e9 for n in platform.nodes)


def test_links_give_one_note(tmp_path: Path) -> None:
    workload = Workload("w", (Job("j", 0.0, 1, 1.0, 1.0),))
    platform = load_platform(BATSIM / "energy_platform.xml")
    assert input_warnings(platform, workload) == [
        f"{BATSIM / 'energy_platform.xml'}: links and routes are ignored (hetsched models no "
        "network)"]
    no_links = write(tmp_path / "p.xml", PLATFORM.format('<host id="h" speed="1Gf"/>'))
    assert input_warnings(load_platform(no_links), workload) == []


def _expected_hosts(path: Path) -> list[str]:
    """Compute hosts counted from the XML directly (hosts, clusters' radicals, less roles)."""
    root = ET.fromstring(path.read_bytes().lstrip())
    names = []
    for element in root.iter():
        props = {p.get("id"): p.get("value") for p in element.findall("prop")}
        if props.get("role") in ("master", "storage"):
            continue
        if element.tag == "host":
            names.append(element.get("id"))
        elif element.tag in ("cluster", "cabinet"):
            for part in element.get("radical").split(","):
                low, _, high = part.partition("-")
                names += [f"{element.get('prefix')}{i}{element.get('suffix')}"
                          for i in range(int(low), int(high or low) + 1)]
    masters = [n for n in names if n == "master_host"] or [
        n for n in names if n.startswith("master_host")]
    return [n for n in names if n not in masters]


@pytest.mark.skipif(not MIRROR.is_dir(), reason="Batsim's repository is not fetched")
def test_every_batsim_platform_loads(tmp_path: Path) -> None:
    listing = subprocess.run(["git", "-C", str(MIRROR), "ls-tree", "-r", "--name-only", "HEAD",
                              "platforms/"], capture_output=True, text=True, check=True)
    files = [f for f in listing.stdout.split() if f.endswith(".xml")]
    assert len(files) >= 20
    for name in files:
        path = tmp_path / Path(name).name
        path.write_bytes(subprocess.run(["git", "-C", str(MIRROR), "show", f"HEAD:{name}"],
                                        capture_output=True, check=True).stdout)
        platform = load_platform(path)
        assert sorted(n.name for n in platform.nodes) == sorted(_expected_hosts(path)), name
        assert [n.index for n in platform.nodes] == list(range(len(platform.nodes)))


# ---------------------------------------------------------------- energy

def test_energy_is_the_wattage_tables(tmp_path: Path) -> None:
    """Two jobs on host 'a' (100 cores, 100 flop/s, 50:100:200): 75 busy cores for 10 s, then
    50 for 10 s; b, c and d idle at 50 W for the 20 s."""
    platform = load_platform(BATSIM / "small_platform_replay_usage.xml")
    jobs = (Job("j1", 0.0, 25, 1000.0, 10.0), Job("j2", 0.0, 50, 2000.0, 20.0))
    result = simulate(platform, Workload("w", jobs), create("fcfs"))
    assert list(result.end) == [10.0, 20.0]
    a = (100 + 75 / 100 * 100) * 10 + (100 + 50 / 100 * 100) * 10
    assert list(result.node_energy_j) == pytest.approx([a, 50 * 20, 50 * 20, 50 * 20])


# ---------------------------------------------------------------- units and ranges

@pytest.mark.parametrize("text, flops", [
    ("100Mf", 1e8), ("1Gf", 1e9), ("1.5E9f", 1.5e9), ("250", 250.0), ("100.0f", 100.0),
    ("16.673E9flops", 16.673e9), ("2kf", 2e3), ("3gigaflops", 3e9), (" 1e-9Mf ", 1e-3),
    ("1Pf", 1e15), ("0f", 0.0)])
def test_speed_units(text: str, flops: float) -> None:
    assert parse_speed(text, Path("p.xml"), "r") == pytest.approx(flops)


def test_unit_table_is_simgrids() -> None:
    assert SPEED_UNITS["Yf"] == SPEED_UNITS["yottaflops"] == 1e24
    assert SPEED_UNITS["kf"] == 1e3 and "Kf" not in SPEED_UNITS


@pytest.mark.parametrize("text, ranges", [
    ("0-99,200-250", [(0, 99), (200, 250)]), ("7", [(7, 7)]), ("0-0", [(0, 0)]),
    (" 1 - 3 , 5", [(1, 3), (5, 5)])])
def test_radical_ranges(text: str, ranges: list) -> None:
    assert parse_radical(text, Path("p.xml"), "r") == ranges


def test_cluster_names_and_cores(tmp_path: Path) -> None:
    path = write(tmp_path / "p.xml", PLATFORM.format(
        '<cluster id="c" prefix="n-" suffix=".x" radical="0-1,5" speed="2Gf,1Gf" core="8">'
        '<prop id="wattage_per_state" value="10:20:100, 5:6:7"/></cluster>'))
    platform = load_platform(path)
    assert [n.name for n in platform.nodes] == ["n-0.x", "n-1.x", "n-5.x"]
    assert [n.index for n in platform.nodes] == [0, 1, 2]
    t = platform.node_types[0]
    assert (t.name, t.cores, t.speed, t.idle_w, t.static_w, t.dynamic_w_per_core) == (
        "c", 8, 2e9, 10, 20, 10)


def test_initial_pstate_gives_speed_and_power(tmp_path: Path) -> None:
    path = write(tmp_path / "p.xml", PLATFORM.format(
        '<zone id="z" routing="Full"><AS id="old" routing="Full">'
        '<host id="h" speed="2Gf,1Gf" pstate="1"><prop id="wattage_per_state" '
        'value="10:100, 8:50"/></host></AS></zone>'))
    t = load_platform(path).node_types[0]
    assert (t.speed, t.idle_w, t.full_power_w) == (1e9, 8, 50)


def test_dssim_configuration_still_loads() -> None:
    config = next(shared("dssim/configs").glob("*.xml"))
    platform = load_platform(config)
    assert platform.has_on_demand


# ---------------------------------------------------------------- bad inputs

PLATFORM = '<?xml version="1.0"?><platform version="4.1">{}</platform>'


@pytest.mark.parametrize("body, parts", [
    ('<cluster id="c" prefix="n" radical="0-999999999" speed="1Gf"/>',
     ["<cluster id='c'>", "'radical'", "more than the limit"]),
    ('<cluster id="c" prefix="n" radical="5-2" speed="1Gf"/>', ["'radical'", "'5-2'"]),
    ('<cluster id="c" prefix="n" radical="0-x" speed="1Gf"/>', ["'radical'"]),
    ('<cluster id="c" prefix="n" speed="1Gf"/>', ["'radical'", "missing"]),
    ('<host id="h" speed="1Qf"/>', ["<host id='h'>", "'speed'", "'1Qf'"]),
    ('<host id="h" speed="nanGf"/>', ["'speed'"]),
    ('<host id="h" speed="1e400f"/>', ["'speed'"]),
    ('<host id="h" speed="-1Gf"/>', ["'speed'"]),
    ('<host id="h" speed="1Ef"/>', ["'speed'", "1e+16"]),
    ('<host id="h"/>', ["'speed'", "missing"]),
    ('<host id="h" speed="0f"/>', ["'speed'", "at least"]),
    ('<host id="h" speed="1Gf" core="0"/>', ["'core'"]),
    ('<host id="h" speed="1Gf" core="1e9"/>', ["'core'"]),
    ('<host id="h" speed="1Gf" pstate="1"/>', ["'pstate'"]),
    ('<host id="h" speed="1Gf"><prop id="wattage_per_state" value="1:2:3:4"/></host>',
     ["'wattage_per_state'", "Idle:Epsilon:AllCores"]),
    ('<host id="h" speed="1Gf"><prop id="wattage_per_state" value="inf:2"/></host>',
     ["'wattage_per_state'", "'inf'"]),
    ('<host id="h" speed="1Gf"><prop id="wattage_per_state" value="-1:2"/></host>',
     ["'wattage_per_state'"]),
    ('<host id="h" speed="1Gf,2Gf" pstate="1"><prop id="wattage_per_state" value="1:2"/>'
     '</host>', ["'wattage_per_state'", "initial pstate 1"]),
    ('<host id="h" speed="1Gf"><prop id="wattage_off" value="ten"/></host>', ["'wattage_off'"]),
    ('<host id="h" speed="1Gf"><prop id="role" value="boss"/></host>', ["'role'", "'boss'"]),
    ('<host id="h" speed="1Gf"/><host id="h" speed="1Gf"/>', ["'h'", "twice"]),
    ('<host id="master_host" speed="1Gf"/>', ["no compute host"]),
    ('<include file="other.xml"/>', ["<include>"]),
])
def test_bad_platforms(tmp_path: Path, body: str, parts: list[str]) -> None:
    path = write(tmp_path / "p.xml", PLATFORM.format(body))
    assert_mentions(error_of(load_platform, path), str(path), *parts)


@pytest.mark.parametrize("text, parts", [
    ('<platform version="3"><host id="h" speed="1Gf"/></platform>', ["'version'"]),
    ('<platform version="4.1"><host id="h" speed="1Gf">', ["malformed XML", "line 1"]),
    ('\n\n<?xml version="1.0"?><platform><host', ["malformed XML", "line 3"]),
    ('<servers/>', ["<servers>", "expected <platform>"]),
])
def test_bad_documents(tmp_path: Path, text: str, parts: list[str]) -> None:
    path = write(tmp_path / "p.xml", text)
    assert_mentions(error_of(load_platform, path), *parts)


def test_huge_radical_is_refused_before_allocating(tmp_path: Path) -> None:
    body = "".join(f'<cluster id="c{i}" prefix="c{i}-" radical="0-599999" speed="1Gf"/>'
                   for i in range(2))
    message = error_of(load_platform, write(tmp_path / "p.xml", PLATFORM.format(body)))
    assert_mentions(message, "<cluster id='c1'>", "1200000 hosts")


def test_cli_bad_platform_is_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from hetsched.cli.main import app
    from support import assert_one_line_error

    path = write(tmp_path / "p.xml", PLATFORM.format('<host id="h" speed="fast"/>'))
    result = CliRunner().invoke(app, ["run", "--platform", str(path)])
    assert_one_line_error(result, "p.xml", "<host id='h'>", "'speed'")
