"""What each job paid for the nodes it held (docs/model.md, "The cost model").

A job pays, for each node ``n`` of its allocation, the time it held the node times the node's
price per second (:attr:`~hetsched.platform.model.NodeType.price`) times the share of the node
it held: its tasks there over the node's slots (its cores, times its oversubscription). A job
holds all of its allocation from its start to its end (the last of its shares), so

    cost = held · Σ_n price_n · tasks_n / slots_n,

``held`` being ``end − start``, or ``t_end − start`` for a job still running when the run
ended. A whole-node task (co-allocation's slot) pays ``T · c_i``. Shares of slots, not of
cores, so that the jobs on a node never pay more than the node's price, oversubscribed or not.
"""

from __future__ import annotations

import numpy as np

from hetsched.sim.resources import Allocation
from hetsched.sim.result import SimResult


def job_costs(result: SimResult) -> np.ndarray:
    """Each job's cost in submission order: 0 for a job that never started; NaN for every job
    when no node has a price (no cost model, as ``rental_cost`` is then absent)."""
    arrays = result.platform.arrays
    if not arrays.price.any():
        return np.full(len(result.workload.jobs), np.nan)
    per_slot = (arrays.price / arrays.slots).tolist()
    rates: dict[Allocation, float] = {}
    rate = np.zeros(len(result.workload.jobs))
    for index, allocation in enumerate(result.allocation):
        if allocation:
            found = rates.get(allocation)
            if found is None:
                found = rates[allocation] = sum(per_slot[node] * tasks
                                                for node, tasks in allocation)
            rate[index] = found
    end = np.where(np.isnan(result.end), result.t_end, result.end)
    return np.nan_to_num(end - result.start, nan=0.0) * rate  # no start: held for 0 s
