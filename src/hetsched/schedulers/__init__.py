"""Scheduling policies behind one interface (:mod:`hetsched.sim.protocol`), by name."""

from hetsched.sim.protocol import (Decision, Dequeue, Enqueue, Events, Reject, Reserve,
                                   Scheduler, Start, WakeUp)
from hetsched.schedulers.registry import create, entries, register

__all__ = ["Decision", "Dequeue", "Enqueue", "Events", "Reject", "Reserve", "Scheduler", "Start",
           "WakeUp", "create", "entries", "register"]
