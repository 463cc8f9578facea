"""`examples/train_gym_policy.py --agent maskable-ppo` (sb3-contrib's MaskablePPO, the `rl`
extra) end to end on a tiny budget: skipped where sb3-contrib is not installed. The same
outputs as the numpy agent's, from the same evaluation (test_train_gym_policy.py), the same
files from the same seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("gymnasium")
sb3_contrib = pytest.importorskip("sb3_contrib")


# (script_module: the fixture "script")
from test_train_gym_policy import _rows, script_module, trained_run  # noqa: E402, F401

TINY = ["--agent", "maskable-ppo", "--episodes", "6", "--rollout-steps", "64",
        "--eval-episodes", "3", "--jobs", "40", "--minutes", "10"]


@pytest.fixture(scope="module")
def trained(script: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The outputs of a tiny MaskablePPO run: 6 training episodes of 40 jobs, 3 held out."""
    return trained_run(script, tmp_path_factory, TINY)


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
    assert "The policy was trained by MaskablePPO (sb3-contrib) on the job_node space." in table
    assert "The greedy policy's actions on the held-out episodes: job " in table
    assert "policy against untrained policy (what training changed)" in table
    schedulers = [row["scheduler"] for row in _rows(trained / "evaluation.csv")]
    assert schedulers == ["policy", "untrained policy", "fcfs", "easy", "high_gflops"] * 3
    assert [line.split(" | ")[0].removeprefix("| ") for line in table.splitlines()[2:7]] == \
        schedulers[:5]


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


def test_validation_during_training_counts_the_episodes_trained(
        script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(script.VALIDATE_EVERY, "maskable-ppo", 1)  # after every update
    short = [*TINY, "--episodes", "4", "--eval-episodes", "1"]  # (the last --episodes counts)
    assert script.main(["--out", str(tmp_path), *short]) == 0
    trained = [int(row["episodes_trained"]) for row in _rows(tmp_path / "validation.csv")]
    # an update every 64 steps, 40 starts (and some waits) per episode: validated before
    # training, after the episodes finished by each update, and at the end
    assert trained[0] == 0 and trained[-1] == 4 and 0 < trained[1] < 4
    assert trained == sorted(trained)
