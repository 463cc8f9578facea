"""Train a small policy on ``hetsched/Cluster-v0`` and compare it honestly with fcfs, easy and
high_gflops on held-out episodes (docs/gym.md, "Training a policy").

    python examples/train_gym_policy.py --minutes 3 --out train-run

Two agents, both over the **masked** actions of the ``policy`` space (IRMaSim's 56 (job
selection, node selection) pairs and "wait"): ``--agent maskable-ppo``, sb3-contrib's
MaskablePPO (``gym_ppo.py``; the ``rl`` extra), and ``--agent numpy`` (``gym_agent.py``,
numpy only), a linear softmax policy on features of the observation, trained by REINFORCE with
a leave-one-out baseline over groups of episodes of one workload; ``auto`` (the default) is
MaskablePPO when sb3-contrib imports. The agent trains on generated Lublin workloads (a new
seeded draw per episode, or per group) on IRMaSim's 20-node platform, is played greedily on
validation episodes as it learns, then on held-out episodes, where the baselines run through
``hetsched.simulate`` on the same workloads, platform and seeds.

Writes to ``--out``: ``learning_curve.csv`` (a row per training episode) and ``.png``,
``validation.csv`` (the greedy policy as training goes on), ``evaluation.csv`` (a row per
scheduler and held-out episode), ``table.md`` (the comparison, also printed), ``policy.npz``
(the numpy agent's weights) or ``policy.zip`` (MaskablePPO's model) and ``run.json`` (the
agent, the settings, every seed, the episodes trained). Training stops
after ``--episodes`` or ``--minutes``, whichever comes first; the same ``--episodes``
(``run.json`` records how many the minutes allowed) and ``--seed`` give the same files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gym_agent import Agent, Episode, Learning, play
from gym_report import (AGENT, METRICS, UNTRAINED, action_names, figure, table,
                        write_csv)
from gym_ppo import PPOLearning, available

ROOT = Path(__file__).resolve().parents[1]
#: IRMaSim's 20-node platform (the project's shared data): its Lublin workloads' platform.
PLATFORM = ROOT.parent / "shared" / "data" / "platforms" / "irmasim_lublin_20node.json"
BASELINES = ("fcfs", "easy", "high_gflops")
#: The seeds never meet: held-out episodes 0, 1, … (fewer than 500,000), validation episodes
#: 500,000 + i, training workloads (seed + 1) · 10⁶ + i (fewer than 10⁶).
VALIDATION_SEED_BASE = 500_000
TRAIN_SEED_BASE = 1_000_000
#: The greedy policy is played on this many validation episodes before training, every
#: ``VALIDATE_EVERY[agent]`` updates (every 800 training episodes of the numpy agent, about
#: 100 of MaskablePPO's), and at the end.
VALIDATION_EPISODES = 20
VALIDATE_EVERY = {"numpy": 50, "maskable-ppo": 20}
#: The agents, by ``--agent``: what the table and the figure call them.
AGENTS = {"numpy": "REINFORCE (numpy)", "maskable-ppo": "MaskablePPO (sb3-contrib)"}
#: The action spaces each agent plays (``--actions``), its default first.
SPACES = {"numpy": ("policy",), "maskable-ppo": ("job_node", "policy")}
#: Training episodes in the learning curve's moving average.
WINDOW = 100
CURVE_COLUMNS = ("episode", "seed", "steps", "return", "mean_bounded_slowdown", "entropy",
                 "mean_bounded_slowdown_avg", "entropy_avg")
VALIDATION_COLUMNS = ("episodes_trained", "mean_bounded_slowdown")


@dataclass(frozen=True)
class Plan:
    """The training's budget (whichever of ``minutes`` and ``episodes`` comes first), the
    held-out episodes and the seed."""

    minutes: float = 3.0
    episodes: int = 100_000
    eval_episodes: int = 30
    seed: int = 0

    def train_seeds(self, batch: int) -> list[int]:
        """Training episode i's seed: (seed + 1) · 10⁶ + i // batch (each group of ``batch``
        episodes plays one workload), never a held-out or validation one."""
        start = TRAIN_SEED_BASE * (self.seed + 1)
        return [start + number // batch for number in range(self.episodes)]

    def eval_seeds(self) -> range:
        return range(self.eval_episodes)

    def validation_seeds(self) -> range:
        return range(VALIDATION_SEED_BASE, VALIDATION_SEED_BASE + VALIDATION_EPISODES)


@dataclass(frozen=True)
class Episodes:
    """The environment: ``jobs`` of the Lublin model per episode (its gaps ×
    ``arrival_factor``) on ``platform``, ``visible`` queued jobs observed."""

    platform: Path = PLATFORM
    jobs: int = 200
    arrival_factor: float = 1.0
    visible: int = 16

    def workload(self) -> dict[str, Any]:
        """The environment's generator spec: Lublin's model on a 256-core machine (as
        lublin_256, IRMaSim's trace for this platform)."""
        return {"generator": "lublin", "jobs": self.jobs, "procs": 256,
                "arrival_factor": self.arrival_factor}


@dataclass(frozen=True)
class Settings:
    """The run's settings, as the command line gives them."""

    out: Path
    plan: Plan = Plan()
    episodes: Episodes = Episodes()
    learning: Learning | PPOLearning = Learning()
    baselines: tuple[str, ...] = BASELINES
    agent: str = "numpy"
    actions: str = "policy"

    def trainer(self) -> str:
        """The agent and its action space, as the table and the figure name them."""
        return f"{AGENTS[self.agent]} on the {self.actions} space"


# ---- training and evaluation -----------------------------------------------------------------
def make_env(settings: Settings) -> Any:
    import gymnasium

    import hetsched.gym  # noqa: F401  (registers the environment)

    episodes = settings.episodes
    return gymnasium.make("hetsched/Cluster-v0", platform=episodes.platform,
                          workload=episodes.workload(), actions=settings.actions,
                          visible=episodes.visible, reward="slowdown")


#: A policy played greedily on an episode: seed → the run's summary metrics, the actions.
Greedy = Callable[[int], tuple[dict[str, Any], list[int]]]


def numpy_greedy(env: Any, agent: Agent) -> Greedy:
    def greedy(seed: int) -> tuple[dict[str, Any], list[int]]:
        episode = play(env, agent, seed, None)
        return episode.summary, episode.actions
    return greedy


def train(env: Any, agent: Agent, settings: Settings
          ) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """The numpy agent's learning curve (a row per training episode, :data:`CURVE_COLUMNS`)
    and the greedy policy's mean bounded slowdown on the validation episodes as training goes
    on."""
    plan = settings.plan
    rng = np.random.default_rng(plan.seed)
    deadline = time.monotonic() + 60 * plan.minutes
    curve: list[dict[str, float]] = []
    greedy = numpy_greedy(env, agent)
    validation = [validate(greedy, plan, 0)]
    batch: list[Episode] = []
    for number, seed in enumerate(plan.train_seeds(settings.learning.batch)):
        if time.monotonic() > deadline:
            break
        episode = play(env, agent, seed, rng)
        batch.append(episode)
        curve.append({"episode": number, "seed": seed, "steps": len(episode.actions),
                      "return": sum(episode.rewards),
                      "mean_bounded_slowdown": episode.summary["mean_bounded_slowdown"],
                      "entropy": episode.entropy})
        if len(batch) == settings.learning.batch:
            agent.update(batch)
            batch = []
            if agent.updates % VALIDATE_EVERY["numpy"] == 0:
                validation.append(validate(greedy, plan, len(curve)))
    return finish(curve, validation, greedy, plan)


def train_ppo(agent: Any, greedy: Greedy, settings: Settings
              ) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """:func:`train` for MaskablePPO (``gym_ppo.PPOAgent``), which trains on an environment of
    its own, one workload per training episode; ``greedy`` plays it for validation."""
    plan = settings.plan
    deadline = time.monotonic() + 60 * plan.minutes
    validation = [validate(greedy, plan, 0)]

    def after_update() -> None:
        if agent.updates % VALIDATE_EVERY["maskable-ppo"] == 0:
            validation.append(validate(greedy, plan, len(agent.train_env.finished)))

    curve = agent.learn(lambda episodes: episodes >= plan.episodes
                        or time.monotonic() > deadline, after_update)
    for number, row in enumerate(curve):
        row["episode"] = number
    return finish(curve, validation, greedy, plan)


def finish(curve: list[dict[str, float]], validation: list[dict[str, float]],
           greedy: Greedy, plan: Plan
           ) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """The curve with its moving averages, and the validation with the trained policy's."""
    if validation[-1]["episodes_trained"] != len(curve):
        validation.append(validate(greedy, plan, len(curve)))
    for column in ("mean_bounded_slowdown", "entropy"):
        averages = moving_average([row[column] for row in curve], WINDOW)
        for row, average in zip(curve, averages):
            row[f"{column}_avg"] = average
    return curve, validation


def validate(greedy: Greedy, plan: Plan, trained: int) -> dict[str, float]:
    """The greedy policy's mean bounded slowdown, averaged over the validation episodes."""
    slowdowns = [greedy(seed)[0]["mean_bounded_slowdown"] for seed in plan.validation_seeds()]
    return {"episodes_trained": trained, "mean_bounded_slowdown": float(np.mean(slowdowns))}


def moving_average(values: Sequence[float], window: int) -> np.ndarray:
    """The mean of each value and the ``window − 1`` before it (fewer at the start)."""
    sums = np.cumsum(np.concatenate([[0.0], values]))
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


def evaluate(env: Any, trained: Greedy, untrained: Greedy, settings: Settings
             ) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Per held-out seed: the greedy policy's episode (played on ``env``), the untrained
    policy's, and each baseline run by ``hetsched.simulate`` on that episode's workload,
    platform and seed; and how often the greedy policy took each action."""
    import hetsched

    names = action_names(env, settings.actions)
    rows, choices = [], Counter()
    for seed in settings.plan.eval_seeds():
        summary, actions = trained(seed)
        choices.update(names[action] for action in actions)
        workload = env.unwrapped.sim.workload
        rows.append(_row(AGENT, seed, summary))
        rows.append(_row(UNTRAINED, seed, untrained(seed)[0]))
        for name in settings.baselines:
            run = hetsched.simulate(env.unwrapped.platform, workload, name, seed=seed,
                                    timeseries=False)
            rows.append(_row(name, seed, run.summary))
    return rows, choices


def _row(scheduler: str, seed: int, summary: dict[str, Any]) -> dict[str, Any]:
    return {"scheduler": scheduler, "seed": seed, **{key: summary[key] for key in METRICS}}


def run(settings: Settings) -> str:
    """Train, evaluate, write the outputs; the table."""
    from hetsched.schedulers import create

    for name in settings.baselines:  # (a bad spec is an error now, not after the training)
        create(name)
    settings.out.mkdir(parents=True, exist_ok=True)
    env = make_env(settings)
    started = time.monotonic()
    if settings.agent == "numpy":
        agent = Agent(settings.learning)
        curve, validation = train(env, agent, settings)
        seconds = time.monotonic() - started
        rows, choices = evaluate(env, numpy_greedy(env, agent),
                                 numpy_greedy(env, Agent(settings.learning)), settings)
        np.savez(settings.out / "policy.npz", weights=agent.weights)
    else:
        curve, validation, seconds, rows, choices = _maskable_ppo(env, settings, started)
    text = table(rows, choices, settings.plan.seed, settings.trainer())
    out = settings.out
    write_csv(out / "learning_curve.csv", curve, CURVE_COLUMNS)
    write_csv(out / "validation.csv", validation, VALIDATION_COLUMNS)
    write_csv(out / "evaluation.csv", rows, ("scheduler", "seed", *METRICS))
    (out / "table.md").write_text(text)
    figure(curve, validation, rows, settings.trainer(), out / "learning_curve.png",
           window=WINDOW, validation_episodes=VALIDATION_EPISODES)
    plan = settings.plan
    record = {**asdict(settings), "workload": settings.episodes.workload(),
              "episodes_trained": len(curve), "training_seconds": round(seconds, 1),
              "train_seeds": [int(row["seed"]) for row in curve],
              "validation_seeds": list(plan.validation_seeds()),
              "eval_seeds": list(plan.eval_seeds())}
    (out / "run.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    return text


def _maskable_ppo(env: Any, settings: Settings, started: float) -> tuple[Any, ...]:
    """:func:`run`'s training and evaluation with MaskablePPO: a model trained on an
    environment of its own, and an untrained one of the same seed, played on ``env``."""
    from gym_ppo import PPOAgent, wrap

    plan = settings.plan
    played = wrap(env)
    agent = PPOAgent(make_env(settings), plan.train_seeds(1), settings.learning, plan.seed)
    curve, validation = train_ppo(agent, lambda seed: agent.greedy(played, seed), settings)
    seconds = time.monotonic() - started
    untrained = PPOAgent(make_env(settings), (), settings.learning, plan.seed)
    rows, choices = evaluate(env, lambda seed: agent.greedy(played, seed),
                             lambda seed: untrained.greedy(played, seed), settings)
    agent.save(settings.out / "policy.zip")
    return curve, validation, seconds, rows, choices


# ---- the command line ------------------------------------------------------------------------
def parse(argv: Sequence[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the output folder")
    parser.add_argument("--minutes", type=_positive(float), default=3.0,
                        help="training budget in wall-clock minutes (default 3)")
    parser.add_argument("--episodes", type=_positive(int), default=100_000,
                        help="at most this many training episodes (default 100000)")
    parser.add_argument("--eval-episodes", type=_positive(int), default=30,
                        help="held-out episodes (seeds 0, 1, ...; default 30)")
    parser.add_argument("--jobs", type=_positive(int), default=200,
                        help="jobs per episode (default 200)")
    parser.add_argument("--arrival-factor", type=_positive(float), default=1.0,
                        help="the Lublin model's gaps × this (default 1)")
    parser.add_argument("--agent", choices=("auto", *AGENTS), default="auto",
                        help="maskable-ppo (sb3-contrib's MaskablePPO, the rl extra), numpy "
                             "(REINFORCE), or auto (the default): maskable-ppo when "
                             "sb3-contrib is installed, else numpy")
    parser.add_argument("--actions", choices=SPACES["maskable-ppo"],
                        help="the action space: job_node (maskable-ppo's default) or policy "
                             "(the numpy agent's only one)")
    parser.add_argument("--batch", type=_at_least(2),
                        help=f"numpy: episodes per policy update, all of one workload "
                             f"(default {Learning.batch})")
    parser.add_argument("--rollout-steps", type=_at_least(2),
                        help=f"maskable-ppo: environment steps per policy update (default "
                             f"{PPOLearning.rollout_steps})")
    parser.add_argument("--learning-rate", type=_positive(float),
                        help=f"Adam's step size (default {Learning.learning_rate} numpy, "
                             f"{PPOLearning.learning_rate} maskable-ppo)")
    parser.add_argument("--gamma", type=_positive(float),
                        help=f"the returns' discount per step (default {Learning.gamma})")
    parser.add_argument("--seed", type=_at_least(0), default=0,
                        help="the training's seed (default 0)")
    parser.add_argument("--platform", type=Path, default=PLATFORM,
                        help="the platform file (default IRMaSim's 20-node platform)")
    parser.add_argument("--baselines", nargs="+", default=list(BASELINES),
                        help="scheduler specs to compare with (default fcfs easy high_gflops)")
    args = parser.parse_args(argv)
    for option, value, limit in (("--episodes", args.episodes, TRAIN_SEED_BASE),
                                 ("--eval-episodes", args.eval_episodes, VALIDATION_SEED_BASE)):
        if value >= limit:
            parser.error(f"{option} must be below {limit:,}, got {value}")
    if args.gamma is not None and args.gamma > 1:
        parser.error(f"--gamma must be in (0, 1], got {args.gamma}")
    agent = args.agent if args.agent != "auto" else "maskable-ppo" if available() else "numpy"
    actions = args.actions or SPACES[agent][0]
    if actions not in SPACES[agent]:
        parser.error(f"--actions {actions} is not a space of --agent {agent}")
    return Settings(out=args.out,
                    plan=Plan(args.minutes, args.episodes, args.eval_episodes, args.seed),
                    episodes=Episodes(args.platform, args.jobs, args.arrival_factor),
                    learning=_learning(parser, args, agent),
                    baselines=tuple(args.baselines), agent=agent, actions=actions)


def _learning(parser: argparse.ArgumentParser, args: argparse.Namespace, agent: str
              ) -> Learning | PPOLearning:
    """The agent's settings: its defaults, less what the command line gives; the other
    agent's option is an error."""
    own, other = ("batch", "rollout_steps") if agent == "numpy" else ("rollout_steps", "batch")
    if getattr(args, other) is not None:
        parser.error(f"--{other.replace('_', '-')} is not an option of --agent {agent}")
    given = {name: value for name, value in (("learning_rate", args.learning_rate),
                                              ("gamma", args.gamma), (own, getattr(args, own)))
             if value is not None}
    return (Learning if agent == "numpy" else PPOLearning)(**given)


def _positive(kind: type) -> Any:
    def check(text: str) -> Any:
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value
    check.__name__ = kind.__name__
    return check


def _at_least(minimum: int) -> Any:
    def check(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {text}")
        return value
    check.__name__ = "int"
    return check


def main(argv: Sequence[str] | None = None) -> int:
    from hetsched.errors import HetschedError

    settings = parse(argv)
    if settings.agent == "maskable-ppo" and not available():
        print("error: --agent maskable-ppo needs sb3-contrib, which is not installed "
              "(pip install 'hetsched[rl]')", file=sys.stderr)
        return 2
    try:
        print(run(settings), end="")
    except HetschedError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
