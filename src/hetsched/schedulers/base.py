"""The scheduler interface, kept importable here for code written against earlier versions:
it lives with the engine (:mod:`hetsched.sim.protocol`) and is re-exported by
:mod:`hetsched.schedulers`."""

from hetsched.sim.protocol import (Decision, Dequeue, Enqueue, Events, Reject, Scheduler, Start,
                                   WakeUp)

__all__ = ["Decision", "Dequeue", "Enqueue", "Events", "Reject", "Scheduler", "Start", "WakeUp"]
