"""Contention models: how co-running threads slow each other down on a node.

A model is a pure function of a node type and what runs on each of its processors. It returns
one rate factor per :class:`Group` (the threads of one job on one processor): the group's work
progresses at ``ipc * core_speed * factor`` operations per second per thread. The engine calls
it for the nodes whose allocations changed at an instant and for no others.

Models by name (:func:`create`): ``none`` (only processor sharing when a node is
oversubscribed), ``irmasim`` (IRMaSim's modelV1 memory contention, per processor), ``deside``
(DESiDE, Chahal et al., ICPE'19) and ``deside_stochastic`` (DESiDE with its busy and idle times
drawn per interval, seeded by the run). See docs/model.md for their formulas.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from hetsched.errors import ConfigError, did_you_mean
from hetsched.models.contention.interface import ContentionModel, Group, inert
from hetsched.registry import Registry

__all__ = ["ContentionModel", "Group", "MODELS", "PROCESSOR_PARAMETERS", "check_contention",
           "create", "inert"]


#: The parameters a processor may give the ``irmasim`` model (IRMaSim's modelV1 names).
PROCESSOR_PARAMETERS = ("b", "c", "da", "db", "dc", "dd")

#: The models by name; each factory (imported when first used) takes the model's parameters.
MODELS = Registry("contention model", __name__)
MODELS.register("none", "hetsched.models.contention.sharing:ProcessorSharing",
                "no interference: only processor sharing when threads outnumber the cores")
MODELS.register("irmasim", "hetsched.models.contention.irmasim:IrmasimModel",
                "IRMaSim's modelV1 memory-bandwidth contention, per processor")
MODELS.register("deside", "hetsched.models.contention.deside:DesideModel",
                "DESiDE (Chahal et al., ICPE'19): threads slowed by remote memory accesses")
MODELS.register("deside_stochastic",
                "hetsched.models.contention.deside_stochastic:DesideStochasticModel",
                "DESiDE with each thread's busy and idle times drawn per 0.1 s interval "
                "(cpu_util_sd), seeded by the run")


def check_contention(name: str | None) -> str | None:
    """A contention model's name (``None``: the platform's), without importing the models."""
    if name is not None:
        MODELS.entry(name)
    return name


def create(name: str, params: Mapping[str, float] | None = None) -> ContentionModel:
    """The contention model called ``name``, built with the platform's ``params``."""
    factory = MODELS.load(name)
    params = dict(params or {})
    accepted = [p for p in inspect.signature(factory).parameters if p != "self"]
    for key in params:
        if key not in accepted:
            known = f"its parameters: {', '.join(accepted)}" if accepted else "it has none"
            raise ConfigError(f"contention model '{name}' has no parameter '{key}'"
                              f"{did_you_mean(key, accepted)} ({known})")
    return factory(**params)
