"""A numpy policy-gradient agent for ``hetsched/Cluster-v0``'s ``policy`` space, used by
``train_gym_policy.py`` (docs/gym.md, "Training a policy"): REINFORCE with a
leave-one-out baseline over a group of episodes of one workload, a linear softmax policy over
the masked actions, features of the observation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Learning:
    """REINFORCE's settings: episodes per update (all of one workload, at least 2), Adam's
    step size, the discount per step, the entropy bonus' weight."""

    batch: int = 16
    learning_rate: float = 0.02
    gamma: float = 0.999
    entropy_weight: float = 0.01


def features(obs: dict[str, np.ndarray], total_cores: float) -> np.ndarray:
    """A short state vector from the observation (requested times only, as the observation):
    the queue's length, its jobs' requested times, sizes and waits (logs), the free cores and
    idle nodes, the nodes' estimated times to free, and a constant."""
    jobs, nodes = obs["jobs"], obs["nodes"]
    valid = jobs[:, 0] > 0
    queued = jobs[valid] if valid.any() else np.zeros((1, jobs.shape[1]), dtype=jobs.dtype)
    requested, tasks, waiting = (np.log1p(queued[:, column]) for column in (1, 2, 6))
    return np.array([
        1.0, valid.mean(),
        requested.mean() / 10, requested.min() / 10, requested.max() / 10,
        tasks.mean() / 5, tasks.min() / 5, tasks.max() / 5,
        waiting.mean() / 10, waiting.max() / 10,
        nodes[:, 0].sum() / total_cores, (nodes[:, 3] == 0).mean(),
        np.log1p(nodes[:, 4]).mean() / 10,
    ])


FEATURES = 13


def pair_design() -> np.ndarray:
    """The 0/1 matrix from the policy's heads to the ``policy`` space's logits: a head per job
    selection, per node selection and for "wait"; pair (j, r)'s logit is the sum of j's and
    r's, so what is learnt of a job selection holds with every node selection."""
    from hetsched.gym import PAIRS

    jobs = list(dict.fromkeys(job for job, _ in PAIRS))
    nodes = list(dict.fromkeys(node for _, node in PAIRS))
    design = np.zeros((len(PAIRS) + 1, len(jobs) + len(nodes) + 1))
    for action, (job, node) in enumerate(PAIRS):
        design[action, jobs.index(job)] = design[action, len(jobs) + nodes.index(node)] = 1.0
    design[-1, -1] = 1.0
    return design


