"""``wfcommons``: a workflow drawn from one of WfCommons' recipes (Montage, Epigenomics,
Seismology, …), offline, when the optional ``wfcommons`` package is installed
(``pip install 'hetsched[workflows]'``).

A recipe (WfChef's) holds a few real workflow graphs of one application and the
distributions of its tasks' run times and file sizes. Asked for ``num_tasks``, it takes the
real graph that fits best and replicates the graph's repeated parts (its microstructures)
until one more would pass ``num_tasks``, then draws every task's run time and files. The
recipes are the ones installed: the entry points of group ``workflow_recipes``, which
WfCommons declares for its own and ``wfchef install`` for a user's (a recipe's name is the
entry point's without ``_recipe``: ``montage``, ``genome`` for 1000Genome, …).

``jobs`` bounds the workflow's tasks: the recipe is asked for ``jobs + 2`` nodes, because its
graphs count two virtual nodes (their start and end) that are no task, so a workflow has at
most ``jobs`` tasks, fewer when the next part does not fit. A recipe's smallest real graph is
its minimum (e.g. 58 tasks for ``montage``).

WfCommons draws from process-wide state: Python's ``random`` (which part to replicate) and
numpy's legacy global generator (scipy's distributions), names files and replicated nodes by
``uuid4``, and stamps the instance with the date and the user's name. So that a seed gives the
same file on every machine, a draw (one at a time in a process: :data:`_LOCK`) seeds both
generators from the rng it is given and puts their states back afterwards, numbers the uuids
in order, replicates a set of nodes in sorted order (a set of names iterates in an order that
changes from one process to the next), leaves out the author and the creation date, and dates
the execution, which never happened, 1970-01-01. The tasks become jobs by the WfFormat reader
(:mod:`hetsched.workload.wfformat`).
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points, version
from types import SimpleNamespace
from typing import Annotated, Any

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from hetsched.errors import ConfigError, did_you_mean
from hetsched.fileio import StrictModel
from hetsched.limits import MAX_GRAPH_TASKS
from hetsched.workload.generators import DrawnWorkflow, Generator

#: The optional dependencies' name in hetsched's ``pyproject.toml``.
EXTRA = "workflows"
#: The entry point group that lists the installed recipes (WfCommons' own and wfchef's).
GROUP = "workflow_recipes"
#: The nodes of a recipe's graph that are no task (its virtual start and end).
VIRTUAL_NODES = 2
#: One draw at a time: a draw seeds, and then restores, process-wide generators.
_LOCK = threading.Lock()


def require_wfcommons() -> None:
    """A ConfigError unless the ``wfcommons`` package imports (heavy: pandas, scipy,
    networkx; only this generator imports it)."""
    try:
        import wfcommons  # noqa: F401
    except ImportError as err:
        raise ConfigError(f"generator wfcommons needs the wfcommons package ({err}): pip "
                          f"install 'hetsched[{EXTRA}]'") from None


def recipes() -> dict[str, EntryPoint]:
    """The installed recipes by name, sorted (the entry points of :data:`GROUP`)."""
    require_wfcommons()
    found = {point.name.removesuffix("_recipe"): point for point in entry_points(group=GROUP)}
    return dict(sorted(found.items()))


def recipe_class(name: str) -> Any:
    """The recipe called ``name`` (a name :func:`recipes` lists)."""
    return recipes()[name].load()


def minimum_jobs(name: str) -> int:
    """The fewest tasks recipe ``name`` makes: its smallest real graph's, less its virtual
    nodes (the graphs' sizes are in the recipe's ``microstructures/summary.json``)."""
    recipe = recipe_class(name)()
    summary = json.loads(recipe.this_dir.joinpath("microstructures", "summary.json").read_text())
    return min(graph["order"] for graph in summary["base_graphs"].values()) - VIRTUAL_NODES


class RecipeParams(StrictModel):
    recipe: str
    jobs: Annotated[int, Field(ge=1, le=MAX_GRAPH_TASKS - VIRTUAL_NODES)]

    @field_validator("recipe")
    @classmethod
    def _known(cls, name: str) -> str:
        known = recipes()
        if name not in known:
            raise ValueError(f"unknown recipe '{name}'{did_you_mean(name, list(known), most=3)}"
                             f" (installed: {', '.join(known)})")
        return name

    @field_validator("jobs")
    @classmethod
    def _enough(cls, jobs: int, info: ValidationInfo) -> int:
        name = info.data.get("recipe")
        if name is not None and jobs < (least := minimum_jobs(name)):
            raise ValueError(f"recipe {name} makes workflows of at least {least} tasks "
                             f"(got {jobs})")
        return jobs


def draw_recipe(params: RecipeParams, rng: np.random.Generator) -> DrawnWorkflow:
    """The WfFormat instance recipe ``params.recipe`` draws with at most ``params.jobs`` tasks
    (see the module's docstring)."""
    made = recipe_class(params.recipe)(num_tasks=params.jobs + VIRTUAL_NODES)
    python_seed, numpy_seed = (int(s) for s in rng.integers(2**32, size=2))
    with _LOCK, _isolated(python_seed, numpy_seed):
        try:
            workflow = made.build_workflow()      # named as WfCommons names it
        except ValueError as err:     # WfCommons' own refusal, should its checks change
            raise ConfigError(f"recipe {params.recipe} with jobs {params.jobs}: WfCommons "
                              f"says: {err}") from None
        workflow.description = (f"WfCommons {version('wfcommons')} recipe {params.recipe}, at "
                                f"most {params.jobs} tasks, drawn by hetsched")
        workflow.created_at = workflow.author_name = None
        workflow.executed_at = "1970-01-01T00:00:00+00:00"    # never executed: no date
        workflow.generate_json()
    return DrawnWorkflow(workflow.workflow_json)


@contextmanager
def _isolated(python_seed: int, numpy_seed: int) -> Iterator[None]:
    """WfCommons' process-wide randomness made reproducible for one draw (the module's
    docstring), and put back as it was."""
    from wfcommons.wfchef import duplicate
    from wfcommons.wfgen import abstract_recipe

    counter = itertools.count(1)
    replicate = duplicate.duplicate_nodes

    def numbered() -> uuid.UUID:
        return uuid.UUID(int=next(counter), version=4)

    def in_order(graph: Any, nodes: Any) -> Any:
        ordered = sorted(nodes, key=str) if isinstance(nodes, (set, frozenset)) else nodes
        return replicate(graph, ordered)

    patches = ((duplicate, "uuid4", numbered), (duplicate, "duplicate_nodes", in_order),
               (abstract_recipe, "uuid", SimpleNamespace(uuid4=numbered)))
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    states = random.getstate(), np.random.get_state()
    try:
        for module, name, value in patches:
            setattr(module, name, value)
        random.seed(python_seed)
        np.random.seed(numpy_seed)
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        random.setstate(states[0])
        np.random.set_state(states[1])


GENERATORS = (
    Generator("wfcommons", RecipeParams, draw_recipe,
              "A workflow from a WfCommons recipe (montage, epigenomics, seismology, …: "
              f"pip install 'hetsched[{EXTRA}]'); its tasks become jobs as a WfFormat file's",
              dag=True),
)
