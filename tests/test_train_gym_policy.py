"""`examples/train_gym_policy.py` (docs/gym.md, "Training a policy") end to end on a tiny
budget: its outputs, its held-out seeds, its baselines equal to `hetsched.simulate` run
directly, and the same files from the same seed."""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from support import shared  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "train_gym_policy.py"
TINY = ["--agent", "numpy", "--episodes", "4", "--batch", "2", "--eval-episodes", "3",
        "--jobs", "40", "--minutes", "10"]


@pytest.fixture(scope="module", name="script")
def script_module() -> Iterator[ModuleType]:
    """The script as a module; its folder on the path, as when it runs (it imports
    ``gym_agent`` beside it)."""
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


def trained_run(script: ModuleType, tmp_path_factory: pytest.TempPathFactory,
                args: list[str]) -> Path:
    """The folder of a run of the script with ``args`` (it must succeed)."""
    shared("platforms/irmasim_lublin_20node.json")
    out = tmp_path_factory.mktemp("trained")
    assert script.main(["--out", str(out), *args]) == 0
    return out


@pytest.fixture(scope="module")
def trained(script: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_run(script, tmp_path_factory, TINY)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_learning_curve_has_a_row_per_training_episode(script: ModuleType,
                                                       trained: Path) -> None:
    with (trained / "learning_curve.csv").open() as handle:
        assert next(csv.reader(handle)) == list(script.CURVE_COLUMNS)
    rows = _rows(trained / "learning_curve.csv")
    assert [int(row["episode"]) for row in rows] == [0, 1, 2, 3]
    for row in rows:  # every job finishes: the steps' rewards add up to minus the slowdown
        assert float(row["return"]) == pytest.approx(-float(row["mean_bounded_slowdown"]))
    slowdowns = [float(row["mean_bounded_slowdown"]) for row in rows]
    assert float(rows[1]["mean_bounded_slowdown_avg"]) == pytest.approx(np.mean(slowdowns[:2]))
    assert 0 < float(rows[0]["entropy"]) <= np.log(57)  # nats, over at most 57 actions
    assert (trained / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    validation = _rows(trained / "validation.csv")  # before training, and after it
    assert [row["episodes_trained"] for row in validation] == ["0", "4"]


def test_table_has_the_policy_and_each_baseline(trained: Path) -> None:
    table = (trained / "table.md").read_text()
    assert [line.split(" | ")[0] for line in table.splitlines()[2:7]] == \
        ["| policy", "| untrained policy", "| fcfs", "| easy", "| high_gflops"]
    assert table.count("paired by held-out episode") == 2  # against a baseline, and untrained
    assert "policy against untrained policy (what training changed)" in table
    assert table.count("| mean bounded slowdown | 3 |") == 2
    assert "The greedy policy's actions on the held-out episodes: " in table
    assert "The policy was trained by REINFORCE (numpy) on the policy space." in table
    evaluation = _rows(trained / "evaluation.csv")
    assert [(row["scheduler"], row["seed"]) for row in evaluation[:5]] == \
        [("policy", "0"), ("untrained policy", "0"), ("fcfs", "0"), ("easy", "0"),
         ("high_gflops", "0")]
    assert len(evaluation) == 3 * 5


def test_evaluation_seeds_are_never_training_seeds(trained: Path) -> None:
    record = json.loads((trained / "run.json").read_text())
    curve_seeds = [int(row["seed"]) for row in _rows(trained / "learning_curve.csv")]
    assert record["train_seeds"] == curve_seeds  # two workloads, two episodes each
    assert curve_seeds[0] == curve_seeds[1] != curve_seeds[2] == curve_seeds[3]
    train_seeds = set(curve_seeds)
    eval_seeds = {int(row["seed"]) for row in _rows(trained / "evaluation.csv")}
    assert set(record["eval_seeds"]) == eval_seeds == {0, 1, 2}
    validation_seeds = set(record["validation_seeds"])
    assert len(validation_seeds) == 20
    assert not train_seeds & eval_seeds and not validation_seeds & (train_seeds | eval_seeds)
    assert record["episodes_trained"] == 4


def test_baselines_equal_simulate_on_the_episodes_workloads(script: ModuleType,
                                                            trained: Path) -> None:
    import hetsched
    from hetsched.platform.load import load_platform
    from hetsched.workload.generators import check_params, generate

    settings = script.parse(["--out", str(trained), *TINY])
    platform = load_platform(settings.episodes.platform)
    spec = settings.episodes.workload()
    name = spec.pop("generator")
    params = check_params(name, spec, Path("workload"))
    for row in _rows(trained / "evaluation.csv"):
        if row["scheduler"] in ("policy", "untrained policy"):
            continue
        seed = int(row["seed"])
        summary = hetsched.simulate(platform, generate(name, params, seed, platform),
                                    row["scheduler"], seed=seed).summary
        for metric in script.METRICS:
            assert float(row[metric]) == summary[metric], (row["scheduler"], seed, metric)


def test_the_same_seed_gives_the_same_files(script: ModuleType, trained: Path,
                                            tmp_path: Path) -> None:
    assert script.main(["--out", str(tmp_path), *TINY]) == 0
    for name in ("learning_curve.csv", "validation.csv", "evaluation.csv", "table.md"):
        assert (tmp_path / name).read_text() == (trained / name).read_text(), name
    again, first = np.load(tmp_path / "policy.npz"), np.load(trained / "policy.npz")
    assert np.array_equal(again["weights"], first["weights"])
    assert np.abs(first["weights"]).sum() > 0  # two updates, of two episodes each


def test_a_missing_platform_is_a_one_line_error(script: ModuleType, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert script.main(["--out", str(tmp_path), "--platform", str(tmp_path / "no.json"),
                        *TINY]) == 1
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1 and "no.json" in error


def test_a_bad_baseline_is_a_one_line_error_before_training(
        script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert script.main(["--out", str(tmp_path / "run"), "--baselines", "easyy", *TINY]) == 1
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1 and "easyy" in error
    assert not (tmp_path / "run").exists()


def test_a_bad_budget_is_refused_without_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), "--minutes",
                           "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].endswith("argument --minutes: must be > 0, got 0")


def test_maskable_ppo_without_sb3_contrib_is_a_one_line_error(
        script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # (its import fails)
    assert script.main(["--out", str(tmp_path / "run"), "--agent", "maskable-ppo"]) == 2
    error = capsys.readouterr().err
    assert error == ("error: --agent maskable-ppo needs sb3-contrib, which is not installed "
                     "(pip install 'hetsched[rl]')\n")
    assert not (tmp_path / "run").exists()


def test_auto_is_maskable_ppo_only_where_sb3_contrib_imports(
        script: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    assert script.parse(["--out", "x"]).agent == \
        ("maskable-ppo" if importlib.util.find_spec("sb3_contrib") else "numpy")
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    settings = script.parse(["--out", "x", "--learning-rate", "0.5"])
    assert settings.agent == "numpy"
    assert settings.learning == sys.modules["gym_agent"].Learning(learning_rate=0.5)


def test_the_other_agents_option_is_refused(script: ModuleType,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        script.parse(["--out", "x", "--agent", "maskable-ppo", "--batch", "4"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "error: --batch is not an option of --agent maskable-ppo")
    settings = script.parse(["--out", "x", "--agent", "maskable-ppo", "--rollout-steps", "64",
                             "--gamma", "0.99"])
    assert settings.learning == sys.modules["gym_ppo"].PPOLearning(rollout_steps=64, gamma=0.99)
    assert settings.actions == "job_node"
    with pytest.raises(SystemExit):
        script.parse(["--out", "x", "--agent", "numpy", "--actions", "job_node"])
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "error: --actions job_node is not a space of --agent numpy")


def _episode(agent_module: ModuleType, action: int, reward: float) -> object:
    phis, masks = np.ones((3, agent_module.FEATURES)), np.ones((3, 57), dtype=np.int8)
    masks[:, 5] = 0
    return agent_module.Episode(phis, masks, [action] * 3, [reward, 0.0, 0.0], {}, 0.0)


def test_an_update_moves_the_policy_towards_the_better_episode(script: ModuleType) -> None:
    agent_module = sys.modules["gym_agent"]
    agent = agent_module.Agent(agent_module.Learning(learning_rate=0.1, entropy_weight=0.0))
    phi, mask = np.ones(agent_module.FEATURES), np.ones(57, dtype=np.int8)
    mask[5] = 0
    before = agent.probabilities(phi, mask)
    assert before[5] == 0 and before[0] == pytest.approx(1 / 56)
    # pair 0 (random × random) returned -1, pair 9 (first × first) -5, on the same workload
    agent.update([_episode(agent_module, 0, -1.0), _episode(agent_module, 9, -5.0)])
    after = agent.probabilities(phi, mask)
    assert after[0] > before[0] and after[9] < before[9] and after[5] == 0
    # the heads are shared: with high_gflops (action 2 and 8 + 2), which neither episode
    # chose, random job selection is now preferred to first
    assert after[2] > after[8 + 2] and before[2] == before[8 + 2]