class Agent:
    """A linear softmax policy over the allowed actions of the ``policy`` space (logits:
    :func:`pair_design` × heads' weights × features), trained by REINFORCE (:meth:`update`)
    with Adam. ``weights``: a row per head (7 job selections, 8 node selections, wait), a
    column per feature; ``updates``: the policy updates made so far."""

    def __init__(self, learning: Learning) -> None:
        self.learning = learning
        self.design = pair_design()
        self.weights = np.zeros((self.design.shape[1], FEATURES))
        self._moments = (np.zeros_like(self.weights), np.zeros_like(self.weights))
        self.updates = 0

    def probabilities(self, phis: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action probabilities at each row of ``phis`` (0 where masked)."""
        logits = np.where(masks > 0, phis @ (self.design @ self.weights).T, -np.inf)
        exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return exp / exp.sum(axis=-1, keepdims=True)

    def act(self, phi: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None) -> int:
        """A sampled action, or with no ``rng`` the greedy one (the first of equal ones)."""
        probabilities = self.probabilities(phi, mask)
        if rng is None:
            return int(np.argmax(probabilities))
        return int(rng.choice(len(probabilities), p=probabilities))

    def update(self, episodes: Sequence[Episode]) -> None:
        """One policy-gradient step on a group of episodes of the same workload: every step's
        score ``onehot(a) − π`` weighted by its advantage, plus the entropy's gradient
        ``−π · (log π + H)`` (both with respect to the logits). A step's advantage is its
        discounted return to the end less the mean of the other episodes' at the same step
        (a leave-one-out baseline: the workload's own difficulty cancels), over the group's
        standard deviation."""
        advantages = group_advantages([episode.rewards for episode in episodes],
                                      self.learning.gamma)
        phis = np.concatenate([episode.phis for episode in episodes])
        masks = np.concatenate([episode.masks for episode in episodes])
        actions = np.concatenate([episode.actions for episode in episodes])
        p = self.probabilities(phis, masks)
        score = -p
        score[np.arange(len(actions)), actions] += 1.0
        log_p = np.log(np.where(p > 0, p, 1.0))
        logits_gradient = advantages[:, None] * score \
            - self.learning.entropy_weight * p * (log_p + entropy(p)[:, None])
        self._adam(self.design.T @ logits_gradient.T @ phis / len(actions))

    def _adam(self, gradient: np.ndarray, beta1: float = 0.9, beta2: float = 0.999) -> None:
        """Gradient ascent with Adam's moments."""
        first, second = self._moments
        self.updates += 1
        first[:] = beta1 * first + (1 - beta1) * gradient
        second[:] = beta2 * second + (1 - beta2) * gradient ** 2
        corrected = first / (1 - beta1 ** self.updates)
        scale = np.sqrt(second / (1 - beta2 ** self.updates)) + 1e-8
        self.weights += self.learning.learning_rate * corrected / scale


def group_advantages(rewards: Sequence[Sequence[float]], gamma: float) -> np.ndarray:
    """The steps' advantages of a group of episodes (concatenated): at step t of episode i,
    its discounted return G[i, t] less the mean of the other episodes' G[j, t] (0 where no
    other episode has a step t), over the standard deviation of all of them."""
    longest = max(len(steps) for steps in rewards)
    returns = np.full((len(rewards), longest), np.nan)
    for row, steps in enumerate(rewards):
        running = 0.0
        for step in range(len(steps) - 1, -1, -1):
            running = steps[step] + gamma * running
            returns[row, step] = running
    present = ~np.isnan(returns)
    totals, counts = np.nansum(returns, axis=0), present.sum(axis=0)
    others = np.where(counts > 1, (totals - np.nan_to_num(returns)) / np.maximum(counts - 1, 1),
                      returns)
    advantages = (returns - others)[present]  # row by row: the episodes concatenated
    return advantages / (advantages.std() + 1e-8)


def entropy(p: np.ndarray) -> np.ndarray:
    """Each row's entropy (nats; masked actions, of probability 0, count 0)."""
    return -(p * np.log(np.where(p > 0, p, 1.0))).sum(axis=-1)


@dataclass
class Episode:
    """What one episode recorded: per step the features, mask, action and reward; the run's
    summary metrics at its end; the policy's mean entropy over its steps (nats)."""

    phis: np.ndarray
    masks: np.ndarray
    actions: list[int]
    rewards: list[float]
    summary: dict[str, Any]
    entropy: float


def work_conserving(mask: np.ndarray) -> np.ndarray:
    """The agent's own mask: the environment's, without "wait" (the last action) whenever a
    pair is allowed: the agent never passes a turn at which some pair can start a job (left
    free to, an early version learnt to wait at a quarter of its turns, at a cost in
    slowdown)."""
    if not mask[:-1].any():
        return mask
    mask = mask.copy()
    mask[-1] = 0
    return mask


def play(env: Any, agent: Agent, seed: int, rng: np.random.Generator | None) -> Episode:
    """One episode of ``env`` from ``seed``; the agent samples from ``rng``, or is greedy."""
    from hetsched.metrics import summarize

    total_cores = float(sum(node.type.cores for node in env.unwrapped.platform.nodes))
    obs, info = env.reset(seed=seed)
    steps: list[tuple[np.ndarray, np.ndarray, int]] = []
    rewards = []
    done = False
    while not done:
        phi, mask = features(obs, total_cores), work_conserving(info["action_mask"])
        action = agent.act(phi, mask, rng)
        steps.append((phi, mask, action))
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        done = terminated or truncated
    phis, masks = np.array([step[0] for step in steps]), np.array([step[1] for step in steps])
    return Episode(phis, masks, [step[2] for step in steps], rewards,
                   summarize(env.unwrapped.result),
                   float(entropy(agent.probabilities(phis, masks)).mean()))
