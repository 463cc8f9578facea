"""Budgets: a count of each heuristic's own steps instead of seconds. Given a budget and no
time limit, a heuristic gives the same mapping for a seed however fast the machine is: here
the clock runs a thousand seconds per reading and changes nothing."""

from __future__ import annotations

import time

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.schedulers import create
from hetsched.mapping.catalogue import BUDGETS
from hetsched.mapping.generate import braun_instance
from hetsched.mapping.registry import run_heuristic

ETC = braun_instance("u_c_hihi", np.random.default_rng(4), tasks=24, machines=4)


def run(name: str, budget: int, seed: int = 7):
    return run_heuristic(name, ETC, rng=np.random.default_rng(seed), budget=budget)


@pytest.fixture
def racing_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """``time.perf_counter`` jumps 1,000 s at every reading: any time limit is over at once."""
    now = [0.0]

    def tick() -> float:
        now[0] += 1000.0
        return now[0]

    monkeypatch.setattr(time, "perf_counter", tick)


@pytest.mark.parametrize("name", list(BUDGETS))
def test_a_budget_gives_the_same_mapping_on_a_slow_machine(name: str, request) -> None:
    budget = 20
    calm = run(name, budget)
    request.getfixturevalue("racing_clock")
    raced = run(name, budget)
    assert np.array_equal(calm.assignment, raced.assignment)
    assert calm.makespan == raced.makespan


@pytest.mark.parametrize("name, key, most", [
    ("ga", "generations", 5), ("gsa", "generations", 5), ("astar", "expansions", 5),
    ("tabu", "hops", 5), ("ils", "iterations", 5),
])
def test_the_budget_bounds_the_steps(name: str, key: str, most: int) -> None:
    assert run(name, most).info[key] <= most


def test_milp_stops_at_its_node_budget() -> None:
    etc = braun_instance("u_i_hihi", np.random.default_rng(2), tasks=30, machines=6)
    found = run_heuristic("milp", etc, budget=3)
    assert found.info["nodes"] <= 3


def test_a_list_heuristic_takes_no_budget_and_a_budget_is_a_whole_number() -> None:
    with pytest.raises(ConfigError, match="'min_min' takes no budget"):
        run_heuristic("min_min", ETC, budget=5)
    with pytest.raises(ConfigError, match="budget must be a positive whole number"):
        run_heuristic("ga", ETC, budget=0)
    with pytest.raises(ConfigError, match="budget must be a positive whole number"):
        run_heuristic("ga", ETC, budget=2.5)


def test_the_batch_schedulers_take_a_budget_per_batch() -> None:
    assert create("ils:budget=50").budget == 50
    with pytest.raises(ConfigError, match="min_min is a list heuristic: it takes no budget"):
        create("min_min:budget=5")
    with pytest.raises(ConfigError, match="budget must be a positive whole number"):
        create("tabu:budget=-1")


def test_hetsched_map_takes_a_budget(tmp_path, request) -> None:
    import json

    from typer.testing import CliRunner

    from hetsched.cli.main import app
    from hetsched.mapping import write_braun

    path = tmp_path / "small.0"
    write_braun(path, ETC)
    command = ["map", str(path), "-H", "min_min,ils,best", "--budget", "10", "--json"]

    def makespans() -> list[float]:
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        return [json.loads(line)["makespan"] for line in result.stdout.splitlines()]

    calm = makespans()
    request.getfixturevalue("racing_clock")
    assert makespans() == calm
