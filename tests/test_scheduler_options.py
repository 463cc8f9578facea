"""Scheduler options: one name for the node selection (``node_selection``) with the older
spellings kept as aliases, options kept as given (``get_params``), and the names runs use."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.schedulers.backfill import EasyBackfill
from hetsched.schedulers.conservative import ConservativeBackfill
from hetsched.schedulers.irmasim import IrmasimHeuristic
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload

PLATFORM = load_platform(default_platform_path())
WORKLOAD = load_workload(default_workload_path(), PLATFORM)


def schedule(spec: str) -> tuple[list, np.ndarray]:
    result = simulate(PLATFORM, WORKLOAD, create(spec), seed=3)
    return result.allocation, result.start


@pytest.mark.parametrize("old, new", [
    ("easy:node=high_gflops", "easy:node_selection=high_gflops"),
    ("conservative:node=low_power", "conservative:node_selection=low_power"),
    ("easy:node=random", "easy:node_selection=random"),
    ("irmasim_heuristic:resource_selection=high_cores",
     "irmasim_heuristic:node_selection=high_cores"),
])
def test_both_spellings_of_the_node_selection_give_the_same_schedule(old: str, new: str) -> None:
    (old_allocation, old_start), (new_allocation, new_start) = schedule(old), schedule(new)
    assert old_allocation == new_allocation
    assert np.array_equal(old_start, new_start, equal_nan=True)
    assert create(old).get_params() == create(new).get_params()
    assert create(old).get_params()["node_selection"] == new.rpartition("=")[2]


def test_an_alias_keeps_the_spec_as_written() -> None:
    """Runs (summary.json, compare's columns, a sweep's keys) name the scheduler by its spec."""
    result = simulate(PLATFORM, WORKLOAD, create("easy:node=high_gflops"))
    assert result.scheduler == "easy:node=high_gflops"


@pytest.mark.parametrize("spec", ["easy:node=first,node_selection=first",
                                  "irmasim_heuristic:node_selection=first,"
                                  "resource_selection=random"])
def test_an_option_given_under_both_names_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="another name of 'node_selection'; give one"):
        create(spec)


@pytest.mark.parametrize("cls, old", [(EasyBackfill, "node"), (ConservativeBackfill, "node"),
                                      (IrmasimHeuristic, "resource_selection")])
def test_the_classes_take_the_older_keyword_too(cls: type, old: str) -> None:
    """Python code that built a scheduler with the option's earlier name keeps working."""
    scheduler = cls(**{old: "high_gflops"})
    assert scheduler.get_params()["node_selection"] == "high_gflops"
    assert scheduler.get_params() == cls(node_selection="high_gflops").get_params()
    assert "node_selection" in inspect.signature(cls).parameters  # the written signature
    with pytest.raises(TypeError, match="two names of one option"):
        cls(**{old: "first", "node_selection": "first"})


def test_a_typo_of_the_option_suggests_a_name() -> None:
    with pytest.raises(ConfigError, match="no option 'nod_selection'.*did you mean "
                                          "node_selection"):
        create("conservative:nod_selection=first")


@pytest.mark.parametrize("spec, params", [
    ("fcfs", {"job_selection": "first", "node_selection": "first"}),
    ("shortest-high_mem", {"job_selection": "shortest", "node_selection": "high_mem"}),
    ("easy", {"node_selection": "first"}),
    ("irmasim_minimal", {}),
    ("irmasim_heuristic:job_selection=smallest",
     {"job_selection": "smallest", "node_selection": "first"}),
    ("kpb:percent=30,replan=true", {"heuristic": "kpb", "replan": True, "time_limit": None,
                                    "node_limit": None, "percent": 30, "budget": None,
                                    "queue": "fifo", "order": None, "prune": None}),
    ("ga:budget=4", {"heuristic": "ga", "replan": False, "time_limit": None,
                     "node_limit": None, "percent": None, "budget": 4, "queue": "fifo",
                     "order": None, "prune": None}),
    ("bf", {"algorithm": "bf"}),
])
def test_get_params_gives_the_options_as_given(spec: str, params: dict) -> None:
    scheduler = create(spec)
    assert scheduler.get_params() == params
    again = type(scheduler)(**scheduler.get_params())
    assert again.get_params() == params and not hasattr(again, "view")


def test_clone_keeps_the_options_and_the_names_and_is_not_reset() -> None:
    scheduler = create("conservative:node=high_gflops")
    simulate(PLATFORM, WORKLOAD, scheduler)
    clone = scheduler.clone()
    assert clone.get_params() == {"node_selection": "high_gflops"}
    assert (clone.name, clone.spec) == ("conservative", "conservative:node=high_gflops")
    assert not hasattr(clone, "view") and not hasattr(clone, "profile")


OWN_NAME = textwrap.dedent("""\
    from hetsched.schedulers import Scheduler, Start


    class Named(Scheduler):
        name = "my-policy"

        def __init__(self, limit: int = 5) -> None:
            self.limit = limit

        def decide(self, now, events):
            for job in list(self.view.pending.values())[: self.limit]:
                fits = self.view.fit_mask(job).nonzero()[0]
                if fits.size == 0:
                    return
                yield Start.on(job, int(fits[0]))
    """)


def test_create_leaves_a_class_own_name_and_runs_report_the_spec(tmp_path: Path) -> None:
    path = tmp_path / "named.py"
    path.write_text(OWN_NAME)
    spec = f"{path}:Named:limit=2"
    scheduler = create(spec)
    assert (scheduler.name, scheduler.spec) == ("my-policy", spec)
    assert simulate(PLATFORM, WORKLOAD, scheduler).scheduler == spec
    plain = create(f"{path}:Named")
    assert (plain.name, simulate(PLATFORM, WORKLOAD, plain).scheduler) == ("my-policy",
                                                                          "my-policy")


def test_a_built_in_class_keeps_its_name() -> None:
    scheduler = create("easy:node=high_gflops")
    assert (scheduler.name, scheduler.spec) == ("easy", "easy:node=high_gflops")
    assert create("high_gflops").name == "high_gflops"  # the grid class has no name of its own
