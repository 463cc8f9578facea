"""What a contention model is (:class:`ContentionModel`) and what it is given (:class:`Group`),
apart from the models by name (:mod:`hetsched.models.contention`), so that the models import it
and the registry that names them imports none of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

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
    processor of a node where something changed, including a share of a job there ending
    before the job does (docs/model.md). ``bind(platform, workload, rng)`` (optional) returns
    the model a run uses, fixed for the whole run: a model that draws random values (as
    ``deside_stochastic``) draws them there, from ``rng``, the run's own generator for its
    model (:func:`hetsched.sim.engine.model_generator`), so that forks and what-ifs see the
    same values.
    """

    name: str

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]: ...


def inert(model: ContentionModel, platform: Platform, workload: Workload) -> bool:
    check = getattr(model, "inert", None)
    return bool(check is not None and check(platform, workload))
