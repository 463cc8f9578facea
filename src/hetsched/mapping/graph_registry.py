"""The task-graph heuristics by name (``hetsched dag --heuristic``), registered by path so
that listing them imports none: HEFT, CPOP, PEFT, the exact solver, and every independent-task
list heuristic applied ready set by ready set (:func:`hetsched.mapping.dag.by_ready_sets`).

``run_graph_heuristic(name, graph, time_limit, budget)`` runs one; only ``exact`` takes a time
limit or a budget (HiGHS's branch-and-bound nodes)."""

from __future__ import annotations

from hetsched.errors import ConfigError
from hetsched.mapping.catalogue import DESCRIPTIONS, LIST_NAMES
from hetsched.registry import Registry

#: Heuristics run when none is named.
DEFAULT: tuple[str, ...] = ("heft", "cpop", "peft")
#: The one that searches: it alone takes ``time_limit`` and ``budget``.
EXACT = "exact"

GRAPH_HEURISTICS = Registry("task-graph heuristic", __name__)
GRAPH_HEURISTICS.register("heft", "hetsched.mapping.dag:heft",
                          "HEFT: upward rank order, earliest finish with insertion", "list")
GRAPH_HEURISTICS.register("cpop", "hetsched.mapping.dag:cpop",
                          "CPOP: the critical path on its fastest processor, the rest by "
                          "earliest finish", "list")
GRAPH_HEURISTICS.register("peft", "hetsched.mapping.dag:peft",
                          "PEFT: optimistic cost table rank, least EFT + OCT", "list")
GRAPH_HEURISTICS.register(EXACT, "hetsched.mapping.dag_exact:exact",
                          "MILP with HiGHS: the optimum, or the best found and a proven bound",
                          "exact")
for _name in LIST_NAMES:
    GRAPH_HEURISTICS.register(_name, "hetsched.mapping.dag:by_ready_sets",
                              f"{DESCRIPTIONS[_name]}, ready set by ready set", "ready set",
                              heuristic=_name)


def run_graph_heuristic(name: str, graph: object, time_limit: float | None = None,
                        budget: int | None = None) -> object:
    """A :class:`~hetsched.mapping.graph.GraphSchedule` of ``graph`` by heuristic ``name``."""
    entry = GRAPH_HEURISTICS.entry(name)
    if name != EXACT:
        return entry.factory(graph, **entry.defaults)
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"time limit must be positive, got {time_limit}")
    return entry.factory(graph, time_limit=time_limit, max_nodes=budget)
