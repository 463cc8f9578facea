"""``ClusterEnv``: one episode is one run of the engine, stepped by an agent's actions.

The engine stops at each instant at which something happened (:meth:`Simulation.advance`); the
action space's driver (:mod:`hetsched.gym.turns`) gives the agent a turn whenever some job can
start now, and applies each action as one decision, at the same instant; "wait" lets time run
to the next instant at which some job can start. See docs/gym.md.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from hetsched.errors import SchedulerError
from hetsched.gym.inputs import Generated, env_inputs
from hetsched.gym.job_node import JobNodeDriver
from hetsched.gym.observation import Observer, observation_space
from hetsched.gym.options import EnvOptions
from hetsched.gym.policy import PolicyDriver
from hetsched.gym.render import text_view
from hetsched.gym.rewards import Rewards
from hetsched.gym.turns import TURN, WAIT, Driver
from hetsched.platform.model import Platform
from hetsched.run.inputs import PathLike
from hetsched.run.options import RunOptions
from hetsched.sim.engine import Simulation
from hetsched.sim.jobs import FINISHED
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload


@dataclass(frozen=True)
class Snapshot:
    """An episode's checkpoint (:meth:`ClusterEnv.snapshot`): opaque, read by
    :meth:`ClusterEnv.restore` only."""

    sim: Simulation
    driver: Any
    rewards: Rewards
    steps: int
    np_random: dict


class ClusterEnv(gymnasium.Env):
    """A cluster scheduler as a gymnasium environment (``hetsched/Cluster-v0``).

    ``platform``: a path or a :class:`~hetsched.platform.model.Platform` (default: the bundled
    example's); ``workload``: a path, a :class:`~hetsched.workload.model.Workload` (every
    episode the same jobs) or a generator spec ``{"generator": name, **parameters}`` (a new draw
    per episode, from the episode's seed; default: the bundled example's jobs); ``contention``
    and ``horizon``: as the run options of those names; the rest: :class:`EnvOptions`.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, platform: PathLike | Platform | None = None,
                 workload: PathLike | Workload | Mapping[str, Any] | None = None, *,
                 actions: str = "job_node", visible: int = 16,
                 reward: str | Mapping[str, float] = "slowdown", reward_at: str = "step",
                 contention: str | None = None, horizon: float | None = None,
                 max_steps: int | None = None, invalid_action: str = "raise",
                 invalid_penalty: float = 1.0, render_mode: str | None = None) -> None:
        self.options = EnvOptions(actions, visible, reward, reward_at, max_steps,
                                  invalid_action, invalid_penalty, render_mode)
        self.run_options = RunOptions.of(contention=contention, horizon=horizon)
        self.render_mode = render_mode
        self.platform, self.source = env_inputs(platform, workload)
        self.rewards = Rewards(self.options.reward, self.platform)  # type: ignore[arg-type]
        self.driver: Driver = PolicyDriver() if actions == "policy" \
            else JobNodeDriver(self.options.visible)
        nodes = len(self.platform.nodes)
        self.action_space = spaces.Discrete(PolicyDriver.size if actions == "policy"
                                            else self.options.visible * nodes + 1)
        self.observation_space = observation_space(self.options.visible, self.platform)
        self.observe = Observer(self.platform, self.options.visible)
        self._base: Simulation | None = None  # a trace's run before its start, forked per episode
        self.sim: Simulation | None = None
        self.result: SimResult | None = None

    # ---- gymnasium's interface --------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """A new episode: the same one for the same ``seed`` (its workload's draw, when a
        generator makes it, and the driver's random choices)."""
        super().reset(seed=seed)
        episode = int(self.np_random.integers(2**31)) if seed is None else int(seed)
        self.sim = sim = self._simulation(episode)
        self.driver.reset(sim.view, np.random.default_rng(episode))
        self.rewards.reset(len(sim.workload.jobs), sim.clock[0])
        self._turns = None  # the driver's generator of the current instant
        self.steps, self.result, self._over = 0, None, False
        if not self._play(None):
            self.result = sim.finish()
        return self.observe(sim.view, sim.workload.jobs), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        """Take ``action`` now and run to the agent's next turn (docs/gym.md, "Steps")."""
        sim = self.sim
        if sim is None or self._over:
            raise SchedulerError("step() before reset() or after the episode ended: call "
                                 "reset()")
        chosen, penalty = self._checked(action)
        self.steps += 1
        if self.result is None and not self._play(chosen):
            self.result = sim.finish()
        truncated = False
        if self.result is None and self.options.max_steps is not None \
                and self.steps >= self.options.max_steps:
            self.result, truncated = sim.finish(), True
        ended = self.result is not None
        terminated = ended and not truncated and not sim.stopped
        truncated = truncated or (ended and sim.stopped)
        self._over = ended
        reward = self.rewards.step() if self.options.reward_at == "step" else 0.0
        if ended and self.options.reward_at == "end":
            reward = self.rewards.end(self.result)  # type: ignore[arg-type]
        obs = self.observe(sim.view, sim.workload.jobs)
        return obs, reward - penalty, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.sim is None:
            return None
        text = text_view(self.sim.view, self.options.visible)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- checkpoints ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The episode as it is now, to :meth:`restore` (any number of times): the run with
        every job still to come (``Simulation.fork(keep_future=True)``), the driver's state
        at this turn, the rewards' running totals, the step count and the generators' states.
        Steps after a restore give the same observations, rewards and final result as steps
        from here would have (docs/gym.md, "Checkpoints")."""
        if self.sim is None or self._over:
            raise SchedulerError("snapshot() before reset() or after the episode ended")
        return Snapshot(self.sim.fork(keep_future=True), self.driver.checkpoint(),
                        copy.copy(self.rewards), self.steps,
                        self.np_random.bit_generator.state)

    def restore(self, snapshot: Snapshot) -> tuple[dict[str, np.ndarray], dict]:
        """Go back to ``snapshot`` (taken by this environment) and return the observation
        and info of its turn, as ``reset()`` does; the snapshot stays as it was."""
        if not isinstance(snapshot, Snapshot):
            raise SchedulerError(f"restore(): {type(snapshot).__name__} is not a snapshot of "
                                 "this environment (from snapshot())")
        self.sim = sim = snapshot.sim.fork(keep_future=True)
        self.driver.restore(sim.view, snapshot.driver)
        self.rewards = copy.copy(snapshot.rewards)
        self.steps = snapshot.steps
        self.np_random.bit_generator.state = snapshot.np_random
        self.result, self._over = None, False
        self._turns = turns = self.driver.resume(sim.clock[0])
        first = next(turns)
        assert first is TURN, "a snapshot is taken at a turn"
        return self.observe(sim.view, sim.workload.jobs), self._info()

    # ---- the episode ------------------------------------------------------------------------
    def _simulation(self, episode: int) -> Simulation:
        """The episode's run: a new one for a generator's draw or a contention model that
        draws per run (its draws from the episode's seed), else a copy of the trace's run
        before its start (``fork(keep_future=True)``: far quicker than building it)."""
        source = self.source
        if isinstance(source, Generated):
            return self._new(source.draw(episode), episode)
        if self._base is None:
            self._base = self._new(source, 0)
        if hasattr(self._base.contention, "bind"):
            return self._new(source, episode)
        return self._base.fork(keep_future=True)

    def _new(self, workload: Workload, seed: int) -> Simulation:
        run = self.run_options
        return Simulation(self.platform, workload, None, seed=seed, horizon=run.horizon,
                          contention=run.contention, timeseries=False)

    def _checked(self, action: Any) -> tuple[int, float]:
        """The action to send to the driver, and the penalty of an action the mask forbids
        (turned into a wait) or, under ``invalid_action="raise"``, a one-line error."""
        driver, size = self.driver, self.driver.size
        if type(action) is not int and (isinstance(action, (bool, np.bool_))
                                        or not isinstance(action, numbers.Integral)):
            problem = f"action {action!r} is not a whole number (actions: 0..{size - 1})"
        elif not 0 <= action < size:
            problem = f"action {action} is out of range 0..{size - 1}"
        elif action == size - 1:
            return WAIT, 0.0
        elif self.result is None and driver.mask[action]:
            return int(action), 0.0
        elif self.result is not None:
            problem = f"{driver.describe(int(action))}: the episode is over (only wait is left)"
        else:
            problem = f"{driver.describe(int(action))} is infeasible: " \
                      f"{driver.why_not(int(action))}"
        if self.options.invalid_action == "raise":
            raise SchedulerError(problem)
        return WAIT, self.options.invalid_penalty

    def _play(self, action: int | None) -> bool:
        """Resume the driver with ``action`` (``None``: a new episode's first turn) and run
        to its next turn: ``False`` once the run is over. Accounts for the rewards as time
        passes and jobs end."""
        sim, driver, rewards, view, jobs = self.sim, self.driver, self.rewards, self.sim.view, \
            self.sim.jobs
        turns = self._turns
        if action is not None:
            driver.chosen = action
        while True:
            if turns is None:
                state = sim.state  # (jobs started on a booting node wait for its boot)
                power, waiting = state.total_power, len(view.pending) + state.held_count
                step = sim.advance()
                if step is None:
                    self._turns = None
                    return False
                rewards.elapse(step.now, waiting, power)
                for job in step.events.finished:
                    if jobs.state(job.index) == FINISHED:
                        rewards.finished(job.submit, jobs.start_time(job.index), step.now)
                turns = driver.decide(step.now, step.events)
            for item in turns:
                if item is TURN:
                    self._turns = turns
                    return True
                sim.apply((item,))
            turns = None

    def _info(self) -> dict[str, Any]:
        over = self.result is not None
        mask = self.driver.mask.copy() if not over else _wait_only(self.action_space.n)
        return {"action_mask": mask, "time": self.sim.clock[0], "steps": self.steps}


def _wait_only(size: int) -> np.ndarray:
    mask = np.zeros(size, dtype=np.int8)
    mask[-1] = 1
    return mask
