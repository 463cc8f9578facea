"""Contention models: how co-running threads slow each other down on a node.

A model is a pure function of a node type and what runs on each of its processors. It returns
one rate factor per :class:`Group` (the threads of one job on one processor): the group's work
progresses at ``ipc * core_speed * factor`` operations per second per thread. The engine calls
it for the nodes whose allocations changed at an instant and for no others.

Models by name (:func:`create`): ``none`` (only processor sharing when a node is
oversubscribed), ``irmasim`` (IRMaSim's modelV1 memory contention, per processor) and
``deside`` (DESiDE, Chahal et al., ICPE'19). See docs/model.md for their formulas.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hetsched.errors import ConfigError, did_you_mean
from hetsched.lazy import resolve

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType, Platform
    from hetsched.workload.model import Job, Workload


@dataclass(frozen=True, slots=True)
class Group:
    """``threads`` threads (tasks) of ``job`` running on processor ``processor`` of a node.

    ``base_time`` is the uncontended run time of one thread's work on a core of this node
    (``req_ops / (ipc * speed)``), IRMaSim's T0.
    """

    job: Job
    processor: int
    threads: int
    base_time: float


class ContentionModel(Protocol):
    """Rate factors (> 0; 1 = uncontended) of the groups running on one node.

    ``inert(platform, workload)`` says the model can never change a rate in that run (e.g.
    no job asks for memory bandwidth): the engine then fixes finish times at start, as
    without a model. A model without the method is never inert. ``per_processor = True``
    says a processor's factors depend on that processor's threads only: the engine then
    re-rates only the processors whose threads changed (IRMaSim's behaviour), otherwise every
    processor of a node where something changed.
    """

    name: str

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]: ...


def inert(model: ContentionModel, platform: Platform, workload: Workload) -> bool:
    check = getattr(model, "inert", None)
    return bool(check is not None and check(platform, workload))


#: The parameters a processor may give the ``irmasim`` model (IRMaSim's modelV1 names).
PROCESSOR_PARAMETERS = ("b", "c", "da", "db", "dc", "dd")

#: Model name -> "module:attribute" of its factory (called with the model's parameters).
MODELS = {
    "none": "hetsched.models.contention.sharing:ProcessorSharing",
    "irmasim": "hetsched.models.contention.irmasim:IrmasimModel",
    "deside": "hetsched.models.contention.deside:DesideModel",
}


def check_contention(name: str | None) -> str | None:
    """A contention model's name (``None``: the platform's), without importing the models."""
    if name is not None and name not in MODELS:
        raise ConfigError(f"unknown contention model '{name}'{did_you_mean(name, list(MODELS))} "
                          f"(choose from: {', '.join(MODELS)})")
    return name


def create(name: str, params: Mapping[str, float] | None = None) -> ContentionModel:
    """The contention model called ``name``, built with the platform's ``params``."""
    factory = resolve(MODELS[check_contention(name)])
    params = dict(params or {})
    accepted = [p for p in inspect.signature(factory).parameters if p != "self"]
    for key in params:
        if key not in accepted:
            known = f"its parameters: {', '.join(accepted)}" if accepted else "it has none"
            raise ConfigError(f"contention model '{name}' has no parameter '{key}'"
                              f"{did_you_mean(key, accepted)} ({known})")
    return factory(**params)
