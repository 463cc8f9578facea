"""The environment's options (besides its inputs), checked when the environment is made: a bad
value is a one-line :class:`~hetsched.errors.ConfigError` naming the argument."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from hetsched.errors import ConfigError, did_you_mean
from hetsched.options import check_choice, check_number

#: The action spaces: IRMaSim's (job selection, node selection) pairs, or a visible job and a
#: node (docs/gym.md).
ACTION_SPACES = ("job_node", "policy")
#: The reward terms, each the negative of a summary metric (docs/gym.md, "Rewards").
REWARD_TERMS = ("slowdown", "wait", "energy", "edp")
#: When the reward is paid: its change over each step, or all of it at the episode's end.
REWARD_TIMES = ("step", "end")
#: What an action the mask forbids does: raise, or wait and pay ``invalid_penalty``.
INVALID_ACTIONS = ("raise", "wait")
RENDER_MODES = ("ansi", "human")
#: Most visible jobs (the observation's and the job_node space's K).
MAX_VISIBLE = 1024


@dataclass(frozen=True)
class EnvOptions:
    """What :class:`~hetsched.gym.env.ClusterEnv` takes besides its platform, workload and run
    options; each field is the constructor's argument of the same name."""

    actions: str = "job_node"
    visible: int = 16
    reward: str | Mapping[str, float] = "slowdown"
    reward_at: str = "step"
    max_steps: int | None = None
    invalid_action: str = "raise"
    invalid_penalty: float = 1.0
    render_mode: str | None = None

    def __post_init__(self) -> None:
        check_choice("actions", self.actions, ACTION_SPACES)
        object.__setattr__(self, "visible", _whole("visible", self.visible, 1, MAX_VISIBLE))
        object.__setattr__(self, "reward", reward_weights(self.reward))
        check_choice("reward_at", self.reward_at, REWARD_TIMES)
        if self.max_steps is not None:
            object.__setattr__(self, "max_steps", _whole("max_steps", self.max_steps, 1))
        check_choice("invalid_action", self.invalid_action, INVALID_ACTIONS)
        object.__setattr__(self, "invalid_penalty",
                           check_number("invalid_penalty", self.invalid_penalty, minimum=0.0))
        if self.render_mode is not None:
            check_choice("render_mode", self.render_mode, RENDER_MODES)


def reward_weights(reward: object) -> dict[str, float]:
    """``reward`` (a term's name, or a mapping of terms to weights) as weights by term."""
    if isinstance(reward, str):
        reward = {reward: 1.0}
    if not isinstance(reward, Mapping) or not reward:
        raise ConfigError(f"reward must be one of {', '.join(REWARD_TERMS)} or a mapping of "
                          f"them to weights, got {reward!r}")
    weights = {}
    for term, weight in reward.items():
        if term not in REWARD_TERMS:
            hint = did_you_mean(str(term), list(REWARD_TERMS))
            raise ConfigError(f"reward: unknown term {term!r}{hint} (terms: "
                              f"{', '.join(REWARD_TERMS)})")
        weights[term] = check_number(f"reward weight of {term}", weight, minimum=0.0)
    return weights


def _whole(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum \
            or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ConfigError(f"{name} must be a whole number {bounds}, got {value!r}")
    return int(value)
