"""The gymnasium environment's speed on lublin_256 (10,000 jobs, IRMaSim's 20-node platform):
environment steps per second through ``gymnasium.make`` (its wrappers included, "wait" steps
included, the random masked policy's own sampling excluded), decisions (starts) per second,
and the episode reset time; beside them a minimal hand loop (the engine's ``advance``/``apply``
with the same mask from ``fit_matrix`` and the same random choices, no observation, no
reward), and the ratio.

    python benchmarks/bench_gym.py [--episodes 2] [--visible 16] [--cpu] [--profile]
                                   [--before PATH]

``--before PATH``: also measure the hetsched source tree at PATH (its ``src`` directory, e.g.
``git worktree add /tmp/old <commit>`` then ``/tmp/old/src``), episode by episode in turn
with this one (each in a process of its own), and print each figure's ratio to it.
``--cpu``: time with CPU time rather than wall-clock time (steadier on a busy machine).

The issue's target: >= 20,000 steps/s, reset <= 2 ms.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
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

clock = time.perf_counter
LOOPS = ("job_node", "policy", "hand loop")


def env_episode(env, seed: int) -> tuple[int, int, float]:
    """One episode under a random masked policy: steps, starts and the seconds spent in
    ``env.step`` (the sampling left out)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    wait = env.action_space.n - 1
    steps = starts = 0
    spent = 0.0
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


def inputs():
    from hetsched.platform.load import load_platform
    from hetsched.workload.load import load_workload

    platform = load_platform(PLATFORM)
    return platform, load_workload(TRACE, platform)


def measure(episode: int, visible: int) -> dict[str, list[float]]:
    """One episode of each loop (seed ``episode``): ``[steps, starts, seconds]`` by loop, and
    the median reset time (ms) of 200 resets."""
    import gymnasium
    from hetsched.gym import ENV_ID

    platform, workload = inputs()
    figures: dict[str, list[float]] = {}
    for actions in ("job_node", "policy"):
        env = gymnasium.make(ENV_ID, platform=platform, workload=workload, actions=actions,
                             visible=visible)
        figures[actions] = [float(x) for x in env_episode(env, episode)]
        if actions == "job_node":
            resets = []
            for seed in range(200):
                began = clock()
                env.reset(seed=seed)
                resets.append(clock() - began)
            figures["reset ms"] = [statistics.median(resets) * 1e3]
    figures["hand loop"] = [float(x) for x in hand_episode(platform, workload, visible, episode)]
    return figures


def in_process(src: Path, episode: int, args: argparse.Namespace) -> dict[str, list[float]]:
    """:func:`measure` in a process of its own importing hetsched from ``src``."""
    command = [sys.executable, __file__, "--worker", str(episode), "--visible",
               str(args.visible)] + (["--cpu"] if args.cpu else [])
    environ = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(command, env=environ, capture_output=True, text=True)
    if done.returncode:
        last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        sys.exit(f"bench_gym: the run on {src} failed: {last[0]}")
    return json.loads(done.stdout)


def main() -> None:
    global clock
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--visible", type=int, default=16)
    parser.add_argument("--cpu", action="store_true", help="time with CPU time")
    parser.add_argument("--before", type=Path, help="the src directory of a version to compare")
    parser.add_argument("--profile", action="store_true", help="cProfile one env episode")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cpu:
        clock = time.process_time
    if args.worker is not None:
        print(json.dumps(measure(args.worker, args.visible)))
        return
    versions = {"now": ROOT / "src"} | ({"before": args.before} if args.before else {})
    totals = {version: {loop: np.zeros(3) for loop in LOOPS} for version in versions}
    resets: dict[str, list[float]] = {version: [] for version in versions}
    for episode in range(args.episodes):
        for version, src in versions.items():  # pair by pair: the machine's load alike
            figures = in_process(src, episode, args)
            for loop in LOOPS:
                totals[version][loop] += figures[loop]
            resets[version] += figures["reset ms"]
    rate = {version: {loop: totals[version][loop][0] / totals[version][loop][2]
                      for loop in LOOPS} for version in versions}
    rows = [["loop", "steps", "starts", "s", "steps/s", "decisions/s", "/ hand loop"]
            + (["before", "now / before"] if args.before else [])]
    for loop in LOOPS:
        steps, starts, spent = totals["now"][loop]
        row = [loop if loop == "hand loop" else f"gymnasium.make {loop}", f"{steps:.0f}",
               f"{starts:.0f}", f"{spent:.2f}", f"{steps / spent:,.0f}",
               f"{starts / spent:,.0f}", f"{rate['now'][loop] / rate['now']['hand loop']:.2f}"]
        if args.before:
            row += [f"{rate['before'][loop]:,.0f}",
                    f"{rate['now'][loop] / rate['before'][loop]:.2f}"]
        rows.append(row)
    platform, workload = inputs()
    print(f"lublin_256: {len(workload.jobs)} jobs, {len(platform.nodes)} nodes, "
          f"K = {args.visible} visible jobs, {args.episodes} episode(s) each, "
          f"{'CPU' if args.cpu else 'wall-clock'} time, load average "
          f"{os.getloadavg()[0]:.1f}")
    print_table(rows, left=1)
    reset = {version: statistics.median(values) for version, values in resets.items()}
    print(f"reset (median of 200 per episode, a trace's run forked): {reset['now']:.3f} ms"
          + (f" (before: {reset['before']:.3f} ms)" if args.before else ""))
    if args.profile:
        import gymnasium
        from hetsched.gym import ENV_ID

        env = gymnasium.make(ENV_ID, platform=platform, workload=workload, visible=args.visible)
        profile = cProfile.Profile()
        profile.runcall(env_episode, env, 0)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
