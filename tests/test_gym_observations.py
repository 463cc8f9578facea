"""What the environment shows and pays: observations from what a resource manager knows (not
true run times), and rewards per step that add up to the summary metrics they stand for."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hetsched.examples import dssim_config_path
from hetsched.gym import JOB_FIELDS, NODE_FIELDS, PAIRS, ClusterEnv
from hetsched.gym.observation import Observer
from hetsched.metrics import summarize
from hetsched.platform.model import Availability, NodeType, Platform
from hetsched.run.execute import run_simulation
from hetsched.run.inputs import load_inputs
from hetsched.sim.engine import Simulation
from hetsched.sim.protocol import Start
from hetsched.testing.invariants import check_result
from hetsched.workload.model import Job, Workload
from test_gym_env import jobs_csv


def true_times_changed(workload: Workload, seed: int) -> Workload:
    """``workload`` with every job's true work (so its run time) scaled by a random factor in
    [0.3, 3), its requested time unchanged."""
    factors = np.random.default_rng(seed).uniform(0.3, 3.0, len(workload.jobs))
    return Workload(workload.name, tuple(replace(job, req_ops=job.req_ops * float(f))
                                         for job, f in zip(workload.jobs, factors)))


def anything_ended(env: ClusterEnv) -> bool:
    view = env.sim.view
    return any(view.ended(job) for job in view.submitted)


@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_true_run_times_do_not_show_before_the_first_job_ends(actions: str) -> None:
    platform, bundled = load_inputs(None, None)
    # the bundled jobs arriving 100 times as fast: many start before the first ends
    workload = Workload("dense", tuple(replace(job, submit=job.submit / 100)
                                       for job in bundled.jobs))
    envs = [ClusterEnv(platform, w, actions=actions, visible=4)
            for w in (workload, true_times_changed(workload, 1))]
    seen = [env.reset(seed=0) for env in envs]
    steps = 0
    while not any(anything_ended(env) for env in envs):
        (obs_a, info_a), (obs_b, info_b) = seen
        for key in ("jobs", "nodes"):
            assert np.array_equal(obs_a[key], obs_b[key]), (steps, key)
        assert np.array_equal(info_a["action_mask"], info_b["action_mask"])
        assert info_a["time"] == info_b["time"]
        allowed = np.flatnonzero(info_a["action_mask"])
        action = int(allowed[steps % len(allowed)])
        seen = [env.step(action)[::4] for env in envs]
        steps += 1
    assert steps >= 10  # several starts, the estimated ends shown, before the first end
    assert seen[0][0]["nodes"][:, NODE_FIELDS.index("time_to_free")].any()


def test_the_observation_holds_the_documented_fields() -> None:
    env = ClusterEnv(visible=3)
    obs, info = env.reset(seed=0)
    job = env.sim.view.pending[0]
    row = dict(zip(JOB_FIELDS, obs["jobs"][0].tolist()))
    assert row == pytest.approx({"valid": 1, "requested_time": job.req_time,
                                 "tasks": job.ntasks, "nodes": job.nodes,
                                 "memory_mb": job.job_memory_mb, "mem_bw_gbs": job.mem_bw_gbs,
                                 "waiting_time": info["time"] - job.submit})
    assert not obs["jobs"][1:].any()  # one job pending: zero rows, valid 0
    fast = env.platform.nodes[6]
    node = dict(zip(NODE_FIELDS, obs["nodes"][6].tolist()))
    assert node == pytest.approx({"free_cores": 16, "speed_gops": 3.5,
                                  "power_w": fast.type.full_power_w, "running_jobs": 0,
                                  "time_to_free": 0})
    # start it on node 6: 16 - 4 cores free, and its requested time till the node is free
    obs, *_ = env.step(6)
    started = env.sim.view.running
    node = dict(zip(NODE_FIELDS, obs["nodes"][6].tolist()))
    if started:  # (still running at the next turn)
        run = next(iter(started.values()))
        assert node["running_jobs"] == 1 and node["free_cores"] == 12
        assert node["time_to_free"] == pytest.approx(run.est_end - env.sim.clock[0], rel=1e-6)


TERMS = {"slowdown": "mean_bounded_slowdown", "wait": "mean_wait", "energy": "energy_j",
         "edp": "edp_js"}


@pytest.mark.parametrize("term", TERMS)
def test_per_step_rewards_add_up_to_the_summary_metric(term: str) -> None:
    env = ClusterEnv(reward=term, visible=4)
    rng = np.random.default_rng(5)
    _, info = env.reset(seed=5)
    total = 0.0
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            break
    summary = summarize(env.result)
    assert summary["finished"] == summary["jobs"]
    assert total == pytest.approx(-summary[TERMS[term]], rel=1e-9)


def test_an_end_reward_is_paid_once_and_mixes_the_weighted_terms() -> None:
    weights = {"slowdown": 2.0, "wait": 0.01}
    env = ClusterEnv(reward=weights, reward_at="end")
    _, info = env.reset(seed=0)
    rewards = []
    while True:
        _, reward, terminated, truncated, info = env.step(
            int(np.flatnonzero(info["action_mask"])[0]))
        rewards.append(reward)
        if terminated or truncated:
            break
    summary = summarize(env.result)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == pytest.approx(-(2.0 * summary["mean_bounded_slowdown"]
                                          + 0.01 * summary["mean_wait"]))


def test_a_constant_pair_schedules_submissions_before_completions_of_an_instant(
        tmp_path) -> None:
    # IRMaSim's order: at t=10 'b' is submitted as 'a' ends; the first pass sees node 0 still
    # held by 'a', so 'b' (smallest) goes to node 1; then 'c', released... as the manager does
    c4 = NodeType("c4", cores=4, clock_ghz=1.0)
    platform = Platform.from_counts("p", [(c4, 2)])
    jobs = (Job("a", 0.0, 4, 10e9, 10.0), Job("b", 10.0, 2, 5e9, 5.0),
            Job("c", 10.0, 4, 5e9, 5.0), Job("d", 12.0, 2, 5e9, 5.0))
    workload = Workload("w", jobs)
    spec = "irmasim_heuristic:job_selection=smallest,node_selection=first"
    expected = run_simulation(platform, workload, spec)
    env = ClusterEnv(platform, workload, actions="policy")
    action = PAIRS.index(("smallest", "first"))
    _, info = env.reset(seed=0)
    while True:
        chosen = action if info["action_mask"][action] else len(PAIRS)
        *_, terminated, truncated, info = env.step(chosen)
        if terminated or truncated:
            break
    assert expected.allocation[1] == ((1, 2),)  # the first pass: node 0 still held
    assert jobs_csv(env.result, tmp_path / "e.csv") == jobs_csv(expected, tmp_path / "r.csv")


@pytest.mark.parametrize("term", ["slowdown", "wait"])
@pytest.mark.parametrize("actions", ["job_node", "policy"])
def test_per_step_rewards_add_up_on_nodes_that_boot(term: str, actions: str) -> None:
    # ds-sim's servers boot when first used: a job started on a booting node waits for it
    env = ClusterEnv(dssim_config_path(), actions=actions, reward=term)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total, done = total + reward, terminated or truncated
    check_result(env.result)
    summary = summarize(env.result)
    assert summary["finished"] == summary["jobs"] == 30 and summary["mean_wait"] > 0
    assert total == pytest.approx(-summary[TERMS[term]], rel=1e-9)


def node_load_from_scratch(env: ClusterEnv) -> np.ndarray:
    """The running jobs and estimated time to free of each node, from every running job."""
    view, now = env.sim.view, env.sim.clock[0]
    load = np.zeros((len(env.platform.nodes), 2))
    for run in view.running.values():
        for node, _ in run.allocation:
            load[node] += (1, 0)
            load[node, 1] = max(load[node, 1], run.est_end - now)
    return load.astype(np.float32)


@pytest.mark.parametrize("contention", [None, "irmasim"])
def test_the_node_columns_count_the_running_jobs_and_their_latest_estimated_end(
        contention: str | None) -> None:
    """``running_jobs`` and ``time_to_free`` of every node at every step, under contention
    (rates change), across episodes and after a restore: the jobs running there and the
    latest of their estimated ends from now."""
    env = ClusterEnv(contention=contention, visible=4)
    columns = [NODE_FIELDS.index("running_jobs"), NODE_FIELDS.index("time_to_free")]
    rng = np.random.default_rng(3)
    checked = 0
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        snapshot, restored, over = None, episode != 1, False
        while not over:
            assert np.array_equal(obs["nodes"][:, columns], node_load_from_scratch(env))
            checked += 1
            if snapshot is None and checked % 7 == 0:
                snapshot = env.snapshot()
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, _, terminated, truncated, info = env.step(action)
            over = terminated or truncated
            if over and not restored:  # back to the snapshot once, then on to the end
                obs, info = env.restore(snapshot)
                restored, over = True, False
    assert checked > 150


def test_a_node_shrunk_below_its_running_threads_shows_no_negative_free_cores() -> None:
    platform, _ = load_inputs(None, None)
    sim = Simulation(platform, Workload("one", (Job("long", 0.0, 16, 1e15, 1e6),)),
                     availability=(Availability(5.0, 6, 4),))
    job = sim.workload.jobs[0]
    observe = Observer(platform, 2)
    sim.advance()
    assert not sim.view.overcommitted
    sim.apply((Start.on(job, 6),))
    sim.advance()  # the availability change: 4 cores where 16 threads run
    view = sim.view
    assert view.now == 5.0 and view.free_slots[6] == -12 and view.overcommitted
    nodes = observe(view, sim.workload.jobs)["nodes"]
    assert nodes[6, NODE_FIELDS.index("free_cores")] == 0.0
    assert (nodes[:, NODE_FIELDS.index("free_cores")] == np.maximum(view.free_slots, 0)).all()
