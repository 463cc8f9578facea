"""What the mapping heuristics are called and take, without importing them: names, one-line
descriptions, default time limits and extra options. The scheduler registry and help texts read
this at start-up; :mod:`hetsched.mapping.registry` binds the names to the implementations."""

from __future__ import annotations

#: One line per heuristic, in listing order.
DESCRIPTIONS: dict[str, str] = {
    "olb": "opportunistic load balancing: next machine to be ready",
    "met": "minimum execution time, ignoring load",
    "mct": "minimum completion time, tasks in index order",
    "min_min": "least minimum completion time first",
    "max_min": "largest minimum completion time first",
    "duplex": "better of Min-min and Max-min",
    "sufferage": "largest sufferage (2nd best - best CT) wins the machine, per pass",
    "kpb": "MCT among the 20 % machines of least ETC",
    "swa": "switching between MCT and MET on the load balance index (0.49/0.6)",
    "min_min_sorted": "shortest requested time first, each to its least completion time "
                      "(the IRMaSim thesis' Min-min)",
    "max_min_sorted": "longest requested time first, each to its least completion time "
                      "(the IRMaSim thesis' Max-min)",
    "duplex_sorted": "better of min_min_sorted and max_min_sorted (the IRMaSim thesis' "
                     "Duplex)",
    "astar": "A* tree search, 1024 open nodes, budget then greedy dive",
    "ga": "genetic algorithm seeded with Min-min (Braun)",
    "sa": "simulated annealing (Braun)",
    "gsa": "genetic simulated annealing (Braun)",
    "tabu": "tabu search with pair short hops and long hops (Braun)",
    "ils": "iterated local search from LP rounding / Min-min / Sufferage (numpy)",
    "milp": "HiGHS on the makespan MILP within the time limit",
    "best": "portfolio: local search, HiGHS with reduced-cost fixing, MILP-based LNS",
}

#: The list heuristics: one pass over a machine model, no time limit.
LIST_NAMES: tuple[str, ...] = ("olb", "met", "mct", "min_min", "max_min", "duplex",
                               "sufferage", "kpb", "swa", "min_min_sorted", "max_min_sorted",
                               "duplex_sorted")

#: Time limit (seconds) used when none is given; ``None``: the heuristic's own stopping rules.
DEFAULT_TIME_LIMITS: dict[str, float | None] = {
    "astar": None, "ga": None, "sa": None, "gsa": None, "tabu": None,
    "ils": 10.0, "milp": 60.0, "best": 60.0,
}

#: What ``budget`` counts for each heuristic that is not a list heuristic: the keyword of the
#: heuristic it sets, and its unit. A run given a budget and no time limit stops after the same
#: steps however fast the machine, so the same seed gives the same mapping (a time limit does
#: not).
BUDGETS: dict[str, tuple[str, str]] = {
    "astar": ("max_expansions", "node expansions"),
    "ga": ("generations", "generations"),
    "sa": ("max_iterations", "iterations"),
    "gsa": ("generations", "generations"),
    "tabu": ("max_hops", "hops"),
    "ils": ("max_iterations", "perturbations"),
    "milp": ("max_nodes", "HiGHS branch-and-bound nodes"),
    "best": ("max_nodes", "HiGHS branch-and-bound nodes"),
}

#: Options a heuristic takes beyond ``time_limit`` and ``budget`` (as batch-scheduler options).
EXTRA_OPTIONS: dict[str, tuple[str, ...]] = {"astar": ("node_limit", "order", "prune"),
                                             "kpb": ("percent",)}


def scheduler_options(name: str) -> list[str]:
    """The options of the batch scheduler running heuristic ``name``."""
    timed = [] if name in LIST_NAMES else ["time_limit", "budget"]
    return ["replan", "queue", *timed,
            *EXTRA_OPTIONS.get(name, ())]
