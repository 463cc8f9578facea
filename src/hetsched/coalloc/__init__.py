"""Co-allocation: windows of slots that start and finish together on non-dedicated
heterogeneous nodes, chosen by a criterion within a budget (Toporkov & Yemelyanov, ICCS 2018).

Pure functions over a set of free slots, no simulator dependency: the model
(:mod:`~hetsched.coalloc.model`), the criteria (:mod:`~hetsched.coalloc.criteria`), the scan's
candidate lists (:mod:`~hetsched.coalloc.candidates`), the knapsack of additive criteria
(:mod:`~hetsched.coalloc.knapsack`), the search (:mod:`~hetsched.coalloc.search`), MultipleBest
(:mod:`~hetsched.coalloc.alternatives`), the MILP it is checked against
(:mod:`~hetsched.coalloc.exact`) and the paper's environments
(:mod:`~hetsched.coalloc.environment`). See docs/coalloc.md.
"""

from hetsched.coalloc.alternatives import alternatives, best_of, multiple_best
from hetsched.coalloc.criteria import CRITERIA, Criterion, criterion
from hetsched.coalloc.environment import PaperEnvironment
from hetsched.coalloc.model import Request, Slot, Slots, Window
from hetsched.coalloc.search import SearchStats, search

__all__ = ["CRITERIA", "Criterion", "PaperEnvironment", "Request", "SearchStats", "Slot", "Slots",
           "Window", "alternatives", "best_of", "criterion", "multiple_best", "search"]
