"""Workload generators: seeded models that write a trace instead of reading one.

A generator draws an SWF-like table (submit time, processors, run time, requested time) from
its parameters and a seed; the table becomes jobs for a platform by the SWF rules
(:func:`hetsched.workload.swf.table_workload`): run times refer to the platform's slowest
core unless a reference speed is given, and the placement option applies. The same name,
parameters and seed give the same workload on every machine.

Each model is a :class:`Generator` in :data:`GENERATORS`: a schema for its parameters (checked
before anything is drawn, so a typo such as ``jobs: 1e12`` fails at once) and a function
``draw(params, rng)`` that returns the table, or a :class:`Drawn` when the model also draws job
fields SWF has no column for (``irmasim``: ``mem_vol``), or a :class:`DrawnWorkflow` when it
draws a WfFormat workflow instance (``wfcommons``), whose tasks become jobs by the WfFormat
reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from hetsched.fileio import validate
from hetsched.platform.model import Platform
from hetsched.registry import Entry, Registry
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions


@dataclass(frozen=True)
class Drawn:
    """What a generator drew: the SWF table, and per row the values of job fields SWF cannot
    hold (``Job`` attribute name -> column)."""

    table: np.ndarray
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class DrawnWorkflow:
    """What a workflow generator drew: a WfFormat instance (the parsed JSON document)."""

    document: Mapping[str, Any]


@dataclass(frozen=True)
class Generator:
    """A workload model: its parameters' schema, what it draws, and one line about it;
    ``dag``: it draws jobs' ``parents`` (``hetsched generate dag`` offers it)."""

    name: str
    params: type[BaseModel]
    draw: Callable[[Any, np.random.Generator], np.ndarray | Drawn | DrawnWorkflow]
    description: str
    dag: bool = False


def _builtins() -> Iterator[Entry]:
    from hetsched.workload.generators import irmasim, layered, lublin, recipes, simple, stream

    for module in (simple, lublin, irmasim, layered, stream, recipes):
        yield from (Entry(g.name, g) for g in module.GENERATORS)


#: The workload generators by name (their modules are imported on first use).
GENERATORS = Registry("workload generator", __name__, _builtins)


def generator(name: str) -> Generator:
    """The generator called ``name``, or a ConfigError listing the known ones."""
    return GENERATORS.load(name)


def dag_generators() -> tuple[str, ...]:
    """The names of the generators that draw DAGs."""
    return tuple(name for name in GENERATORS if GENERATORS.load(name).dag)


def check_params(name: str, params: Mapping[str, Any], source: Path) -> BaseModel:
    """The parameters of generator ``name``, checked; errors name ``source`` and the field."""
    return validate(generator(name).params, dict(params), source)


def draw(name: str, params: BaseModel, seed: int) -> Drawn | DrawnWorkflow:
    """What generator ``name`` draws with ``params`` and ``seed``."""
    drawn = generator(name).draw(params, np.random.default_rng(seed))
    return drawn if isinstance(drawn, (Drawn, DrawnWorkflow)) else Drawn(drawn)


def generate(name: str, params: BaseModel, seed: int, platform: Platform,
             swf: SwfOptions = SwfOptions()) -> Workload:
    """The workload generator ``name`` draws with ``params`` and ``seed``, for ``platform``."""
    return drawn_workload(name, seed, draw(name, params, seed), platform, swf,
                          {"Generator": name, "Seed": seed})


def drawn_workload(name: str, seed: int, drawn: Drawn | DrawnWorkflow, platform: Platform,
                   swf: SwfOptions, metadata: dict[str, object]) -> Workload:
    """The jobs of a draw for ``platform``: a workflow's by the WfFormat reader; a table by
    the SWF rules, then the extra fields (rows are found by job number, which is the row's
    position from 1)."""
    from hetsched.workload.swf import table_workload

    label, source = f"{name} seed {seed}", f"generator:{name}"
    if isinstance(drawn, DrawnWorkflow):
        from hetsched.workload.wfformat import wfformat_workload_from_data

        read = wfformat_workload_from_data(drawn.document, Path(source), platform,
                                           swf.reference_speed)
        return replace(read, name=label, metadata={**read.metadata, **metadata})
    workload = table_workload(label, source, platform, swf, drawn.table, metadata)
    if not drawn.extra:
        return workload
    columns = {key: values.tolist() for key, values in drawn.extra.items()}
    jobs = tuple(replace(job, **{key: values[int(job.id) - 1] for key, values in columns.items()})
                 for job in workload.jobs)
    return replace(workload, jobs=jobs)
