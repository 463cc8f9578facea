"""Static mapping of independent tasks on an ETC matrix (tasks × machines).

Pure numpy/scipy functions, no simulator dependency: list heuristics (OLB, MET, MCT,
Min-min, Max-min, Duplex, Sufferage, KPB, SWA), A*, metaheuristics (GA, SA, GSA, Tabu),
LP/MILP bounds and solving with HiGHS, an iterated local search and the ``best`` portfolio,
ETC readers and generators; and task graphs (DAGs of tasks with unrelated costs and
communication): HEFT, CPOP, PEFT, the list heuristics ready set by ready set, an exact MILP,
and their readers. See docs/mapping.md for every definition.

    >>> from hetsched.mapping import read_etc, run_heuristic
    >>> result = run_heuristic("min_min", read_etc("u_c_hihi.0"))  # doctest: +SKIP

The names below are imported from their modules on first use: importing one module of the
package (the catalogue, read when the scheduler registry starts) imports no heuristic.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, tuple[str, ...]] = {
    "catalogue": ("DESCRIPTIONS",),
    "core": ("Mapping", "flowtime", "machine_loads", "make_mapping"),
    "dag": ("by_ready_sets", "cpop", "heft", "optimistic_cost_table", "peft", "upward_rank"),
    "dag_io": ("read_dag", "read_stg_optima"),
    "exact": ("LPRelaxation", "lower_bound", "lp_bound", "lp_relaxation", "milp_mapping",
              "trivial_bound"),
    "generate": ("apply_consistency", "braun_instance", "cvb", "range_based"),
    "graph": ("GraphSchedule", "TaskGraph", "check_schedule", "schedule_metrics"),
    "graph_registry": ("GRAPH_HEURISTICS", "run_graph_heuristic"),
    "greedy": ("duplex", "duplex_sorted", "kpb", "max_min", "max_min_sorted", "mct", "met",
               "min_min", "min_min_sorted", "olb", "sufferage", "swa"),
    "io": ("read_braun", "read_csv_etc", "read_etc", "write_braun"),
    "local_search": ("best", "ils"),
    "meta": ("ga", "gsa", "sa", "tabu"),
    "registry": ("HEURISTICS", "names", "run_heuristic"),
    "tree_search": ("astar",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'hetsched.mapping' has no attribute {name!r}")
    return getattr(importlib.import_module(f"hetsched.mapping.{module}"), name)


def __dir__() -> list[str]:
    return __all__
