"""Static mapping of independent tasks on an ETC matrix (tasks × machines).

Pure numpy/scipy functions, no simulator dependency: list heuristics (OLB, MET, MCT,
Min-min, Max-min, Duplex, Sufferage, KPB, SWA), A*, metaheuristics (GA, SA, GSA, Tabu),
LP/MILP bounds and solving with HiGHS, an iterated local search and the ``best`` portfolio,
ETC readers and generators. See docs/mapping.md for every definition.

    >>> from hetsched.mapping import read_etc, run_heuristic
    >>> result = run_heuristic("min_min", read_etc("u_c_hihi.0"))  # doctest: +SKIP
"""

from hetsched.mapping.astar import astar
from hetsched.mapping.catalogue import DESCRIPTIONS
from hetsched.mapping.core import Mapping, flowtime, machine_loads, make_mapping
from hetsched.mapping.exact import (LPRelaxation, lower_bound, lp_bound, lp_relaxation,
                                    milp_mapping, trivial_bound)
from hetsched.mapping.generate import apply_consistency, braun_instance, cvb, range_based
from hetsched.mapping.greedy import duplex, kpb, max_min, mct, met, min_min, olb, sufferage, swa
from hetsched.mapping.ils import best, ils
from hetsched.mapping.io import read_braun, read_csv_etc, read_etc, write_braun
from hetsched.mapping.meta import ga, gsa, sa, tabu
from hetsched.mapping.registry import HEURISTICS, names, run_heuristic

__all__ = [
    "DESCRIPTIONS", "HEURISTICS", "LPRelaxation", "Mapping", "apply_consistency", "astar", "best",
    "braun_instance", "cvb", "duplex", "flowtime", "ga", "gsa", "ils", "kpb", "lower_bound",
    "lp_bound", "lp_relaxation", "machine_loads", "make_mapping", "max_min", "mct", "met",
    "milp_mapping", "min_min", "names", "olb", "range_based", "read_braun", "read_csv_etc",
    "read_etc", "run_heuristic", "sa", "sufferage", "swa", "tabu", "trivial_bound",
    "write_braun",
]
