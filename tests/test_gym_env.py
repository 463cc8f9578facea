"""The gymnasium environment ``hetsched/Cluster-v0``: registration, gymnasium's own checks, whole
episodes under a random masked policy checked by the simulator's invariants, and heuristics
played through the environment giving the very jobs.csv of the same scheduler under a run."""

from __future__ import annotations

import warnings

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from hetsched.errors import ConfigError, HetschedError, SchedulerError
from hetsched.gym import ENV_ID, PAIRS, ClusterEnv
from hetsched.output.jobs_csv import write_jobs_csv
from hetsched.platform.load import load_platform
from hetsched.platform.model import NodeType, Platform
from hetsched.run.execute import run_simulation
from hetsched.run.inputs import load_inputs
from hetsched.schedulers.placement import place
from hetsched.sim.result import JobState
from hetsched.testing.invariants import check_result
from hetsched.workload.model import Workload
from support import shared


def random_episode(env: gymnasium.Env, seed: int) -> tuple[int, float]:
    """One episode under a uniformly random allowed action: its steps and total reward."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps, total = 0, 0.0
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(action)
        steps, total = steps + 1, total + reward
        if terminated or truncated:
            return steps, total


def test_make_with_no_arguments_runs_the_bundled_example() -> None:
    env = gymnasium.make(ENV_ID)
    steps, _ = random_episode(env, 0)
    result = env.unwrapped.result
    platform, workload = load_inputs(None, None)
    assert len(result.workload.jobs) == len(workload.jobs) == 200
    assert len(env.unwrapped.platform.nodes) == len(platform.nodes)
    assert steps > 0 and result.count(JobState.FINISHED) == 200
    check_result(result)


def test_the_module_qualified_id_imports_the_package() -> None:
    env = gymnasium.make(f"hetsched.gym:{ENV_ID}", actions="policy")
    assert isinstance(env.unwrapped, ClusterEnv)
    assert env.action_space.n == len(PAIRS) + 1 == 7 * 8 + 1


@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_gymnasiums_env_checker_passes(actions: str) -> None:
    # the checker samples actions without the mask: masked ones must wait, not raise; made
    # through gymnasium.make (a spec: the checker also tries the other render modes), with
    # every warning an error (a finite Box: no "maximum value is infinity")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mode in (None, "ansi"):
            check_env(gymnasium.make(ENV_ID, actions=actions, invalid_action="wait",
                                     render_mode=mode).unwrapped, skip_render_check=False)


@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_random_masked_episodes_run_to_the_end_and_keep_the_invariants(actions: str) -> None:
    env = gymnasium.make(ENV_ID, actions=actions, visible=4)
    for seed in range(3):
        random_episode(env, seed)
        result = env.unwrapped.result
        assert result.count(JobState.UNFINISHED) == 0
        check_result(result)


def test_random_masked_episodes_on_generated_workloads_differ_by_seed() -> None:
    env = gymnasium.make(ENV_ID, workload={"generator": "lublin", "jobs": 60}, visible=8)
    names = []
    for seed in (1, 2, 1):
        random_episode(env, seed)
        check_result(env.unwrapped.result)
        names.append([job.submit for job in env.unwrapped.result.workload.jobs])
    assert names[0] == names[2] != names[1]


def test_reset_with_a_seed_replays_the_episode() -> None:
    env = gymnasium.make(ENV_ID, actions="policy")
    runs = []
    for _ in range(2):
        random_episode(env, 7)
        runs.append(env.unwrapped.result.start.tolist())
    assert runs[0] == runs[1]


def lublin(jobs: int) -> tuple[Path, Workload]:
    platform_path = shared("platforms/irmasim_lublin_20node.json")
    platform = load_platform(platform_path)
    full = load_inputs(platform, shared("traces/lublin_256.swf"))[1]
    return platform_path, Workload("lublin", full.jobs[:jobs])


def jobs_csv(result, path: Path) -> bytes:
    return write_jobs_csv(result, path).read_bytes()


@pytest.mark.parametrize("pair", [("first", "first"), ("shortest", "high_gflops"),
                                  ("smallest", "random"), ("low_mem", "low_cores")])
@pytest.mark.parametrize("inputs", ["bundled", "lublin"])
def test_a_constant_pair_gives_irmasim_heuristics_jobs_csv(pair: tuple[str, str], inputs: str,
                                                           tmp_path: Path) -> None:
    platform, workload = (None, None) if inputs == "bundled" else lublin(1500)
    env = ClusterEnv(platform, workload, actions="policy")
    action = PAIRS.index(pair)
    _, info = env.reset(seed=3)
    while True:
        chosen = action if info["action_mask"][action] else len(PAIRS)
        _, _, terminated, truncated, info = env.step(chosen)
        if terminated or truncated:
            break
    spec = f"irmasim_heuristic:job_selection={pair[0]},node_selection={pair[1]}"
    expected = run_simulation(platform, workload, spec, seed=3)
    assert jobs_csv(env.result, tmp_path / "env.csv") == jobs_csv(expected, tmp_path / "run.csv")


def fcfs_action(env: ClusterEnv) -> int:
    """What fcfs does next, as a job_node action: the first pending job on its first-fit
    placement (from its lowest-index fitting node), or wait."""
    view, nodes = env.sim.view, len(env.platform.nodes)
    head = next(iter(view.pending.values()))
    where = place(head, view.free_slots_for(head), view.free_mem, view.free_disk,
                  np.arange(nodes), np.random.default_rng(0), order=np.arange(nodes))
    return env.action_space.n - 1 if where is None else where[0][0]


@pytest.mark.parametrize("inputs", ["bundled", "lublin"])
def test_fcfs_replayed_as_job_node_actions_gives_fcfs_jobs_csv(inputs: str,
                                                               tmp_path: Path) -> None:
    platform, workload = (None, None) if inputs == "bundled" else lublin(1500)
    env = ClusterEnv(platform, workload, visible=3)
    env.reset(seed=0)
    multi = 0
    while True:
        action = fcfs_action(env)
        multi += action < env.action_space.n - 1 and next(
            iter(env.sim.view.pending.values())).nodes != 1
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    expected = run_simulation(platform, workload, "fcfs", seed=0)
    assert jobs_csv(env.result, tmp_path / "env.csv") == jobs_csv(expected, tmp_path / "run.csv")
    assert inputs == "bundled" or multi > 0  # the spread rule was played


def test_an_infeasible_action_is_a_one_line_error_naming_it() -> None:
    env = ClusterEnv(visible=2)
    _, info = env.reset(seed=0)
    forbidden = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(SchedulerError, match=rf"^action {forbidden} \(job slot \d, node \d+\) "
                                             "is infeasible: ") as caught:
        env.step(forbidden)
    assert "\n" not in str(caught.value)
    with pytest.raises(SchedulerError, match=r"action 99 is out of range 0\.\.16$"):
        env.step(99)
    with pytest.raises(SchedulerError, match="not a whole number"):
        env.step(1.5)


def test_an_infeasible_action_can_wait_with_a_penalty_instead() -> None:
    env = ClusterEnv(visible=2, invalid_action="wait", invalid_penalty=5.0, reward="wait")
    obs, info = env.reset(seed=0)
    forbidden = int(np.flatnonzero(info["action_mask"] == 0)[0])
    waiting = ClusterEnv(visible=2, reward="wait")
    waiting.reset(seed=0)
    _, penalised, *_ = env.step(forbidden)
    _, plain, *_ = waiting.step(env.action_space.n - 1)
    assert penalised == pytest.approx(plain - 5.0)
    assert env.sim.clock[0] == waiting.sim.clock[0]


@pytest.mark.parametrize("arguments, message", [
    ({"actions": "jobs"}, "actions must be one of job_node, policy, got 'jobs'"),
    ({"visible": 0}, r"visible must be a whole number in 1\.\.1024, got 0"),
    ({"reward": "slowdonw"}, "reward: unknown term 'slowdonw'; did you mean slowdown"),
    ({"reward": {"wait": -1}}, "reward weight of wait must be >= 0"),
    ({"reward_at": "never"}, "reward_at must be one of step, end"),
    ({"max_steps": 0}, "max_steps must be a whole number >= 1"),
    ({"invalid_action": "ignore"}, "invalid_action must be one of raise, wait"),
    ({"contention": "nonee"}, "contention"),
    ({"horizon": -1}, "horizon must be >= 0"),
    ({"render_mode": "rgb_array"}, "render_mode must be one of ansi, human"),
    ({"workload": {"generator": "lublin", "jobz": 5}},
     "workload, field 'jobz': unknown field; did you mean 'jobs'"),
    ({"workload": {"jobs": 5}}, "a mapping must name a generator"),
    ({"platform": 3}, "platform must be a path or a Platform"),
])
def test_bad_arguments_are_one_line_errors(arguments: dict, message: str) -> None:
    with pytest.raises(HetschedError, match=message) as caught:
        ClusterEnv(**arguments)
    assert "\n" not in str(caught.value)


def test_an_energy_reward_needs_a_power_model() -> None:
    platform = Platform.from_counts("p", [(NodeType("a", cores=4, clock_ghz=1.0), 2)])
    with pytest.raises(ConfigError, match="energy and edp terms need a platform with a power"):
        ClusterEnv(platform, reward="energy")


def test_max_steps_truncates_and_the_run_stops_there() -> None:
    env = ClusterEnv(max_steps=5)
    _, info = env.reset(seed=0)
    for step in range(5):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not terminated and truncated == (step == 4)
    assert env.result.count(JobState.UNFINISHED) > 0
    assert info["action_mask"].tolist() == [0] * (env.action_space.n - 1) + [1]
    with pytest.raises(SchedulerError, match="after the episode ended"):
        env.step(env.action_space.n - 1)


def test_a_horizon_truncates() -> None:
    env = ClusterEnv(horizon=2000.0)
    steps, _ = random_episode(env, 0)
    assert env.result.makespan_cut and env.sim.clock[0] <= 2000.0
    env.reset(seed=0)
    wait = env.action_space.n - 1
    while True:
        _, _, terminated, truncated, _ = env.step(wait)
        if terminated or truncated:
            break
    assert truncated and not terminated


def test_render_shows_the_time_the_queue_and_each_node() -> None:
    env = ClusterEnv(render_mode="ansi", visible=2)
    env.reset(seed=0)
    lines = env.render().splitlines()
    assert re.fullmatch(r"t=\S+s  pending 1: j0\(4\)  running 0", lines[0])
    assert len(lines) == 1 + len(env.platform.nodes)
    assert lines[1].split() == ["medium-0", "0/8", "busy", "[........]"]


def test_render_in_human_mode_prints_the_view(capsys: pytest.CaptureFixture[str]) -> None:
    env = ClusterEnv(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert capsys.readouterr().out.startswith("t=0s  pending 1: j0(4)")
