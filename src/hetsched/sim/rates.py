"""Progress rates under a contention model: which shares of the changed nodes get new rates,
and a running job's record at its new rates. Pure functions of the cluster state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hetsched.errors import SchedulerError
from hetsched.models.contention import ContentionModel, Group
from hetsched.models.speed import rate as task_rate
from hetsched.sim.state import ClusterState, RunningJob, Share

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType

#: A share whose remaining work is below this fraction of its job's is done.
DONE = 1e-9


def working_shares(state: ClusterState, node: int,
                   now: float) -> tuple[list[tuple[int, Share]], list[Group]]:
    """The shares still working on ``node`` (with their job's index) and what a contention
    model sees of them. A share whose work is done while its job runs on elsewhere keeps its
    cores but no longer counts."""
    shares, groups = [], []
    for index, run in state.jobs_on(node).items():
        done = DONE * run.job.req_ops
        for share in run.shares:
            if share.node == node and share.remaining - share.rate * (now - share.since) > done:
                shares.append((index, share))
                groups.append(share.group)
    return shares, groups


def node_rates(model: ContentionModel, node_type: NodeType, speed: float,
               groups: Sequence[Group]) -> list[float]:
    """The rate of each group working on one node of ``node_type`` (cores of ``speed``): its
    job's uncontended rate times the model's factor."""
    factors = model.factors(node_type, groups)
    rates = []
    for group, factor in zip(groups, factors):
        if not factor > 0:
            raise SchedulerError(f"contention model {model.name}: factor {factor} for job "
                                 f"'{group.job.id}' is not positive")
        rates.append(task_rate(group.job, speed, node_type.name) * factor)
    return rates


def node_wide(model: ContentionModel) -> bool:
    """Whether ``model`` re-rates every processor of a node where something changed (it is
    not ``per_processor``, as DESiDE, whose bandwidth is the node's): then a share that ends
    before its job does must also re-rate its node (:func:`early_ends`)."""
    return not getattr(model, "per_processor", False)


def early_ends(run: RunningJob, now: float) -> list[float]:
    """The times, from ``now`` on, at which a share of ``run`` ends before its last share
    does: when its node must be re-rated under a node-wide model. A share that ends then has
    done its work (:func:`working_shares` leaves it out) while its job runs on elsewhere."""
    ends = [share.end() for share in run.shares]
    last = max(ends)
    return sorted({end for end in ends if now <= end < last})


def changed_rates(state: ClusterState, model: ContentionModel, speed: list[float],
                  processors: set[int], now: float) -> dict[int, dict[int, float]]:
    """Per job index, the new rate of each of its shares (by processor) whose rate the model
    changes, on the nodes of the ``processors`` whose threads changed. A model that works per
    processor (``per_processor``, as IRMaSim's) re-rates only those processors; the others
    keep their rates, as in IRMaSim, which recomputes a processor's speedups only when a task
    starts or ends on it."""
    layout = state.layout
    only_changed = not node_wide(model)
    rates: dict[int, dict[int, float]] = {}
    for node in sorted({layout.node[p] for p in processors}):
        shares, groups = working_shares(state, node, now)
        if not groups:
            continue
        new = node_rates(model, state.platform.nodes[node].type, speed[node], groups)
        for (index, share), rate in zip(shares, new):
            if only_changed and share.processor not in processors:
                continue
            if rate != share.rate:
                rates.setdefault(index, {})[share.processor] = rate
    return rates


def at_rate(share: Share, rate: float, now: float) -> Share:
    """``share`` from ``now`` on at ``rate``: its remaining work brought up to ``now``."""
    return Share(node=share.node, processor=share.processor, threads=share.threads,
                 remaining=max(0.0, share.remaining_at(now)), rate=rate, since=now,
                 group=share.group)


def rerated(run: RunningJob, rates: dict[int, float], now: float) -> RunningJob:
    """A new record of ``run`` with ``rates`` (by processor) from ``now`` on: the changed
    shares' remaining work brought up to ``now``, its end and version renewed."""
    shares = tuple(share if share.processor not in rates else
                   at_rate(share, rates[share.processor], now) for share in run.shares)
    end = max(now, max(share.end() for share in shares))
    return RunningJob(job=run.job, allocation=run.allocation, start=run.start,
                      est_end=run.est_end, shares=shares, end=end, version=run.version + 1)
