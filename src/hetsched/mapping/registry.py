"""Every mapping heuristic by name, behind one signature.

``HEURISTICS[name](etc, ready, rng, time_limit) -> Mapping``; :func:`run_heuristic` checks
the name and the inputs and fills the defaults (``ready``: zeros; ``rng``:
``numpy.random.default_rng(0)``; ``time_limit``: each heuristic's own default, see
``DEFAULT_TIME_LIMITS``, unless a ``budget`` is given). Deterministic heuristics ignore
``rng`` and ``time_limit``. ``budget`` counts each heuristic's own steps (``BUDGETS``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping import greedy, meta
from hetsched.mapping.tree_search import astar as astar_search
from hetsched.mapping.catalogue import BUDGETS, DEFAULT_TIME_LIMITS, DESCRIPTIONS
from hetsched.mapping.core import Mapping, as_etc, as_ready
from hetsched.mapping.exact import milp_mapping
from hetsched.mapping.local_search import best as best_portfolio
from hetsched.mapping.local_search import ils as iterated_local_search
from hetsched.registry import Registry

#: ``heuristic(etc, ready, rng, time_limit, **options)``: options are the heuristic's own
#: keyword arguments (``node_limit`` of A*, ``percent`` of KPB, ...).
Heuristic = Callable[..., Mapping]


def _deterministic(fn: Callable[..., Mapping]) -> Heuristic:
    return lambda etc, ready, rng, time_limit, **options: fn(etc, ready, **options)


def _seeded(fn: Callable[..., Mapping]) -> Heuristic:
    return lambda etc, ready, rng, time_limit, **options: fn(etc, ready, rng=rng,
                                                             time_limit=time_limit, **options)


def _milp(etc: np.ndarray, ready: np.ndarray, rng: np.random.Generator,
          time_limit: float | None, **options: object) -> Mapping:
    found = milp_mapping(etc, ready, time_limit=time_limit, **options)
    if found is None:  # no integer solution within the limits: fall back on Min-min, say so
        fallback = greedy.min_min(etc, ready)
        fallback.info.update(milp="no solution within the limits; Min-min returned")
        return fallback
    return found


#: Every heuristic by name, with its catalogue description.
HEURISTICS = Registry("heuristic", __name__)
for _name, _heuristic in {
    "olb": _deterministic(greedy.olb),
    "met": _deterministic(greedy.met),
    "mct": _deterministic(greedy.mct),
    "min_min": _deterministic(greedy.min_min),
    "max_min": _deterministic(greedy.max_min),
    "duplex": _deterministic(greedy.duplex),
    "sufferage": _deterministic(greedy.sufferage),
    "kpb": _deterministic(greedy.kpb),
    "swa": _deterministic(greedy.swa),
    "min_min_sorted": _deterministic(greedy.min_min_sorted),
    "max_min_sorted": _deterministic(greedy.max_min_sorted),
    "duplex_sorted": _deterministic(greedy.duplex_sorted),
    "astar": lambda etc, ready, rng, tl, **options: astar_search(etc, ready, time_limit=tl,
                                                                   rng=rng, **options),
    "ga": _seeded(meta.ga),
    "sa": _seeded(meta.sa),
    "gsa": _seeded(meta.gsa),
    "tabu": _seeded(meta.tabu),
    "ils": _seeded(iterated_local_search),
    "milp": _milp,
    "best": _seeded(best_portfolio),
}.items():
    HEURISTICS.register(_name, _heuristic, DESCRIPTIONS[_name])


def names() -> list[str]:
    return list(HEURISTICS)


def run_heuristic(name: str, etc: object, ready: object = None,
                  rng: np.random.Generator | None = None,
                  time_limit: float | None = None, budget: int | None = None,
                  **options: object) -> Mapping:
    """Run heuristic ``name`` on ``etc`` (tasks × machines) with machine ``ready`` times;
    ``options`` go to the heuristic (e.g. ``node_limit=128`` for ``astar``). ``budget``: the
    heuristic's steps (``BUDGETS``); without a ``time_limit`` the run then does not depend
    on the machine's speed, as the default time limits of ils, milp and best no longer apply."""
    heuristic = HEURISTICS.load(name)
    if time_limit is not None and not time_limit > 0:
        raise ConfigError(f"time limit must be positive, got {time_limit}")
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    if rng is None:
        rng = np.random.default_rng(0)
    if budget is not None:
        options[budget_keyword(name, budget)] = budget
    elif time_limit is None:
        time_limit = DEFAULT_TIME_LIMITS.get(name)
    try:
        return heuristic(arr, r, rng, time_limit, **options)
    except TypeError as err:
        if options and "unexpected keyword argument" in str(err):
            raise ConfigError(f"heuristic {name!r} has no option among "
                              f"{', '.join(options)}") from None
        raise


def budget_keyword(name: str, budget: object) -> str:
    """The keyword of heuristic ``name`` that ``budget`` sets, once both are checked."""
    if name not in BUDGETS:
        raise ConfigError(f"heuristic {name!r} takes no budget: it stops by itself")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ConfigError(f"budget must be a positive whole number, got {budget!r}")
    return BUDGETS[name][0]
