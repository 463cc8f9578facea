"""`examples/train_gym_policy.py --agent maskable-ppo` (sb3-contrib's MaskablePPO, the `rl`
extra) end to end on a tiny budget: skipped where sb3-contrib is not installed. The same
outputs as the numpy agent's, from the same evaluation (test_train_gym_policy.py), the same
files from the same seed."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("gymnasium")
sb3_contrib = pytest.importorskip("sb3_contrib")

from support import shared  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "train_gym_policy.py"
TINY = ["--agent", "maskable-ppo", "--episodes", "6", "--rollout-steps", "64",
        "--eval-episodes", "3", "--jobs", "40", "--minutes", "10"]


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("train_gym_policy", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPT.parent))
        for name in ("train_gym_policy", "gym_agent", "gym_ppo"):
            sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def trained(script: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    shared("platforms/irmasim_lublin_20node.json")
    out = tmp_path_factory.mktemp("trained")
    assert script.main(["--out", str(out), *TINY]) == 0
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_run_names_its_agent_and_trains_on_fresh_workloads(trained: Path) -> None:
    record = json.loads((trained / "run.json").read_text())
    assert record["agent"] == "maskable-ppo" and record["actions"] == "job_node"
    assert record["learning"]["rollout_steps"] == 64
    rows = _rows(trained / "learning_curve.csv")
    assert [int(row["episode"]) for row in rows] == list(range(6))
    # a workload per episode, in order: the training seeds, never a held-out one
    assert [int(row["seed"]) for row in rows] == record["train_seeds"] == \
        list(range(1_000_000, 1_000_006))
    assert record["eval_seeds"] == [0, 1, 2] and record["episodes_trained"] == 6
    for row in rows:  # every job finishes: the steps' rewards add up to minus the slowdown
        assert float(row["return"]) == pytest.approx(-float(row["mean_bounded_slowdown"]))
        assert int(row["steps"]) >= 40  # a start per job, at least
        # nats, over at most 16 visible jobs × 20 nodes + "wait"
        assert 0 < float(row["entropy"]) <= np.log(16 * 20 + 1)
    validation = _rows(trained / "validation.csv")
    assert [row["episodes_trained"] for row in validation] == ["0", "6"]
    assert (trained / "policy.zip").stat().st_size > 0
    assert not (trained / "policy.npz").exists()
    assert (trained / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_the_table_names_maskable_ppo_beside_the_baselines(trained: Path) -> None:
    table = (trained / "table.md").read_text()
    assert [line.split(" | ")[0] for line in table.splitlines()[2:7]] == \
        ["| policy", "| untrained policy", "| fcfs", "| easy", "| high_gflops"]
    assert "The policy was trained by MaskablePPO (sb3-contrib) on the job_node space." in table
    assert "The greedy policy's actions on the held-out episodes: job " in table
    assert "policy against untrained policy (what training changed)" in table
    evaluation = _rows(trained / "evaluation.csv")
    assert [(row["scheduler"], row["seed"]) for row in evaluation[:5]] == \
        [("policy", "0"), ("untrained policy", "0"), ("fcfs", "0"), ("easy", "0"),
         ("high_gflops", "0")]
    assert len(evaluation) == 3 * 5


def test_the_greedy_policy_takes_only_allowed_work_conserving_actions(
        script: ModuleType, trained: Path) -> None:
    gym_ppo = sys.modules["gym_ppo"]
    settings = script.parse(["--out", str(trained), *TINY])
    env = gym_ppo.wrap(script.make_env(settings))
    model = sb3_contrib.MaskablePPO.load(trained / "policy.zip", device="cpu")
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = info["action_mask"]
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert mask[action] == 1
        assert action != len(mask) - 1 or not mask[:-1].any()  # no "wait" while a job can start
        obs, _, terminated, truncated, info = env.step(int(action))
        done, steps = terminated or truncated, steps + 1
    assert env.finished[-1]["seed"] == 0 and env.finished[-1]["steps"] == steps


def test_the_same_seed_gives_the_same_files(script: ModuleType, trained: Path,
                                            tmp_path: Path) -> None:
    assert script.main(["--out", str(tmp_path), *TINY]) == 0
    for name in ("learning_curve.csv", "validation.csv", "evaluation.csv", "table.md"):
        assert (tmp_path / name).read_text() == (trained / name).read_text(), name
