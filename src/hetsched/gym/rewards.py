"""The rewards: the negative of a weighted sum of summary metrics (docs/gym.md, "Rewards").

Paid at the episode's end (``reward_at="end"``): ``-(w_s * mean bounded slowdown + w_w * mean
wait + w_e * energy + w_p * EDP)``, from :func:`hetsched.metrics.summarize` of the run's result.
Paid per step (``"step"``): the change over the step of running totals whose sums over an
episode where every job finishes are those metrics: each finished job's bounded slowdown over
the number of jobs; the waiting of the pending jobs and of those started on a booting node
(count x elapsed time) over the number of jobs; the energy (the platform's power x elapsed
time); and energy so far x time so far.
"""

from __future__ import annotations

import math

from hetsched.errors import ConfigError
from hetsched.metrics.records import bounded_slowdown
from hetsched.metrics.summary import summarize
from hetsched.platform.model import Platform
from hetsched.sim.result import SimResult

#: The summary metric behind each reward term.
METRICS = {"slowdown": "mean_bounded_slowdown", "wait": "mean_wait", "energy": "energy_j",
           "edp": "edp_js"}


class Rewards:
    """Running totals of one episode, and what each step earns."""

    def __init__(self, weights: dict[str, float], platform: Platform) -> None:
        if ("energy" in weights or "edp" in weights) and not platform.has_power_model:
            raise ConfigError("reward: the energy and edp terms need a platform with a power "
                              "model")
        self.weights = weights
        # each term's weight (0 for a term not asked for): read on every step
        self.w_slowdown, self.w_wait, self.w_energy, self.w_edp = (
            weights.get(term, 0.0) for term in METRICS)

    def reset(self, jobs: int, t0: float) -> None:
        self.jobs, self.t0 = max(jobs, 1), t0
        self.slowdown = self.waited = self.energy = 0.0
        self.now = t0
        self.paid = 0.0  # the weighted total already paid

    def elapse(self, until: float, pending: int, power: float) -> None:
        """Time passes to ``until`` with ``pending`` jobs waiting and ``power`` W drawn."""
        dt = until - self.now
        self.waited += pending * dt
        self.energy += power * dt
        self.now = until

    def finished(self, submit: float, start: float, end: float) -> None:
        self.slowdown += float(bounded_slowdown(float(end - submit), float(end - start)))

    def step(self) -> float:
        """What the step earned: the change of the weighted total since the last step."""
        total = self.w_slowdown * (self.slowdown / self.jobs) \
            + self.w_wait * (self.waited / self.jobs) + self.w_energy * self.energy
        if self.w_edp:
            total += self.w_edp * self.energy * (self.now - self.t0)
        earned, self.paid = self.paid - total, total
        return earned

    def end(self, result: SimResult) -> float:
        """The whole episode's reward, from its result's summary (0 for a metric with no
        value: no job finished)."""
        summary = summarize(result)
        values = {term: float(summary[METRICS[term]]) for term in self.weights}
        return -sum(weight * (0.0 if math.isnan(values[term]) else values[term])
                    for term, weight in self.weights.items())
