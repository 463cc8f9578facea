"""The environment's checkpoints (``snapshot()``/``restore()``) and the ``job_node`` mask kept
from step to step: steps after a restore give what steps from the snapshot gave, restored
twice too; the mask at every turn is the one computed from scratch, on platforms with
on-demand nodes, reservations and failures too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hetsched.errors import SchedulerError
from hetsched.gym import ClusterEnv
from hetsched.gym.job_node import first_share
from hetsched.platform.model import Platform
from hetsched.schedulers.placement import place
from hetsched.workload.model import SPREAD, Workload
from test_availability_random import _case
from test_gym_env import jobs_csv, lublin


def with_wide_jobs(case: tuple[Platform, Workload]) -> tuple[Platform, Workload]:
    """``case`` with every third job over exactly 2 nodes and every fifth over any nodes."""
    platform, workload = case
    jobs = tuple(replace(job, nodes=2, ntasks=2 * job.ntasks) if i % 3 == 1 else
                 replace(job, nodes=SPREAD, ntasks=job.ntasks + 3) if i % 5 == 4 else job
                 for i, job in enumerate(workload.jobs))
    return platform, Workload(workload.name, jobs)


INPUTS = {"bundled": lambda: (None, None), "lublin": lambda: lublin(600),
          **{f"on-demand {seed}": (lambda seed=seed: with_wide_jobs(_case(seed)))
             for seed in (0, 1, 2)}}


def played(env: ClusterEnv, actions: list[int], seed: int, tmp: Path) -> tuple[list, bytes]:
    """Step ``env`` (at a turn) by ``actions``, then by random allowed ones to the end:
    each step's observation, reward, end flags and mask, and the run's jobs.csv."""
    rng = np.random.default_rng(seed)
    steps, info = [], {"action_mask": env.driver.mask}
    while True:
        allowed = np.flatnonzero(info["action_mask"])
        action = actions[len(steps)] if len(steps) < len(actions) else int(rng.choice(allowed))
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append((obs["jobs"].tobytes(), obs["nodes"].tobytes(), reward, terminated,
                      truncated, info["action_mask"].tobytes(), info["time"], info["steps"]))
        if terminated or truncated:
            return steps, jobs_csv(env.result, tmp / f"jobs{len(list(tmp.iterdir()))}.csv")


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_a_restored_snapshot_steps_on_as_the_episode_did(actions: str, inputs: str,
                                                         tmp_path: Path) -> None:
    platform, workload = INPUTS[inputs]()
    env = ClusterEnv(platform, workload, actions=actions, visible=4, reward={"slowdown": 1,
                                                                            "wait": 0.01})
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(3):  # some steps first: a snapshot within an instant, with jobs running
        obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(
            info["action_mask"]))))
        assert not terminated
    saved = env.snapshot()
    expected = played(env, [], 5, tmp_path)
    assert len(expected[0]) >= 3
    for _ in range(2):  # restored twice from the one snapshot
        again, info_again = env.restore(saved)
        assert again["jobs"].tobytes() == obs["jobs"].tobytes()
        assert again["nodes"].tobytes() == obs["nodes"].tobytes()
        assert np.array_equal(info_again["action_mask"], info["action_mask"])
        assert info_again["steps"] == info["steps"] == 3
        assert played(env, [], 5, tmp_path) == expected


def test_a_snapshot_branches_rollouts_that_leave_each_other_alone(tmp_path: Path) -> None:
    """Other actions after a restore give another episode; a restore after it gives the
    first one again."""
    env = ClusterEnv(visible=8)
    env.reset(seed=1)
    saved = env.snapshot()
    first = played(env, [], 1, tmp_path)
    env.restore(saved)
    other = played(env, [], 2, tmp_path)
    env.restore(saved)
    assert other != first == played(env, [], 1, tmp_path)


def test_snapshot_and_restore_errors_are_one_line() -> None:
    env = ClusterEnv()
    with pytest.raises(SchedulerError, match="^snapshot\\(\\) before reset\\(\\) or after the "
                                             "episode ended$"):
        env.snapshot()
    env.reset(seed=0)
    with pytest.raises(SchedulerError, match="^restore\\(\\): dict is not a snapshot"):
        env.restore({})  # type: ignore[arg-type]


def scratch_mask(env: ClusterEnv) -> np.ndarray:
    """The job_node mask from the view alone, pair by pair (``view.fits`` of each job's
    first share on each node; for a job of several nodes, a placement by the spread rule
    too), no state kept between turns."""
    view, driver = env.sim.view, env.driver
    nodes = len(env.platform.nodes)
    mask = np.zeros(env.action_space.n, dtype=np.int8)
    for k, job in enumerate(list(view.pending.values())[:env.options.visible]):
        row = [view.fits(job, node, first_share(job)) for node in range(nodes)]
        if job.nodes != 1 and any(row) and place(
                job, view.free_slots_for(job), view.free_mem, view.free_disk, None, driver.rng,
                order=np.arange(nodes)) is None:
            row = [False] * nodes
        mask[k * nodes:(k + 1) * nodes] = row
    mask[-1] = 1
    return mask


@pytest.mark.parametrize("inputs", INPUTS)
def test_the_mask_kept_from_turn_to_turn_is_the_mask_from_scratch(inputs: str) -> None:
    platform, workload = INPUTS[inputs]()
    env = ClusterEnv(platform, workload, visible=6)
    turns = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        while True:
            if env.result is None:
                assert np.array_equal(info["action_mask"], scratch_mask(env)), (seed, turns)
                turns += 1
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
    assert turns > 30


@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_a_snapshot_outlives_a_reset_to_another_episode(actions: str, tmp_path: Path) -> None:
    """Restored after episodes of other generated workloads (other jobs under the same
    indexes), with a step limit: the same steps, truncated at the same step."""
    env = ClusterEnv(workload={"generator": "lublin", "jobs": 80}, actions=actions, visible=4,
                     max_steps=60)
    env.reset(seed=1)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.driver.mask)[0]))
    saved = env.snapshot()
    expected = played(env, [], 4, tmp_path)
    assert expected[0][-1][4] and expected[0][-1][7] == 60  # truncated at the step limit
    env.reset(seed=2)
    played(env, [], 4, tmp_path)
    env.restore(saved)
    assert played(env, [], 4, tmp_path) == expected
