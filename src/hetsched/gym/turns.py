"""How an action space's driver hands the choice to the agent.

A driver is a :class:`~hetsched.sim.protocol.Scheduler` whose ``decide`` generator yields, beside
its decisions, :data:`TURN` whenever the agent is to choose; the environment then sends the
chosen action into the generator (``generator.send(action)``), :data:`WAIT` ending the
instant's scheduling. Before yielding :data:`TURN` a driver sets ``mask`` (``np.int8``, 1 for
each action allowed now, :data:`WAIT`'s always) and yields it only if some other action is
allowed: an instant where nothing can start is no step of the agent's.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from hetsched.sim.protocol import Scheduler


class _Turn:
    def __repr__(self) -> str:
        return "TURN"


#: What a driver yields to ask the agent for an action.
TURN = _Turn()
#: The wait action, sent to a driver: nothing more this instant.
WAIT = -1


class Driver(Scheduler):
    """An action space: its size, its mask at the current turn, and what an action means."""

    size: int
    mask: np.ndarray

    @abstractmethod
    def why_not(self, action: int) -> str:
        """Why ``action`` (in range, masked out now) cannot be taken: one line."""

    @abstractmethod
    def describe(self, action: int) -> str:
        """``action`` in words (its number and what it picks)."""
