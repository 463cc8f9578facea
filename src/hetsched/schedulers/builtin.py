"""The built-in schedulers: names, classes, families and defaults.

Classes are named by ``"module:attribute"`` paths, so listing the names imports only the small
tables they come from (the grid's selections, the mapping catalogue, the ds-sim algorithms); a
family's code is imported when one of its schedulers is created, or described: each class
describes its own entries (its ``description``, or ``describe(name, **defaults)``).
"""

from __future__ import annotations

from collections.abc import Iterator

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.mapping.catalogue import DESCRIPTIONS as HEURISTICS
from hetsched.registry import Entry
from hetsched.schedulers.policies import JOB_SELECTIONS, NODE_SELECTIONS

QUEUE = "hetsched.schedulers.queue:QueuePolicy"
#: The queue policies with names of their own: FCFS order, and this node selection.
NAMED_QUEUES = {"fcfs": "first", "high_gflops": "high_gflops", "low_power": "low_power"}


def builtin_entries() -> Iterator[Entry]:
    """Every built-in scheduler, in listing order."""
    def entry(name: str, target: str, family: str, **defaults: object) -> Entry:
        return Entry(name, target, family=family, defaults=defaults, kind="scheduler")

    for name, node in NAMED_QUEUES.items():
        yield entry(name, QUEUE, "queue", job_selection="first", node_selection=node)
    yield entry("irmasim_minimal", "hetsched.schedulers.irmasim:IrmasimMinimal", "irmasim")
    yield entry("irmasim_heuristic", "hetsched.schedulers.irmasim:IrmasimHeuristic", "irmasim",
                job_selection="first", node_selection="first")
    for job in JOB_SELECTIONS:
        for node in NODE_SELECTIONS:
            yield entry(f"{job}-{node}", QUEUE, "grid", job_selection=job, node_selection=node)
    for name, cls in (("slf", "SmallestLoadFirst"), ("let", "LeastExecutionTime"),
                      ("mom", "MinOfMax")):
        yield entry(name, f"hetsched.schedulers.whatif:{cls}", "whatif")
    for plan in ("heft", "cpop", "peft"):
        yield entry(plan, "hetsched.schedulers.plan:WorkflowPlan", "plan", heuristic=plan)
    yield entry("heft_replan", "hetsched.schedulers.plan:WorkflowPlan", "plan",
                heuristic="heft", replan=True)
    yield entry("easy", "hetsched.schedulers.backfill:EasyBackfill", "backfill")
    yield entry("conservative", "hetsched.schedulers.conservative:ConservativeBackfill",
                "backfill")
    yield entry("coalloc", "hetsched.schedulers.coalloc:CoAllocation", "coalloc")
    for name in HEURISTICS:
        yield entry(name, "hetsched.schedulers.batch:BatchMapping", "batch", heuristic=name)
    for name in ALGORITHMS:
        yield entry(name, "hetsched.dssim.scheduler:DsSimScheduler", "dssim", algorithm=name)
