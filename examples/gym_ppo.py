"""sb3-contrib's MaskablePPO on ``hetsched/Cluster-v0``'s ``policy`` space, the agent
``train_gym_policy.py --agent maskable-ppo`` trains (docs/gym.md, "Training a policy"). Needs
the ``rl`` extra (stable-baselines3, sb3-contrib, torch), imported when an agent is made.

The environment is wrapped twice: :class:`LogObservation` (the Dict observation flattened,
``log1p`` of each value, since requested times and waits in seconds span six decades) and
:class:`Turns` (the seed of each episode, as the vector environment of stable-baselines3
resets without one; the mask as ``action_masks()``, the method MaskablePPO calls; the
finished episodes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gym_agent import work_conserving


@dataclass(frozen=True)
class PPOLearning:
    """MaskablePPO's settings: environment steps per rollout (one update of ``epochs``
    passes over it in minibatches of ``minibatch`` steps), Adam's step size, the discount
    per step, the entropy bonus' weight. The rest are stable-baselines3's defaults (GAE λ
    0.95, clip 0.2, two hidden layers of 64)."""

    rollout_steps: int = 1024
    minibatch: int = 256
    epochs: int = 10
    learning_rate: float = 3e-4
    gamma: float = 0.999
    entropy_weight: float = 0.01


class LogObservation(gymnasium.ObservationWrapper):
    """The observation as one vector: ``FlattenObservation``'s (``jobs`` then ``nodes``, row
    by row), each value ``log1p`` (every value is ≥ 0)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(gymnasium.wrappers.FlattenObservation(env))
        space = self.env.observation_space
        self.observation_space = gymnasium.spaces.Box(
            np.log1p(space.low), np.log1p(space.high), dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.log1p(observation).astype(np.float32)


class Turns(gymnasium.Wrapper):
    """Each reset from the next of ``seeds`` (given: training) or from the seed asked for;
    ``action_masks()``: the environment's mask made work conserving as the numpy agent's
    (:func:`gym_agent.work_conserving`); ``finished``: a row per episode ended (its seed,
    steps, return and the run's mean bounded slowdown)."""

    def __init__(self, env: gymnasium.Env, seeds: Iterable[int] | None = None) -> None:
        super().__init__(env)
        self.seeds: Iterator[int] | None = None if seeds is None else iter(seeds)
        self.finished: list[dict[str, float]] = []
        self._mask = np.zeros(0, dtype=np.int8)
        self._episode = {"seed": 0, "steps": 0, "return": 0.0}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Any, dict[str, Any]]:
        if self.seeds is not None:  # (None once the seeds run out: an episode never played)
            seed = next(self.seeds, None)
        obs, info = self.env.reset(seed=seed, options=options)
        self._mask = info["action_mask"]
        self._episode = {"seed": seed, "steps": 0, "return": 0.0}
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        from hetsched.metrics import summarize

        obs, reward, terminated, truncated, info = self.env.step(action)
        self._mask = info["action_mask"]
        self._episode["steps"] += 1
        self._episode["return"] += reward
        if terminated or truncated:
            summary = summarize(self.env.unwrapped.result)
            self.finished.append({**self._episode,
                                  "mean_bounded_slowdown": summary["mean_bounded_slowdown"]})
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return work_conserving(self._mask).astype(bool)


def wrap(env: gymnasium.Env, seeds: Iterable[int] | None = None) -> Turns:
    return Turns(LogObservation(env), seeds)


class PPOAgent:
    """A MaskablePPO model (``model``) training on ``train_env`` (an environment of its own,
    whose episodes take the training seeds in order) and played greedily on others;
    ``updates``: the policy updates made so far."""

    def __init__(self, train_env: gymnasium.Env, train_seeds: Iterable[int],
                 learning: PPOLearning, seed: int) -> None:
        import torch
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)  # (a small network: one core trains it as fast)
        self.train_env = wrap(train_env, train_seeds)
        self.model = MaskablePPO(
            "MlpPolicy", self.train_env, n_steps=learning.rollout_steps,
            batch_size=learning.minibatch, n_epochs=learning.epochs,
            learning_rate=learning.learning_rate, gamma=learning.gamma,
            ent_coef=learning.entropy_weight, seed=seed, device="cpu", verbose=0)
        self.updates = 0

    def learn(self, stop: Callable[[int], bool], after_update: Callable[[], None]
              ) -> list[dict[str, float]]:
        """Train until ``stop(episodes finished)`` is true at an episode's end, calling
        ``after_update`` after each update; a row per training episode, with the policy's
        mean entropy over its steps (nats, of the masked distribution it sampled from)."""
        self.model.learn(total_timesteps=10**12, callback=self._recorder(stop, after_update))
        return self.train_env.finished

    def _recorder(self, stop: Callable[[int], bool], after_update: Callable[[], None]) -> Any:
        import torch
        from stable_baselines3.common.callbacks import BaseCallback

        agent, entropies = self, []

        class Recorder(BaseCallback):
            def _on_rollout_start(self) -> None:
                if self.num_timesteps > 0:  # (the model was updated on the last rollout)
                    agent.updates += 1
                    after_update()

            def _on_step(self) -> bool:
                local = self.locals
                with torch.no_grad():
                    distribution = self.model.policy.get_distribution(
                        local["obs_tensor"], action_masks=local["action_masks"])
                entropies.append(float(distribution.entropy()[0]))
                if not local["dones"][0]:
                    return True
                finished = agent.train_env.finished
                finished[-1]["entropy"] = float(np.mean(entropies))
                entropies.clear()
                return not stop(len(finished))

        return Recorder()

    def greedy(self, env: Turns, seed: int) -> tuple[dict[str, Any], list[int]]:
        """One episode of ``env`` (:func:`wrap`'s) from ``seed``, the most likely allowed
        action at each step: the run's summary metrics and the actions."""
        from hetsched.metrics import summarize

        obs, _ = env.reset(seed=seed)
        actions: list[int] = []
        done = False
        while not done:
            action, _ = self.model.predict(obs, action_masks=env.action_masks(),
                                           deterministic=True)
            actions.append(int(action))
            obs, _, terminated, truncated, _ = env.step(actions[-1])
            done = terminated or truncated
        return summarize(env.unwrapped.result), actions

    def save(self, path: Any) -> None:
        self.model.save(path)


def available() -> bool:
    """Whether sb3-contrib (and so torch) imports."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        return False
    return True
