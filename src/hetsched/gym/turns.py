"""How an action space's driver hands the choice to the agent.

A driver is a :class:`~hetsched.sim.protocol.Scheduler` whose ``decide`` generator yields, beside
its decisions, :data:`TURN` whenever the agent is to choose; the environment then sets the
chosen action as the driver's ``chosen`` and resumes the generator (a plain iteration: no
``send``, and the instant's end is a ``for`` loop's, not a caught ``StopIteration``),
:data:`WAIT` ending the instant's scheduling. Before yielding :data:`TURN` a driver sets
``mask`` (``np.int8``, 1 for each action allowed now, :data:`WAIT`'s always) and yields it only
if some other action is allowed: an instant where nothing can start is no step of the agent's.

A generator cannot be copied, so a driver checkpoints its own state instead
(:meth:`Driver.checkpoint`) and, restored, makes a new generator that goes on from the same
turn (:meth:`Driver.resume`): the environment's ``snapshot()`` and ``restore()``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from hetsched.sim.protocol import Decision, Scheduler
from hetsched.sim.view import ClusterView


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
    chosen: int = WAIT  # the agent's action at the current turn (set by the environment)

    def reset_mask(self) -> None:
        """``waiting``, the mask where only :data:`WAIT` is allowed (read-only), as the mask."""
        self.waiting = np.zeros(self.size, dtype=np.int8)
        self.waiting[-1] = 1
        self.waiting.flags.writeable = False
        self.mask = self.waiting

    def turn(self, mask: np.ndarray | None) -> Generator[Any, int, int]:
        """The agent's action over ``mask`` (``yield from`` it): :data:`TURN` yielded, then
        ``chosen`` returned; with ``mask`` ``None`` (nothing can start) no turn and
        :data:`WAIT`."""
        if mask is None:
            self.mask = self.waiting
            return WAIT
        self.mask = mask
        yield TURN
        return self.chosen

    @abstractmethod
    def why_not(self, action: int) -> str:
        """Why ``action`` (in range, masked out now) cannot be taken: one line."""

    @abstractmethod
    def describe(self, action: int) -> str:
        """``action`` in words (its number and what it picks)."""

    @abstractmethod
    def checkpoint(self) -> Any:
        """A copy of the driver's state now (at a turn): what :meth:`restore` takes back."""

    @abstractmethod
    def restore(self, view: ClusterView, state: Any) -> None:
        """Back to ``state`` (from :meth:`checkpoint`, left intact: restoring twice works),
        on ``view`` (a copy of the run it was taken on)."""

    @abstractmethod
    def resume(self, now: float) -> Iterator[Decision | Any]:
        """A new generator for the rest of the current instant, from the turn at which the
        restored state was taken: its first item is :data:`TURN`, with the same mask."""
