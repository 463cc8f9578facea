"""The gymnasium environment's speed on lublin_256 (10,000 jobs, IRMaSim's 20-node platform):
environment steps per second through ``gymnasium.make`` (its wrappers included, "wait" steps
included, the random masked policy's own sampling excluded), decisions (starts) per second,
and the episode reset time; beside them a minimal hand loop (the engine's ``advance``/``apply``
with the same mask from ``fit_matrix`` and the same random choices, no observation, no
reward), and the ratio.

    python benchmarks/bench_gym.py [--episodes 2] [--visible 16] [--profile]

The issue's target: >= 20,000 steps/s, reset <= 2 ms.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
PLATFORM = DATA / "platforms" / "irmasim_lublin_20node.json"
TRACE = DATA / "traces" / "lublin_256.swf"
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchtools import print_table  # noqa: E402


def env_episode(env, seed: int) -> tuple[int, int, float]:
    """One episode under a random masked policy: steps, starts and the seconds spent in
    ``env.step`` (the sampling left out)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    wait = env.action_space.n - 1
    steps = starts = 0
    spent = 0.0
    clock = time.perf_counter
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        began = clock()
        _, _, terminated, truncated, info = env.step(action)
        spent += clock() - began
        steps += 1
        starts += action != wait
        if terminated or truncated:
            return steps, starts, spent


def hand_episode(platform, workload, visible: int, seed: int) -> tuple[int, int, float]:
    """The same policy on the engine alone: at each instant, while some visible pending job
    fits, a random allowed (job, node) pair or wait, as the job_node space offers them."""
    from hetsched.schedulers.placement import place
    from hetsched.sim.engine import Simulation
    from hetsched.sim.protocol import Start
    from hetsched.gym.job_node import first_share

    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    sim = Simulation(platform, workload, None, seed=seed, timeseries=False)
    view, nodes = sim.view, len(platform.nodes)
    rotations = [np.roll(np.arange(nodes), -n) for n in range(nodes)]
    size = visible * nodes + 1
    steps = starts = 0
    spent, began = 0.0, clock()
    while sim.advance() is not None:
        while view.pending:
            jobs = list(view.pending.values())[:visible]
            shares = [first_share(job) for job in jobs]
            most, total = max(view.free_slots.tolist()), view.total_free_slots
            if not any(share <= most and (job.nodes == 1 or job.ntasks <= total)
                       for job, share in zip(jobs, shares)):
                break  # no job has the slots it needs: no fit check
            fit = view.fit_matrix(jobs, shares)
            for k, job in enumerate(jobs):
                if job.nodes != 1 and fit[k].any() and place(
                        job, view.free_slots_for(job), view.free_mem, view.free_disk, None, rng,
                        order=rotations[0]) is None:
                    fit[k] = False
            mask = np.zeros(size, dtype=np.int8)
            mask[:fit.size] = fit.ravel()
            mask[-1] = 1
            if not mask[:-1].any():
                break
            spent += clock() - began
            action = int(rng.choice(np.flatnonzero(mask)))
            began = clock()
            steps += 1
            if action == size - 1:
                break
            starts += 1
            k, node = divmod(action, nodes)
            job = jobs[k]
            sim.apply((Start.on(job, node) if job.nodes == 1 else Start(job, place(
                job, view.free_slots_for(job), view.free_mem, view.free_disk, None, rng,
                order=rotations[node])),))
    sim.finish()
    return steps, starts, spent + clock() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--visible", type=int, default=16)
    parser.add_argument("--profile", action="store_true", help="cProfile one env episode")
    args = parser.parse_args()

    import gymnasium
    from hetsched.gym import ENV_ID
    from hetsched.platform.load import load_platform
    from hetsched.workload.load import load_workload

    platform = load_platform(PLATFORM)
    workload = load_workload(TRACE, platform)
    rows = [["loop", "actions", "steps", "starts", "s", "steps/s", "decisions/s"]]
    results = {}
    for actions in ("job_node", "policy"):
        env = gymnasium.make(ENV_ID, platform=platform, workload=workload, actions=actions,
                             visible=args.visible)
        totals = np.zeros(3)
        for episode in range(args.episodes):
            totals += env_episode(env, episode)
        results[actions] = totals
        steps, starts, spent = totals
        rows.append(["gymnasium.make", actions, f"{steps:.0f}", f"{starts:.0f}", f"{spent:.2f}",
                     f"{steps / spent:,.0f}", f"{starts / spent:,.0f}"])
        if actions == "job_node":
            resets = []
            for seed in range(200):
                began = time.perf_counter()
                env.reset(seed=seed)
                resets.append(time.perf_counter() - began)
            reset_ms = statistics.median(resets) * 1e3
    hand = np.zeros(3)
    for episode in range(args.episodes):
        hand += hand_episode(platform, workload, args.visible, episode)
    steps, starts, spent = hand
    rows.append(["hand loop", "job_node", f"{steps:.0f}", f"{starts:.0f}", f"{spent:.2f}",
                 f"{steps / spent:,.0f}", f"{starts / spent:,.0f}"])
    print(f"lublin_256: {len(workload.jobs)} jobs, {len(platform.nodes)} nodes, "
          f"K = {args.visible} visible jobs, {args.episodes} episode(s) each")
    print_table(rows, left=2)
    env_rate = results["job_node"][0] / results["job_node"][2]
    print(f"job_node env / hand loop: {env_rate / (steps / spent):.2f} of the hand loop's "
          "steps/s")
    print(f"reset (median of 200, a trace's run forked): {reset_ms:.3f} ms")
    if args.profile:
        env = gymnasium.make(ENV_ID, platform=platform, workload=workload, visible=args.visible)
        profile = cProfile.Profile()
        profile.runcall(env_episode, env, 0)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
